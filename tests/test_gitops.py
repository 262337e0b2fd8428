"""Argo CD and Flux entry points: they point at paths that exist and apply the layers in order."""

from __future__ import annotations

import pytest
import yaml

from helpers import ENVIRONMENTS, LAYERS, REPO, rendered_docs

FLOATING = {"HEAD", "main", "master", "latest", ""}


def read(path):
    return [d for d in yaml.safe_load_all((REPO / path).read_text()) if d]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_argocd_root_app_points_at_the_layer_applications(env):
    [root] = read(f"gitops/argocd/{env}/root-app.yaml")
    assert root["spec"]["source"]["path"] == f"gitops/argocd/{env}/apps"
    assert (REPO / root["spec"]["source"]["path"] / "kustomization.yaml").is_file()
    assert root["spec"]["source"]["targetRevision"] not in FLOATING


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_argocd_layers_sync_in_wave_order_from_existing_pinned_paths(renderer, env):
    apps = [
        d
        for d in rendered_docs(renderer, REPO / "gitops" / "argocd" / env / "apps")
        if d["kind"] == "Application"
    ]
    by_layer = {app["spec"]["source"]["path"].rsplit("/", 1)[-1]: app for app in apps}
    assert set(by_layer) == set(LAYERS)
    waves = [
        int(by_layer[layer]["metadata"]["annotations"]["argocd.argoproj.io/sync-wave"])
        for layer in LAYERS
    ]
    assert waves == sorted(waves) and len(set(waves)) == 3
    for layer, app in by_layer.items():
        source = app["spec"]["source"]
        assert source["path"] == f"overlays/{env}/{layer}"
        assert (REPO / source["path"] / "kustomization.yaml").is_file()
        assert source["targetRevision"] not in FLOATING
        options = app["spec"]["syncPolicy"]["syncOptions"]
        retry = app["spec"]["syncPolicy"]["retry"]
        assert retry["limit"] > 0 and retry["backoff"]["factor"] > 1
        if layer == "operators":
            assert "ServerSideApply=true" in options
            ignored = {d["kind"] for d in app["spec"]["ignoreDifferences"]}
            assert {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} <= ignored
        else:
            assert "SkipDryRunOnMissingResource=true" in options
    assert "ApplyOutOfSyncOnly=true" in by_layer["workloads"]["spec"]["syncPolicy"]["syncOptions"]
    ignored = {
        (d["kind"], tuple(d.get("jqPathExpressions") or d.get("jsonPointers")))
        for d in by_layer["workloads"]["spec"]["ignoreDifferences"]
    }
    assert ("RayCluster", (".spec.workerGroupSpecs[]?.replicas",)) in ignored


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_flux_layers_depend_on_each_other_wait_and_prune(renderer, env):
    docs = rendered_docs(renderer, REPO / "gitops" / "flux" / env)
    [source] = [d for d in docs if d["kind"] == "GitRepository"]
    assert set(source["spec"]["ref"]) == {"tag"} and source["spec"]["ref"]["tag"] not in FLOATING
    kustomizations = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Kustomization"}
    names = [f"trainops-{layer}" for layer in LAYERS]
    assert set(kustomizations) == set(names)
    for before, name in zip([None, *names], names):
        spec = kustomizations[name]["spec"]
        assert spec["path"] == f"./overlays/{env}/{name.removeprefix('trainops-')}"
        assert (REPO / spec["path"] / "kustomization.yaml").is_file()
        assert spec["prune"] is True
        # The workloads layer waits on its runs through health checks, never on everything it
        # applies: kustomize-controller counts a running batch Job InProgress (gitops-health).
        assert spec["wait"] is (name != "trainops-workloads")
        assert spec["sourceRef"] == {"kind": "GitRepository", "name": source["metadata"]["name"]}
        assert [d["name"] for d in spec.get("dependsOn", [])] == ([before] if before else [])
    kinds = {
        check["kind"] for check in kustomizations["trainops-workloads"]["spec"]["healthCheckExprs"]
    }
    assert {"PyTorchJob", "RayJob"} <= kinds
    checked = kustomizations["trainops-workloads"]["spec"]["healthChecks"]
    assert {c["kind"] for c in checked} <= kinds
    assert {c["kind"] for c in checked} >= {"PyTorchJob", "RayJob", "JobSet"}
    assert not any(c["apiVersion"] == "batch/v1" for c in checked)


def test_every_environment_has_both_entry_points():
    environments = {p.name for p in (REPO / "overlays").iterdir() if p.is_dir()}
    assert environments == set(ENVIRONMENTS)
    for env in environments:
        assert (REPO / "gitops" / "argocd" / env / "root-app.yaml").is_file()
        assert (REPO / "gitops" / "flux" / env / "kustomization.yaml").is_file()


@pytest.mark.parametrize(
    ("root", "crds"),
    [
        (
            "gitops/crds/argo-cd",
            {"applications.argoproj.io", "applicationsets.argoproj.io", "appprojects.argoproj.io"},
        ),
        (
            "gitops/crds/flux",
            {
                "gitrepositories.source.toolkit.fluxcd.io",
                "kustomizations.kustomize.toolkit.fluxcd.io",
                "helmreleases.helm.toolkit.fluxcd.io",
            },
        ),
    ],
)
def test_gitops_crds_render_from_pinned_remote_bases(renderer, root, crds):
    names = {
        d["metadata"]["name"]
        for d in rendered_docs(renderer, REPO / root)
        if d["kind"] == "CustomResourceDefinition"
    }
    assert crds <= names
