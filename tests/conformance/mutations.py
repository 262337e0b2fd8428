"""Seeded mutations of rendered objects, one check of the pinned upstream validation each.

Each names the upstream function whose check it exercises (kubernetes v1.32 pkg/apis/*/validation,
apimachinery's metadata validation, a CRD's schema). A mutation applies to every place in an object
it fits (each pod template of a workload, say) and yields one mutated copy per place; some are
valid on purpose, where a rule could wrongly reject (a claim template mounted as a volume, a Job
podFailurePolicy rule without status). Which the server accepts is its to say, not this file's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

Edit = Callable[[dict], object]  # changes the part in place; returning False skips it

# Where each kind holds its pod templates' specs (the custom resources' too: their CRD schemas
# judge them), as paths of keys ("*" for every item of a list or value of a mapping).
POD_SPECS = {
    ("v1", "Pod"): [("spec",)],
    ("batch/v1", "Job"): [("spec", "template", "spec")],
    ("batch/v1", "CronJob"): [("spec", "jobTemplate", "spec", "template", "spec")],
    ("apps/v1", "Deployment"): [("spec", "template", "spec")],
    ("apps/v1", "StatefulSet"): [("spec", "template", "spec")],
    ("apps/v1", "DaemonSet"): [("spec", "template", "spec")],
    ("apps/v1", "ReplicaSet"): [("spec", "template", "spec")],
    ("kubeflow.org/v1", "PyTorchJob"): [("spec", "pytorchReplicaSpecs", "*", "template", "spec")],
    ("ray.io/v1", "RayJob"): [
        ("spec", "rayClusterSpec", "headGroupSpec", "template", "spec"),
        ("spec", "rayClusterSpec", "workerGroupSpecs", "*", "template", "spec"),
    ],
    ("jobset.x-k8s.io/v1alpha2", "JobSet"): [
        ("spec", "replicatedJobs", "*", "template", "spec", "template", "spec")
    ],
    ("batch.volcano.sh/v1alpha1", "Job"): [("spec", "tasks", "*", "template", "spec")],
}


def _at(doc: object, path: tuple) -> Iterator[tuple[str, dict]]:
    """(where, part) for every mapping at `path` in doc."""
    pending: list[tuple[object, tuple, str]] = [(doc, path, "")]
    while pending:
        node, rest, where = pending.pop()
        if not rest:
            if isinstance(node, dict):
                yield where.lstrip("."), node
            continue
        key, *tail = rest
        if key == "*":
            items = (
                node.items()
                if isinstance(node, dict)
                else enumerate(node)
                if isinstance(node, list)
                else []
            )
            for name, child in items:
                pending.append((child, tuple(tail), f"{where}.{name}"))
        elif isinstance(node, dict) and key in node:
            pending.append((node[key], tuple(tail), f"{where}.{key}"))


@dataclass(frozen=True)
class Mutation:
    id: str
    upstream: str  # the validation function (or schema) whose check this is
    kinds: tuple[tuple[str, str], ...] | None  # (apiVersion, kind) it applies to; None: any
    path: tuple | None  # where in the object; None: at the pod specs (POD_SPECS)
    edit: Edit

    def apply(self, doc: dict) -> Iterator[tuple[str, dict]]:
        key = (doc.get("apiVersion"), doc.get("kind"))
        if self.kinds is not None and key not in self.kinds:
            return
        paths = [self.path] if self.path is not None else POD_SPECS.get(key, [])  # type: ignore[arg-type]
        for path in paths:
            for where, _ in list(_at(doc, path)):
                mutated = copy.deepcopy(doc)
                part = next(p for w, p in _at(mutated, path) if w == where)
                if self.edit(part) is False:
                    continue
                yield (where if len(paths) > 1 or "*" in path else ""), mutated


def _first_container(spec: dict) -> dict:
    containers = spec.get("containers")
    return (
        containers[0]
        if isinstance(containers, list) and containers and isinstance(containers[0], dict)
        else {}
    )


def container(change: Callable[[dict], object]) -> Edit:
    def edit(spec: dict) -> object:
        found = _first_container(spec)
        if not found:
            return False
        return change(found)

    return edit


def setting(**values: object) -> Edit:
    def edit(part: dict) -> None:
        part.update(copy.deepcopy(values))

    return edit


def removing(*keys: str) -> Edit:
    def edit(part: dict) -> object:
        if not any(k in part for k in keys):
            return False
        for key in keys:
            part.pop(key, None)
        return None

    return edit


def _duplicate_container(spec: dict) -> object:
    found = _first_container(spec)
    if not found:
        return False
    spec["containers"].append(copy.deepcopy(found))
    return None


def _volumes(*volumes: dict, mounts: list[dict] | None = None) -> Edit:
    def edit(spec: dict) -> object:
        found = _first_container(spec)
        if not found:
            return False
        spec["volumes"] = list(spec.get("volumes") or []) + [copy.deepcopy(v) for v in volumes]
        if mounts is not None:
            found["volumeMounts"] = list(found.get("volumeMounts") or []) + copy.deepcopy(mounts)
        return None

    return edit


def _selector_mismatch(part: dict) -> object:
    template = part.get("template")
    if not isinstance(template, dict):
        return False
    template.setdefault("metadata", {})["labels"] = {"app": "something-else"}
    return None


def _claim_template_mounted(spec: dict) -> object:
    found = _first_container(spec.get("template", {}).get("spec", {}))
    if not found:
        return False
    spec["volumeClaimTemplates"] = [
        {
            "metadata": {"name": "data"},
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}},
            },
        }
    ]
    found["volumeMounts"] = list(found.get("volumeMounts") or []) + [
        {"name": "data", "mountPath": "/data"}
    ]
    return None


def _all_metadata(change: Callable[[dict], object]) -> Edit:
    def edit(doc: dict) -> object:
        metadata = doc.get("metadata")
        if not isinstance(metadata, dict):
            return False
        return change(metadata)

    return edit


WORKLOADS = (
    ("batch/v1", "Job"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
)
JOB = (("batch/v1", "Job"),)
SPEC = ("spec",)
CORE = "pkg/apis/core/validation"
PROBE = {"periodSeconds": 10}

MUTATIONS = [
    # metadata, every kind (apimachinery ValidateObjectMeta)
    Mutation(
        "name-too-long",
        "ValidateObjectMeta: name",
        None,
        (),
        _all_metadata(lambda m: m.update(name="n" * 254)),
    ),
    Mutation(
        "name-uppercase",
        "ValidateObjectMeta: name",
        None,
        (),
        _all_metadata(lambda m: m.update(name="Has-Upper")),
    ),
    Mutation(
        "label-key-invalid",
        "ValidateLabels",
        None,
        (),
        _all_metadata(lambda m: m.setdefault("labels", {}).update({"bad key": "x"})),
    ),
    Mutation(
        "label-value-too-long",
        "ValidateLabels",
        None,
        (),
        _all_metadata(lambda m: m.setdefault("labels", {}).update({"a": "v" * 64})),
    ),
    Mutation(
        "label-value-empty",
        "ValidateLabels",
        None,
        (),
        _all_metadata(lambda m: m.setdefault("labels", {}).update({"a": ""})),
    ),
    Mutation(
        "annotation-key-invalid",
        "ValidateAnnotations",
        None,
        (),
        _all_metadata(lambda m: m.setdefault("annotations", {}).update({"-bad/": "x"})),
    ),
    Mutation(
        "finalizer-without-domain",
        "ValidateFinalizers",
        None,
        (),
        _all_metadata(lambda m: m.update(finalizers=["cleanup"])),
    ),
    Mutation(
        "finalizer-qualified",
        "ValidateFinalizers",
        None,
        (),
        _all_metadata(lambda m: m.update(finalizers=["example.com/cleanup"])),
    ),
    # pod specs, wherever a kind holds them (core ValidatePodSpec and friends)
    Mutation(
        "container-name-invalid",
        f"{CORE} validateContainerCommon",
        None,
        None,
        container(lambda c: c.update(name="Bad_Name")),
    ),
    Mutation(
        "container-name-duplicate", f"{CORE} validateContainers", None, None, _duplicate_container
    ),
    Mutation(
        "container-image-missing",
        f"{CORE} validateContainers",
        None,
        None,
        container(lambda c: c.pop("image", None)),
    ),
    Mutation(
        "port-out-of-range",
        f"{CORE} validateContainerPorts",
        None,
        None,
        container(lambda c: c.update(ports=[{"containerPort": 70000}])),
    ),
    Mutation(
        "port-name-too-long",
        f"{CORE} validateContainerPorts",
        None,
        None,
        container(
            lambda c: c.update(ports=[{"name": "a-much-too-long-name", "containerPort": 80}])
        ),
    ),
    Mutation(
        "port-names-duplicate",
        f"{CORE} validateContainerPorts",
        None,
        None,
        container(
            lambda c: c.update(
                ports=[{"name": "web", "containerPort": 80}, {"name": "web", "containerPort": 81}]
            )
        ),
    ),
    Mutation(
        "env-name-invalid",
        f"{CORE} ValidateEnv",
        None,
        None,
        container(lambda c: c.update(env=[{"name": "A=B", "value": "x"}])),
    ),
    Mutation(
        "env-value-and-value-from",
        f"{CORE} validateEnvVarValueFrom",
        None,
        None,
        container(
            lambda c: c.update(
                env=[
                    {
                        "name": "A",
                        "value": "x",
                        "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}},
                    }
                ]
            )
        ),
    ),
    Mutation(
        "requests-above-limits",
        f"{CORE} ValidateResourceRequirements",
        None,
        None,
        container(lambda c: c.update(resources={"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})),
    ),
    Mutation(
        "quantity-invalid",
        f"{CORE} ValidateResourceQuantityValue",
        None,
        None,
        container(lambda c: c.update(resources={"limits": {"memory": "1.5.5Gi"}})),
    ),
    Mutation(
        "probe-without-handler",
        f"{CORE} validateProbe",
        None,
        None,
        container(lambda c: c.update(livenessProbe=dict(PROBE))),
    ),
    Mutation(
        "probe-two-handlers",
        f"{CORE} validateHandler",
        None,
        None,
        container(
            lambda c: c.update(
                livenessProbe={"exec": {"command": ["true"]}, "tcpSocket": {"port": 80}}
            )
        ),
    ),
    Mutation(
        "readiness-success-threshold-2",
        f"{CORE} validateProbe",
        None,
        None,
        container(
            lambda c: c.update(
                readinessProbe={"exec": {"command": ["true"]}, "successThreshold": 2}
            )
        ),
    ),
    Mutation(
        "liveness-success-threshold-2",
        f"{CORE} validateContainers",
        None,
        None,
        container(
            lambda c: c.update(livenessProbe={"exec": {"command": ["true"]}, "successThreshold": 2})
        ),
    ),
    Mutation(
        "image-pull-policy-invalid",
        f"{CORE} validatePullPolicy",
        None,
        None,
        container(lambda c: c.update(imagePullPolicy="Sometimes")),
    ),
    Mutation(
        "run-as-user-negative",
        f"{CORE} ValidateSecurityContext",
        None,
        None,
        container(lambda c: c.setdefault("securityContext", {}).update(runAsUser=-1)),
    ),
    Mutation(
        "mount-missing-volume",
        f"{CORE} ValidateVolumeMounts",
        None,
        None,
        container(lambda c: c.update(volumeMounts=[{"name": "nowhere", "mountPath": "/x"}])),
    ),
    Mutation(
        "mount-path-relative",
        f"{CORE} ValidateVolumeMounts",
        None,
        None,
        _volumes(
            {"name": "scratch", "emptyDir": {}},
            mounts=[{"name": "scratch", "mountPath": "relative/path"}],
        ),
    ),
    Mutation(
        "sub-path-absolute",
        f"{CORE} ValidateVolumeMounts",
        None,
        None,
        _volumes(
            {"name": "scratch", "emptyDir": {}},
            mounts=[{"name": "scratch", "mountPath": "/s", "subPath": "/abs"}],
        ),
    ),
    Mutation(
        "volume-name-duplicate",
        f"{CORE} ValidateVolumes",
        None,
        None,
        _volumes({"name": "twice", "emptyDir": {}}, {"name": "twice", "emptyDir": {}}),
    ),
    Mutation(
        "volume-without-source",
        f"{CORE} validateVolumeSource",
        None,
        None,
        _volumes({"name": "nothing"}),
    ),
    Mutation(
        "restart-policy-invalid",
        f"{CORE} validateRestartPolicy",
        None,
        None,
        setting(restartPolicy="Sometimes"),
    ),
    Mutation(
        "dns-policy-invalid",
        f"{CORE} validateDNSPolicy",
        None,
        None,
        setting(dnsPolicy="Sometimes"),
    ),
    Mutation(
        "termination-grace-negative",
        f"{CORE} ValidatePodSpec",
        None,
        None,
        setting(terminationGracePeriodSeconds=-5),
    ),
    Mutation(
        "active-deadline-zero",
        f"{CORE} ValidatePodSpec",
        None,
        None,
        setting(activeDeadlineSeconds=0),
    ),
    Mutation(
        "toleration-operator-invalid",
        f"{CORE} ValidateTolerations",
        None,
        None,
        setting(tolerations=[{"key": "a", "operator": "Maybe"}]),
    ),
    Mutation(
        "toleration-exists-with-value",
        f"{CORE} ValidateTolerations",
        None,
        None,
        setting(tolerations=[{"key": "a", "operator": "Exists", "value": "b"}]),
    ),
    Mutation(
        "node-selector-key-invalid",
        f"{CORE} ValidatePodSpec nodeSelector",
        None,
        None,
        setting(nodeSelector={"bad key": "x"}),
    ),
    Mutation(
        "hostname-invalid",
        f"{CORE} ValidatePodSpec hostname",
        None,
        None,
        setting(hostname="Bad_Host"),
    ),
    Mutation(
        "subdomain-invalid",
        f"{CORE} ValidatePodSpec subdomain",
        None,
        None,
        setting(subdomain="Bad_Sub"),
    ),
    Mutation(
        "fs-group-change-policy-invalid",
        f"{CORE} validateFSGroupChangePolicy",
        None,
        None,
        setting(securityContext={"fsGroupChangePolicy": "Sometimes"}),
    ),
    Mutation(
        "seccomp-localhost-without-profile",
        f"{CORE} validateSeccompProfileField",
        None,
        None,
        setting(securityContext={"seccompProfile": {"type": "Localhost"}}),
    ),
    Mutation(
        "topology-max-skew-zero",
        f"{CORE} validateTopologySpreadConstraints",
        None,
        None,
        setting(
            topologySpreadConstraints=[
                {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}
            ]
        ),
    ),
    Mutation(
        "sidecar-init-container",
        f"{CORE} validateInitContainers",
        None,
        None,
        setting(
            initContainers=[{"name": "side", "image": "busybox:1.36.1", "restartPolicy": "Always"}]
        ),
    ),
    Mutation(
        "init-container-restart-never",
        f"{CORE} validateInitContainers",
        None,
        None,
        setting(
            initContainers=[{"name": "init", "image": "busybox:1.36.1", "restartPolicy": "Never"}]
        ),
    ),
    Mutation(
        "host-port-without-host-network",
        f"{CORE} validateContainerPorts",
        None,
        None,
        container(lambda c: c.update(ports=[{"containerPort": 80, "hostPort": 8080}])),
    ),
    Mutation(
        "unknown-container-field",
        "strict field validation",
        None,
        None,
        container(lambda c: c.update(imagee="x")),
    ),
    Mutation("containers-empty", f"{CORE} validateContainers", None, None, setting(containers=[])),
    # Jobs (pkg/apis/batch/validation)
    Mutation(
        "job-parallelism-negative", "batch ValidateJobSpec", JOB, SPEC, setting(parallelism=-1)
    ),
    Mutation(
        "job-completions-negative", "batch ValidateJobSpec", JOB, SPEC, setting(completions=-1)
    ),
    Mutation("job-backoff-negative", "batch ValidateJobSpec", JOB, SPEC, setting(backoffLimit=-1)),
    Mutation(
        "job-indexed-without-completions",
        "batch ValidateJobSpec",
        JOB,
        SPEC,
        lambda s: (s.pop("completions", None), s.update(completionMode="Indexed")),
    ),
    Mutation(
        "job-pod-failure-policy-without-status",
        "batch validatePodFailurePolicyRule (status defaulted)",
        JOB,
        SPEC,
        lambda s: s.update(
            podFailurePolicy={
                "rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]
            }
        ),
    ),
    Mutation(
        "job-ttl-negative", "batch ValidateJobSpec", JOB, SPEC, setting(ttlSecondsAfterFinished=-1)
    ),
    Mutation(
        "job-active-deadline-zero",
        "batch ValidateJobSpec",
        JOB,
        SPEC,
        setting(activeDeadlineSeconds=0),
    ),
    Mutation(
        "job-template-restart-always",
        "batch ValidateJobSpec",
        JOB,
        ("spec", "template", "spec"),
        setting(restartPolicy="Always"),
    ),
    Mutation(
        "job-manual-selector-mismatch",
        "batch ValidateJobSpec",
        JOB,
        SPEC,
        lambda s: s.update(manualSelector=True, selector={"matchLabels": {"x": "y"}}),
    ),
    Mutation(
        "job-backoff-per-index-not-indexed",
        "batch ValidateJobSpec",
        JOB,
        SPEC,
        setting(backoffLimitPerIndex=1),
    ),
    # workloads (pkg/apis/apps/validation)
    Mutation("replicas-negative", "apps Validate*Spec", WORKLOADS[1:3], SPEC, setting(replicas=-1)),
    Mutation(
        "selector-mismatch", "apps ValidateDeploymentSpec", WORKLOADS[1:3], SPEC, _selector_mismatch
    ),
    Mutation(
        "recreate-with-rolling-update",
        "apps ValidateDeploymentStrategy",
        (("apps/v1", "Deployment"),),
        SPEC,
        setting(strategy={"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}),
    ),
    Mutation(
        "max-unavailable-over-100",
        "apps ValidateRollingUpdateDeployment",
        (("apps/v1", "Deployment"),),
        SPEC,
        setting(strategy={"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "150%"}}),
    ),
    Mutation(
        "progress-deadline-below-min-ready",
        "apps ValidateDeploymentSpec",
        (("apps/v1", "Deployment"),),
        SPEC,
        setting(minReadySeconds=600, progressDeadlineSeconds=300),
    ),
    Mutation(
        "claim-template-mounted",
        "apps ValidateStatefulSetSpec (claims count as volumes)",
        (("apps/v1", "StatefulSet"),),
        SPEC,
        _claim_template_mounted,
    ),
    Mutation(
        "pod-management-invalid",
        "apps ValidateStatefulSetSpec",
        (("apps/v1", "StatefulSet"),),
        SPEC,
        setting(podManagementPolicy="Sometimes"),
    ),
    # Services, claims, config
    Mutation(
        "service-port-duplicate",
        f"{CORE} ValidateService",
        (("v1", "Service"),),
        SPEC,
        setting(ports=[{"name": "a", "port": 80}, {"name": "a", "port": 80}]),
    ),
    Mutation(
        "service-target-port-zero",
        f"{CORE} ValidateService",
        (("v1", "Service"),),
        SPEC,
        setting(ports=[{"port": 80, "targetPort": 0}]),
    ),
    Mutation(
        "service-type-invalid",
        f"{CORE} ValidateService",
        (("v1", "Service"),),
        SPEC,
        setting(type="Internal"),
    ),
    Mutation(
        "service-node-port-on-cluster-ip",
        f"{CORE} ValidateService",
        (("v1", "Service"),),
        SPEC,
        setting(type="ClusterIP", ports=[{"port": 80, "nodePort": 30080}]),
    ),
    Mutation(
        "service-without-ports",
        f"{CORE} ValidateService",
        (("v1", "Service"),),
        SPEC,
        lambda s: (s.pop("ports", None), s.pop("clusterIP", None)),
    ),
    Mutation(
        "pvc-access-mode-invalid",
        f"{CORE} ValidatePersistentVolumeClaimSpec",
        (("v1", "PersistentVolumeClaim"),),
        SPEC,
        setting(accessModes=["ReadWriteSometimes"]),
    ),
    Mutation(
        "pvc-storage-missing",
        f"{CORE} ValidatePersistentVolumeClaimSpec",
        (("v1", "PersistentVolumeClaim"),),
        SPEC,
        setting(resources={}),
    ),
    Mutation(
        "pvc-volume-mode-invalid",
        f"{CORE} ValidatePersistentVolumeClaimSpec",
        (("v1", "PersistentVolumeClaim"),),
        SPEC,
        setting(volumeMode="Sometimes"),
    ),
    Mutation(
        "configmap-key-invalid",
        f"{CORE} ValidateConfigMap",
        (("v1", "ConfigMap"),),
        (),
        lambda d: d.setdefault("data", {}).update({"a/b": "x"}),
    ),
    Mutation(
        "namespace-name-invalid",
        f"{CORE} ValidateNamespace",
        (("v1", "Namespace"),),
        ("metadata",),
        setting(name="a.b"),
    ),
    # policy, scheduling, networking, rbac
    Mutation(
        "pdb-min-and-max",
        "policy ValidatePodDisruptionBudgetSpec",
        (("policy/v1", "PodDisruptionBudget"),),
        SPEC,
        setting(minAvailable=1, maxUnavailable=1),
    ),
    Mutation(
        "pdb-max-unavailable-invalid",
        "policy ValidatePodDisruptionBudgetSpec",
        (("policy/v1", "PodDisruptionBudget"),),
        SPEC,
        lambda s: (s.pop("minAvailable", None), s.update(maxUnavailable="lots")),
    ),
    Mutation(
        "priority-value-too-high",
        "scheduling ValidatePriorityClass",
        (("scheduling.k8s.io/v1", "PriorityClass"),),
        (),
        setting(value=2000000000),
    ),
    Mutation(
        "priority-preemption-invalid",
        "scheduling ValidatePriorityClass",
        (("scheduling.k8s.io/v1", "PriorityClass"),),
        (),
        setting(preemptionPolicy="Sometimes"),
    ),
    Mutation(
        "policy-type-invalid",
        "networking ValidateNetworkPolicySpec",
        (("networking.k8s.io/v1", "NetworkPolicy"),),
        SPEC,
        setting(policyTypes=["Sideways"]),
    ),
    Mutation(
        "end-port-below-port",
        "networking ValidateNetworkPolicyPort",
        (("networking.k8s.io/v1", "NetworkPolicy"),),
        SPEC,
        setting(egress=[{"ports": [{"port": 9000, "endPort": 8000}]}]),
    ),
    Mutation(
        "cidr-invalid",
        "networking ValidateIPBlock",
        (("networking.k8s.io/v1", "NetworkPolicy"),),
        SPEC,
        setting(egress=[{"to": [{"ipBlock": {"cidr": "10.0.0.0/33"}}]}]),
    ),
    Mutation(
        "except-outside-cidr",
        "networking ValidateIPBlock",
        (("networking.k8s.io/v1", "NetworkPolicy"),),
        SPEC,
        setting(
            egress=[{"to": [{"ipBlock": {"cidr": "10.0.0.0/16", "except": ["192.168.0.0/24"]}}]}]
        ),
    ),
    Mutation(
        "peer-empty",
        "networking ValidateNetworkPolicyPeer",
        (("networking.k8s.io/v1", "NetworkPolicy"),),
        SPEC,
        setting(ingress=[{"from": [{}]}]),
    ),
    Mutation(
        "rule-without-verbs",
        "rbac ValidatePolicyRule",
        (("rbac.authorization.k8s.io/v1", "Role"), ("rbac.authorization.k8s.io/v1", "ClusterRole")),
        (),
        setting(rules=[{"apiGroups": [""], "resources": ["pods"], "verbs": []}]),
    ),
    Mutation(
        "role-ref-kind-invalid",
        "rbac ValidateRoleBinding",
        (
            ("rbac.authorization.k8s.io/v1", "RoleBinding"),
            ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
        ),
        ("roleRef",),
        setting(kind="Group"),
    ),
    Mutation(
        "subject-kind-invalid",
        "rbac ValidateRoleBindingSubject",
        (
            ("rbac.authorization.k8s.io/v1", "RoleBinding"),
            ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
        ),
        (),
        setting(subjects=[{"kind": "Robot", "name": "r"}]),
    ),
    # custom resources: their CRDs' schemas and CEL rules
    Mutation(
        "unknown-spec-field",
        "a CRD's schema (strict field validation)",
        None,
        SPEC,
        setting(notAField=1),
    ),
    Mutation(
        "queue-quota-not-quantity",
        "Kueue ClusterQueue schema",
        (("kueue.x-k8s.io/v1beta2", "ClusterQueue"),),
        ("spec", "resourceGroups", "*", "flavors", "*", "resources", "*"),
        setting(nominalQuota="lots"),
    ),
    Mutation(
        "queue-without-cluster-queue",
        "Kueue LocalQueue schema",
        (("kueue.x-k8s.io/v1beta2", "LocalQueue"),),
        SPEC,
        removing("clusterQueue"),
    ),
    Mutation(
        "rayjob-shutdown-not-bool",
        "KubeRay RayJob schema",
        (("ray.io/v1", "RayJob"),),
        SPEC,
        setting(shutdownAfterJobFinishes="yes"),
    ),
    Mutation(
        "jobset-replicas-negative",
        "JobSet schema",
        (("jobset.x-k8s.io/v1alpha2", "JobSet"),),
        ("spec", "replicatedJobs", "*"),
        setting(replicas=-1),
    ),
    Mutation(
        "pytorch-replicas-string",
        "Training Operator PyTorchJob schema",
        (("kubeflow.org/v1", "PyTorchJob"),),
        ("spec", "pytorchReplicaSpecs", "*"),
        setting(replicas="two"),
    ),
]


def synthetic_bases(bases: list[dict]) -> list[dict]:
    """Realistic objects of the kinds the repository does not render (a Pod, a StatefulSet, a
    DaemonSet, a CronJob, a PodDisruptionBudget, a PriorityClass, a JobSet), each carrying the pod
    template of the repository's own training Job, so that every pod-spec mutation meets them."""
    job = next(
        (b for b in bases if b.get("kind") == "Job" and b.get("apiVersion") == "batch/v1"), None
    )
    if job is None:
        return []
    template = copy.deepcopy(job["spec"]["template"])
    template.setdefault("metadata", {}).setdefault("labels", {})["app"] = "trainer"
    pod_spec = copy.deepcopy(template["spec"])
    namespace = job["metadata"].get("namespace", "default")
    always = copy.deepcopy(template)
    always["spec"]["restartPolicy"] = "Always"
    meta = {"name": "trainer", "namespace": namespace, "labels": {"app": "trainer"}}
    selector = {"matchLabels": {"app": "trainer"}}
    return [
        {"apiVersion": "v1", "kind": "Pod", "metadata": dict(meta), "spec": pod_spec},
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": dict(meta),
            "spec": {
                "serviceName": "trainer",
                "replicas": 2,
                "selector": selector,
                "template": always,
            },
        },
        {
            "apiVersion": "apps/v1",
            "kind": "DaemonSet",
            "metadata": dict(meta),
            "spec": {"selector": selector, "template": always},
        },
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": dict(meta),
            "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": copy.deepcopy(job["spec"])}},
        },
        {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": dict(meta),
            "spec": {"minAvailable": 1, "selector": selector},
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "training-low"},
            "value": 1000,
            "preemptionPolicy": "PreemptLowerPriority",
            "description": "scheduled retraining",
        },
        {
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSet",
            "metadata": dict(meta),
            "spec": {
                "replicatedJobs": [
                    {
                        "name": "workers",
                        "replicas": 2,
                        "template": {"spec": copy.deepcopy(job["spec"])},
                    }
                ]
            },
        },
    ]


