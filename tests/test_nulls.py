"""Nulls read as the API server reads them (knowledge/decoding.py): a null field is unset, a null
list item or map value is the zero value of its type, and a kind's spec and its templates are
validated as empty when they are absent or null. Each case holds the verdict and message a real
kube-apiserver v1.32.13 gave (`kubectl apply --dry-run=server`); as found, every rejected case
passed trainops clean, and the null label was refused though the server accepts it."""

from __future__ import annotations

import pytest

from helpers import run_trainops, write_tree

HEAD = "metadata: {name: x, namespace: default}\n"

CASES = {
    # The Job "x" is invalid: spec.template.spec.containers: Required value; ...restartPolicy
    "job spec null": (
        f"apiVersion: batch/v1\nkind: Job\n{HEAD}spec: null\n",
        "spec.template.spec.containers: Required value",
    ),
    "job without spec": (
        f"apiVersion: batch/v1\nkind: Job\n{HEAD}",
        "spec.template.spec.containers: Required value",
    ),
    # Deployment.apps "x" is invalid: [spec.selector: Required value, ..., containers: Required]
    "deployment spec null": (
        f"apiVersion: apps/v1\nkind: Deployment\n{HEAD}spec: null\n",
        'at spec: "selector" is a required property',
    ),
    # Pod "x" is invalid: spec.containers[0].env[0].name: Required value
    "env [null]": (
        f"apiVersion: v1\nkind: Pod\n{HEAD}spec:\n  containers:\n    - name: a\n"
        "      image: busybox:1.36\n      env: [null]\n",
        'at spec.containers[0].env[0]: "name" is a required property',
    ),
    "volumeMounts [null]": (
        f"apiVersion: v1\nkind: Pod\n{HEAD}spec:\n  containers:\n    - name: a\n"
        "      image: busybox:1.36\n      volumeMounts: [null]\n",
        'at spec.containers[0].volumeMounts[0]: "mountPath" is a required property',
    ),
    # NetworkPolicy "x" is invalid: spec.policyTypes[0]: Unsupported value: "": supported values:
    # "Ingress", "Egress"
    "policyTypes [null]": (
        f"apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n{HEAD}"
        "spec:\n  podSelector: {}\n  policyTypes: [null]\n",
        'spec.policyTypes[0]: Unsupported value: "": supported values: "Ingress", "Egress"',
    ),
    # PersistentVolumeClaim "x" is invalid: spec.accessModes: Unsupported value: "": supported
    # values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"
    "accessModes [null]": (
        f"apiVersion: v1\nkind: PersistentVolumeClaim\n{HEAD}"
        "spec:\n  accessModes: [null]\n  resources: {requests: {storage: 1Gi}}\n",
        'spec.accessModes: Unsupported value: "": supported values: "ReadOnlyMany", '
        '"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    ),
    # Service "x" is invalid: spec.ports[0].port: Invalid value: 0: must be between 1 and 65535
    "ports [null]": (
        f"apiVersion: v1\nkind: Service\n{HEAD}spec:\n  ports: [null]\n",
        'at spec.ports[0]: "port" is a required property',
    ),
    # NetworkPolicy "x" is invalid: spec.egress[0].to[0]: Required value: must specify a peer
    "a peer [null]": (
        f"apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n{HEAD}"
        "spec:\n  podSelector: {}\n  egress:\n    - to: [null]\n",
        "at spec.egress[0].to[0]: Required value: must specify a peer",
    ),
    "ipBlock and another peer": (
        f"apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\n{HEAD}"
        "spec:\n  podSelector: {}\n  ingress:\n    - from: [{ipBlock: {cidr: 10.0.0.0/8}, podSelector: {}}]\n",
        "at spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer",
    ),
    # ClusterRole "x" is invalid: rules[0].verbs: Required value: verbs must contain at least one
    "rules [null]": (
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: x}\nrules: [null]\n",
        'at rules[0]: "verbs" is a required property',
    ),
    # ConfigMap "x" is invalid: metadata.finalizers: Invalid value: "": name part must be non-empty
    "finalizers [null]": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default, finalizers: [null]}\n",
        'metadata.finalizers: Invalid value: "": name part must be non-empty',
    ),
    # metadata.finalizers[0]: Invalid value: "x": name is neither a standard finalizer name nor
    # is it fully qualified (built-in kinds; "kubernetes" and "example.com/x" pass)
    "a finalizer without a domain": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default, finalizers: [x]}\n",
        "name is neither a standard finalizer name nor is it fully qualified",
    ),
}

ACCEPTED = {
    "standard and qualified finalizers": "apiVersion: v1\nkind: ConfigMap\n"
    "metadata: {name: x, namespace: default, finalizers: [kubernetes, example.com/x]}\n",
    # configmap/x created (server dry run): a null label value is ""
    "null label": "apiVersion: v1\nkind: ConfigMap\n"
    "metadata: {name: x, namespace: default, labels: {a: null}}\n",
    # namespace/x created (server dry run): an empty NamespaceSpec is valid
    "namespace without spec": "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n",
    "null optional fields": f"apiVersion: v1\nkind: Pod\n{HEAD}spec:\n  containers:\n"
    "    - name: a\n      image: busybox:1.36\n      resources: null\n      env: null\n",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_null_the_server_rejects_is_a_finding(tmp_path, case):
    text, message = CASES[case]
    write_tree(tmp_path, {"x.yaml": text})
    done = run_trainops("validate", "--select", "schema,api-validation", str(tmp_path / "x.yaml"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert message in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_a_null_the_server_accepts_passes(tmp_path, case):
    write_tree(tmp_path, {"x.yaml": ACCEPTED[case]})
    done = run_trainops("validate", "--select", "schema,api-validation", str(tmp_path / "x.yaml"))
    assert done.returncode == 0, done.stdout + done.stderr


def test_decoding_leaves_custom_resources_and_clean_objects_alone():
    from trainops.knowledge.decoding import read_as_server
    from trainops.model.objects import K8sObject

    custom = K8sObject({"apiVersion": "ray.io/v1", "kind": "RayJob", "spec": None}, "f", 1)
    read_as_server(custom, "v1.32")
    assert custom.doc["spec"] is None
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}
    plain = K8sObject(doc, "f", 1)
    read_as_server(plain, "v1.32")
    assert plain.doc is doc


def test_the_parse_cache_keeps_which_objects_hold_a_null(tmp_path, monkeypatch):
    from trainops.model.objects import CACHED_FROM, parse_stream

    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path))
    one = "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{n}}}\ndata: {{a: {value}}}\n---\n"
    text = "".join(one.format(n=n, value="null" if n % 2 else "b") for n in range(1000))
    assert len(text) > CACHED_FROM
    first = parse_stream(text, "s.yaml")
    again = parse_stream(text, "s.yaml")  # read back from the cache
    assert [o.nulls for o in again.objects] == [o.nulls for o in first.objects]
    assert [o.nulls for o in first.objects][:4] == [False, True, False, True]


def test_every_rule_reads_a_deployment_whose_spec_is_null(tmp_path):
    # As found: the partial-scope rule, looking for the Training Operator, read spec.template of
    # a Deployment with `spec: null` and raised AttributeError.
    namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n"
    write_tree(
        tmp_path,
        {
            "d.yaml": namespace + "apiVersion: apps/v1\nkind: Deployment\n"
            "metadata: {name: d, namespace: team}\nspec: null\n"
        },
    )
    done = run_trainops("validate", str(tmp_path / "d.yaml"))
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1 and 'at spec: "selector" is a required property' in done.stdout
