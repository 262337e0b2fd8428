"""The per-kind ports of kube-apiserver v1.32.13's validation (knowledge/apivalidation: batch,
cron, apps, core, service, networking, kinds): for every check a case the server accepts (no
error) and one it rejects, with the server's own path and message. The messages were asked of the
real server (a server-side dry-run create); where the server prints a value trainops cannot know
(a new object's UID, a pointer's address) the case says so."""

from __future__ import annotations

import base64
import copy

import pytest

from trainops.knowledge.apivalidation import cron, formats, go_decode, go_quantity, kinds
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.rules import api_validation

NS = "sweep"
CONTAINERS = [{"name": "c", "image": "x"}]
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
NAME_PART = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  "
    "or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)
CONFIG_KEY = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
)
PERCENT = (
    "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or "
    "'93%', regex used for validation is '[0-9]+%')"
)
CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
UID = "00000000-0000-0000-0000-000000000000"  # stands for the UID the server gives a new Job


def errors_of(doc: dict) -> list[tuple[str, str]]:
    api = doc["apiVersion"]
    group = api.split("/")[0] if "/" in api else ""
    return kinds.KIND_CHECKS[(group, doc["kind"])](doc)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# --- builders -------------------------------------------------------------------------------------


def job(name: str = "train", labels: dict | None = None, **spec) -> dict:
    pod_spec = {"restartPolicy": "Never", "containers": CONTAINERS}
    template: dict = {"spec": pod_spec}
    if labels is not None:
        template["metadata"] = {"labels": labels}
    body = {"template": template, **spec}
    if "restartPolicy" in spec:
        pod_spec["restartPolicy"] = body.pop("restartPolicy")
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NS},
        "spec": body,
    }


def cron_job(name: str = "nightly", job_spec: dict | None = None, **spec) -> dict:
    template = {
        "template": {"spec": {"restartPolicy": "OnFailure", "containers": CONTAINERS}},
        **(job_spec or {}),
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"schedule": "0 2 * * *", "jobTemplate": {"spec": template}, **spec},
    }


def _workload(kind: str, name: str, spec: dict) -> dict:
    body = {
        "selector": {"matchLabels": {"app": "a"}},
        "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": CONTAINERS}},
        **spec,
    }
    if kind == "StatefulSet":
        body.setdefault("serviceName", "svc")
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": NS},
        "spec": body,
    }


def deployment(**spec) -> dict:
    return _workload("Deployment", "model-server", spec)


def daemon_set(**spec) -> dict:
    return _workload("DaemonSet", "exporter", spec)


def stateful_set(name: str = "cache", **spec) -> dict:
    return _workload("StatefulSet", name, spec)


def service(annotations: dict | None = None, **spec) -> dict:
    metadata: dict = {"name": "serve", "namespace": NS}
    if annotations:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": spec}


PORTS = [{"port": 80}]


def pvc(**spec) -> dict:
    body = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    body.update(spec)
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "ckpt", "namespace": NS},
        "spec": body,
    }


def config_map(**fields) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "tokenizer", "namespace": NS},
        **fields,
    }


def secret(kind: str = "Opaque", annotations: dict | None = None, **fields) -> dict:
    metadata: dict = {"name": "creds", "namespace": NS}
    if annotations is not None:
        metadata["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Secret", "metadata": metadata, "type": kind, **fields}


def hpa(**spec) -> dict:
    body = {"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 3, **spec}
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "scale", "namespace": NS},
        "spec": body,
    }


def network_policy(**spec) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "np", "namespace": NS},
        "spec": {"podSelector": {}, **spec},
    }


def pdb(**spec) -> dict:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "workers", "namespace": NS},
        "spec": spec,
    }


def binding(role_ref: dict, subjects: list, kind: str = "RoleBinding") -> dict:
    metadata = {"name": "b", "namespace": NS} if kind == "RoleBinding" else {"name": "b"}
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": metadata,
        "roleRef": role_ref,
        "subjects": subjects,
    }


ROLE_REF = {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"}


def limit_range(*limits: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "limits", "namespace": NS},
        "spec": {"limits": list(limits)},
    }


def quota(**spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "quota", "namespace": NS},
        "spec": spec,
    }


def ingress(annotations: dict | None = None, **spec) -> dict:
    metadata: dict = {"name": "web", "namespace": NS}
    if annotations:
        metadata["annotations"] = annotations
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": metadata,
        "spec": spec,
    }


BACKEND = {"service": {"name": "svc", "port": {"number": 80}}}


def priority_class(name: str, value: int, **fields) -> dict:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **fields,
    }


def _pod_failure_policy(*rules: dict) -> dict:
    return {"podFailurePolicy": {"rules": list(rules)}}


EXIT_1 = {"operator": "In", "values": [1]}
INDEXED = {"completionMode": "Indexed", "completions": 4}

# --- objects the server accepts -------------------------------------------------------------------

