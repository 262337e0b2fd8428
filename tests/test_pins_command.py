"""`trainops pins`: where each version is set, whole lines in a pipe, exit 1 on a problem."""

from __future__ import annotations

import json

from helpers import run_trainops, write_tree

LONG = (
    "registry.example.com/a-very-long-organisation-name/and-an-even-longer-image-name-for-wrapping"
)
DEPLOYMENT = f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
        - name: web
          image: {LONG}
        - name: tool
          image: example.com/tool:latest
"""


def _tree(tmp_path, tag: str):
    return write_tree(
        tmp_path,
        {
            "base/kustomization.yaml": "resources:\n  - deployment.yaml\n",
            "base/deployment.yaml": DEPLOYMENT,
            "overlay/kustomization.yaml": f'resources:\n  - ../base\nimages:\n  - name: {LONG}\n    newTag: "{tag}"\n',
        },
    )


def test_an_image_set_by_an_overlay_is_shown_where_the_overlay_sets_it(tmp_path):
    _tree(tmp_path, "1.2.3")
    done = run_trainops("pins", "--format", "json", "overlay", cwd=tmp_path)
    found = {
        (p["what"], p["version"]): (p["file"], p["line"], p["problem"])
        for p in json.loads(done.stdout)
    }
    assert found[(LONG, "1.2.3")] == ("overlay/kustomization.yaml", 4, None)
    # An image no overlay sets is shown in the file and on the line that name it.
    assert found[("example.com/tool", "latest")] == (
        "base/deployment.yaml",
        13,
        "image example.com/tool:latest uses a floating tag",
    )
    assert done.returncode == 1  # a pin with a problem


def test_text_is_not_truncated_in_a_pipe_and_clean_pins_exit_0(tmp_path):
    _tree(tmp_path, "1.2.3")
    (tmp_path / "base" / "deployment.yaml").write_text(
        DEPLOYMENT.replace("tool:latest", "tool:2.0")
    )
    done = run_trainops("pins", "overlay", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    row = next(line for line in done.stdout.splitlines() if LONG in line)
    assert "overlay/kustomization.yaml:4" in row and "…" not in done.stdout


OPERATOR = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: training-operator, namespace: kubeflow}}
spec:
  selector: {{matchLabels: {{app: to}}}}
  template:
    metadata: {{labels: {{app: to}}}}
    spec:
      containers:
        - name: training-operator
          image: kubeflow/training-operator:v1-855e096
          args:
            - --pytorch-init-container-template-file=/etc/training-operator/initContainer.yaml{flag}
          volumeMounts:
            - {{name: init, mountPath: /etc/training-operator}}
      volumes:
        - {{name: init, configMap: {{name: pytorch-init-container}}}}
"""


def _operator_tree(tmp_path, image: str, flag: str = ""):
    return write_tree(
        tmp_path,
        {
            "op/kustomization.yaml": "namespace: kubeflow\nresources:\n  - deployment.yaml\n"
            "configMapGenerator:\n  - name: pytorch-init-container\n    files:\n"
            "      - initContainer.yaml=template.yaml\n"
            "generatorOptions: {disableNameSuffixHash: true}\n",
            "op/deployment.yaml": OPERATOR.format(flag=flag),
            "op/template.yaml": f"# the init container\n- name: init-pytorch\n  image: {image}\n",
        },
    )


def test_the_image_an_operator_injects_from_a_shipped_template_is_pinned_and_listed(tmp_path):
    # As found: busybox:latest in the Training Operator's init-container template passed
    # `pinned` and was missing from `pins`.
    _operator_tree(tmp_path, "busybox:latest")
    done = run_trainops("validate", "--select", "pinned", "op", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "op/template.yaml:3: error [pinned]" in done.stdout
    assert "image busybox:latest uses a floating tag" in done.stdout
    listed = run_trainops("pins", "--format", "json", "op", cwd=tmp_path)
    [pin] = [p for p in json.loads(listed.stdout) if p["what"] == "busybox"]
    assert (pin["file"], pin["line"], pin["version"]) == ("op/template.yaml", 3, "latest")


def test_a_template_that_takes_the_image_from_the_operator_flag_is_pinned_there(tmp_path):
    _operator_tree(
        tmp_path,
        "{{.InitContainerImage}}",
        flag="\n            - --pytorch-init-container-image=alpine",
    )
    done = run_trainops("validate", "--select", "pinned", "op", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "image alpine has no tag" in done.stdout
    assert "Deployment/kubeflow/training-operator" in done.stdout


def test_a_pinned_injected_image_passes(tmp_path):
    _operator_tree(tmp_path, "docker.io/library/busybox:1.36.1")
    done = run_trainops("validate", "--select", "pinned", "op", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
