"""`trainops psa`: JSON and text output, exit codes, and bad input."""

from __future__ import annotations

import json

from helpers import RULE_FIXTURES, run_trainops, write_tree


def test_json_lists_each_pod_bearing_object():
    done = run_trainops(
        "psa",
        "--level",
        "restricted",
        "--version",
        "v1.32",
        "--format",
        "json",
        str(RULE_FIXTURES / "pod-security" / "bad.yaml"),
        str(RULE_FIXTURES / "pod-security" / "good.yaml"),
    )
    assert done.returncode == 1, done.stderr
    bad, good = json.loads(done.stdout)
    assert (bad["kind"], bad["name"], bad["allowed"]) == ("Job", "train", False)
    assert bad["path"].endswith("bad.yaml")
    [violation] = bad["violations"]
    assert violation["check"] == "capabilities_restricted"
    assert violation["reason"] == "unrestricted capabilities"
    assert (
        violation["detail"]
        == 'container "sidecar" must set securityContext.capabilities.drop=["ALL"]'
    )
    assert good["allowed"] is True and good["violations"] == []


def test_text_output_and_exit_zero_when_allowed():
    done = run_trainops(
        "psa", "--level", "baseline", str(RULE_FIXTURES / "pod-security" / "bad.yaml")
    )
    assert done.returncode == 0
    assert "Job/train: allowed by baseline:latest" in done.stdout


def test_unknown_level_or_version_is_one_line_and_exit_2():
    fixture = str(RULE_FIXTURES / "pod-security" / "good.yaml")
    for args, message in (
        (["--level", "strict"], "unknown Pod Security level 'strict'"),
        (["--level", "baseline", "--version", "1.30"], "unknown Pod Security version '1.30'"),
        (["--level", "baseline", "--version", "v1.38"], "use v1.0 … v1.37 or latest"),
    ):
        done = run_trainops("psa", *args, fixture)
        assert (
            done.returncode == 2
            and message in done.stderr
            and len(done.stderr.strip().splitlines()) == 1
        )


def test_broken_yaml_is_exit_2_with_file_and_line(tmp_path):
    write_tree(tmp_path, {"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: [x\n"})
    done = run_trainops("psa", "--level", "restricted", str(tmp_path / "pod.yaml"))
    assert done.returncode == 2 and f"{tmp_path}/pod.yaml:3: YAML syntax error" in done.stderr


def test_a_glob_that_names_the_kustomization_skips_it(tmp_path):
    """`trainops psa --level restricted overlays/kind/workloads/*` names the kustomization too:
    it holds no pods, so it is skipped with a note, not refused as a malformed object."""
    write_tree(
        tmp_path,
        {
            "kustomization.yaml": "resources:\n  - pod.yaml\n",
            "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
            "spec: {containers: [{name: c, image: i}]}\n",
        },
    )
    done = run_trainops(
        "psa", "--level", "baseline", "kustomization.yaml", "pod.yaml", cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "kustomization.yaml: a kustomization, not objects; skipped" in done.stderr
    assert "pod.yaml" in done.stdout