GOOD = {
    "job": job(),
    "job-indexed": job(**INDEXED, parallelism=2),
    "job-indexed-defaults-completions": job(completionMode="Indexed"),
    "job-per-index": job(**INDEXED, backoffLimitPerIndex=1, maxFailedIndexes=2),
    "job-pod-failure-policy": job(
        **_pod_failure_policy(
            {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1, 42]}},
            {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
            {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [0]}},
        ),
        podReplacementPolicy="Failed",
    ),
    "job-fail-index": job(
        **INDEXED,
        backoffLimitPerIndex=1,
        **_pod_failure_policy({"action": "FailIndex", "onExitCodes": EXIT_1}),
    ),
    "job-success-policy": job(
        completionMode="Indexed",
        completions=5,
        successPolicy={"rules": [{"succeededIndexes": "0,2-4", "succeededCount": 4}]},
    ),
    "job-managed-by": job(managedBy="kueue.x-k8s.io/multikueue"),
    "job-selector-of-its-name": job(selector={"matchLabels": {"job-name": "train"}}),
    "job-manual-selector": job(
        labels={"a": "b"}, manualSelector=True, selector={"matchLabels": {"a": "b"}}
    ),
    "job-long-name-manual-selector": job(
        "a" * 64, labels={"a": "b"}, manualSelector=True, selector={"matchLabels": {"a": "b"}}
    ),
    "cronjob": cron_job(timeZone="Europe/Berlin", concurrencyPolicy="Forbid"),
    "cronjob-names-and-steps": cron_job(schedule="*/15 0-6 ? jan-mar mon-fri"),
    "cronjob-descriptor": cron_job(schedule="@every 1h30m"),
    "cronjob-indexed": cron_job(job_spec={"completionMode": "Indexed", "completions": 2}),
    "cronjob-name-52": cron_job("a" * 52),
    "deployment": deployment(strategy={"rollingUpdate": {"maxSurge": "150%", "maxUnavailable": 0}}),
    "deployment-recreate": deployment(strategy={"type": "Recreate"}),
    "daemonset-surge": daemon_set(
        updateStrategy={"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}
    ),
    "daemonset-ondelete": daemon_set(
        updateStrategy={"type": "OnDelete", "rollingUpdate": {"maxSurge": 0}}
    ),
    "statefulset": stateful_set(
        revisionHistoryLimit=-1,  # ValidateStatefulSetSpec does not look at it
        updateStrategy={"rollingUpdate": {"partition": 1, "maxUnavailable": 0}},
        persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Retain"},
        ordinals={"start": 5},
        volumeClaimTemplates=[
            {
                "metadata": {"name": "data"},
                "spec": {
                    "accessModes": ["ReadWriteOncePod"],
                    "resources": {"requests": {"storage": "10Gi"}},
                },
            }
        ],
    ),
    "service": service(
        ports=[{"name": "http", "port": 80, "targetPort": 0, "appProtocol": "kubernetes.io/h2c"}],
        selector={"app": "serve"},
        externalIPs=["::ffff:10.1.2.3", "010.1.2.3"],
        sessionAffinity="None",
        sessionAffinityConfig={"clientIP": {"timeoutSeconds": 0}},  # dropped: affinity None
    ),
    "service-headless": service(clusterIP="None"),
    "service-load-balancer": service(
        type="LoadBalancer",
        ports=PORTS,
        loadBalancerSourceRanges=[" 10.0.0.0/8 "],
        loadBalancerClass="example.com/lb",
    ),
    "service-external-name": service(type="ExternalName", externalName="models.example.com."),
    "pvc": pvc(),
    "pvc-snapshot": pvc(
        dataSource={
            "apiGroup": "snapshot.storage.k8s.io",
            "kind": "VolumeSnapshot",
            "name": "snap",
        }
    ),
    "pvc-other-kind-data-source-is-dropped": pvc(dataSource={"kind": "Foo", "name": "x"}),
    "pvc-cross-namespace-ref-is-dropped": pvc(
        dataSourceRef={"kind": "PersistentVolumeClaim", "name": "x", "namespace": "other"}
    ),
    "configmap": config_map(data={"vocab.txt": "a"}, binaryData={"merges": _b64("x")}),
    "configmap-binary-with-newline": config_map(binaryData={"a": "YW\nJj"}),
    "secret-dockerconfigjson": secret(
        "kubernetes.io/dockerconfigjson", data={".dockerconfigjson": _b64('{"auths": {}}')}
    ),
    "secret-dockerconfigjson-null": secret(
        "kubernetes.io/dockerconfigjson", stringData={".dockerconfigjson": "null"}
    ),
    "secret-service-account-token": secret(
        "kubernetes.io/service-account-token",
        annotations={"kubernetes.io/service-account.name": "default"},
    ),
    "secret-basic-auth-one-key": secret("kubernetes.io/basic-auth", stringData={"username": "u"}),
    "hpa": hpa(
        metrics=[
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": 50},
                },
            }
        ],
        behavior={"scaleUp": {"selectPolicy": "Max", "stabilizationWindowSeconds": 3600}},
    ),
    "network-policy": network_policy(
        egress=[
            {
                "to": [
                    {"ipBlock": {"cidr": "0.0.0.0/0", "except": ["169.254.169.254/32"]}},
                    {"ipBlock": {"cidr": "10.0.0.0/8", "except": ["::ffff:10.1.0.0/112"]}},
                ],
                "ports": [{"port": 32000, "endPort": 32768}, {"port": "dns", "protocol": "UDP"}],
            }
        ],
        policyTypes=["Egress"],
    ),
    "pdb": pdb(maxUnavailable="100%", unhealthyPodEvictionPolicy="AlwaysAllow"),
    "rolebinding": binding(
        {"kind": "Role", "name": "r"},
        [{"kind": "User", "name": "u"}, {"kind": "ServiceAccount", "name": "trainer"}],
    ),
    "limitrange": limit_range(
        {
            "type": "Container",
            "default": {"cpu": "1"},
            "defaultRequest": {"cpu": "500m"},
            "max": {"cpu": "2"},
            "min": {"cpu": "100m"},
        },
        {"type": "PersistentVolumeClaim", "max": {"storage": "1Ti"}},
        {"type": "example.com/Thing", "max": {"cpu": "1"}},
    ),
    "quota": quota(
        hard={"requests.cpu": "10", "requests.nvidia.com/gpu": "4", "count/deployments.apps": 5},
        scopeSelector={
            "matchExpressions": [
                {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}
            ]
        },
    ),
    "ingress": ingress(
        rules=[
            {
                "host": "*.example.com",
                "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": BACKEND}]},
            }
        ]
    ),
    "priority-class-system": priority_class("system-cluster-critical", 2000000000),
}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_what_the_server_accepts_is_clean(name):
    assert errors_of(copy.deepcopy(GOOD[name])) == []


# --- objects the server rejects: (object, path, message) ---------------------------------------------

