"""Hostile YAML costs bounded time and memory, and ends in one finding or one line, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from helpers import run_trainops, write_tree

LEVELS = "abcdefghi"
BOMB = "".join(
    f"{name}: &{name} [{','.join([f'*{LEVELS[i - 1]}'] * 9 if i else ['lol'] * 9)}]\n"
    for i, name in enumerate(LEVELS)
)  # ~400 bytes that alias-expand to 9**9 strings


def _indented(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


def _limited(*args: str, seconds: float = 120, **kwargs) -> subprocess.CompletedProcess:
    """The CLI, stopped if it runs away: a hang or a blow-up fails the test instead of the machine."""
    kwargs.setdefault("cwd", kwargs.pop("cwd", None) or args[-1].rsplit("/", 1)[0])
    try:
        return run_trainops(*args, **kwargs, timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"trainops {' '.join(args)} ran past {seconds}s")


def test_an_alias_bomb_in_a_manifest_is_one_finding(tmp_path):
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  labels:\n"
    write_tree(tmp_path, {"bomb.yaml": manifest + _indented(BOMB, 4)})
    done = _limited("validate", str(tmp_path / "bomb.yaml"))
    assert done.returncode == 1, done.stderr
    assert "malformed-object" in done.stdout and "excessive aliasing" in done.stdout
    assert "Traceback" not in done.stderr


def test_an_alias_bomb_in_a_kustomization_never_reaches_kustomize(tmp_path):
    write_tree(tmp_path, {"kustomization.yaml": "resources: []\nlabels:\n" + _indented(BOMB, 2)})
    done = _limited("validate", str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "render-failed" in done.stdout and "excessive aliasing" in done.stdout
    assert "goroutine" not in done.stdout and "out of memory" not in done.stdout


# An anchor whose own value holds its alias: libyaml builds a structure that contains itself, and
# a walk that did not notice went round forever (a `yes` sent the document to libyaml); yaml-rs
# reads the alias as null, and the object passed. Kubernetes' go-yaml refuses the document.
SELF_CONTAINING = "data: &loop {again: *loop, flag: yes}\n"


@pytest.mark.parametrize("document", [SELF_CONTAINING, "data: &loop {again: *loop}\n"])
def test_a_document_that_contains_itself_is_one_finding(tmp_path, document):
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: loop}\n" + document
    write_tree(tmp_path, {"loop.yaml": manifest})
    done = _limited("validate", str(tmp_path / "loop.yaml"), seconds=30)
    assert done.returncode == 1, done.stderr
    assert "malformed-object" in done.stdout
    assert "alias at data.again refers to a node that contains it" in done.stdout


def test_a_kustomization_or_config_that_contains_itself_is_refused(tmp_path):
    write_tree(tmp_path / "k", {"kustomization.yaml": "resources: []\n" + SELF_CONTAINING})
    done = _limited("validate", str(tmp_path / "k"), seconds=30)
    assert done.returncode == 1 and "refers to a node that contains it" in done.stdout
    write_tree(tmp_path / "c", {"trainops.yaml": SELF_CONTAINING})
    done = _limited("validate", cwd=tmp_path / "c", seconds=30)
    assert done.returncode == 2 and "refers to a node that contains it" in done.stderr


def test_ten_thousand_deep_nesting_is_one_finding(tmp_path):
    deep = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata: " + "[" * 10000
    write_tree(tmp_path, {"deep.yaml": deep + "]" * 10000 + "\n"})
    done = _limited("validate", str(tmp_path / "deep.yaml"))
    assert done.returncode == 1, done.stderr
    assert "nests more than 200 levels deep" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [("validate",), ("psa", "--level", "restricted")])
def test_a_fifo_named_yaml_is_refused_without_blocking(tmp_path, command):
    os.mkfifo(tmp_path / "pipe.yaml")
    done = _limited(*command, str(tmp_path / "pipe.yaml"), seconds=60)
    assert done.returncode in (1, 2), done.stderr
    assert "not a regular file" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_a_fifo_in_a_folder_is_refused_without_blocking(tmp_path):
    write_tree(tmp_path, {"ok.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"})
    os.mkfifo(tmp_path / "pipe.yaml")
    done = _limited("validate", str(tmp_path), seconds=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "1 object(s) checked" in done.stdout  # ok.yaml still read, the pipe skipped


def test_a_kustomization_that_is_not_utf8_is_one_finding(tmp_path):
    (tmp_path / "kustomization.yaml").write_bytes(b"resources:\n  - \xff\xfe.yaml\n")
    done = _limited("validate", str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "render-failed" in done.stdout and "is not UTF-8 text" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_kustomization_is_one_finding(tmp_path):
    write_tree(tmp_path, {"kustomization.yaml": "resources: []\n"})
    (tmp_path / "kustomization.yaml").chmod(0)
    done = _limited("validate", str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "cannot be read" in done.stdout and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ('roots: ["/etc/*"]\n', "root pattern '/etc/*' is absolute"),
        ("roots: [2024-01-01]\n", "at roots[0]: '2024-01-01' reads as a YAML date"),
        (
            "kubernetesVersions: [v1.32]\nroots: [2024-01-01T00:00:00Z]\n",
            "reads as a YAML datetime",
        ),
        ("kubernetesVersions: 3\n", "at kubernetesVersions: 3 is not of type"),
        ("rules: {schema: {enabled: yes please}}\n", "at rules.schema.enabled"),
        ("roots: ['']\n", 'at roots[0]: "" is shorter than 1 character'),
        ("{1: a}\n", "key 1 is not a string"),
    ],
)
def test_a_config_of_the_wrong_shape_is_one_line(tmp_path, config, expected):
    write_tree(tmp_path, {"trainops.yaml": config})
    done = _limited("validate", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and expected in done.stderr, done.stderr


def test_a_config_that_is_not_utf8_is_one_line(tmp_path):
    (tmp_path / "trainops.yaml").write_bytes(b"roots: [\xff]\n")
    done = _limited("validate", cwd=tmp_path)
    assert done.returncode == 2 and "trainops.yaml: not UTF-8 text" in done.stderr


WRONG_TYPES = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: dated
  annotations: {argocd.argoproj.io/sync-wave: "1.5"}
  labels: {when: 2024-01-01}
---
apiVersion: v1
kind: Pod
metadata: {name: numbered, annotations: 7}
spec: {containers: [{name: c, image: busybox:1.37}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: listed}
spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: [busybox]}]}}}
"""


