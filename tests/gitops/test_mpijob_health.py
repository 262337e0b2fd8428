"""The mpi environment's Argo CD health check for the MPI Operator v0.8.0's MPIJob
(kubeflow.org/v2beta1), merged into argocd-cm by gitops/argocd/mpi/apps, run by a real Lua 5.1 on
an MPIJob in each condition the pinned operator defines (pkg/apis/kubeflow/v2beta1/types.go)."""

from __future__ import annotations

import pytest

from helpers import REPO, rendered_docs

lua51 = pytest.importorskip("lupa.lua51")

KEY = "resource.customizations.health.kubeflow.org_MPIJob"


@pytest.fixture(scope="module")
def script(renderer) -> str:
    [config_map] = [
        d
        for d in rendered_docs(renderer, REPO / "gitops" / "argocd" / "mpi" / "apps")
        if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "argocd-cm"
    ]
    assert "resource.customizations.health.kubeflow.org_PyTorchJob" in config_map["data"]
    return config_map["data"][KEY]


def _job(*conditions: tuple[str, str]) -> dict:
    job = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "j"}}
    if conditions:
        job["status"] = {
            "conditions": [
                {"type": kind, "status": status, "message": f"MPIJob j {kind.lower()}"}
                for kind, status in conditions
            ]
        }
    return job


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        ((), "Progressing"),
        ((("Created", "True"),), "Progressing"),
        ((("Created", "True"), ("Suspended", "True")), "Suspended"),
        ((("Created", "True"), ("Suspended", "False"), ("Running", "True")), "Progressing"),
        ((("Created", "True"), ("Running", "True"), ("Restarting", "True")), "Progressing"),
        ((("Created", "True"), ("Running", "False"), ("Succeeded", "True")), "Healthy"),
        ((("Created", "True"), ("Running", "False"), ("Failed", "True")), "Degraded"),
    ],
)
def test_mpijob_health(script, conditions, expected):
    lua = lua51.LuaRuntime(unpack_returned_tuples=True)
    lua.globals().obj = lua.table_from(_job(*conditions), recursive=True)
    result = lua.execute(script)
    assert result["status"] == expected
