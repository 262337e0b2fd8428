"""The init container the Training Operator injects, read from its configured template: each way
that template can be missing or unreadable is said, with where the flag points."""

from __future__ import annotations

import copy

import pytest

from helpers import RESTRICTED_NAMESPACE, load_docs
from trainops.knowledge.psa.injected import BUILT_IN, pytorch_init
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.rules import pod_security

FLAG = "--pytorch-init-container-template-file=/etc/config/initContainer.yaml"
TEMPLATE = """- name: init-pytorch
  image: registry.example/busybox:1.36
  command: ["sh", "-c", "until nslookup {{.MasterAddr}}; do sleep 2; done"]
"""
OPERATOR = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "training-operator", "namespace": "kubeflow"},
    "spec": {
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "training-operator",
                        "image": "kubeflow/training-operator:v1-855e096",
                        "args": [FLAG],
                        "volumeMounts": [{"name": "config", "mountPath": "/etc/config"}],
                    }
                ],
                "volumes": [{"name": "config", "configMap": {"name": "init-template"}}],
            }
        }
    },
}
CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "init-template", "namespace": "kubeflow"},
    "data": {"initContainer.yaml": TEMPLATE},
}
WHERE = f"Deployment/kubeflow/training-operator {FLAG}"


def _cluster(*docs: dict) -> Cluster:
    return Cluster(
        [Rendered("operators", objects=[K8sObject(d, "operators.yaml", 1) for d in docs])]
    )


def _operator(edit=None) -> dict:
    operator = copy.deepcopy(OPERATOR)
    if edit:
        edit(operator["spec"]["template"]["spec"])
    return operator


def test_the_configured_template_is_read_with_its_fields_filled():
    injected = pytorch_init(_cluster(_operator(), CONFIG_MAP))
    assert injected.error is None
    assert injected.containers[0]["command"][2].startswith("until nslookup job-master-0;")
    assert injected.source == (
        "ConfigMap init-template (operators.yaml) mounted at /etc/config/initContainer.yaml"
    )


def test_without_the_flag_or_the_operator_the_built_in_template_is_used():
    unflagged = _operator(lambda pod: pod["containers"][0].pop("args"))
    assert pytorch_init(_cluster(unflagged)).containers == BUILT_IN
    assert pytorch_init(_cluster()).containers == BUILT_IN


def _text(text: str) -> dict:
    config_map = copy.deepcopy(CONFIG_MAP)
    config_map["data"]["initContainer.yaml"] = text
    return config_map


@pytest.mark.parametrize(
    ("docs", "error"),
    [
        ((_operator(),), f"{WHERE}: no ConfigMap in this environment provides it"),
        (
            (_operator(), {**CONFIG_MAP, "data": {"other.yaml": TEMPLATE}}),
            f"{WHERE}: ConfigMap init-template has no key initContainer.yaml",
        ),
        (
            (_operator(), _text("- name: [unclosed\n")),
            f"{WHERE}: the template is not YAML: ",
        ),
        (
            (_operator(), _text("name: init-pytorch\n")),
            f"{WHERE}: the template must be a YAML list of containers",
        ),
        (
            (_operator(lambda pod: pod["containers"][0].pop("volumeMounts")), CONFIG_MAP),
            f"{WHERE}: no volume is mounted at that path",
        ),
    ],
    ids=["no-config-map", "no-key", "not-yaml", "not-a-list", "not-mounted"],
)
def test_a_template_that_cannot_be_read_is_an_error_saying_why(docs, error):
    injected = pytorch_init(_cluster(*docs))
    assert injected.containers == []
    assert injected.error is not None and injected.error.startswith(error)


PYTORCH_JOB = """apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: ddp, namespace: team}
spec:
  pytorchReplicaSpecs:
    Master: &replica
      replicas: 1
      template:
        spec:
          securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
          containers:
            - name: pytorch
              image: registry.example/train:1.0
              securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
    Worker: *replica
"""


def test_pod_security_reports_an_unreadable_template_at_each_worker_template():
    """Without the template the worker Pods cannot be judged: a finding, not a silent pass."""
    docs = [*load_docs(RESTRICTED_NAMESPACE), *load_docs(PYTORCH_JOB), _operator()]
    rendered = Rendered("env", objects=[K8sObject(d, "env.yaml", 1) for d in docs])
    [finding] = pod_security.check(rendered, Cluster([rendered]))
    assert finding.path == "spec.pytorchReplicaSpecs.Worker.template"
    assert finding.message == (
        "cannot read the init container the Training Operator injects: "
        f"{WHERE}: no ConfigMap in this environment provides it"
    )