def test_wrong_typed_fields_are_findings_at_their_paths(tmp_path):
    # As found: each of these ended in a traceback.
    write_tree(tmp_path, {"objects.yaml": WRONG_TYPES})
    done = _limited("validate", "objects.yaml", "--format", "json", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    found = {(f["rule"], f["path"], f["message"].split(",")[0]) for f in json.loads(done.stdout)}
    assert ("malformed-object", None, "metadata.annotations is a number") in {
        (rule, path, message.split(", not")[0]) for rule, path, message in found
    }
    assert any(
        rule == "schema" and path == "spec.template.spec.containers[0].image"
        for rule, path, _ in found
    )
    # A date reads as the string Kubernetes reads: no finding for the label.
    assert not any("when" in message for _, _, message in found)


def test_psa_stops_with_one_line_at_a_wrong_typed_field(tmp_path):
    write_tree(tmp_path, {"objects.yaml": WRONG_TYPES.split("---\n", 2)[2]})
    done = _limited("psa", "--level", "restricted", str(tmp_path / "objects.yaml"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "Job/listed at spec.template.spec.containers[0].image" in done.stderr


@pytest.mark.parametrize("field", ["resources: 5", "bases: {a: 1}", "components: text"])
def test_a_kustomization_list_of_another_type_is_one_finding(tmp_path, field):
    """Every reader of a kustomization iterates these lists; one that is not a list made
    `validate` end in a TypeError traceback."""
    write_tree(tmp_path / "k", {"kustomization.yaml": field + "\n"})
    done = _limited("validate", str(tmp_path / "k"), seconds=30)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert f"render-failed]: has `{field.split(':')[0]}: " in done.stdout
    assert "it must be a list of paths or URLs" in done.stdout