BAD = {
    # batch ValidateJob / validateJobSpec
    "job-indexed-without-completions": (
        job(completionMode="Indexed", parallelism=8),
        "spec.completions",
        "Required value: when completion mode is Indexed",
    ),
    "job-completion-mode": (
        job(completionMode="Parallel"),
        "spec.completionMode",
        'Unsupported value: "Parallel": supported values: "NonIndexed", "Indexed"',
    ),
    "job-max-failed-above-completions": (
        job(completionMode="Indexed", completions=4, backoffLimitPerIndex=1, maxFailedIndexes=10),
        "spec.maxFailedIndexes",
        "Invalid value: 10: must be less than or equal to completions",
    ),
    "job-max-failed-without-per-index": (
        job(**INDEXED, maxFailedIndexes=1),
        "spec.backoffLimitPerIndex",
        "Required value: when maxFailedIndexes is specified",
    ),
    "job-per-index-non-indexed": (
        job(backoffLimitPerIndex=1),
        "spec.backoffLimitPerIndex",
        "Invalid value: 1: requires indexed completion mode",
    ),
    "job-high-completions": (
        job(completionMode="Indexed", completions=100001, backoffLimitPerIndex=1),
        "spec.maxFailedIndexes",
        "Required value: must be specified when completions is above 100000",
    ),
    "job-parallelism-indexed": (
        job(**INDEXED, parallelism=100001),
        "spec.parallelism",
        "Invalid value: 100001: must be less than or equal to 100000 when completion mode is Indexed",
    ),
    "job-negative-ttl": (
        job(ttlSecondsAfterFinished=-1),
        "spec.ttlSecondsAfterFinished",
        "Invalid value: -1: must be greater than or equal to 0",
    ),
    "job-managed-by-no-domain": (
        job(managedBy="multikueue"),
        "spec.managedBy",
        'Invalid value: "multikueue": must be a domain-prefixed path (such as "acme.io/foo")',
    ),
    "job-managed-by-long": (
        job(managedBy="example.com/" + "a" * 60),
        "spec.managedBy",
        "Too long: may not be more than 63 bytes",
    ),
    "job-pod-failure-policy-on-failure": (
        job(
            restartPolicy="OnFailure",
            **_pod_failure_policy({"action": "FailJob", "onExitCodes": EXIT_1}),
        ),
        "spec.template.spec.restartPolicy",
        'Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
    ),
    "job-exit-code-zero-with-in": (
        job(
            **_pod_failure_policy(
                {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [0, 1]}}
            )
        ),
        "spec.podFailurePolicy.rules[0].onExitCodes.values[0]",
        "Invalid value: 0: must not be 0 for the In operator",
    ),
    "job-exit-codes-unordered": (
        job(
            **_pod_failure_policy(
                {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42, 3]}}
            )
        ),
        "spec.podFailurePolicy.rules[0].onExitCodes.values",
        "Invalid value: []int32{42, 3}: must be ordered",
    ),
    "job-exit-codes-duplicate": (
        job(
            **_pod_failure_policy(
                {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [1, 1]}}
            )
        ),
        "spec.podFailurePolicy.rules[0].onExitCodes.values[1]",
        "Duplicate value: 1",
    ),
    "job-exit-codes-empty": (
        job(
            **_pod_failure_policy(
                {"action": "FailJob", "onExitCodes": {"operator": "In", "values": []}}
            )
        ),
        "spec.podFailurePolicy.rules[0].onExitCodes.values",
        "Invalid value: []int32{}: at least one value is required",
    ),
    "job-exit-codes-operator": (
        job(
            **_pod_failure_policy(
                {"action": "FailJob", "onExitCodes": {"operator": "Is", "values": [1]}}
            )
        ),
        "spec.podFailurePolicy.rules[0].onExitCodes.operator",
        'Unsupported value: "Is": supported values: "In", "NotIn"',
    ),
    "job-exit-codes-container": (
        job(
            **_pod_failure_policy(
                {
                    "action": "FailJob",
                    "onExitCodes": {"containerName": "nope", "operator": "In", "values": [1]},
                }
            )
        ),
        "spec.podFailurePolicy.rules[0].onExitCodes.containerName",
        'Invalid value: "nope": must be one of the container or initContainer names in the pod '
        "template",
    ),
    "job-action-empty": (
        job(**_pod_failure_policy({"action": "", "onExitCodes": EXIT_1})),
        "spec.podFailurePolicy.rules[0].action",
        'Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
    ),
    "job-action-unknown": (
        job(**_pod_failure_policy({"action": "Retry", "onExitCodes": EXIT_1})),
        "spec.podFailurePolicy.rules[0].action",
        'Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
    ),
    "job-fail-index-without-per-index": (
        job(**_pod_failure_policy({"action": "FailIndex", "onExitCodes": EXIT_1})),
        "spec.podFailurePolicy.rules[0].action",
        'Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
    ),
    "job-rule-without-requirement": (
        job(**_pod_failure_policy({"action": "FailJob"})),
        "spec.podFailurePolicy.rules[0]",
        "Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
    ),
    "job-rule-with-both-requirements": (
        job(
            **_pod_failure_policy(
                {
                    "action": "FailJob",
                    "onExitCodes": EXIT_1,
                    "onPodConditions": [{"type": "DisruptionTarget"}],
                }
            )
        ),
        "spec.podFailurePolicy.rules[0]",
        "Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
    ),
    "job-condition-status": (
        job(
            **_pod_failure_policy(
                {"action": "Ignore", "onPodConditions": [{"type": "X", "status": "Yes"}]}
            )
        ),
        "spec.podFailurePolicy.rules[0].onPodConditions[0].status",
        'Unsupported value: "Yes": supported values: "False", "True", "Unknown"',
    ),
    "job-condition-type": (
        job(**_pod_failure_policy({"action": "Ignore", "onPodConditions": [{"type": "bad type"}]})),
        "spec.podFailurePolicy.rules[0].onPodConditions[0].type",
        f'Invalid value: "bad type": {NAME_PART}',
    ),
    "job-too-many-rules": (
        job(
            **_pod_failure_policy(*[{"action": "Ignore", "onPodConditions": [{"type": "X"}]}] * 21)
        ),
        "spec.podFailurePolicy.rules",
        "Too many: 21: must have at most 20 items",
    ),
    "job-replacement-with-policy": (
        job(
            podReplacementPolicy="TerminatingOrFailed",
            **_pod_failure_policy({"action": "FailJob", "onExitCodes": EXIT_1}),
        ),
        "spec.podReplacementPolicy",
        'Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
    ),
    "job-replacement-unknown": (
        job(podReplacementPolicy="Sometimes"),
        "spec.podReplacementPolicy",
        'Unsupported value: "Sometimes": supported values: "Failed", "TerminatingOrFailed"',
    ),
    "job-success-policy-non-indexed": (
        job(successPolicy={"rules": [{"succeededCount": 1}]}),
        "spec.successPolicy",
        "Invalid value: batch.SuccessPolicy{Rules:[]batch.SuccessPolicyRule{batch.SuccessPolicyRule"
        "{SucceededIndexes:(*string)(nil), SucceededCount:(*int32)(0xc000000000)}}}: requires "
        "indexed completion mode",  # the server prints the pointer's own address
    ),
    "job-success-count-above-completions": (
        job(**INDEXED, successPolicy={"rules": [{"succeededCount": 5}]}),
        "spec.successPolicy.rules[0].succeededCount",
        "Invalid value: 5: must be less than or equal to 4 (the number of specified completions)",
    ),
    "job-success-count-above-indexes": (
        job(**INDEXED, successPolicy={"rules": [{"succeededIndexes": "0,2", "succeededCount": 3}]}),
        "spec.successPolicy.rules[0].succeededCount",
        "Invalid value: 3: must be less than or equal to 2 (the number of indexes in the "
        "specified succeededIndexes field)",
    ),
    "job-succeeded-indexes-unordered": (
        job(**INDEXED, successPolicy={"rules": [{"succeededIndexes": "3,1"}]}),
        "spec.successPolicy.rules[0].succeededIndexes",
        'Invalid value: "3,1": error parsing succeededIndexes: non-increasing order, previous: 3, '
        "current: 1",
    ),
    "job-succeeded-indexes-too-large": (
        job(**INDEXED, successPolicy={"rules": [{"succeededIndexes": "0-4"}]}),
        "spec.successPolicy.rules[0].succeededIndexes",
        'Invalid value: "0-4": error parsing succeededIndexes: too large index: "4"',
    ),
    "job-success-rules-empty": (
        job(**INDEXED, successPolicy={"rules": []}),
        "spec.successPolicy.rules",
        "Required value: at least one rules must be specified when the successPolicy is specified",
    ),
    "job-selector-without-manual": (
        job(labels={"job": "auto-sel"}, selector={"matchLabels": {"job": "auto-sel"}}),
        "spec.selector",
        'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/'
        f'controller-uid":"{UID}", "job":"auto-sel"}}, MatchExpressions:[]v1.LabelSelectorRequirement'
        "(nil)}: `selector` not auto-generated",
    ),
    "job-manual-selector-missing": (
        job(manualSelector=True),
        "spec.selector",
        "Required value",
    ),
    "job-manual-selector-mismatch": (
        job(manualSelector=True, selector={"matchLabels": {"a": "b"}}),
        "spec.template.metadata.labels",
        "Invalid value: map[string]string(nil): `selector` does not match template `labels`",
    ),
    "job-selector-operator": (
        job(
            labels={"a": "b"},
            manualSelector=True,
            selector={"matchExpressions": [{"key": "a", "operator": "Equals"}]},
        ),
        "spec.selector.matchExpressions[0].operator",
        'Invalid value: "Equals": not a valid selector operator',
    ),
    "job-name-over-63": (
        job("llama-7b-finetune-lora-rank-64-alpha-16-dropout-01-lr-3e4-run-07"),
        "spec.template.labels",
        'Invalid value: "llama-7b-finetune-lora-rank-64-alpha-16-dropout-01-lr-3e4-run-07": '
        "must be no more than 63 characters",
    ),
    "job-template-job-name-label": (
        job("j5", labels={"job-name": "other"}),
        "spec.template.metadata.labels[job-name]",
        "Invalid value: map[string]string{"
        f'"batch.kubernetes.io/controller-uid":"{UID}", "batch.kubernetes.io/job-name":"j5", '
        f'"controller-uid":"{UID}", "job-name":"other"}}: must be \'j5\'',
    ),
    "job-indexed-hostname": (
        job("j6.x", completionMode="Indexed", completions=3),
        "metadata.name",
        'Invalid value: "j6.x": will not able to create pod with invalid DNS label: j6.x-2',
    ),
    # batch ValidateCronJobCreate, validateCronJobSpec, ValidateJobTemplateSpec
    "cronjob-hour-25": (
        cron_job(schedule="0 25 * * *"),
        "spec.schedule",
        'Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25',
    ),
    "cronjob-reboot": (
        cron_job(schedule="@reboot"),
        "spec.schedule",
        'Invalid value: "@reboot": unrecognized descriptor: @reboot',
    ),
    "cronjob-step-zero": (
        cron_job(schedule="*/0 * * * *"),
        "spec.schedule",
        'Invalid value: "*/0 * * * *": step of range should be a positive number: */0',
    ),
    "cronjob-sunday-7": (
        cron_job(schedule="0 0 * * 7"),
        "spec.schedule",
        'Invalid value: "0 0 * * 7": end of range (7) above maximum (6): 7',
    ),
    "cronjob-six-fields": (
        cron_job(schedule="0 0 2 * * *"),
        "spec.schedule",
        'Invalid value: "0 0 2 * * *": expected exactly 5 fields, found 6: [0 0 2 * * *]',
    ),
    "cronjob-not-a-number": (
        cron_job(schedule="H 0 * * *"),
        "spec.schedule",
        'Invalid value: "H 0 * * *": failed to parse int from H: strconv.Atoi: parsing "H": '
        "invalid syntax",
    ),
    "cronjob-negative-step": (
        cron_job(schedule="*/-1 * * * *"),
        "spec.schedule",
        'Invalid value: "*/-1 * * * *": negative number (-1) not allowed: -1',
    ),
    "cronjob-every-without-unit": (
        cron_job(schedule="@every 5"),
        "spec.schedule",
        'Invalid value: "@every 5": failed to parse duration @every 5: time: missing unit in '
        'duration "5"',
    ),
    "cronjob-tz-in-schedule": (
        cron_job(schedule="CRON_TZ=UTC 0 0 * * *"),
        "spec.schedule",
        'Invalid value: "CRON_TZ=UTC 0 0 * * *": cannot use TZ or CRON_TZ in schedule, use '
        "timeZone field instead",
    ),
    "cronjob-schedule-empty": (cron_job(schedule=""), "spec.schedule", "Required value"),
    "cronjob-time-zone": (
        cron_job(timeZone="Mars/Olympus"),
        "spec.timeZone",
        'Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
    ),
    "cronjob-time-zone-local": (
        cron_job(timeZone="Local"),
        "spec.timeZone",
        'Invalid value: "Local": timeZone must be an explicit time zone as defined in '
        "https://www.iana.org/time-zones",
    ),
    "cronjob-time-zone-empty": (
        cron_job(timeZone=""),
        "spec.timeZone",
        'Invalid value: "": timeZone must be nil or non-empty string',
    ),
    "cronjob-history": (
        cron_job(successfulJobsHistoryLimit=-1),
        "spec.successfulJobsHistoryLimit",
        "Invalid value: -1: must be greater than or equal to 0",
    ),
    "cronjob-concurrency": (
        cron_job(concurrencyPolicy="Never"),
        "spec.concurrencyPolicy",
        'Unsupported value: "Never": supported values: "Allow", "Forbid", "Replace"',
    ),
    "cronjob-name-53": (
        cron_job("a" * 53),
        "metadata.name",
        f'Invalid value: "{"a" * 53}": must be no more than 52 characters',
    ),
    "cronjob-template-indexed": (
        cron_job(job_spec={"completionMode": "Indexed", "parallelism": 4}),
        "spec.jobTemplate.spec.completions",
        "Required value: when completion mode is Indexed",
    ),
    "cronjob-template-selector": (
        cron_job(job_spec={"selector": {"matchLabels": {"a": "b"}}}),
        "spec.jobTemplate.spec.selector",
        'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, '
        "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated",
    ),
    "cronjob-template-manual-selector": (
        cron_job(job_spec={"manualSelector": True}),
        "spec.jobTemplate.spec.manualSelector",
        'Unsupported value: true: supported values: "nil", "false"',
    ),
    # apps
    "deployment-both-zero": (
        deployment(strategy={"rollingUpdate": {"maxSurge": "0%", "maxUnavailable": 0}}),
        "spec.strategy.rollingUpdate.maxUnavailable",
        'Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when '
        "`maxSurge` is 0",
    ),
    "deployment-surge-without-percent": (
        deployment(strategy={"rollingUpdate": {"maxSurge": "2", "maxUnavailable": 0}}),
        "spec.strategy.rollingUpdate.maxSurge",
        f'Invalid value: intstr.IntOrString{{Type:1, IntVal:0, StrVal:"2"}}: {PERCENT}',
    ),
    "deployment-unavailable-150": (
        deployment(strategy={"rollingUpdate": {"maxUnavailable": "150%"}}),
        "spec.strategy.rollingUpdate.maxUnavailable",
        'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater '
        "than 100%",
    ),
    "deployment-strategy-type": (
        deployment(strategy={"type": "BlueGreen"}),
        "spec.strategy",
        'Unsupported value: apps.DeploymentStrategy{Type:"BlueGreen", RollingUpdate:(*apps.'
        'RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"',
    ),
    "deployment-recreate-with-rolling-update": (
        deployment(strategy={"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}),
        "spec.strategy.rollingUpdate",
        "Forbidden: may not be specified when strategy `type` is 'Recreate'",
    ),
    "deployment-default-deadline": (
        deployment(minReadySeconds=600),
        "spec.progressDeadlineSeconds",
        "Invalid value: 600: must be greater than minReadySeconds",
    ),
    "deployment-empty-selector": (
        deployment(selector={}),
        "spec.selector",
        "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:"
        "[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment",
    ),
    "deployment-selector-operator": (
        deployment(
            selector={"matchExpressions": [{"key": "app", "operator": "Equals", "values": ["a"]}]}
        ),
        "spec.selector",
        "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:"
        '[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"Equals", '
        'Values:[]string{"a"}}}}: invalid label selector',
    ),
    "deployment-selector-mismatch": (
        deployment(selector={"matchLabels": {"app": "b"}}),
        "spec.template.metadata.labels",
        'Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
    ),
    "daemonset-both-zero": (
        daemon_set(updateStrategy={"rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}}),
        "spec.updateStrategy.rollingUpdate.maxUnavailable",
        "Required value: cannot be 0 when maxSurge is 0",
    ),
    "daemonset-both-set": (
        daemon_set(updateStrategy={"rollingUpdate": {"maxSurge": 1, "maxUnavailable": 1}}),
        "spec.updateStrategy.rollingUpdate.maxSurge",
        'Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when '
        "maxUnavailable is non-zero",
    ),
    "daemonset-surge-150": (
        daemon_set(updateStrategy={"rollingUpdate": {"maxSurge": "150%", "maxUnavailable": 0}}),
        "spec.updateStrategy.rollingUpdate.maxSurge",
        'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater '
        "than 100%",
    ),
    "daemonset-strategy-type": (
        daemon_set(updateStrategy={"type": "Foo"}),
        "spec.updateStrategy",
        'Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Foo", RollingUpdate:(*apps.'
        'RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"',
    ),
    "statefulset-ordinals": (
        stateful_set(ordinals={"start": -1}),
        "spec.ordinals.start",
        "Invalid value: -1: must be greater than or equal to 0",
    ),
    "statefulset-partition": (
        stateful_set(updateStrategy={"rollingUpdate": {"partition": -1}}),
        "spec.updateStrategy.rollingUpdate.partition",
        "Invalid value: -1: must be greater than or equal to 0",
    ),
    "statefulset-retention": (
        stateful_set(persistentVolumeClaimRetentionPolicy={"whenDeleted": "Keep"}),
        "spec.persistentVolumeClaimRetentionPolicy.whenDeleted",
        'Unsupported value: "Keep": supported values: "Retain", "Delete"',
    ),
    "statefulset-ondelete-with-rolling-update": (
        stateful_set(updateStrategy={"type": "OnDelete", "rollingUpdate": {"partition": 1}}),
        "spec.updateStrategy.rollingUpdate",
        "Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:1, MaxUnavailable:"
        "(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'",
    ),
    "statefulset-strategy-type": (
        stateful_set(updateStrategy={"type": "Foo"}),
        "spec.updateStrategy",
        'Invalid value: apps.StatefulSetUpdateStrategy{Type:"Foo", RollingUpdate:(*apps.'
        "RollingUpdateStatefulSetStrategy)(nil)}: must be 'RollingUpdate' or 'OnDelete'",
    ),
    "statefulset-pod-management": (
        stateful_set(podManagementPolicy="Burst"),
        "spec.podManagementPolicy",
        "Invalid value: \"Burst\": must be 'OrderedReady' or 'Parallel'",
    ),
    "statefulset-name-with-dots": (
        stateful_set("a.b"),
        "metadata.name",
        'Invalid value: "a.b": must not contain dots',
    ),
    "statefulset-claim-without-storage": (
        stateful_set(
            volumeClaimTemplates=[
                {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}
            ]
        ),
        "spec.volumeClaimTemplates[0].spec.resources[storage]",
        "the PersistentVolumeClaim the StatefulSet controller creates from this template is "
        "rejected: Required value",
    ),
    "statefulset-claim-access-mode": (
        stateful_set(
            volumeClaimTemplates=[
                {
                    "metadata": {"name": "cache"},
                    "spec": {
                        "accessModes": ["ReadWriteAll"],
                        "resources": {"requests": {"storage": "1Gi"}},
                    },
                }
            ]
        ),
        "spec.volumeClaimTemplates[0].spec.accessModes",
        "the PersistentVolumeClaim the StatefulSet controller creates from this template is "
        'rejected: Unsupported value: "ReadWriteAll": supported values: "ReadOnlyMany", '
        '"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    ),
    "statefulset-claim-label": (
        stateful_set(
            volumeClaimTemplates=[
                {
                    "metadata": {"name": "d", "labels": {"a": "b c"}},
                    "spec": {
                        "accessModes": ["ReadWriteOnce"],
                        "resources": {"requests": {"storage": "1Gi"}},
                    },
                }
            ]
        ),
        "spec.volumeClaimTemplates[0].metadata.labels",
        "the PersistentVolumeClaim the StatefulSet controller creates from this template is "
        f'rejected: Invalid value: "b c": {LABEL_VALUE}',
    ),
    # core ValidateService
    "service-headless-node-port": (
        service(type="NodePort", clusterIP="None", ports=PORTS),
        "spec.clusterIPs[0]",
        "Invalid value: \"None\": may not be set to 'None' for NodePort services",
    ),
    "service-headless-load-balancer": (
        service(type="LoadBalancer", clusterIP="None", ports=PORTS),
        "spec.clusterIPs[0]",
        "Invalid value: \"None\": may not be set to 'None' for LoadBalancer services",
    ),
    "service-duplicate-port": (
        service(ports=[{"name": "a", "port": 80}, {"name": "b", "port": 80}]),
        "spec.ports[1]",
        'Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), '
        'Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ),
    "service-port-range-and-its-target": (
        service(ports=[{"port": 70000}]),
        "spec.ports[0].targetPort",
        "Invalid value: 70000: must be between 1 and 65535, inclusive",
    ),
    "service-source-range": (
        service(type="LoadBalancer", ports=PORTS, loadBalancerSourceRanges=["10.0.0.0/33"]),
        "spec.LoadBalancerSourceRanges[0]",
        f'Invalid value: "10.0.0.0/33": {CIDR}',
    ),
    "service-source-range-annotation": (
        service(
            annotations={"service.beta.kubernetes.io/load-balancer-source-ranges": "10.0.0.0/8, x"},
            type="LoadBalancer",
            ports=PORTS,
        ),
        "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]",
        f'Invalid value: "x": {CIDR}',
    ),
    "service-source-range-not-lb": (
        service(ports=PORTS, loadBalancerSourceRanges=["10.0.0.0/8"]),
        "spec.LoadBalancerSourceRanges",
        "Forbidden: may only be used when `type` is 'LoadBalancer'",
    ),
    "service-affinity-timeout": (
        service(
            ports=PORTS,
            sessionAffinity="ClientIP",
            sessionAffinityConfig={"clientIP": {"timeoutSeconds": 86401}},
        ),
        "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
        "Invalid value: 86401: must be greater than 0 and less than 86400",
    ),
    "service-selector-value": (
        service(ports=PORTS, selector={"app": "model/server"}),
        "spec.selector",
        f'Invalid value: "model/server": {LABEL_VALUE}',
    ),
    "service-internal-traffic": (
        service(ports=PORTS, internalTrafficPolicy="Node"),
        "spec.internalTrafficPolicy",
        'Unsupported value: "Node": supported values: "Cluster", "Local"',
    ),
    "service-external-traffic": (
        service(type="NodePort", ports=PORTS, externalTrafficPolicy="Foo"),
        "spec.externalTrafficPolicy",
        'Unsupported value: "Foo": supported values: "Cluster", "Local"',
    ),
    "service-health-check-port": (
        service(ports=PORTS, healthCheckNodePort=30001),
        "spec.healthCheckNodePort",
        "Invalid value: 30001: may only be set when `type` is 'LoadBalancer' and "
        "`externalTrafficPolicy` is 'Local'",
    ),
    "service-traffic-distribution": (
        service(ports=PORTS, trafficDistribution="Foo"),
        "spec.trafficDistribution",
        'Unsupported value: "Foo": supported values: "PreferClose"',
    ),
    "service-lb-class-not-lb": (
        service(ports=PORTS, loadBalancerClass="example.com/lb"),
        "spec.loadBalancerClass",
        "Forbidden: may only be used when `type` is 'LoadBalancer'",
    ),
    "service-lb-node-ports-not-lb": (
        service(ports=PORTS, allocateLoadBalancerNodePorts=True),
        "spec.allocateLoadBalancerNodePorts",
        "Forbidden: may only be used when `type` is 'LoadBalancer'",
    ),
    "service-kubelet-port": (
        service(type="LoadBalancer", ports=[{"port": 10250}]),
        "spec.ports[0]",
        "Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet",
    ),
    "service-app-protocol": (
        service(ports=[{"port": 80, "appProtocol": "http 2"}]),
        "spec.ports[0].appProtocol",
        f'Invalid value: "http 2": {NAME_PART}',
    ),
    "service-target-port-name": (
        service(ports=[{"port": 80, "targetPort": "HTTP"}]),
        "spec.ports[0].targetPort",
        'Invalid value: "HTTP": must contain at least one letter (a-z)',
    ),
    "service-external-ip": (
        service(ports=PORTS, externalIPs=["serve.example.com"]),
        "spec.externalIPs[0]",
        f'Invalid value: "serve.example.com": {IP}',
    ),
    "service-external-ip-loopback": (
        service(ports=PORTS, externalIPs=["127.0.0.1"]),
        "spec.externalIPs[0]",
        'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ),
    "service-external-ip-zone": (
        service(ports=PORTS, externalIPs=["fe80::1%eth0"]),
        "spec.externalIPs[0]",
        f'Invalid value: "fe80::1%eth0": {IP}',
    ),
    "service-cluster-ip": (
        service(ports=PORTS, clusterIP="abc"),
        "spec.clusterIPs[0]",
        f'Invalid value: "abc": {IP}',
    ),
    "service-cluster-ips-first": (
        service(ports=PORTS, clusterIP="10.96.0.50", clusterIPs=["10.96.0.51"]),
        "spec.clusterIPs",
        'Invalid value: []string{"10.96.0.51"}: first value must match `clusterIP`',
    ),
    "service-ip-family": (
        service(ports=PORTS, ipFamilies=["IPv5"]),
        "spec.ipFamilies[0]",
        'Unsupported value: "IPv5": supported values: "IPv4", "IPv6"',
    ),
    "service-external-name-cluster-ip": (
        service(type="ExternalName", externalName="a.b", clusterIP="None"),
        "spec.clusterIPs",
        "Forbidden: may not be set for ExternalName services",
    ),
    "service-topology-annotations": (
        service(
            annotations={
                "service.kubernetes.io/topology-mode": "Auto",
                "service.kubernetes.io/topology-aware-hints": "Disabled",
            },
            ports=PORTS,
        ),
        "metadata.annotations[service.kubernetes.io/topology-mode]",
        'Invalid value: "Auto": must match annotations[service.kubernetes.io/topology-aware-hints] '
        "when both are specified",
    ),
    # core ValidatePersistentVolumeClaimSpec
    "pvc-once-pod-with-others": (
        pvc(accessModes=["ReadWriteOncePod", "ReadWriteOnce"]),
        "spec.accessModes",
        "Forbidden: may not use ReadWriteOncePod with other access modes",
    ),
    "pvc-data-source-mismatch": (
        pvc(
            dataSource={"kind": "PersistentVolumeClaim", "name": "a"},
            dataSourceRef={"kind": "PersistentVolumeClaim", "name": "b"},
        ),
        "spec",
        'Invalid value: field.Path{name:"dataSource", index:"", parent:(*field.Path)(0xc000000000)}: '
        "must match dataSourceRef",  # the server prints its parent's address
    ),
    "pvc-data-source-ref-kind": (
        pvc(dataSourceRef={"kind": "Foo", "name": "x"}),
        "spec.dataSourceRef",
        "Invalid value: \"Foo\": must be 'PersistentVolumeClaim' when referencing the default "
        "apiGroup",
    ),
    "pvc-data-source-without-name": (
        pvc(dataSource={"kind": "PersistentVolumeClaim"}),
        "spec.dataSourceRef.name",
        "Required value",
    ),
    "pvc-storage-zero": (
        pvc(resources={"requests": {"storage": "0"}}),
        "spec.resources[storage]",
        'Invalid value: "0": must be greater than zero',
    ),
    "pvc-storage-not-a-quantity": (
        pvc(resources={"requests": {"storage": "10 Gi"}}),
        "spec.resources[storage]",
        go_quantity.FORMAT_WRONG,  # the request fails decoding
    ),
    "pvc-storage-class": (
        pvc(storageClassName="Fast_SSD"),
        "spec.storageClassName",
        f'Invalid value: "Fast_SSD": {SUBDOMAIN}',
    ),
    "pvc-selector": (
        pvc(selector={"matchExpressions": [{"key": "a", "operator": "In"}]}),
        "spec.selector.matchExpressions[0].values",
        "Required value: must be specified when `operator` is 'In' or 'NotIn'",
    ),
    # core ValidateConfigMap / ValidateSecret, and decoding their base64
    "configmap-key-in-both": (
        config_map(data={"vocab.txt": "a"}, binaryData={"vocab.txt": _b64("a")}),
        "data[vocab.txt]",
        'Invalid value: "vocab.txt": duplicate of key present in binaryData',
    ),
    "configmap-binary-not-base64": (
        config_map(binaryData={"a": "YW==x"}),
        "binaryData[a]",
        "illegal base64 data at input byte 4",
    ),
    "configmap-key-dots": (
        config_map(data={"..": "x"}),
        "data[..]",
        "Invalid value: \"..\": must not be '..'",
    ),
    "configmap-binary-key": (
        config_map(binaryData={"a b": "YQ=="}),
        "binaryData[a b]",
        f'Invalid value: "a b": {CONFIG_KEY}',
    ),
    "configmap-too-big": (
        config_map(data={"a": "x" * (1024 * 1024 + 1)}),
        "",
        "Too long: may not be more than 1048576 bytes",
    ),
    "secret-data-not-base64": (
        secret(data={"token": "YWJjZA="}),
        "data[token]",
        "illegal base64 data at input byte 7",
    ),
    "secret-string-data-key": (
        secret(stringData={"a b": "x"}),
        "data[a b]",
        f'Invalid value: "a b": {CONFIG_KEY}',
    ),
    "secret-service-account-token": (
        secret("kubernetes.io/service-account-token"),
        "metadata.annotations[kubernetes.io/service-account.name]",
        "Required value",
    ),
    "secret-dockerconfigjson-json": (
        secret("kubernetes.io/dockerconfigjson", data={".dockerconfigjson": _b64("{")}),
        "data[.dockerconfigjson]",
        'Invalid value: "<secret contents redacted>": unexpected end of JSON input',
    ),
    "secret-dockerconfigjson-array": (
        secret("kubernetes.io/dockerconfigjson", stringData={".dockerconfigjson": "[]"}),
        "data[.dockerconfigjson]",
        'Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value '
        "of type map[string]interface {}",
    ),
    "secret-dockerconfigjson-quote": (
        secret("kubernetes.io/dockerconfigjson", stringData={".dockerconfigjson": "{'a':1}"}),
        "data[.dockerconfigjson]",
        "Invalid value: \"<secret contents redacted>\": invalid character '\\'' looking for "
        "beginning of object key string",
    ),
    "secret-dockerconfigjson-escape": (
        secret("kubernetes.io/dockerconfigjson", stringData={".dockerconfigjson": '{"a":"\\q"}'}),
        "data[.dockerconfigjson]",
        'Invalid value: "<secret contents redacted>": invalid escape sequence `\\q` in string',
    ),
    "secret-dockercfg-missing": (
        secret("kubernetes.io/dockercfg", data={}),
        "data[.dockercfg]",
        "Required value",
    ),
    "secret-tls-key": (
        secret("kubernetes.io/tls", data={"tls.crt": _b64("x")}),
        "data[tls.key]",
        "Required value",
    ),
    "secret-ssh-auth": (
        secret("kubernetes.io/ssh-auth", data={"ssh-privatekey": ""}),
        "data[ssh-privatekey]",
        "Required value",
    ),
    "secret-basic-auth": (
        secret("kubernetes.io/basic-auth", data={}),
        "data[password]",
        "Required value",
    ),
    # autoscaling ValidateHorizontalPodAutoscaler
    "hpa-source-missing": (
        hpa(metrics=[{"type": "Resource", "pods": {"metric": {"name": "x"}}}]),
        "spec.metrics[0].resource",
        "Required value: must populate information for the given metric source",
    ),
    "hpa-select-policy": (
        hpa(behavior={"scaleUp": {"selectPolicy": "Maximum"}}),
        "spec.behavior.scaleUp.selectPolicy",
        'Unsupported value: "Maximum": supported values: "Disabled", "Max", "Min"',
    ),
    "hpa-stabilization": (
        hpa(behavior={"scaleDown": {"stabilizationWindowSeconds": 3601}}),
        "spec.behavior.scaleDown.stabilizationWindowSeconds",
        "Invalid value: 3601: must be less than or equal to 3600",
    ),
    "hpa-period": (
        hpa(
            behavior={
                "scaleUp": {"policies": [{"type": "Pods", "value": 4, "periodSeconds": 1801}]}
            }
        ),
        "spec.behavior.scaleUp.policies[0].periodSeconds",
        "Invalid value: 1801: must be less than or equal to 1800",
    ),
    "hpa-no-policies": (
        hpa(behavior={"scaleUp": {"policies": []}}),
        "spec.behavior.scaleUp.policies",
        "Required value: must specify at least one Policy",
    ),
    "hpa-target-type": (
        hpa(
            metrics=[
                {
                    "type": "Resource",
                    "resource": {
                        "name": "cpu",
                        "target": {"type": "Percent", "averageUtilization": 50},
                    },
                }
            ]
        ),
        "spec.metrics[0].resource.target.type",
        'Invalid value: "Percent": must be either Utilization, Value, or AverageValue',
    ),
    "hpa-min-zero": (
        hpa(minReplicas=0),
        "spec.metrics",
        "Forbidden: must specify at least one Object or External metric to support scaling to "
        "zero replicas",
    ),
    # networking
    "netpol-cidr": (
        network_policy(egress=[{"to": [{"ipBlock": {"cidr": "10.0.5.17"}}]}]),
        "spec.egress[0].to[0].ipBlock.cidr",
        f'Invalid value: "10.0.5.17": {CIDR}',
    ),
    "netpol-except-not-inside": (
        network_policy(
            egress=[{"to": [{"ipBlock": {"cidr": "10.0.0.0/8", "except": ["10.0.0.0/8"]}}]}]
        ),
        "spec.egress[0].to[0].ipBlock.except[0]",
        'Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`',
    ),
    "netpol-protocol": (
        network_policy(ingress=[{"ports": [{"port": 80, "protocol": "ICMP"}]}]),
        "spec.ingress[0].ports[0].protocol",
        'Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
    ),
    "netpol-selector-key": (
        network_policy(
            ingress=[{"from": [{"namespaceSelector": {"matchLabels": {"team name": "x"}}}]}]
        ),
        "spec.ingress[0].from[0].namespaceSelector.matchLabels",
        f'Invalid value: "team name": {NAME_PART}',
    ),
    "netpol-end-port": (
        network_policy(ingress=[{"ports": [{"port": 30000, "endPort": 29000}]}]),
        "spec.ingress[0].ports[0].endPort",
        "Invalid value: 30000: must be greater than or equal to `port`",
    ),
    "netpol-end-port-without-port": (
        network_policy(ingress=[{"ports": [{"endPort": 100}]}]),
        "spec.ingress[0].ports[0].endPort",
        "Invalid value: 100: may not be specified when `port` is not specified",
    ),
    "netpol-ip-block-and-selector": (
        network_policy(egress=[{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}, "podSelector": {}}]}]),
        "spec.egress[0].to[0]",
        "Forbidden: may not specify both ipBlock and another peer",
    ),
    "netpol-policy-type": (
        network_policy(policyTypes=["Both"]),
        "spec.policyTypes[0]",
        'Unsupported value: "Both": supported values: "Ingress", "Egress"',
    ),
    "ingress-nothing": (
        ingress(),
        "spec",
        "Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be "
        "specified",
    ),
    "ingress-host-ip": (
        ingress(
            rules=[
                {
                    "host": "10.0.0.1",
                    "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": BACKEND}]},
                }
            ]
        ),
        "spec.rules[0].host",
        'Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
    ),
    "ingress-path": (
        ingress(
            rules=[
                {"http": {"paths": [{"path": "/a//b", "pathType": "Prefix", "backend": BACKEND}]}}
            ]
        ),
        "spec.rules[0].http.paths[0].path",
        "Invalid value: \"/a//b\": must not contain '//'",
    ),
    "ingress-path-type": (
        ingress(rules=[{"http": {"paths": [{"path": "/", "backend": BACKEND}]}}]),
        "spec.rules[0].http.paths[0].pathType",
        "Required value: pathType must be specified",
    ),
    "ingress-port": (
        ingress(defaultBackend={"service": {"name": "svc", "port": {}}}),
        "spec.defaultBackend",
        "Required value: port name or number is required",
    ),
    "ingress-class-annotation": (
        ingress(
            annotations={"kubernetes.io/ingress.class": "traefik"},
            defaultBackend=BACKEND,
            ingressClassName="nginx",
        ),
        "annotations.kubernetes.io/ingress.class",
        'Invalid value: "traefik": must match `ingressClassName` when both are specified',
    ),
    # policy ValidatePodDisruptionBudgetSpec
    "pdb-above-100": (
        pdb(maxUnavailable="150%"),
        "spec.maxUnavailable",
        'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater '
        "than 100%",
    ),
    "pdb-eviction-policy": (
        pdb(minAvailable=1, unhealthyPodEvictionPolicy="Always"),
        "spec.unhealthyPodEvictionPolicy",
        'Unsupported value: "Always": supported values: "AlwaysAllow", "IfHealthyBudget"',
    ),
    "pdb-selector-operator": (
        pdb(minAvailable=1, selector={"matchExpressions": [{"key": "a", "operator": "Equals"}]}),
        "spec.selector.matchExpressions[0].operator",
        'Invalid value: "Equals": not a valid selector operator',
    ),
    "pdb-not-a-percent": (
        pdb(minAvailable="50"),
        "spec.minAvailable",
        f'Invalid value: intstr.IntOrString{{Type:1, IntVal:0, StrVal:"50"}}: {PERCENT}',
    ),
    # rbac
    "rolebinding-ref-group": (
        binding({**ROLE_REF, "apiGroup": "rbac.authorization.k8s.io/v1"}, []),
        "roleRef.apiGroup",
        'Unsupported value: "rbac.authorization.k8s.io/v1": supported values: '
        '"rbac.authorization.k8s.io"',
    ),
    "rolebinding-service-account-group": (
        binding(
            ROLE_REF,
            [{"kind": "ServiceAccount", "name": "t", "apiGroup": "rbac.authorization.k8s.io"}],
        ),
        "subjects[0].apiGroup",
        'Unsupported value: "rbac.authorization.k8s.io": supported values: ""',
    ),
    "rolebinding-user-group": (
        binding(ROLE_REF, [{"kind": "User", "name": "u", "apiGroup": "x"}]),
        "subjects[0].apiGroup",
        'Unsupported value: "x": supported values: "rbac.authorization.k8s.io"',
    ),
    "rolebinding-ref-name": (
        binding({**ROLE_REF, "name": "a/b"}, []),
        "roleRef.name",
        "Invalid value: \"a/b\": may not contain '/'",
    ),
    "clusterrolebinding-namespace": (
        binding(
            {**ROLE_REF, "kind": "ClusterRole"},
            [{"kind": "ServiceAccount", "name": "x"}],
            kind="ClusterRoleBinding",
        ),
        "subjects[0].namespace",
        "Required value",
    ),
    # core ValidateLimitRange
    "limitrange-default-above-max": (
        limit_range(
            {"type": "Container", "max": {"memory": "256Gi"}, "default": {"memory": "512Gi"}}
        ),
        "spec.limits[0].default[memory]",
        "Invalid value: resource.Quantity{i:resource.int64Amount{value:274877906944, scale:0}, "
        'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"256Gi", Format:"BinarySI"}: default '
        "value 512Gi is greater than max value 256Gi",
    ),
    "limitrange-ratio": (
        limit_range({"type": "Container", "maxLimitRequestRatio": {"cpu": "500m"}}),
        "spec.limits[0].maxLimitRequestRatio[cpu]",
        "Invalid value: resource.Quantity{i:resource.int64Amount{value:500, scale:-3}, "
        'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"500m", Format:"DecimalSI"}: ratio 500m '
        "is less than 1",
    ),
    "limitrange-claim-without-storage": (
        limit_range({"type": "PersistentVolumeClaim", "max": {"cpu": "1"}}),
        "spec.limits[0].limits",
        "Required value: either minimum or maximum storage value is required, but neither was "
        "provided",
    ),
    "limitrange-type": (
        limit_range({"type": "Node", "max": {"cpu": "1"}}),
        "spec.limits[0].type",
        'Invalid value: "Node": must be a standard limit type or fully qualified',
    ),
    "limitrange-container-resource": (
        limit_range({"type": "Container", "max": {"storage": "1Gi"}}),
        "spec.limits[0].max[storage]",
        "Invalid value: storage: must be a standard resource for containers",
    ),
    "limitrange-gpu-request": (
        limit_range(
            {
                "type": "Container",
                "default": {"nvidia.com/gpu": "2"},
                "defaultRequest": {"nvidia.com/gpu": "1"},
            }
        ),
        "spec.limits[0].defaultRequest[nvidia.com/gpu]",
        "Invalid value: resource.Quantity{i:resource.int64Amount{value:1, scale:0}, "
        'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1", Format:"DecimalSI"}: default value '
        "2 must equal to defaultRequest value 1 in nvidia.com/gpu",
    ),
    # core ValidateResourceQuota
    "quota-best-effort-cpu": (
        quota(hard={"cpu": "4"}, scopes=["BestEffort"]),
        "spec.scopes",
        'Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to '
        "resource",
    ),
    "quota-scope-operator": (
        quota(
            hard={"pods": "5"},
            scopeSelector={
                "matchExpressions": [
                    {"scopeName": "Terminating", "operator": "In", "values": ["x"]}
                ]
            },
        ),
        "spec.scopeSelector.matchExpressions.operator",
        "Invalid value: \"In\": must be 'Exists' when scope is any of "
        "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
        "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or "
        "ResourceQuotaScopeCrossNamespacePodAffinity",
    ),
    "quota-conflicting-scopes": (
        quota(hard={"pods": "5"}, scopes=["BestEffort", "NotBestEffort"]),
        "spec.scopes",
        'Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting '
        "scopes",
    ),
    "quota-not-an-integer": (
        quota(hard={"pods": "1.5"}),
        "spec.hard[pods]",
        "Invalid value: resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, "
        'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an '
        "integer",
    ),
    "quota-resource-name": (
        quota(hard={"storage": "1Gi"}),
        "spec.hard[storage]",
        "Invalid value: storage: must be a standard resource for quota",
    ),
    # scheduling ValidatePriorityClass
    "priority-class-system-value": (
        priority_class("system-cluster-critical", 5),
        "metadata.name",
        "Forbidden: priority class names with 'system-' prefix are reserved for system use only. "
        "error: value of system-cluster-critical PriorityClass must be 2000000000",
    ),
    "priority-class-too-high": (
        priority_class("huge", 1000000001),
        "value",
        "Forbidden: maximum allowed value of a user defined priority is 1000000000",
    ),
    # core ValidateNamespace
    "namespace-finalizer": (
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "team"},
            "spec": {"finalizers": ["custom"]},
        },
        "spec.finalizers",
        'Invalid value: "custom": name is neither a standard finalizer name nor is it fully '
        "qualified",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_what_the_server_rejects_in_its_words(name):
    doc, path, message = BAD[name]
    assert (path, message) in errors_of(copy.deepcopy(doc))


