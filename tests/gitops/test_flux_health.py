"""The Flux healthCheckExprs, evaluated by a real CEL implementation the way kustomize-controller does.

Flux (fluxcd/pkg runtime/cel/status_evaluator.go, documented in kustomize-controller's
docs/spec/v1/kustomizations.md, "Health check expressions"): an object whose
status.observedGeneration differs from metadata.generation is InProgress; otherwise inProgress,
failed and current are evaluated in that order and the first true one decides; none true is
InProgress; an expression that cannot be evaluated is an error. The object's top-level fields are
the expressions' variables.

The evaluator is common-expression-language (cel-rust): like cel-go, which Flux runs, it fails on a
top-level field the object lacks, where cel-python answers false.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crd_statuses import uncovered
from helpers import ENVIRONMENTS, REPO, load_yaml, rendered_docs

cel = pytest.importorskip("cel")

SAMPLES = load_yaml((Path(__file__).parent / "flux_health_samples.yaml").read_text())


def flux_status(check: dict, obj: dict) -> str:
    status, metadata = obj.get("status") or {}, obj.get("metadata") or {}
    if (
        "observedGeneration" in status
        and "generation" in metadata
        and status["observedGeneration"] != metadata["generation"]
    ):
        return "InProgress"
    for field, verdict in (
        ("inProgress", "InProgress"),
        ("failed", "Failed"),
        ("current", "Current"),
    ):
        if field not in check:
            continue
        try:
            result = cel.evaluate(check[field], obj)
        except (
            ValueError,
            RuntimeError,
            KeyError,
            TypeError,
        ):  # what cel raises when it cannot evaluate
            return "Error"
        if result is True:
            return verdict
    return "InProgress"


@pytest.fixture(scope="module")
def checks(renderer) -> dict[str, dict[str, dict]]:
    """env -> apiVersion/kind -> the health check expression set, as each entry point ships it."""
    found = {}
    for env in ENVIRONMENTS:
        for doc in rendered_docs(renderer, REPO / "gitops" / "flux" / env):
            for check in (doc.get("spec") or {}).get("healthCheckExprs") or []:
                key = f"{check['apiVersion']}/{check['kind']}"
                assert found.setdefault(env, {}).setdefault(key, check) == check, (
                    f"two checks for {key} in {env}"
                )
    return found


def test_every_check_has_samples_and_every_sample_a_check(checks):
    assert {key for by_kind in checks.values() for key in by_kind} == set(SAMPLES)


@pytest.mark.parametrize("key", sorted(SAMPLES))
def test_samples_cover_every_status_the_pinned_operators_define(key):
    group, kind = key.rpartition("/")[0].rpartition("/")[0], key.rpartition("/")[2]
    assert uncovered((group, kind), [case["object"] for case in SAMPLES[key]]) == set()


CASES = [(key, case) for key, cases in SAMPLES.items() for case in cases]


@pytest.mark.parametrize(
    ("key", "case"), CASES, ids=[f"{k.rsplit('/', 1)[-1]}-{c['name']}" for k, c in CASES]
)
def test_flux_derives_the_expected_status(checks, key, case):
    shipped = {env: by_kind[key] for env, by_kind in checks.items() if key in by_kind}
    for env, check in shipped.items():
        assert flux_status(check, case["object"]) == case["expect"], env


# The PyTorchJob check as the repository first had it: a queued job stayed in progress until the
# workloads Kustomization's 30-minute timeout failed it.
AS_FOUND = {
    "current": "has(status.conditions) && status.conditions.exists(c, c.type in ['Running', 'Succeeded'] && c.status == 'True')",
    "failed": "has(status.conditions) && status.conditions.exists(c, c.type == 'Failed' && c.status == 'True')",
}


def test_a_queued_job_does_not_fail_the_kustomization(checks):
    """Kueue keeps a job suspended while it waits: like Flux's own Job reader, that is current."""
    suspended = {
        "status": {
            "conditions": [
                {"type": "Created", "status": "True"},
                {"type": "Suspended", "status": "True"},
            ]
        }
    }
    assert flux_status(AS_FOUND, suspended) == "InProgress"
    for env in ENVIRONMENTS:
        assert flux_status(checks[env]["kubeflow.org/v1/PyTorchJob"], suspended) == "Current"


def test_the_evaluation_follows_flux():
    # A field the object lacks is an error, not false; a stale observedGeneration wins over any expression.
    assert flux_status({"current": "status.missing == 'x'"}, {"status": {}}) == "Error"
    assert (
        flux_status(
            {"current": "true"},
            {"metadata": {"generation": 2}, "status": {"observedGeneration": 1}},
        )
        == "InProgress"
    )
