"""`trainops validate`: roots, exit codes, output formats, config errors."""

from __future__ import annotations

import json

import pytest

from helpers import REPO, WIDGET_CRD, run_trainops, write_tree

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def test_the_repository_is_clean(mirror):
    """Every root, every rule: among them every shipped pod template at its namespace's pinned
    Pod Security level, with the containers the operators inject."""
    done = run_trainops("validate", "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    # Reported: the placeholder owner `example`, which trainops.yaml acknowledges
    # (provenance.placeholder) until `trainops adopt` names a real one, and notes of the kinds
    # whose API-server validation is not modelled.
    found = [f for f in json.loads(done.stdout) if f["severity"] != "note"]
    assert found and all(
        (f["rule"], f["severity"]) == ("provenance", "warning")
        and "acknowledges it (provenance.placeholder: true)" in f["message"]
        for f in found
    ), found
    assert "object(s) fully judged" in done.stderr


def test_json_lists_findings_with_their_fields(tmp_path):
    write_tree(
        tmp_path, {"a.yaml": CONFIGMAP.format(name="x") + "---\n" + CONFIGMAP.format(name="x")}
    )
    done = run_trainops("validate", "--format", "json", str(tmp_path / "a.yaml"))
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)
    assert finding == {
        "rule": "duplicate-object",
        "severity": "error",
        "message": f"ConfigMap/x is defined again (first at {tmp_path}/a.yaml:1)",
        "root": f"{tmp_path}/a.yaml",
        "file": f"{tmp_path}/a.yaml",
        "line": 6,
        "object": {"apiVersion": "v1", "kind": "ConfigMap", "namespace": None, "name": "x"},
        "path": None,
        "hint": "keep one definition; the one applied last would silently win",
        "roots": [f"{tmp_path}/a.yaml"],
        "environments": [],
    }


def test_clean_json_is_an_empty_list(tmp_path):
    write_tree(tmp_path, {"a.yaml": CONFIGMAP.format(name="x")})
    done = run_trainops("validate", "--format", "json", str(tmp_path))
    assert (done.returncode, json.loads(done.stdout)) == (0, [])


def test_text_groups_findings_by_file_with_rule_and_line(tmp_path):
    write_tree(tmp_path, {"a.yaml": "kind: [\n", "b.yaml": CONFIGMAP.format(name="second")})
    done = run_trainops("validate", str(tmp_path))
    assert done.returncode == 1
    assert f"{tmp_path}/a.yaml:1: error [yaml-syntax]:" in done.stdout
    assert "1 error(s), 0 warning(s)" in done.stdout


def test_a_failed_render_is_a_finding_and_other_roots_still_run(mirror, tmp_path):
    write_tree(
        tmp_path,
        {
            "broken/kustomization.yaml": "resources:\n  - gone.yaml\n",
            "fine/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "fine/cm.yaml": CONFIGMAP.format(name="z"),
        },
    )
    done = run_trainops("validate", "--format", "json", "broken", "fine", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)
    assert (finding["rule"], finding["root"], finding["file"], finding["line"]) == (
        "render-failed",
        "broken",
        "broken/kustomization.yaml",
        2,
    )


def test_roots_come_from_the_config_file(tmp_path):
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "roots:\n  - manifests/*.yaml\n",
            "manifests/a.yaml": CONFIGMAP.format(name="a"),
            "manifests/b.yaml": "- not an object\n",
            "ignored/c.yaml": "- not checked: not a root\n",
        },
    )
    done = run_trainops("validate", "--format", "json", cwd=tmp_path)
    assert done.returncode == 1
    assert [(f["rule"], f["file"]) for f in json.loads(done.stdout)] == [
        ("malformed-object", "manifests/b.yaml")
    ]


def test_without_config_the_top_kustomizations_are_discovered(tmp_path):
    write_tree(
        tmp_path,
        {
            "overlay/kustomization.yaml": "resources:\n  - ../base\ncomponents:\n  - ../component\n",
            "base/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "base/cm.yaml": CONFIGMAP.format(name="a"),
            "component/kustomization.yaml": (
                "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nlabels:\n  - pairs: {team: ml}\n"
            ),
            "lonely/kustomization.yaml": "resources: []\n",
        },
    )
    done = run_trainops("validate", "--format", "json", cwd=tmp_path)
    # base is included by overlay and component is a Component: overlay and lonely are the roots.
    assert [(f["rule"], f["root"]) for f in json.loads(done.stdout)] == [("empty-render", "lonely")]