CRON = (("batch/v1", "CronJob"),)
MUTATIONS += [
    Mutation(
        "cron-schedule-invalid",
        "batch validateScheduleFormat",
        CRON,
        SPEC,
        setting(schedule="every day"),
    ),
    Mutation(
        "cron-time-zone-invalid",
        "batch validateTimeZone",
        CRON,
        SPEC,
        setting(timeZone="Mars/Olympus"),
    ),
    Mutation(
        "cron-concurrency-invalid",
        "batch ValidateCronJobSpec",
        CRON,
        SPEC,
        setting(concurrencyPolicy="Sometimes"),
    ),
    Mutation(
        "cron-starting-deadline-negative",
        "batch ValidateCronJobSpec",
        CRON,
        SPEC,
        setting(startingDeadlineSeconds=-1),
    ),
]

RBAC_BINDINGS = (
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
)
RULES_KINDS = (
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
)
CRD = (("apiextensions.k8s.io/v1", "CustomResourceDefinition"),)
# Found by a type-swapping sweep: each passed trainops clean and the server refused it.
MUTATIONS += [
    Mutation(
        "rule-api-groups-null",
        "rbac ValidatePolicyRule",
        RULES_KINDS,
        (),
        setting(rules=[{"apiGroups": None, "resources": ["pods"], "verbs": ["get"]}]),
    ),
    Mutation(
        "rule-non-resource-with-resources",
        "rbac ValidatePolicyRule",
        RULES_KINDS,
        (),
        setting(
            rules=[
                {
                    "nonResourceURLs": ["/healthz"],
                    "resources": ["pods"],
                    "apiGroups": [""],
                    "verbs": ["get"],
                }
            ]
        ),
    ),
    Mutation(
        "service-account-subject-without-namespace",
        "rbac ValidateRoleBindingSubject",
        RBAC_BINDINGS,
        (),
        setting(subjects=[{"kind": "ServiceAccount", "name": "robot"}]),
    ),
    Mutation(
        "selector-empty",
        "apps ValidateDeploymentSpec",
        WORKLOADS[1:],
        SPEC,
        setting(selector={"matchLabels": None}),
    ),
    Mutation(
        "crd-scope-invalid",
        "apiextensions ValidateCustomResourceDefinitionSpec",
        CRD,
        SPEC,
        setting(scope="Galaxy"),
    ),
    Mutation(
        "crd-schema-null",
        "apiextensions ValidateCustomResourceDefinitionSpec",
        CRD,
        ("spec", "versions", "*"),
        setting(schema=None),
    ),
    Mutation(
        "crd-root-not-object",
        "apiextensions structural schema",
        CRD,
        ("spec", "versions", "*", "schema"),
        setting(openAPIV3Schema={"type": "string"}),
    ),
    Mutation(
        "custom-resource-finalizer-not-string",
        "apimachinery ObjectMeta decoding",
        (("argoproj.io/v1alpha1", "Application"), ("ray.io/v1", "RayJob")),
        ("metadata",),
        setting(finalizers=[True]),
    ),
]