def _jobset(job_spec: dict) -> dict:
    template = {
        "template": {"spec": {"restartPolicy": "Never", "containers": CONTAINERS}},
        **job_spec,
    }
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "js", "namespace": NS},
        "spec": {
            "replicatedJobs": [{"name": "workers", "replicas": 1, "template": {"spec": template}}]
        },
    }


def _findings(doc: dict) -> dict[str, str]:
    rendered = Rendered("r", objects=[K8sObject(doc, "r.yaml", 1)])
    return {f.path: f.message for f in api_validation.check(rendered, Cluster([rendered]))}


def test_a_jobsets_replicated_jobs_are_validated_as_the_jobs_it_creates():
    built = "the Job the JobSet controller creates from this template is rejected: "
    path = "spec.replicatedJobs[0].template.spec"
    found = _findings(_jobset({"completionMode": "Indexed", "parallelism": 4}))
    assert found[f"{path}.completions"] == f"{built}Required value: when completion mode is Indexed"
    found = _findings(
        _jobset(
            {
                "template": {"spec": {"restartPolicy": "OnFailure", "containers": CONTAINERS}},
                **_pod_failure_policy({"action": "FailJob", "onExitCodes": EXIT_1}),
            }
        )
    )
    assert found[f"{path}.template.spec.restartPolicy"] == (
        f'{built}Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is '
        "specified"
    )
    assert (
        _findings(_jobset({"completionMode": "Indexed", "completions": 2, "parallelism": 2})) == {}
    )


