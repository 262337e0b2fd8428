"""Output stays readable, well-formed and bounded whatever the repository holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from xml.etree import ElementTree

import pytest

from helpers import REPO, run_trainops, write_tree
from trainops.report.visible import visible

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"

ESCAPE_NAME = "evil\x1b[2J\x07\u202e\x00name"
POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: {namespace}\n"
    "spec:\n  containers:\n{containers}"
)
NAMESPACE = (
    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n  labels:\n"
    "    pod-security.kubernetes.io/enforce: restricted\n---\n"
)


def _container(name: str) -> str:
    return (
        f"  - name: {json.dumps(name)}\n    image: busybox\n"
        "    securityContext:\n      privileged: true\n"
    )


def _pod(name: str, count: int = 1, namespace: str = "ns") -> str:
    containers = "".join(_container(f"c{i}") for i in range(count))
    return NAMESPACE + POD.format(name=json.dumps(name), namespace=namespace, containers=containers)


def test_visible_escapes_what_a_terminal_or_xml_would_misread():
    assert visible("a\x1b[31mb\nc\u202ed\ud800") == "a\\x1b[31mb\\x0ac\\u202ed\\ud800"
    assert visible("plain ünïcode ✓ name-1.2") == "plain ünïcode ✓ name-1.2"


@pytest.mark.parametrize("output", ["text", "github", "junit", "sarif"])
def test_control_characters_in_names_never_reach_the_output_raw(tmp_path, output):
    # As found: the ESC sequence reached the terminal, and JUnit was not well-formed XML.
    write_tree(tmp_path, {"pod.yaml": _pod(ESCAPE_NAME)})
    done = run_trainops("validate", "pod.yaml", "--format", output, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "\x1b" not in done.stdout and "\x00" not in done.stdout and "\u202e" not in done.stdout
    if output == "junit":
        ElementTree.fromstring(done.stdout.encode())  # well-formed
        assert "evil\\x1b[2J" in done.stdout
    if output == "sarif":
        json.loads(done.stdout)
    if output == "github":
        assert all(line.startswith("::") for line in done.stdout.splitlines())


def test_github_annotations_for_file_level_findings_name_no_object(tmp_path):
    write_tree(tmp_path, {"bad.yaml": "a: [\n"})
    done = run_trainops("validate", "bad.yaml", "--format", "github", cwd=tmp_path)
    assert done.stdout.startswith("::error file=bad.yaml,line=1,title=trainops yaml-syntax::YAML")
    assert "None" not in done.stdout


def test_n_failing_containers_give_output_linear_in_n(tmp_path):
    # As found: one finding per container, each naming every container: N² output.
    sizes = {}
    for count in (10, 80):
        write_tree(tmp_path, {"pod.yaml": _pod("p", count)})
        done = run_trainops("validate", "pod.yaml", "--select", "pod-security", cwd=tmp_path)
        assert done.returncode == 1
        sizes[count] = len(done.stdout)
    assert sizes[80] < 8 * sizes[10] * 1.5, sizes


@pytest.mark.parametrize(
    "command", [("psa", "--level", "restricted"), ("validate",), ("validate", "--format", "json")]
)
def test_output_cut_short_by_its_reader_keeps_the_verdict(tmp_path, command):
    # As found: `trainops psa bad.yaml | head` exited 0, so `set -o pipefail` saw success.
    pods = "".join(
        "---\n" + POD.format(name=f"p{i}", namespace="default", containers=_container("c"))
        for i in range(1500)
    )
    write_tree(tmp_path, {"pods.yaml": pods})
    shell = f"{sys.executable} -m trainops {' '.join(command)} pods.yaml | head -1"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "tools"), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 1, done.stderr
    assert len(done.stdout.splitlines()) == 1
    assert done.stderr == ""


def test_a_root_whose_path_is_not_utf8_is_one_finding_and_one_error_line(tmp_path):
    # kustomize is handed paths in YAML, which is UTF-8: a folder named in Latin-1 cannot be.
    folder = tmp_path / os.fsdecode(b"caf\xe9")
    write_tree(folder, {"kustomization.yaml": "resources: [cm.yaml]\n", "cm.yaml": CM})
    env = {**os.environ, "TRAINOPS_CACHE_DIR": str(tmp_path / "cache")}
    for command, code in (("validate", 1), ("build", 2)):
        done = subprocess.run(
            [sys.executable, "-m", "trainops", command, str(folder)],
            capture_output=True,
            cwd=tmp_path,  # outside the repository: no CRD roots to render
            env=env,
            timeout=300,
        )
        output = (done.stdout + done.stderr).decode(errors="replace")
        assert done.returncode == code, output
        assert "Traceback" not in output
        assert "its path is not valid UTF-8: rename the folder to render it" in output


def test_the_pins_table_escapes_control_characters(tmp_path):
    # As found: the pins table wrote an image's name to the terminal raw.
    image = json.dumps("example.com/evil\x1b[2J\u202e:1.0")
    pod = POD.format(name="p", namespace="ns", containers=f"  - name: c\n    image: {image}\n")
    write_tree(tmp_path, {"pod.yaml": pod})
    done = run_trainops("pins", "pod.yaml", cwd=tmp_path)
    assert "\x1b" not in done.stdout + done.stderr and "\u202e" not in done.stdout
    assert "evil\\x1b[2J" in done.stdout


def test_the_note_for_a_file_no_root_renders_escapes_its_name(tmp_path):
    # As found: the stderr note named the file raw.
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "roots: [app]\n",
            "app/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "app/cm.yaml": CM,
            "stray\x1b[2J.yaml": CM,
        },
    )
    done = run_trainops("validate", "stray\x1b[2J.yaml", cwd=tmp_path)
    assert "\x1b" not in done.stderr + done.stdout
    assert "stray\\x1b[2J.yaml" in done.stderr


def test_no_value_starts_a_line_as_a_github_workflow_command(tmp_path):
    # As found in review: a file named `::notice title=trainops::all clean.yaml`, printed at the
    # start of a line of `validate`'s text, became a notice on the pull request in CI.
    assert visible("::notice title=t::all clean") == "\\x3a:notice title=t::all clean"
    assert visible("  ::error::x") == "  \\x3a:error::x"
    assert visible("a::b") == "a::b" and visible(":x") == ":x"
    name = "::notice title=trainops::all roots clean, safe to merge.yaml"
    write_tree(tmp_path, {name: "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n"})
    done = run_trainops("validate", name, cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    assert not [line for line in lines if line.lstrip().startswith("::")], lines
