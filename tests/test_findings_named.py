"""Every finding names the roots and environments it was found in, in every format, points at its
field's line, and never prints a Secret's value."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from helpers import RESTRICTED_NAMESPACE, run_trainops, write_tree
from trainops.model.field_lines import field_line

# One privileged Pod, in the workloads layer of two environments: one finding, named in both.
POD = """apiVersion: v1
kind: Pod
metadata:
  name: train
  namespace: team
spec:
  securityContext:
    runAsNonRoot: true
    seccompProfile: {type: RuntimeDefault}
  containers:
    - name: train
      image: example.com/train:1.0
      securityContext:
        allowPrivilegeEscalation: false
        capabilities: {drop: [ALL]}
        privileged: true
"""


@pytest.fixture
def two_environments(tmp_path):
    files = {
        "trainops.yaml": (
            "roots: [overlays/*/*]\n"
            "environments: {overlays/dev: dev, overlays/prod: dev}\n"
            "profiles:\n  dev:\n    cloud: kind\n    storageClasses: {}\n"
            "    nodePools: [{name: n, allocatable: {cpu: '4', memory: 8Gi}}]\n"
        ),
        "base/kustomization.yaml": "resources:\n  - namespace.yaml\n",
        "base/namespace.yaml": RESTRICTED_NAMESPACE,
        "apps/kustomization.yaml": "resources:\n  - pod.yaml\n",
        "apps/pod.yaml": POD,
    }
    for environment in ("dev", "prod"):
        files[f"overlays/{environment}/platform/kustomization.yaml"] = (
            "resources:\n  - ../../../base\n"
        )
        files[f"overlays/{environment}/workloads/kustomization.yaml"] = (
            "resources:\n  - ../../../apps\n"
        )
    return write_tree(tmp_path, files)


ROOTS = ["overlays/dev/workloads", "overlays/prod/workloads"]
PRIVILEGED_LINE = POD.splitlines().index("        privileged: true") + 1


def _validate(repo, fmt):
    done = run_trainops("validate", "--format", fmt, "--select", "pod-security", cwd=repo)
    assert done.returncode == 1, done.stdout + done.stderr
    return done.stdout


def test_json_names_every_root_and_environment_once(two_environments):
    [finding] = json.loads(_validate(two_environments, "json"))
    assert finding["roots"] == ROOTS
    assert finding["environments"] == ["dev", "prod"]
    assert (finding["file"], finding["line"]) == ("apps/pod.yaml", PRIVILEGED_LINE)


def test_text_sarif_and_github_name_them_at_the_fields_line(two_environments):
    text = _validate(two_environments, "text")
    assert f"apps/pod.yaml:{PRIVILEGED_LINE}: error [pod-security]" in text
    assert f"in {', '.join(ROOTS)} (environments dev, prod)" in text
    [result] = json.loads(_validate(two_environments, "sarif"))["runs"][0]["results"]
    assert result["properties"] == {"roots": ROOTS, "environments": ["dev", "prod"]}
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": PRIVILEGED_LINE}
    assert f"in {', '.join(ROOTS)} (environments dev, prod)" in result["message"]["text"]
    github = _validate(two_environments, "github")
    assert f"line={PRIVILEGED_LINE}," in github
    assert f"(in {', '.join(ROOTS)} (environments dev, prod))" in github


def test_junit_fails_the_finding_in_each_roots_suite(two_environments):
    suites = {s.get("name"): s for s in ET.fromstring(_validate(two_environments, "junit"))}
    assert set(suites) == {"overlays/dev/platform", "overlays/prod/platform", *ROOTS}
    for root in ROOTS:
        assert (suites[root].get("tests"), suites[root].get("failures")) == ("1", "1")
        [case] = list(suites[root].iter("testcase"))
        assert case.get("name") == "Pod/team/train"
    for platform in ("overlays/dev/platform", "overlays/prod/platform"):
        assert suites[platform].get("failures") == "0"


SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: object-store
  namespace: team
stringData:
  token: SUPERSECRET-ONE
  count: 424242424
data:
  blob: 7777
"""


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github"])
def test_no_secret_value_in_any_format(tmp_path, fmt):
    write_tree(tmp_path, {"secret.yaml": SECRET})
    done = run_trainops("validate", "--format", fmt, "secret.yaml", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    shown = done.stdout + done.stderr
    assert "stringData" in shown  # the findings are there, at their keys
    for value in ("SUPERSECRET", "424242424", "7777"):
        assert value not in shown, (value, shown)
    assert "(hidden)" in shown


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("spec.containers[0].securityContext.privileged", PRIVILEGED_LINE),
        ("spec.containers[train].securityContext", PRIVILEGED_LINE - 3),
        ("/spec/containers/0/image", 12),
        ("spec.containers[0].securityContext.capabilities.add", 15),  # the deepest key there
        ("metadata.annotations.example.com/note", 3),  # no annotations: metadata
        ("spec.volumes[0]", 6),  # no volumes: spec
        ("status", None),  # nothing of it: the object's own line is kept
    ],
)
def test_field_lines(tmp_path, path, line):
    (tmp_path / "pod.yaml").write_text("# a note\n" + POD.replace("metadata:", "metadata:", 1))
    assert field_line(str(tmp_path / "pod.yaml"), 2, path) == (line + 1 if line else None)


def test_field_lines_with_dotted_keys_and_no_file(tmp_path):
    (tmp_path / "app.yaml").write_text(
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\n"
        "  annotations:\n    argocd.argoproj.io/sync-wave: '1.5'\n"
    )
    assert (
        field_line(
            str(tmp_path / "app.yaml"), 1, "metadata.annotations.argocd.argoproj.io/sync-wave"
        )
        == 6
    )
    assert field_line(str(tmp_path / "none.yaml"), 1, "metadata") is None
    assert field_line(str(tmp_path / "app.yaml"), 3, "metadata") is None  # no document starts there


def test_field_lines_in_later_documents_and_beside_a_broken_one(tmp_path):
    # Only the finding's own document is composed: its lines are the file's, past `---` markers
    # and leading comments, and a document that is not YAML spoils none of the others (as
    # found: composing the whole file kept ten thousand findings' node trees, 1.6 GB).
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"  # 1-3
        "---\n# second\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k: v\n"
        "---\nkey: [unclosed\n"  # 12-13
        "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: c\nstringData:\n  s: x\n"  # 14-20
    )
    (tmp_path / "many.yaml").write_text(text)
    many = str(tmp_path / "many.yaml")
    assert field_line(many, 6, "data.k") == 11
    assert field_line(many, 6, "metadata.name") == 9
    assert field_line(many, 15, "stringData.s") == 20
    assert field_line(many, 1, "metadata") == 3
    assert field_line(many, 13, "key") is None  # the broken document has no fields


def test_field_lines_of_objects_one_a_line(tmp_path):
    # JSON, one object a line: each field is on its object's line, found without composing it.
    lines = [json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": n}}) for n in "ab"]
    (tmp_path / "pods.yaml").write_text("# made by a generator\n" + "\n---\n".join(lines) + "\n")
    pods = str(tmp_path / "pods.yaml")
    assert field_line(pods, 2, "metadata.name") == 2
    assert field_line(pods, 4, "spec.containers[0].image") == 4
    assert field_line(pods, 3, "metadata") is None  # no document starts there
    (tmp_path / "split.yaml").write_text('{"kind": "Pod",\n "metadata": {"name": "p"}}\n')
    assert field_line(str(tmp_path / "split.yaml"), 1, "metadata.name") == 2
