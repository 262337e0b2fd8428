"""The API server's name and pod rules, case by case, and no crash on wrong-typed input."""

from __future__ import annotations

import yaml

from trainops.knowledge.apivalidation import kinds, meta, names
from trainops.knowledge.apivalidation.pod import PodContext, validate_pod_spec


def test_qualified_names():
    assert list(names.qualified_name("kueue.x-k8s.io/queue-name")) == []
    assert list(names.qualified_name("app")) == []
    assert list(names.qualified_name("Example.com/x")) == [
        "prefix part a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
    ]
    assert names.qualified_name("a/b/c")[0].startswith("a qualified name must consist of")
    assert list(names.qualified_name("x/" + "a" * 64)) == [
        "name part must be no more than 63 characters"
    ]
    assert list(names.qualified_name("/x")) == ["prefix part must be non-empty"]
    # An empty prefix does not stop the name's checks (IsQualifiedName; kube-apiserver v1.32.13
    # reports both for the label key "/-bad"). The copy that stopped there is gone.
    assert [m[:26] for m in names.qualified_name("/-bad")] == [
        "prefix part must be non-em",
        "name part must consist of ",
    ]
    # IsValidPortName's order: the letter before the consecutive hyphens.
    assert list(names.port_name("1--2")) == [
        "must contain at least one letter (a-z)",
        "must not contain consecutive hyphens",
    ]


def test_names_per_kind():
    assert meta.name_validator("", "Service")("1-master") and not meta.name_validator(
        "", "Service"
    )("master-1")
    assert meta.name_validator("", "Namespace")("a.b") and not meta.name_validator("", "ConfigMap")(
        "a.b"
    )
    assert meta.name_validator("rbac.authorization.k8s.io", "Role")("a/b") == [
        "may not contain '/'"
    ]
    assert meta.validate("", "Pod", {"generateName": "train-"}, custom=False) == []


def test_port_names():
    assert list(names.port_name("pytorchjob-port")) == []
    assert list(names.port_name("a--b")) == ["must not contain consecutive hyphens"]
    assert list(names.port_name("8080")) == ["must contain at least one letter (a-z)"]
    assert list(names.port_name("-http")) == ["must not begin or end with a hyphen"]


def test_env_names_depend_on_the_kubernetes_version():
    assert list(names.env_var_name("1SEED", relaxed=True)) == []
    assert names.env_var_name("1SEED", relaxed=False)
    assert names.env_var_name("A=B", relaxed=True)


def test_kuberay_injects_wait_gcs_ready_into_workers():
    from trainops.model.objects import K8sObject
    from trainops.model.rendered import Cluster, Rendered
    from trainops.rules import api_validation

    doc = yaml.safe_load("""
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: r, namespace: t}
spec:
  headGroupSpec: {rayStartParams: {}, template: {spec: {containers: [{name: ray-head, image: ray:2}]}}}
  workerGroupSpecs:
    - groupName: w
      rayStartParams: {}
      template: {spec: {initContainers: [{name: wait-gcs-ready, image: ray:2}], containers: [{name: ray-worker, image: ray:2}]}}
""")
    rendered = Rendered("r", objects=[K8sObject(doc, "r.yaml", 1)])
    [finding] = api_validation.check(rendered, Cluster([rendered]))
    assert finding.path == "spec.workerGroupSpecs[0].template.spec.initContainers[0].name"
    assert finding.message.endswith(
        'Duplicate value: "wait-gcs-ready" (KubeRay adds an init container of that name)'
    )


def test_mount_paths_devices_and_sidecar_probes():
    spec = yaml.safe_load("""
volumes: [{name: data, persistentVolumeClaim: {claimName: c}}, {name: scratch, emptyDir: {}}]
initContainers:
  - {name: setup, image: x, livenessProbe: {exec: {command: [true]}}}
  - {name: proxy, image: x, restartPolicy: Always, livenessProbe: {exec: {command: [true]}}}
containers:
  - name: main
    image: x
    volumeMounts: [{name: scratch, mountPath: /a}, {name: scratch, mountPath: /a}]
    volumeDevices: [{name: scratch, devicePath: /dev/x}]
""")
    errors = dict(validate_pod_spec(spec, "spec", PodContext()))
    assert (
        errors["spec.containers[0].volumeMounts[1].mountPath"]
        == 'Invalid value: "/a": must be unique'
    )
    assert errors["spec.containers[0].volumeDevices[0].name"].startswith(
        'Invalid value: "scratch": '
    )
    assert (
        errors["spec.initContainers[0].livenessProbe"]
        == "Forbidden: may not be set for init containers without restartPolicy=Always"
    )
    assert "spec.initContainers[1].livenessProbe" not in errors


def test_wrong_typed_input_never_raises():
    hostile = yaml.safe_load("""
containers: [3, {name: [x], ports: 5, env: {a: b}, resources: {requests: [1], limits: {cpu: [2]}}, volumeMounts: [7]}]
volumes: {a: b}
initContainers: nope
restartPolicy: [Always]
""")
    validate_pod_spec(hostile, "spec", PodContext(("Never",)))
    for check in kinds.KIND_CHECKS.values():
        check(
            {
                "spec": {
                    "ports": 3,
                    "ingress": [{"ports": [1, {"endPort": "x"}]}],
                    "resources": [],
                    "jobTemplate": 4,
                    "drivers": [{"topologyKeys": 3, "nodeID": []}],
                    "validations": [{"expression": 3, "messageExpression": [1]}],
                    "limited": {"limitResponse": {"type": "Queue", "queuing": {"queues": "x"}}},
                    "request": 5,
                    "capacity": [1],
                    "source": 3,
                },
                "webhooks": [{"rules": 3, "clientConfig": {"url": 3, "service": []}}],
                "subsets": [{"addresses": [{"ip": 4}], "ports": [{"port": "x"}]}],
                "endpoints": [{"addresses": 5}],
                "handler": 3,
                "eventTime": 7,
            }
        )
    meta.validate("", "Pod", {"name": 3, "labels": [1], "annotations": {"a": None}}, custom=True)


def test_volcanos_svc_variables_name_every_task_and_their_configmap_key():
    """svc.go OnPodCreate adds VC_<TASK>_HOSTS and VC_<TASK>_NUM for every task, read from the
    job's ConfigMap under the variable's own name; an unnamed task is default<index>."""
    from trainops.knowledge.operator_pods import operator_pod
    from trainops.knowledge.pod_templates import pod_templates
    from trainops.model.objects import K8sObject
    from trainops.model.rendered import Cluster

    container = {"name": "c", "image": "trainer:1.0"}
    doc = {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": "n"},
        "spec": {
            "plugins": {"svc": []},
            "tasks": [
                {"name": "ps-main", "template": {"spec": {"containers": [container]}}},
                {"template": {"spec": {"containers": [container]}}},
            ],
        },
    }
    [first, _] = pod_templates(doc)
    built = operator_pod(K8sObject(doc, "j.yaml", 1), first, Cluster([]))
    env = built.template.spec["containers"][0]["env"]
    assert [(e["name"], e["valueFrom"]["configMapKeyRef"]) for e in env] == [
        (name, {"name": "j-svc", "key": name})
        for name in ("VC_PS_MAIN_HOSTS", "VC_PS_MAIN_NUM", "VC_DEFAULT1_HOSTS", "VC_DEFAULT1_NUM")
    ]