def more_bases(bases: list[dict]) -> list[dict]:
    """Objects of further built-in kinds a training platform ships: an Ingress to the Ray
    dashboard, an autoscaler, a quota and limit range for a team, a TLS Secret."""
    namespace = next(
        (b["metadata"]["namespace"] for b in bases if b.get("kind") == "Job"), "default"
    )
    meta = {"name": "training", "namespace": namespace}
    return [
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": dict(meta),
            "spec": {
                "ingressClassName": "nginx",
                "rules": [
                    {
                        "host": "ray.example.com",
                        "http": {
                            "paths": [
                                {
                                    "path": "/",
                                    "pathType": "Prefix",
                                    "backend": {
                                        "service": {"name": "ray-head", "port": {"number": 8265}}
                                    },
                                }
                            ]
                        },
                    }
                ],
            },
        },
        {
            "apiVersion": "autoscaling/v2",
            "kind": "HorizontalPodAutoscaler",
            "metadata": dict(meta),
            "spec": {
                "scaleTargetRef": {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": "trainer",
                },
                "minReplicas": 1,
                "maxReplicas": 4,
                "metrics": [
                    {
                        "type": "Resource",
                        "resource": {
                            "name": "cpu",
                            "target": {"type": "Utilization", "averageUtilization": 80},
                        },
                    }
                ],
            },
        },
        {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": dict(meta),
            "spec": {"hard": {"requests.cpu": "16", "requests.memory": "64Gi", "pods": "50"}},
        },
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": dict(meta),
            "spec": {
                "limits": [
                    {
                        "type": "Container",
                        "default": {"cpu": "1", "memory": "2Gi"},
                        "defaultRequest": {"cpu": "500m", "memory": "1Gi"},
                    }
                ]
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": dict(meta),
            "type": "kubernetes.io/tls",
            "stringData": {"tls.crt": "certificate", "tls.key": "key"},
        },
    ]


