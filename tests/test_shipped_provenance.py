"""Issue 43's provenance and enforcement defects as the repository shipped them, judged on the
rendered environments in memory (the session's renders): trainops.yaml declaring the placeholder
ghcr.io/example as the cloud environments' registry with nothing acknowledging it, and the
profiles naming no NetworkPolicy engine. Each is an error naming the object and the upstream fact;
the repository as it is, with `placeholder: true` and each profile's engine, is not."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
import yaml

from helpers import REPO
from trainops.model.config import load_config
from trainops.model.findings import Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.rules import RULES, network_policy_enforced, provenance


def _as_shipped(tmp_path):
    text = (REPO / "trainops.yaml").read_text()
    text = re.sub(r"\nprovenance:\n(  .*\n)+", "\n", text)
    text = text.replace(
        "overlays/cloud: gke", "overlays/cloud: {profile: gke, registry: ghcr.io/example}"
    )
    text = text.replace(
        "overlays/gpu: eks", "overlays/gpu: {profile: eks, registry: ghcr.io/example}"
    )
    text = re.sub(r"\n    networkPolicy:\n(      .*\n)+", "\n", text)
    (tmp_path / "trainops.yaml").write_text(text)
    config = load_config(tmp_path / "trainops.yaml", set(RULES))
    assert config is not None and config.provenance is None
    return replace(config, folder=REPO)


def _cluster(config, folder: str, docs: list[dict]) -> tuple[Rendered, Cluster]:
    objects = [K8sObject(doc, f"{folder}/{index}.yaml", 1) for index, doc in enumerate(docs)]
    rendered = Rendered(folder, REPO / folder, objects)
    return rendered, Cluster([rendered], config=config)


def _repository_config():
    config = load_config(REPO / "trainops.yaml", set(RULES))
    assert config is not None
    return config


@pytest.mark.parametrize("env", ["cloud", "gpu"])
def test_the_shipped_images_are_an_error_and_now_a_warning(overlays, tmp_path, env):
    docs = overlays[(env, "workloads")]
    rendered, cluster = _cluster(_as_shipped(tmp_path), f"overlays/{env}/workloads", docs)
    [finding] = list(provenance.check(rendered, cluster))
    assert finding.severity is Severity.ERROR
    assert finding.message.startswith(f"environment overlays/{env} (a ")
    # The Job's, the distributed training's and the RayJob's images; on GPUs also the elastic
    # PyTorchJob's rendezvous store, on the CPU torch image.
    places = {"cloud": 3, "gpu": 4}[env]
    assert (
        f"names a placeholder owner in {places} places (image ghcr.io/example/bookstore/"
        in finding.message
    )
    assert "owner 'example' is RFC 2606's placeholder word" in finding.message
    assert "may not ship one unacknowledged" in finding.message
    rendered, cluster = _cluster(_repository_config(), f"overlays/{env}/workloads", docs)
    [finding] = list(provenance.check(rendered, cluster))
    assert finding.severity is Severity.WARNING
    assert "acknowledges it (provenance.placeholder: true)" in finding.message


@pytest.mark.parametrize("folder", ["gitops/flux/cloud", "gitops/argocd/gpu/apps"])
def test_the_shipped_gitops_sources_of_a_cloud_environment_are_an_error(tmp_path, folder):
    docs = [
        doc
        for path in sorted((REPO / folder).glob("*.yaml"))
        if path.name != "kustomization.yaml"
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]
    rendered, cluster = _cluster(_as_shipped(tmp_path), folder, docs)
    [finding] = list(provenance.check(rendered, cluster))
    assert finding.severity is Severity.ERROR
    assert "https://github.com/example/trainops.git" in finding.message


@pytest.mark.parametrize(("env", "profile"), [("cloud", "gke"), ("gpu", "eks")])
def test_the_shipped_profiles_enforce_no_network_policy(overlays, tmp_path, env, profile):
    docs = overlays[(env, "platform")]
    rendered, cluster = _cluster(_as_shipped(tmp_path), f"overlays/{env}/platform", docs)
    found = list(network_policy_enforced.check(rendered, cluster))
    policies = [d["metadata"]["name"] for d in docs if d["kind"] == "NetworkPolicy"]
    assert policies and len(found) == len(policies)
    assert all(f.severity is Severity.ERROR for f in found)
    assert {f.object.name for f in found} == set(policies)
    assert all(
        f"profile {profile} (environment overlays/{env}) declares no NetworkPolicy engine"
        in f.message
        and "the policy has no effect" in f.message
        for f in found
    )
    rendered, cluster = _cluster(_repository_config(), f"overlays/{env}/platform", docs)
    assert list(network_policy_enforced.check(rendered, cluster)) == []
