"""Context, both ways: a file checked alone is judged with the namespace its repository defines
(saying which definition), and a rule needing trainops.yaml's declarations notes what to declare
where there is none instead of raising errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import RESTRICTED_NAMESPACE, write_tree
from trainops.check.validate import Root, validate
from trainops.model.config import load_config
from trainops.model.findings import Severity
from trainops.rules import RULES

# --- Context: a file checked alone is judged with its repository's namespace --------------------

HOST_PORT_POD = """apiVersion: v1
kind: Pod
metadata: {name: host-port, namespace: team}
spec:
  securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
  containers:
    - name: web
      image: example.com/web:1.0
      ports: [{containerPort: 8080, hostPort: 8080}]
      securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
---
apiVersion: v1
kind: Pod
metadata: {name: sysctl, namespace: team}
spec:
  securityContext:
    runAsNonRoot: true
    seccompProfile: {type: RuntimeDefault}
    sysctls: [{name: net.core.somaxconn, value: "1024"}]
  containers:
    - name: web
      image: example.com/web:1.0
      securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
"""


def _repository(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "repo",
        {
            "trainops.yaml": "roots:\n  - overlays/*/*\n",
            "base/kustomization.yaml": "resources:\n  - namespace.yaml\n",
            "base/namespace.yaml": "# the team's namespace\n" + RESTRICTED_NAMESPACE,
            "overlays/dev/platform/kustomization.yaml": "resources:\n  - ../../../base\n",
        },
    )


def test_a_pod_checked_alone_is_judged_with_the_namespace_its_repository_defines(tmp_path):
    """Both Pods pass restricted but for a hostPort and an unsafe sysctl, which kube-apiserver's
    Pod Security admission refuses in a restricted namespace: errors, naming the definition."""
    config = load_config(_repository(tmp_path) / "trainops.yaml", RULES)
    pods = write_tree(tmp_path / "elsewhere", {"pods.yaml": HOST_PORT_POD}) / "pods.yaml"
    outcome = validate([Root(pods)], None, config=config)
    errors = [f for f in outcome.findings if f.severity is Severity.ERROR]
    assert {(f.rule, f.object.name, f.path) for f in errors if f.object} == {
        ("pod-security", "host-port", "spec.containers[0].ports[0].hostPort"),
        ("pod-security", "sysctl", "spec.securityContext.sysctls[0]"),
    }
    assert all("restricted:v1.32 is enforced on namespace team (as " in f.message for f in errors)
    assert all(f.message.endswith("base/namespace.yaml:2 defines it)") for f in errors)
    [scope] = [f for f in outcome.findings if f.rule == "partial-scope"]
    assert "pod-security judged its pods with the labels" in scope.message


def test_outside_any_repository_the_namespace_is_still_unknown(tmp_path):
    pods = write_tree(tmp_path, {"pods.yaml": HOST_PORT_POD}) / "pods.yaml"
    outcome = validate([Root(pods)], None)
    assert not [f for f in outcome.findings if f.severity is Severity.ERROR]
    assert {f.rule for f in outcome.findings} == {"partial-scope"}


# --- Declarations: what trainops.yaml does not declare is a note, not an error -----------------

GPU_JOBS = """apiVersion: batch/v1
kind: Job
metadata: {name: train, namespace: default}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: example.com/team/train:1.0
          env: [{name: NCCL_DEBUG, value: INFO}]
          resources: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: ray, namespace: default}
spec:
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers: [{name: head, image: example.com/team/ray:1.0}]
  workerGroupSpecs:
    - groupName: gpu
      replicas: 1
      rayStartParams: {}
      template:
        spec:
          containers:
            - name: worker
              image: example.com/team/ray:1.0
              resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize("declared", [None, "images:\n  other/image: {cuda: true}\n"])
def test_an_image_nothing_declares_is_a_note_saying_what_to_declare(tmp_path, declared):
    files = {"jobs.yaml": GPU_JOBS}
    if declared is not None:
        files["trainops.yaml"] = declared
    folder = write_tree(tmp_path, files)
    config = load_config(folder / "trainops.yaml", RULES) if declared else None
    outcome = validate([Root(folder / "jobs.yaml")], None, config=config, selected={"runnable"})
    found = [f for f in outcome.findings if f.rule == "runnable"]
    assert found and all(f.severity is Severity.NOTE for f in found)
    assert {f.path for f in found} == {
        "spec.template.spec.containers[0].resources",
        "spec.template.spec.containers[0].env",
        "spec.workerGroupSpecs",
        "spec.workerGroupSpecs[0].template.spec.containers[0].resources",
    }
    message = next(f.message for f in found if f.path.endswith("resources"))
    assert "its image example.com/team/train:1.0 is not declared in" in message
    assert "none is in scope" in message if declared is None else "trainops.yaml images" in message
    assert all("declare the image in trainops.yaml images" in (f.hint or "") for f in found)
