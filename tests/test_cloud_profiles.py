"""Every environment has a cluster profile, and every cloud's component schedules and stores the
workloads on that cloud's profile — the GPU and spot flavors included — so a team moving an
environment to another cloud changes its profile and its component, nothing else."""

from __future__ import annotations

import os

import pytest
import yaml

from helpers import ENVIRONMENTS, REPO, validated_clean, write_tree
from trainops.model.config import load_config
from trainops.rules import RULES

SELECTED = {"storage", "schedulable", "runnable"}


def test_every_environment_has_a_profile():
    config = load_config(REPO / "trainops.yaml", RULES)
    assert {f"overlays/{env}" for env in ENVIRONMENTS} <= set(config.environments)
    assert {"kind", "gke", "eks", "aks"} <= set(config.profiles)


@pytest.mark.parametrize("cloud", ["gke", "eks", "aks"])
def test_each_cloud_component_fits_its_profile_with_spot_and_gpus(renderer, tmp_path, cloud):
    repository = load_config(REPO / "trainops.yaml", RULES)
    layers = {
        "platform": (["base"], ["spot-platform", "gpu-platform", f"cloud-{cloud}"]),
        "workloads": (
            ["workloads/bookstore-ml"],
            ["spot-elastic", "gpu-workloads", f"cloud-{cloud}"],
        ),
    }
    files = {
        "trainops.yaml": yaml.safe_dump(
            {
                "roots": ["env/*"],
                "environments": {"env": cloud},
                "profiles": {cloud: repository.profiles[cloud]},
                "images": repository.images,
            }
        )
    }
    for layer, (resources, components) in layers.items():
        # kustomize takes other kustomizations by relative path only.
        def relative(path: str, layer: str = layer) -> str:
            return os.path.relpath(REPO / path, tmp_path / "env" / layer)

        files[f"env/{layer}/kustomization.yaml"] = yaml.safe_dump(
            {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "resources": [relative(r) for r in resources],
                "components": [relative(f"components/{c}") for c in components],
            }
        )
    config = load_config(write_tree(tmp_path, files) / "trainops.yaml", RULES)
    outcome = validated_clean(renderer, config, SELECTED)
    rendered = [o.doc for r in outcome.rendered for o in r.objects]
    flavors = {
        d["metadata"]["name"]: d.get("spec", {}) for d in rendered if d["kind"] == "ResourceFlavor"
    }
    assert flavors["spot"]["nodeLabels"] and flavors["gpu"]["nodeLabels"]
    [claim] = [d for d in rendered if d["kind"] == "PersistentVolumeClaim"]
    assert claim["spec"]["storageClassName"] in repository.profiles[cloud]["storageClasses"]
