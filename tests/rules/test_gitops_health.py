"""gitops-health: a Flux layer waiting on a batch Job, as the repository shipped it (found), through
healthChecks (checks-the-job), as fixed (fixed), and where an expression decides (impersonating);
and kustomize-controller's reading of a Job, case by case."""

from __future__ import annotations

import pytest

from helpers import RULE_FIXTURES, findings_by_root
from trainops.knowledge.gitops_health import flux_job_status

RULE = "gitops-health"


@pytest.fixture(scope="module")
def found() -> dict[str, list[tuple[str, str, str]]]:
    return findings_by_root(RULE, RULE_FIXTURES / RULE / "trainops.yaml")


def test_wait_on_a_layer_with_a_job(found):
    [(obj, path, message)] = found["found"]
    assert obj == "Kustomization/flux-system/trainops-workloads" and path == "spec.wait"
    assert message.startswith(
        "Kustomization trainops-workloads waits (wait: true) for Job recommender-train, and "
        "kustomize-controller counts a batch Job InProgress until it completes"
    )
    assert "runtime/statusreaders/job.go jobConditions" in message
    assert "each reconcile waits up to its timeout (30m)" in message


def test_health_check_naming_the_job(found):
    [(_, path, message)] = found["checks-the-job"]
    assert path == "spec.healthChecks"
    assert "waits (healthChecks) for Job recommender-train" in message


def test_fixed_and_impersonating_are_clean(found):
    assert "fixed" not in found
    assert "impersonating" not in found


# fluxcd/pkg runtime/statusreaders/job_test.go Test_jobConditions at runtime/v0.110.1 (commit
# 504330660f5b5e27b3da13a185b8649982afd3d4), each case named after its t.Run; the last, a running
# Job, is the one the rule is about. The messages are their first words.
_COMPLETE = {"conditions": [{"type": "Complete", "status": "True"}]}
_FAILED = {"failed": 1, "conditions": [{"type": "Failed", "status": "True"}]}


@pytest.mark.parametrize(
    ("job", "expected"),
    [
        pytest.param(
            {"status": {}},
            ("InProgress", "Job not started"),
            id="job without Complete condition returns InProgress status",
        ),
        pytest.param(
            {"status": _COMPLETE},
            ("Current", "Job Completed"),
            id="job with Complete condition as True returns Current status",
        ),
        pytest.param(
            {"spec": {"suspend": True}},
            ("Current", "Job is suspended"),
            id="suspended job returns Current status",
        ),
        pytest.param(
            {"status": _FAILED},
            ("Failed", "Job Failed"),
            id="job with Failed condition as True returns Failed status",
        ),
        pytest.param(
            {"spec": {"parallelism": 3}},
            ("InProgress", "Job not started"),
            id="job not started returns InProgress status",
        ),
        pytest.param(
            {},
            ("InProgress", "Job not started"),
            id="job without status field returns InProgress status",
        ),
        pytest.param(
            {
                "status": {
                    "startTime": "2026-01-01T00:00:00Z",
                    "active": 2,
                    "succeeded": 1,
                    "failed": 1,
                }
            },
            ("InProgress", "Job in progress"),
            id="job in progress returns InProgress status",
        ),
    ],
)
def test_flux_job_status(job, expected):
    """fluxcd/pkg runtime v0.110.1 runtime/statusreaders/job.go jobConditions."""
    assert flux_job_status(job) == expected
