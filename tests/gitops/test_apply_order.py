"""Each environment's Argo CD and Flux entry points, rendered: health checks first, then operators,
platform, workloads, each custom resource after its CRD."""

from __future__ import annotations

import pytest

from helpers import ENVIRONMENTS, LAYERS, REPO, rendered_docs

HEALTH_KEY = "resource.customizations.health."
# Custom kinds whose CRDs the GitOps tool itself installs, not a layer.
GITOPS_KINDS = {
    ("argoproj.io", "Application"),
    ("kustomize.toolkit.fluxcd.io", "Kustomization"),
    ("source.toolkit.fluxcd.io", "GitRepository"),
}


def group_kind(doc: dict) -> tuple[str, str]:
    return doc["apiVersion"].rpartition("/")[0], doc["kind"]


def crd_kinds(docs: list[dict]) -> set[tuple[str, str]]:
    return {
        (d["spec"]["group"], d["spec"]["names"]["kind"])
        for d in docs
        if d["kind"] == "CustomResourceDefinition"
    }


@pytest.fixture(scope="module")
def installed_by(overlays) -> dict[str, dict[tuple[str, str], str]]:
    """env -> custom kind -> the layer installing its CRD."""
    return {
        env: {
            kind: layer for layer in reversed(LAYERS) for kind in crd_kinds(overlays[(env, layer)])
        }
        for env in ENVIRONMENTS
    }


def custom_kinds(docs: list[dict], installed: dict) -> set[tuple[str, str]]:
    return {group_kind(d) for d in docs if group_kind(d) in installed}


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_argocd_health_checks_then_operators_platform_workloads(
    renderer, overlays, installed_by, env
):
    docs = rendered_docs(renderer, REPO / "gitops" / "argocd" / env / "apps")
    assert {group_kind(d) for d in docs} == {("", "ConfigMap"), ("argoproj.io", "Application")}
    [health] = [d for d in docs if d["kind"] == "ConfigMap"]
    assert (health["metadata"]["name"], health["metadata"]["namespace"]) == ("argocd-cm", "argocd")
    assert set(health["metadata"]["annotations"]["argocd.argoproj.io/sync-options"].split(",")) == {
        "ServerSideApply=true",
        "Prune=false",
        "Delete=false",
    }
    wave = {
        d["spec"]["source"]["path"].rsplit("/", 1)[-1]: int(
            d["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"]
        )
        for d in docs
        if d["kind"] == "Application"
    }
    health_wave = int(health["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"])
    assert health_wave < wave["operators"] < wave["platform"] < wave["workloads"]
    installed = installed_by[env]
    # Every custom kind a layer applies has its CRD from an earlier wave, and a health check.
    checked = {tuple(key.removeprefix(HEALTH_KEY).rsplit("_", 1)) for key in health["data"]}
    assert ("argoproj.io", "Application") in checked
    for layer in LAYERS:
        for kind in custom_kinds(overlays[(env, layer)], installed):
            assert wave[installed[kind]] < wave[layer], (layer, kind)
    for kind in custom_kinds(overlays[(env, "workloads")], installed):
        assert kind in checked, kind


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_flux_health_checks_then_operators_platform_workloads(
    renderer, overlays, installed_by, env
):
    docs = rendered_docs(renderer, REPO / "gitops" / "flux" / env)
    assert {group_kind(d) for d in docs} <= GITOPS_KINDS
    kustomizations = {
        d["spec"]["path"].rsplit("/", 1)[-1]: d for d in docs if d["kind"] == "Kustomization"
    }
    # Flux's health checks are part of the entry point itself (healthCheckExprs), in place before any
    # layer is applied; dependsOn (transitively) orders the layers.
    names = {k["metadata"]["name"]: layer for layer, k in kustomizations.items()}
    before = {layer: set() for layer in LAYERS}
    for layer, k in kustomizations.items():
        pending = [d["name"] for d in k["spec"].get("dependsOn", [])]
        while pending:
            dependency = names[pending.pop()]
            before[layer].add(dependency)
            pending += [d["name"] for d in kustomizations[dependency]["spec"].get("dependsOn", [])]
        assert k["spec"]["wait"] is True or k["spec"]["healthChecks"]
    assert before == {
        "operators": set(),
        "platform": {"operators"},
        "workloads": {"operators", "platform"},
    }
    installed = installed_by[env]
    for layer in LAYERS:
        kinds = custom_kinds(overlays[(env, layer)], installed)
        for kind in kinds:
            assert installed[kind] in before[layer], (layer, kind)
        judged = {
            (c["apiVersion"].rpartition("/")[0], c["kind"])
            for c in kustomizations[layer]["spec"].get("healthCheckExprs", [])
        }
        # ResourceFlavor and WorkloadPriorityClass have no status: kstatus counts them current.
        no_status = {
            ("kueue.x-k8s.io", "ResourceFlavor"),
            ("kueue.x-k8s.io", "WorkloadPriorityClass"),
        }
        assert kinds - no_status <= judged, layer