INGRESS = (("networking.k8s.io/v1", "Ingress"),)
HPA = (("autoscaling/v2", "HorizontalPodAutoscaler"),)
QUOTA = (("v1", "ResourceQuota"),)
LIMITS = (("v1", "LimitRange"),)
SECRET = (("v1", "Secret"),)
SERVICE = (("v1", "Service"),)
RULE0 = ("spec", "rules", "*")
PATH0 = ("spec", "rules", "*", "http", "paths", "*")
MUTATIONS += [
    Mutation(
        "ingress-host-invalid",
        "networking ValidateIngressRule",
        INGRESS,
        RULE0,
        setting(host="Bad_Host"),
    ),
    Mutation(
        "ingress-host-ip",
        "networking ValidateIngressRule",
        INGRESS,
        RULE0,
        setting(host="10.0.0.1"),
    ),
    Mutation(
        "ingress-path-relative",
        "networking validateHTTPIngressPath",
        INGRESS,
        PATH0,
        setting(path="relative"),
    ),
    Mutation(
        "ingress-path-type-invalid",
        "networking validateHTTPIngressPath",
        INGRESS,
        PATH0,
        setting(pathType="Sometimes"),
    ),
    Mutation(
        "ingress-backend-both",
        "networking validateIngressBackend",
        INGRESS,
        PATH0,
        lambda p: p["backend"].update(resource={"apiGroup": "x.io", "kind": "K", "name": "n"}),
    ),
    Mutation(
        "ingress-port-both",
        "networking validateIngressBackend",
        INGRESS,
        PATH0,
        lambda p: p["backend"]["service"]["port"].update(name="http"),
    ),
    Mutation(
        "ingress-without-rules-or-backend",
        "networking ValidateIngressSpec",
        INGRESS,
        SPEC,
        lambda s: s.pop("rules", None),
    ),
    Mutation(
        "hpa-max-below-min",
        "autoscaling ValidateHorizontalPodAutoscalerSpec",
        HPA,
        SPEC,
        setting(minReplicas=5, maxReplicas=2),
    ),
    Mutation(
        "hpa-min-zero",
        "autoscaling ValidateHorizontalPodAutoscalerSpec",
        HPA,
        SPEC,
        setting(minReplicas=0),
    ),
    Mutation(
        "hpa-utilization-zero",
        "autoscaling validateMetricTarget",
        HPA,
        ("spec", "metrics", "*", "resource", "target"),
        setting(averageUtilization=0),
    ),
    Mutation(
        "hpa-target-kind-missing",
        "autoscaling ValidateCrossVersionObjectReference",
        HPA,
        ("spec", "scaleTargetRef"),
        setting(kind=""),
    ),
    Mutation(
        "quota-negative",
        "core ValidateResourceQuota",
        QUOTA,
        ("spec", "hard"),
        lambda h: h.update(pods="-1"),
    ),
    Mutation(
        "quota-resource-invalid",
        "core validateResourceQuotaResourceName",
        QUOTA,
        ("spec", "hard"),
        lambda h: h.update({"bad/resource/name": "1"}),
    ),
    Mutation(
        "limits-default-below-request",
        "core ValidateLimitRange",
        LIMITS,
        ("spec", "limits", "*"),
        setting(default={"cpu": "250m"}, defaultRequest={"cpu": "500m"}),
    ),
    Mutation(
        "limits-type-invalid",
        "core ValidateLimitRange",
        LIMITS,
        ("spec", "limits", "*"),
        setting(type="Galaxy"),
    ),
    Mutation(
        "secret-tls-without-key",
        "core ValidateSecret",
        SECRET,
        (),
        lambda d: d.get("type") == "kubernetes.io/tls" and d["stringData"].pop("tls.key") and None,
    ),
    Mutation(
        "secret-docker-config-missing",
        "core ValidateSecret",
        SECRET,
        (),
        setting(type="kubernetes.io/dockerconfigjson", stringData={"other": "x"}),
    ),
    Mutation(
        "service-external-name-invalid",
        "core ValidateService",
        SERVICE,
        SPEC,
        lambda s: (
            s.pop("clusterIP", None),
            s.pop("ports", None),
            s.update(type="ExternalName", externalName="Bad_Name"),
        ),
    ),
    Mutation(
        "service-session-affinity-invalid",
        "core ValidateService",
        SERVICE,
        SPEC,
        setting(sessionAffinity="Sticky"),
    ),
    Mutation(
        "service-cluster-ip-invalid",
        "core ValidateService",
        SERVICE,
        SPEC,
        setting(clusterIP="10.0.0.300"),
    ),
    Mutation(
        "service-traffic-policy-on-cluster-ip",
        "core ValidateService",
        SERVICE,
        SPEC,
        setting(externalTrafficPolicy="Local"),
    ),
    Mutation(
        "service-port-protocol-invalid",
        "core ValidateService",
        SERVICE,
        SPEC,
        setting(ports=[{"port": 80, "protocol": "ICMP"}]),
    ),
    # more of the pod spec
    Mutation(
        "secret-volume-mode-too-wide",
        f"{CORE} validateSecretVolumeSource",
        None,
        None,
        _volumes({"name": "s", "secret": {"secretName": "s", "defaultMode": 1000}}),
    ),
    Mutation(
        "host-path-type-invalid",
        f"{CORE} validateHostPathType",
        None,
        None,
        _volumes({"name": "h", "hostPath": {"path": "/x", "type": "Somewhere"}}),
    ),
    Mutation(
        "empty-dir-size-negative",
        f"{CORE} validateEmptyDirVolumeSource",
        None,
        None,
        _volumes({"name": "e", "emptyDir": {"sizeLimit": "-1Gi"}}),
    ),
    Mutation(
        "claim-without-name",
        f"{CORE} validatePersistentClaimVolumeSource",
        None,
        None,
        _volumes({"name": "c", "persistentVolumeClaim": {"claimName": ""}}),
    ),
    Mutation(
        "config-map-key-ref-without-name",
        f"{CORE} validateEnvVarValueFrom",
        None,
        None,
        container(
            lambda c: c.update(env=[{"name": "A", "valueFrom": {"configMapKeyRef": {"key": "k"}}}])
        ),
    ),
    Mutation(
        "field-ref-unsupported",
        f"{CORE} validateObjectFieldSelector",
        None,
        None,
        container(
            lambda c: c.update(
                env=[{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "spec.containers"}}}]
            )
        ),
    ),
    Mutation(
        "resource-name-invalid",
        f"{CORE} validateContainerResourceName",
        None,
        None,
        container(lambda c: c.update(resources={"limits": {"cpus": "1"}})),
    ),
    Mutation(
        "probe-period-zero",
        f"{CORE} validateProbe",
        None,
        None,
        container(
            lambda c: c.update(readinessProbe={"exec": {"command": ["true"]}, "periodSeconds": 0})
        ),
    ),
    Mutation(
        "lifecycle-without-handler",
        f"{CORE} validateLifecycle",
        None,
        None,
        container(lambda c: c.update(lifecycle={"preStop": {}})),
    ),
    Mutation(
        "termination-message-policy-invalid",
        f"{CORE} validateContainerCommon",
        None,
        None,
        container(lambda c: c.update(terminationMessagePolicy="Sometimes")),
    ),
    Mutation(
        "working-dir-relative",
        f"{CORE} validateContainerCommon",
        None,
        None,
        container(lambda c: c.update(workingDir="relative")),
    ),
    Mutation(
        "capability-add-on-restricted",
        "not validated (PSA's)",
        None,
        None,
        container(
            lambda c: c.setdefault("securityContext", {}).update(
                capabilities={"add": ["NET_ADMIN"]}
            )
        ),
    ),
    Mutation(
        "priority-class-and-priority", f"{CORE} ValidatePodSpec", None, None, setting(priority=5)
    ),
    Mutation(
        "service-account-name-invalid",
        f"{CORE} ValidatePodSpec",
        None,
        None,
        setting(serviceAccountName="Bad_Account"),
    ),
    Mutation(
        "scheduler-name-invalid",
        f"{CORE} ValidatePodSpec",
        None,
        None,
        setting(schedulerName="Bad Scheduler"),
    ),
    Mutation(
        "host-aliases-ip-invalid",
        f"{CORE} validateHostAliases",
        None,
        None,
        setting(hostAliases=[{"ip": "300.0.0.1", "hostnames": ["a"]}]),
    ),
    Mutation(
        "dns-config-none-without-nameservers",
        f"{CORE} validatePodDNSConfig",
        None,
        None,
        setting(dnsPolicy="None"),
    ),
]

