"""A bad PyTorchJob worker, or a bad init container the operator injects, fails `make validate`'s
Pod Security check. (That every shipped pod template passes is test_validate's clean repository.)"""

from __future__ import annotations

import json
import shutil

from helpers import REPO, run_trainops

LAYERS = ["overlays/kind/operators", "overlays/kind/platform", "overlays/kind/workloads"]


def copy_repository(target):
    for folder in ("operators", "base", "workloads", "overlays", "components"):
        shutil.copytree(
            REPO / folder, target / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    return target


def test_a_worker_without_drop_all_fails_with_its_path_and_line(mirror, tmp_path):
    repo = copy_repository(tmp_path)
    pytorchjob = repo / "workloads" / "bookstore-ml" / "pytorchjob.yaml"
    text = pytorchjob.read_text()
    # Give the Worker its own copy of the pod template, without capabilities.drop.
    worker = text[text.index("      template: &pod\n") : text.index("    Worker:")].replace(
        "template: &pod", "template:"
    )
    worker = worker.replace('                capabilities:\n                  drop: ["ALL"]\n', "")
    text = text.replace("      template: *pod\n", worker)
    pytorchjob.write_text(text)

    done = run_trainops(
        "validate", "--format", "json", "--select", "pod-security", *LAYERS, cwd=repo
    )
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)
    assert finding["rule"] == "pod-security"
    assert finding["object"]["kind"] == "PyTorchJob"
    assert (
        finding["path"]
        == "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].securityContext.capabilities"
    )
    # The line of the Worker's container securityContext (the path's deepest key in the file).
    lines = text.splitlines()
    worker_at = lines.index("    Worker:")
    field_line = lines.index("              securityContext:", worker_at) + 1
    assert (finding["file"], finding["line"]) == (
        "workloads/bookstore-ml/pytorchjob.yaml",
        field_line,
    )


def test_an_unrestricted_init_container_template_fails_every_pytorchjob(mirror, tmp_path):
    repo = copy_repository(tmp_path)
    template = repo / "operators" / "training-operator" / "pytorch-init-container.yaml"
    template.write_text(template.read_text().replace("    allowPrivilegeEscalation: false\n", ""))
    # The operators layer keeps the Training Operator alone: the others play no part here, and
    # kustomize would otherwise render all four again (most of this test's time) for the edit.
    layer = repo / "overlays" / "kind" / "operators" / "kustomization.yaml"
    layer.write_text("resources:\n  - ../../../operators/training-operator\n")
    done = run_trainops(
        "validate", "--format", "json", "--select", "pod-security", *LAYERS, cwd=repo
    )
    assert done.returncode == 1
    [finding] = json.loads(done.stdout)
    assert (
        finding["path"]
        == "spec.pytorchReplicaSpecs.Worker.template.spec.initContainers[0].securityContext.allowPrivilegeEscalation"
    )
    assert (
        "the init-pytorch container the Training Operator injects, from ConfigMap pytorch-init-container-"
        in finding["message"]
    )