def test_bad_config_is_one_line_and_exit_2(tmp_path):
    cases = {
        "roots: [a\n": "trainops.yaml:2: YAML syntax error",
        "root: []\n": "trainops.yaml: Additional properties are not allowed ('root' was unexpected)",
        "roots: manifests\n": 'trainops.yaml at roots: "manifests" is not of type "array"',
        "roots: [nothing/*]\n": "root pattern 'nothing/*' matches nothing",
    }
    for text, expected in cases.items():
        (tmp_path / "trainops.yaml").write_text(text)
        done = run_trainops("validate", cwd=tmp_path)
        assert done.returncode == 2, text
        assert len(done.stderr.strip().splitlines()) == 1 and expected in done.stderr, done.stderr


def test_missing_path_and_bad_jobs_are_exit_2(tmp_path):
    done = run_trainops("validate", str(tmp_path / "absent.yaml"))
    assert done.returncode == 2 and "absent.yaml: no such file or folder" in done.stderr
    done = run_trainops("validate", "--jobs", "0", str(tmp_path))
    assert done.returncode == 2 and "--jobs must be at least 1" in done.stderr


def test_nothing_to_validate(tmp_path):
    done = run_trainops("validate", cwd=tmp_path)
    assert done.returncode == 2 and "nothing to do: no PATH given" in done.stderr


def test_unknown_format_is_a_usage_error(tmp_path):
    done = run_trainops("validate", "--format", "xml", str(tmp_path))
    assert done.returncode == 2 and "invalid choice" in done.stderr


def test_repository_config_declares_every_layer_and_entry_point():
    from trainops.model.config import load_config
    from trainops.render import kustomization
    from trainops.rules import RULES

    config = load_config(REPO / "trainops.yaml", RULES)
    roots = {str(path.relative_to(REPO)) for path in kustomization.configured_roots(config)}
    for env in ("kind", "cloud", "gpu", "volcano", "mpi"):
        assert {
            f"overlays/{env}/{layer}" for layer in ("operators", "platform", "workloads")
        } <= roots
        assert {
            f"gitops/argocd/{env}/apps",
            f"gitops/argocd/{env}/root-app.yaml",
            f"gitops/flux/{env}",
        } <= roots
    assert {"gitops/crds/argo-cd", "gitops/crds/flux", "gitops/argocd/health-checks"} <= roots


def test_a_crd_root_included_only_by_a_root_that_fails_still_gives_its_schemas(tmp_path):
    """CRD roots that a checked root includes are not rendered on their own; when that root
    fails to render, the CRD root renders after all, so other roots' custom resources are still
    checked against its schemas."""
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "roots: [broken, apps]\ncrdRoots: [crds]\n",
            "crds/kustomization.yaml": "resources: [widget-crd.yaml]\n",
            "crds/widget-crd.yaml": WIDGET_CRD,
            "broken/kustomization.yaml": "resources: [../crds, missing.yaml]\n",
            "apps/kustomization.yaml": "resources: [widget.yaml]\n",
            "apps/widget.yaml": "apiVersion: example.com/v1\nkind: Widget\n"
            "metadata: {name: w, namespace: n}\nspec: {size: big}\n",
        },
    )
    done = run_trainops("validate", "--format", "json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    rules = {(f["rule"], f["file"]) for f in json.loads(done.stdout)}
    assert ("render-failed", "broken/kustomization.yaml") in rules
    assert ("schema", "apps/widget.yaml") in rules, rules
    assert not any(rule == "schema-missing" for rule, _ in rules)


def test_an_object_withheld_for_its_shape_is_named_when_schema_is_not_selected(tmp_path):
    """Rules never see an object with a wrong-typed field; without `schema` selected nothing
    said why, and a run of `--select pinned` on a floating image reported clean in silence."""
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec: {containers: [{name: c, image: busybox, ports: 5}]}\n"
    )
    write_tree(tmp_path, {"pod.yaml": pod})
    done = run_trainops("validate", "--select", "pinned", "pod.yaml", cwd=tmp_path)
    assert "1 object(s) have a field of the wrong type" in done.stdout + done.stderr
    assert "`--select schema` says where" in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("select", "expected"),
    [
        ("", "--select names no rule; `trainops rules` lists them"),
        (" , ", "--select names no rule"),
        ("pinned,no-such-rule", "unknown rule 'no-such-rule'; known rules: "),
    ],
)
def test_a_selection_naming_no_known_rule_is_a_usage_error(tmp_path, select, expected):
    write_tree(tmp_path, {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
    done = run_trainops("validate", "--select", select, "cm.yaml", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, ""), done.stdout
    assert done.stderr.count("\n") == 1 and expected in done.stderr
