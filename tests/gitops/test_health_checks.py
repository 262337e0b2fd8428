"""The Argo CD Lua health checks, run by a real Lua 5.1 on sample objects.

The scripts are taken from the rendered argocd-cm ConfigMap, exactly as Argo CD would read them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crd_statuses import uncovered
from helpers import REPO, load_yaml, rendered_docs

lua51 = pytest.importorskip("lupa.lua51")

SAMPLES = load_yaml((Path(__file__).parent / "health_samples.yaml").read_text())
ARGO_STATUSES = {"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}


@pytest.fixture(scope="module")
def scripts(renderer) -> dict[str, str]:
    [config_map] = rendered_docs(renderer, REPO / "gitops" / "argocd" / "health-checks")
    assert (config_map["metadata"]["name"], config_map["metadata"]["namespace"]) == (
        "argocd-cm",
        "argocd",
    )
    return config_map["data"]


def run_health_check(script: str, obj: dict) -> dict:
    lua = lua51.LuaRuntime(unpack_returned_tuples=True)
    lua.globals().obj = lua.table_from(obj, recursive=True)
    result = lua.execute(script)
    return {"status": result["status"], "message": result["message"]}


def test_every_shipped_check_has_samples_and_every_sample_a_check(scripts):
    assert set(scripts) == set(SAMPLES)


# An Application's health is Argo CD's own status, passed through: no operator defines it.
@pytest.mark.parametrize(
    "key", sorted(k for k in SAMPLES if not k.endswith("argoproj.io_Application"))
)
def test_samples_cover_every_status_the_pinned_operators_define(key):
    group, _, kind = key.removeprefix("resource.customizations.health.").rpartition("_")
    assert uncovered((group, kind), [case["object"] for case in SAMPLES[key]]) == set()


CASES = [(key, case) for key, cases in SAMPLES.items() for case in cases]


@pytest.mark.parametrize(
    ("key", "case"), CASES, ids=[f"{k.rsplit('.', 1)[-1]}-{c['name']}" for k, c in CASES]
)
def test_health_check_reports_the_expected_status(scripts, key, case):
    health = run_health_check(scripts[key], case["object"])
    assert health["status"] in ARGO_STATUSES
    assert health["status"] == case["expect"]["status"], health
    if "message" in case["expect"]:
        assert case["expect"]["message"].lower() in (health["message"] or "").lower(), health


def test_a_broken_script_would_fail_here(scripts):
    with pytest.raises(lua51.LuaError):
        run_health_check("return obj.status.health.status", {})
