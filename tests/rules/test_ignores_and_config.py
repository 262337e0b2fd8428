"""Ignores must be argued; config turns rules off or changes their severity."""

from __future__ import annotations

import json

from helpers import run_trainops, write_tree

SECRET = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n{annotations}stringData: {{k: v}}\n"


def findings(tmp_path, manifest: str, config: str = "") -> tuple[int, list[dict]]:
    write_tree(
        tmp_path,
        {"trainops.yaml": "kubernetesVersions: [v1.32]\n" + config, "manifests/s.yaml": manifest},
    )
    done = run_trainops("validate", "--format", "json", "manifests", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, [
        (f["rule"], f["severity"], f["message"]) for f in json.loads(done.stdout)
    ]


def annotated(value: str) -> str:
    return SECRET.format(annotations=f'  annotations:\n    trainops.dev/ignore: "{value}"\n')


def test_an_argued_annotation_ignores_the_finding(tmp_path):
    assert findings(tmp_path, annotated("no-secret-data: a fixture for the docs")) == (0, [])


def test_an_ignore_without_a_reason_is_a_finding_and_ignores_nothing(tmp_path):
    code, found = findings(tmp_path, annotated("no-secret-data"))
    assert code == 1
    assert (
        "ignore",
        "error",
        "ignore of 'no-secret-data' gives no reason: write \"no-secret-data: <why it is safe to ignore>\"",
    ) in found
    assert any(rule == "no-secret-data" for rule, _, _ in found)


def test_an_unknown_rule_and_an_unused_ignore_are_reported(tmp_path):
    code, found = findings(
        tmp_path, annotated("no-secret-data: fixture; pinnned: typo; schema: nothing to ignore")
    )
    assert code == 1
    assert (
        "ignore",
        "error",
        "ignore names unknown rule 'pinnned'; `trainops rules` lists them",
    ) in found
    assert ("ignore", "warning", "ignore of 'schema' matched no finding: delete it") in found
    assert not any(rule == "no-secret-data" for rule, _, _ in found)


def test_config_path_ignores_need_a_reason_and_unused_ones_warn(tmp_path):
    config = "ignore:\n  - {rule: no-secret-data, path: 'manifests/*.yaml', reason: docs fixture}\n  - {rule: pinned, path: 'nowhere/*', reason: old}\n"
    code, found = findings(tmp_path, SECRET.format(annotations=""), config)
    assert code == 0
    assert found == [
        ("ignore", "warning", "ignore of 'pinned' for 'nowhere/*' matched no finding: delete it")
    ]


def test_config_changes_severity_or_disables_a_rule(tmp_path):
    code, found = findings(
        tmp_path, SECRET.format(annotations=""), "rules:\n  no-secret-data: {severity: warning}\n"
    )
    assert code == 0 and [s for r, s, _ in found if r == "no-secret-data"] == ["warning"]
    code, found = findings(
        tmp_path, SECRET.format(annotations=""), "rules:\n  no-secret-data: {enabled: false}\n"
    )
    assert (code, found) == (0, [])


def test_config_naming_an_unknown_rule_is_exit_2(tmp_path):
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "rules:\n  no-such-rule: {enabled: false}\n",
            "manifests/s.yaml": SECRET.format(annotations=""),
        },
    )
    done = run_trainops("validate", "manifests", cwd=tmp_path)
    assert (
        done.returncode == 2
        and "trainops.yaml at rules: unknown rule 'no-such-rule'" in done.stderr
    )


def test_rules_lists_every_rule_and_explain_prints_the_docs():
    listed = run_trainops("rules").stdout
    for rule in (
        "pod-security",
        "schema",
        "schema-missing",
        "pinned",
        "crd-header",
        "no-secret-data",
        "ignore",
    ):
        assert rule in listed
    explained = run_trainops("explain", "pinned")
    assert explained.returncode == 0
    assert explained.stdout.startswith(
        "pinned (error): remote bases, images and charts are pinned to releases"
    )
    assert "How to fix:" in explained.stdout
    unknown = run_trainops("explain", "pinnned")
    assert unknown.returncode == 2 and "unknown rule 'pinnned'" in unknown.stderr


def test_an_ignore_in_a_file_several_roots_include_is_used_once_and_warns_never(tmp_path):
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "kubernetesVersions: [v1.32]\n",
            "shared/kustomization.yaml": "resources:\n  - s.yaml\n",
            "shared/s.yaml": annotated("no-secret-data: a fixture for the docs"),
            "kind/kustomization.yaml": "resources:\n  - ../shared\n",
            "cloud/kustomization.yaml": "resources:\n  - ../shared\n",
        },
    )
    done = run_trainops("validate", "--format", "json", "kind", "cloud", cwd=tmp_path)
    assert (done.returncode, json.loads(done.stdout)) == (0, []), done.stdout