NAMESPACE = (("v1", "Namespace"),)
PSA = "pod-security.kubernetes.io/"
MUTATIONS += [
    Mutation(
        "psa-level-invalid",
        "PodSecurity admission validateNamespace",
        NAMESPACE,
        (),
        _all_metadata(lambda m: m.setdefault("labels", {}).update({f"{PSA}enforce": "strict"})),
    ),
    Mutation(
        "psa-level-capitalised",
        "PodSecurity admission validateNamespace",
        NAMESPACE,
        (),
        _all_metadata(lambda m: m.setdefault("labels", {}).update({f"{PSA}warn": "Restricted"})),
    ),
    Mutation(
        "psa-version-without-v",
        "PodSecurity admission validateNamespace",
        NAMESPACE,
        (),
        _all_metadata(
            lambda m: m.setdefault("labels", {}).update({f"{PSA}enforce-version": "1.30"})
        ),
    ),
    Mutation(
        "psa-version-future",
        "PodSecurity admission validateNamespace",
        NAMESPACE,
        (),
        _all_metadata(
            lambda m: m.setdefault("labels", {}).update({f"{PSA}enforce-version": "v1.99"})
        ),
    ),
    Mutation(
        "psa-version-latest",
        "PodSecurity admission validateNamespace",
        NAMESPACE,
        (),
        _all_metadata(
            lambda m: m.setdefault("labels", {}).update({f"{PSA}audit-version": "latest"})
        ),
    ),
]