def test_a_statefulsets_claims_are_reported_where_they_are_written():
    doc = stateful_set(
        volumeClaimTemplates=[
            {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}
        ]
    )
    assert _findings(doc) == {
        "spec.volumeClaimTemplates[0].spec.resources[storage]": (
            "the PersistentVolumeClaim the StatefulSet controller creates from this template is "
            "rejected: Required value"
        )
    }


@pytest.mark.parametrize(
    ("schedule", "error"),
    [
        ("0 2 * * *", None),
        ("@daily", None),
        ("@every 90s", None),
        ("*/5 * * * *", None),
        ("0 0 ? * MON-FRI", None),
        ("0\t0 * * *", None),
        ("", "empty spec string"),
        ("59-1 * * * *", "beginning of range (59) beyond end of range (1): 59-1"),
        ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
        ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
        ("*/1/2 * * * *", "too many slashes: */1/2"),
        (
            "@every 1d",
            'failed to parse duration @every 1d: time: unknown unit "d" in duration "1d"',
        ),
        ("TZ=Mars/X 0 0 * * *", "provided bad location Mars/X: unknown time zone Mars/X"),
    ],
)
def test_schedules_parse_as_robfig_cron_parses_them(schedule, error):
    assert cron.schedule_error(schedule) == error


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("YWJj\nZGVm", None),
        ("YW==", None),
        ("", None),
        ("YWJ", 0),
        ("YW Jj", 2),
        ("YQ==YQ==", 4),
        ("YWJjZA=", 7),
    ],
)
def test_base64_fails_where_go_fails(text, error):
    assert go_decode.base64_error(text) == error


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"a": 1}', None),
        ("null", None),
        ("1.", "unexpected end of JSON input"),
        ('{"a" 1}', "invalid character '1' after object key"),
        ('{"a":1 "b"}', "invalid character '\"' after object key:value pair"),
        ("[1 2]", "invalid character '2' after array element"),
        ('{"a":1e}', "invalid character '}' in numeric literal"),
        ('{"a":"\t"}', "invalid character '\\t' in string"),
        ('{"a":"\\u12g4"}', "invalid escape sequence `\\u12g4` in string"),
        ('{"a":1}}', "invalid character '}' after top-level value"),
        ('{"a":tx}', "invalid character 'x' in literal true (expecting 'r')"),
        ("5", "json: cannot unmarshal number into Go value of type map[string]interface {}"),
    ],
)
def test_json_errors_are_worded_as_the_servers_go_words_them(text, error):
    assert go_decode.json_object_error(text.encode()) == error


def test_quantities_print_as_go_prints_them():
    for text, canonical in (
        ("0.5", "500m"),
        ("1.5Gi", "1536Mi"),
        ("2000M", "2G"),
        ("12e-1", "1200e-3"),
    ):
        quantity = formats.parse_quantity(text)
        assert isinstance(quantity, formats.Quantity) and quantity.string() == canonical
    assert formats.parse_quantity("1.2.3") == go_quantity.FORMAT_WRONG


def test_sloppy_ips_and_cidrs_are_read_as_the_server_reads_them():
    assert formats.parse_ip("010.096.000.010") is not None
    assert formats.parse_ip("fe80::1%eth0") is None
    assert formats.parse_cidr("10.0.0.1/8") is not None
    assert formats.parse_cidr("10.0.0.0/33") is None


def test_an_empty_name_beside_generate_name_is_the_generated_one():
    # As found in review (and asked of kube-apiserver v1.32.13: `kubectl create --dry-run=server`
    # accepts it): on create the server names the object from generateName when the name is
    # empty (apiserver rest.BeforeCreate), and checks a name only when it has one.
    doc = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "", "generateName": "cm-", "namespace": "default"},
        "data": {"a": "b"},
    }
    assert _findings(doc) == {}
