"""Core kinds against the Kubernetes schemas of two versions, and the schema rules end to end."""

from __future__ import annotations

import json

from helpers import run_trainops, write_tree

CONFIG = "kubernetesVersions: [v1.25, v1.32]\n"
HPA_V2BETA2 = """\
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 3
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: web:1.0
"""


def validate_json(tmp_path, files: dict[str, str], *args: str):
    write_tree(tmp_path, {"trainops.yaml": CONFIG, **files})
    done = run_trainops(
        "validate",
        "--format",
        "json",
        "--select",
        "schema,schema-missing",
        *args,
        "manifests",
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def test_a_valid_deployment_passes_both_versions(tmp_path):
    assert validate_json(tmp_path, {"manifests/d.yaml": DEPLOYMENT}) == (0, [])


def test_an_api_removed_in_the_newer_version_is_reported_for_it(tmp_path):
    code, findings = validate_json(tmp_path, {"manifests/hpa.yaml": HPA_V2BETA2})
    assert code == 1
    [finding] = findings
    assert finding["rule"] == "schema" and finding["path"] == "apiVersion"
    assert (
        finding["message"]
        == "autoscaling/v2beta2 HorizontalPodAutoscaler does not exist in Kubernetes v1.32"
    )


def test_errors_name_the_path_and_every_version_that_rejects_it(tmp_path):
    bad = DEPLOYMENT.replace("replicas: 2", "replicas: two").replace(
        "image: web:1.0", "image: web:1.0\n          imagePolicy: Always"
    )
    code, findings = validate_json(tmp_path, {"manifests/d.yaml": bad})
    assert code == 1
    assert {(f["path"], f["message"], f["line"]) for f in findings} == {
        (
            "spec.replicas",
            '"two" is not of types "null", "integer" (Kubernetes v1.25, Kubernetes v1.32)',
            5,  # each at its field's line
        ),
        (
            "spec.template.spec.containers[0]",
            "Additional properties are not allowed ('imagePolicy' was unexpected) (Kubernetes v1.25, Kubernetes v1.32)",
            11,
        ),
    }


def test_a_kind_without_schema_is_a_finding_unless_skipped_with_a_reason(tmp_path):
    widget = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"
    code, [finding] = validate_json(tmp_path, {"manifests/w.yaml": widget})
    assert (code, finding["rule"]) == (1, "schema-missing")
    assert "no schema for example.com/v1 Widget" in finding["message"]
    skip = (
        CONFIG
        + "skipKinds:\n  - {apiVersion: example.com/v1, kind: Widget, reason: installed by the platform team}\n"
    )
    (tmp_path / "trainops.yaml").write_text(skip)
    done = run_trainops("validate", "--format", "json", "manifests", cwd=tmp_path)
    assert (done.returncode, json.loads(done.stdout)) == (0, [])


def test_a_skip_without_a_reason_is_a_config_error(tmp_path):
    write_tree(
        tmp_path,
        {"trainops.yaml": CONFIG + "skipKinds: [{kind: Widget}]\n", "manifests/w.yaml": DEPLOYMENT},
    )
    done = run_trainops("validate", "manifests", cwd=tmp_path)
    assert done.returncode == 2
    assert 'trainops.yaml at skipKinds[0]: "reason" is a required property' in done.stderr


def test_an_unknown_kubernetes_version_is_exit_2(tmp_path):
    write_tree(
        tmp_path, {"trainops.yaml": "kubernetesVersions: [v1.12]\n", "manifests/d.yaml": DEPLOYMENT}
    )
    done = run_trainops("validate", "manifests", cwd=tmp_path)
    assert (
        done.returncode == 2
        and "Kubernetes v1.12: kubernetes-validate has no schemas for it" in done.stderr
    )


def test_non_mapping_and_kindless_documents_are_findings_not_crashes(tmp_path):
    code, findings = validate_json(
        tmp_path,
        {"manifests/x.yaml": "- a\n- b\n---\napiVersion: v1\nmetadata: {name: x}\n"},
        "--select",
        "malformed-object",
    )
    assert code == 1 and {f["rule"] for f in findings} == {"malformed-object"}
