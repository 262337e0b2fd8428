"""GPU sharing on the gpu environment's cluster (docs/environments.md, "GPU sharing"): the
NVIDIA device plugin's configurations, and each sharing component — time-slicing, MIG — composed
alone or together after gpu-platform, with a job on its shared GPUs admitted, scheduled and
runnable on trainops.yaml's eks profile."""

from __future__ import annotations

import os

import pytest
import yaml

from helpers import REPO, rendered_docs, validated_clean, write_tree
from trainops.check.validate import Root, validate
from trainops.knowledge import flavors, profiles
from trainops.model.config import load_config
from trainops.render import kustomization
from trainops.rules import RULES

SHARING = {"gpu-time-slicing": "nvidia.com/gpu.shared", "gpu-mig": "nvidia.com/mig-1g.10gb"}
FLAVORS = {"gpu-time-slicing": "gpu-shared", "gpu-mig": "gpu-mig"}
SELECTED = {"schedulable", "kueue-admission", "runnable", "capacity", "api-validation"}


@pytest.fixture(scope="module")
def platform(renderer) -> list[dict]:
    return rendered_docs(renderer, REPO / "overlays" / "gpu" / "platform")


def test_device_plugin_configurations(platform):
    """NVIDIA's config file v1: whole GPUs by default, 4 time-sliced replicas renamed
    nvidia.com/gpu.shared, and the mixed MIG strategy (NVIDIA GPU Operator docs,
    gpu-sharing.html and gpu-operator-mig.html)."""
    [config_map] = [
        d
        for d in platform
        if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "nvidia-device-plugin-config"
    ]
    assert config_map["metadata"]["namespace"] == "kube-system"
    configs = {key: yaml.safe_load(text) for key, text in config_map["data"].items()}
    assert set(configs) == {"whole-gpus", "time-sliced-4", "mig-mixed"}
    assert all(c["version"] == "v1" for c in configs.values())
    assert configs["whole-gpus"]["flags"] == {"migStrategy": "none"}
    slicing = configs["time-sliced-4"]["sharing"]["timeSlicing"]
    assert slicing["resources"] == [{"name": "nvidia.com/gpu", "replicas": 4}]
    assert slicing["renameByDefault"] is True and slicing["failRequestsGreaterThanOne"] is True
    assert configs["mig-mixed"]["flags"] == {"migStrategy": "mixed"}


def test_each_sharing_flavor_selects_the_node_group_exposing_its_resource(platform):
    config = load_config(REPO / "trainops.yaml", RULES)
    eks = profiles.profile_from("eks", config.profiles["eks"])
    defined = {
        d["metadata"]["name"]: d.get("spec", {}) for d in platform if d["kind"] == "ResourceFlavor"
    }
    for component, resource in SHARING.items():
        pools = flavors.pools_of(defined[FLAVORS[component]], eks, tolerated=True)
        assert [p.name for p in pools] == [FLAVORS[component]]
        assert pools[0].allocatable[resource] > 0
        # And the pool the device plugin configuration names is labelled to read it.
        assert pools[0].labels["nvidia.com/device-plugin.config"] in {"time-sliced-4", "mig-mixed"}
    # Time-sliced GPUs are renamed: that node group offers no whole GPU.
    [shared] = [p for p in eks.pools if p.name == "gpu-shared"]
    assert "nvidia.com/gpu" not in shared.allocatable


JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: notebook
  namespace: bookstore-ml
  labels: {kueue.x-k8s.io/queue-name: bookstore-ml-lq}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: bookstore/recommender-train-cuda:0.1.0
          resources:
            requests: {cpu: "1", memory: 2Gi, RESOURCE: "1"}
            limits: {memory: 2Gi, RESOURCE: "1"}
"""


# The GPU flavors declare the GPU node groups' taint as nodeTaints: Kueue admits into them only
# pods that tolerate it.
TOLERATION = """      restartPolicy: Never
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
"""


def _environment(tmp_path, components: list[str], resource: str, tolerating: bool = True):
    repository = load_config(REPO / "trainops.yaml", RULES)
    files = {
        "trainops.yaml": yaml.safe_dump(
            {
                "roots": ["env/*"],
                "environments": {"env": "eks"},
                "profiles": {"eks": repository.profiles["eks"]},
                "images": repository.images,
            }
        ),
        "env/workloads/job.yaml": JOB.replace("RESOURCE", resource).replace(
            "      restartPolicy: Never\n",
            TOLERATION if tolerating else "      restartPolicy: Never\n",
        ),
    }

    def relative(path: str, layer: str) -> str:
        return os.path.relpath(REPO / path, tmp_path / "env" / layer)

    files["env/platform/kustomization.yaml"] = yaml.safe_dump(
        {
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": [relative("base", "platform")],
            "components": [
                relative(f"components/{c}", "platform")
                for c in ["spot-platform", "gpu-platform", *components, "cloud-eks"]
            ],
        }
    )
    files["env/workloads/kustomization.yaml"] = yaml.safe_dump(
        {
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": ["job.yaml"],
        }
    )
    return load_config(write_tree(tmp_path, files) / "trainops.yaml", RULES)


@pytest.mark.parametrize(
    "components",
    [
        ["gpu-time-slicing"],
        ["gpu-mig"],
        ["gpu-time-slicing", "gpu-mig"],
        ["gpu-mig", "gpu-time-slicing"],
    ],
)
def test_sharing_components_compose_alone_or_together(renderer, tmp_path, components):
    resource = SHARING[components[0]]
    config = _environment(tmp_path, components, resource)
    outcome = validated_clean(renderer, config, SELECTED)
    docs = [o.doc for r in outcome.rendered for o in r.objects]
    [queue] = [d for d in docs if d["kind"] == "ClusterQueue"]
    [group] = queue["spec"]["resourceGroups"]
    names = [f["name"] for f in group["flavors"]]
    assert names[:3] == ["default-flavor", "spot", "gpu"]
    assert sorted(names[3:]) == sorted(FLAVORS[c] for c in components)
    # Kueue wants every flavor to list the group's resources in its order.
    for flavor in group["flavors"]:
        assert [r["name"] for r in flavor["resources"]] == group["coveredResources"]


def test_a_shared_gpu_asked_of_a_queue_without_the_component_is_never_admitted(renderer, tmp_path):
    config = _environment(tmp_path, [], "nvidia.com/mig-1g.10gb", tolerating=False)
    outcome = validate(
        [Root(p) for p in kustomization.configured_roots(config)],
        renderer,
        config=config,
        selected={"schedulable"},
    )
    [finding] = outcome.findings
    assert finding.object.name == "notebook"
    assert "the pod fits no node pool of the eks cluster" in finding.message