# Verdicts trainops' ports took from the upstream code and not yet from the server: each asked.
SOME_KINDS = (("v1", "ConfigMap"), ("apps/v1", "Deployment"), ("v1", "Namespace"))
CRD_SCHEMA = ("spec", "versions", "*", "schema")
MUTATIONS += [
    Mutation(
        "active-deadline-in-a-controller",
        "apps Validate*Spec: activeDeadlineSeconds",
        WORKLOADS[1:],
        ("spec", "template", "spec"),
        setting(activeDeadlineSeconds=30),
    ),
    Mutation(
        "role-non-resource-urls",
        "rbac ValidatePolicyRule (namespaced)",
        RULES_KINDS,
        (),
        setting(rules=[{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]),
    ),
    Mutation(
        "configmap-key-dot-dot",
        "core IsConfigMapKey",
        (("v1", "ConfigMap"),),
        (),
        lambda d: d.setdefault("data", {}).update({"..a": "x"}),
    ),
    Mutation(
        "pdb-min-negative",
        "policy ValidatePodDisruptionBudgetSpec",
        (("policy/v1", "PodDisruptionBudget"),),
        SPEC,
        setting(minAvailable=-1),
    ),
    Mutation(
        "finalizers-standard",
        "core IsStandardFinalizerName",
        SOME_KINDS,
        ("metadata",),
        setting(finalizers=["kubernetes", "orphan"]),
    ),
    Mutation(
        "finalizers-orphan-and-foreground",
        "apimachinery ValidateFinalizers",
        SOME_KINDS,
        ("metadata",),
        setting(finalizers=["orphan", "foregroundDeletion"]),
    ),
    Mutation(
        "ingress-host-wildcard",
        "networking ValidateIngressRule",
        INGRESS,
        RULE0,
        setting(host="*.example.com"),
    ),
    Mutation(
        "priority-system-name",
        "scheduling ValidatePriorityClass (system- names)",
        (("scheduling.k8s.io/v1", "PriorityClass"),),
        (),
        lambda d: (d["metadata"].update(name="system-training"), d.update(value=2000000000)),
    ),
    Mutation(
        "job-manual-selector-matching",
        "batch ValidateJobSpec",
        JOB,
        SPEC,
        lambda s: s.update(
            manualSelector=True,
            selector={
                "matchLabels": dict(
                    (s.get("template", {}).get("metadata") or {}).get("labels") or {"x": "y"}
                )
            },
        ),
    ),
    Mutation(
        "selector-expressions-mismatch",
        "apps ValidateDeploymentSpec",
        WORKLOADS[1:],
        SPEC,
        lambda s: s.update(
            selector={"matchExpressions": [{"key": "app", "operator": "In", "values": ["nobody"]}]}
        ),
    ),
    Mutation(
        "service-headless", f"{CORE} ValidateService", SERVICE, SPEC, setting(clusterIP="None")
    ),
    Mutation(
        "service-external-name-trailing-dot",
        f"{CORE} ValidateService",
        SERVICE,
        SPEC,
        lambda s: (
            s.pop("clusterIP", None),
            s.pop("ports", None),
            s.update(type="ExternalName", externalName="db.example.com."),
        ),
    ),
    Mutation(
        "limits-claim-type",
        "core ValidateLimitRange",
        LIMITS,
        ("spec", "limits", "*"),
        setting(
            type="PersistentVolumeClaim", max={"storage": "10Gi"}, default=None, defaultRequest=None
        ),
    ),
    Mutation(
        "crd-root-type-missing",
        "apiextensions structural schema",
        CRD,
        CRD_SCHEMA,
        setting(openAPIV3Schema={"properties": {"spec": {"type": "object"}}}),
    ),
    Mutation(
        "secret-ssh-auth-missing",
        "core ValidateSecret",
        SECRET,
        (),
        setting(type="kubernetes.io/ssh-auth", stringData={"other": "x"}),
    ),
    Mutation(
        "env-field-ref-label",
        f"{CORE} validateObjectFieldSelector",
        None,
        None,
        container(
            lambda c: c.update(
                env=[
                    {
                        "name": "A",
                        "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['app']"}},
                    }
                ]
            )
        ),
    ),
    Mutation(
        "resource-hugepages",
        f"{CORE} validateContainerResourceName",
        None,
        None,
        container(
            lambda c: c.update(
                resources={"limits": {"hugepages-2Mi": "2Mi", "memory": "1Gi", "cpu": "1"}}
            )
        ),
    ),
    Mutation(
        "probe-period-negative",
        f"{CORE} validateProbe",
        None,
        None,
        container(
            lambda c: c.update(readinessProbe={"exec": {"command": ["true"]}, "periodSeconds": -1})
        ),
    ),
    Mutation(
        "toleration-key-invalid",
        f"{CORE} ValidateTolerations",
        None,
        None,
        setting(tolerations=[{"key": "bad key", "operator": "Exists"}]),
    ),
]
