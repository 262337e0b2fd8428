"""Per-kind validation of built-in kinds, as kube-apiserver v1.32.13 validates them: the registry
(KIND_CHECKS, and LEFT_OUT: what each port leaves out), RBAC and Namespaces. The ports live one
module per API group, as upstream's pkg/apis/<group>/validation: Jobs, CronJobs and the Jobs a
JobSet creates (batch.py; the schedule: cron.py), apps.py, the core group's Services
(service.py), ConfigMaps, Secrets, PVCs, LimitRanges, ResourceQuotas, Nodes (core.py), ServiceAccounts,
PodTemplates and ReplicationControllers (core_controllers.py), PersistentVolumes
(persistent_volume.py), Endpoints (endpoints.py) and Pods (pod*.py), networking.py, policy.py,
scheduling.py, autoscaling.py, apiextensions.py, apiregistration.py, admissionregistration.py (its CEL:
admission_cel.py), flowcontrol.py, coordination.py, storage.py, node.py, certificates.py,
discovery.py and events.py; helpers shared by all (field error texts, Go values, selectors, IPs,
quantities): formats.py."""

from __future__ import annotations

import re
from collections.abc import Callable

from trainops.knowledge.apivalidation import (
    admissionregistration,
    apiextensions,
    apiregistration,
    apps,
    autoscaling,
    batch,
    certificates,
    coordination,
    core,
    core_controllers,
    discovery,
    endpoints,
    events,
    flowcontrol,
    names,
    networking,
    node,
    persistent_volume,
    policy,
    scheduling,
    service,
    storage,
)
from trainops.knowledge.apivalidation.formats import (
    Errors,
    go_strings,
    invalid,
    not_supported,
    path_segment,
    required,
    validate_label_selector,
)
from trainops.model.shape import mapping


def _spec(doc: dict) -> dict:
    spec = doc.get("spec")
    return spec if isinstance(spec, dict) else {}


def _dicts(value: object) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _list(value: object) -> list:
    return value if isinstance(value, list) else []


# --- RBAC (pkg/apis/rbac/validation) ------------------------------------------------------------


def _policy_rules(doc: dict) -> Errors:
    """rbac ValidateRole / ValidateClusterRole: ValidatePolicyRule for each rule, and a
    ClusterRole's aggregationRule selectors."""
    errors: Errors = []
    namespaced = doc.get("kind") == "Role"
    for index, rule in enumerate(_dicts(doc.get("rules"))):
        where = f"rules[{index}]"
        if not _list(rule.get("verbs")):
            errors.append((f"{where}.verbs", required("verbs must contain at least one value")))
        urls = _list(rule.get("nonResourceURLs"))
        if urls:
            shown = go_strings(urls)
            if namespaced:
                message = "namespaced rules cannot apply to non-resource URLs"
                errors.append((f"{where}.nonResourceURLs", invalid(shown, message)))
            if any(_list(rule.get(k)) for k in ("apiGroups", "resources", "resourceNames")):
                message = "rules cannot apply to both regular resources and non-resource URLs"
                errors.append((f"{where}.nonResourceURLs", invalid(shown, message)))
            continue
        if not _list(rule.get("apiGroups")):
            message = "resource rules must supply at least one api group"
            errors.append((f"{where}.apiGroups", required(message)))
        if not _list(rule.get("resources")):
            errors.append(
                (f"{where}.resources", required("resource rules must supply at least one resource"))
            )
    aggregation = doc.get("aggregationRule")
    if doc.get("kind") == "ClusterRole" and isinstance(aggregation, dict):
        selectors = aggregation.get("clusterRoleSelectors")
        if not _list(selectors):
            message = "at least one clusterRoleSelector required if aggregationRule is non-nil"
            errors.append(("aggregationRule.clusterRoleSelectors", required(message)))
        for index, selector in enumerate(_list(selectors)):
            where = f"aggregationRule.clusterRoleSelectors[{index}]"
            found = validate_label_selector(selector, where)
            errors += found
            if found:  # LabelSelectorAsSelector fails on the same selectors (a nil result: "null")
                errors.append((where, invalid("null", "invalid label selector.")))
    return errors


_RBAC_GROUP = "rbac.authorization.k8s.io"


def _binding(doc: dict) -> Errors:
    """rbac ValidateRoleBinding / ValidateClusterRoleBinding and ValidateRoleBindingSubject, after
    the rbac/v1 defaults (an empty roleRef apiGroup, and a User's or Group's, is rbac's)."""
    errors: Errors = []
    namespaced = doc.get("kind") == "RoleBinding"
    ref = doc.get("roleRef")
    ref = ref if isinstance(ref, dict) else {}
    group = ref.get("apiGroup") or _RBAC_GROUP
    if group != _RBAC_GROUP:
        errors.append(("roleRef.apiGroup", not_supported(str(group), (_RBAC_GROUP,))))
    allowed = ("Role", "ClusterRole") if namespaced else ("ClusterRole",)
    kind = ref.get("kind")
    if kind not in allowed:
        errors.append(
            ("roleRef.kind", not_supported(kind if isinstance(kind, str) else "", allowed))
        )
    name = ref.get("name")
    if not name:
        errors.append(("roleRef.name", required()))
    elif isinstance(name, str):
        errors += [("roleRef.name", invalid(name, m)) for m in path_segment(name)]
    for index, subject in enumerate(_dicts(doc.get("subjects"))):
        errors += _subject(subject, namespaced, f"subjects[{index}]")
    return errors


_SUBJECT_KINDS = ("ServiceAccount", "User", "Group")


def _subject(subject: dict, namespaced: bool, path: str) -> Errors:
    """rbac ValidateRoleBindingSubject."""
    errors: Errors = []
    name = subject.get("name")
    name = name if isinstance(name, str) else ""
    if not name:
        errors.append((f"{path}.name", required()))
    kind = subject.get("kind")
    group = subject.get("apiGroup")
    group = group if isinstance(group, str) else ""
    if kind == "ServiceAccount":
        if name:
            errors += [(f"{path}.name", invalid(name, m)) for m in names.dns1123_subdomain(name)]
        if group:
            errors.append((f"{path}.apiGroup", not_supported(group, ("",))))
        if not namespaced and not subject.get("namespace"):
            errors.append((f"{path}.namespace", required()))
    elif kind in ("User", "Group"):
        if (group or _RBAC_GROUP) != _RBAC_GROUP:  # SetDefaults_Subject fills an empty group
            errors.append((f"{path}.apiGroup", not_supported(group, (_RBAC_GROUP,))))
    else:
        errors.append(
            (f"{path}.kind", not_supported(kind if isinstance(kind, str) else "", _SUBJECT_KINDS))
        )
    return errors


# --- Namespaces ------------------------------------------------------------------------------------

_PSA_PREFIX = "pod-security.kubernetes.io/"
_PSA_LEVELS = ("privileged", "baseline", "restricted")
_PSA_VERSION = re.compile(r"^v1\.(0|[1-9][0-9]*)$")


def _namespace(doc: dict) -> Errors:
    """PodSecurity admission refuses a Namespace whose labels it cannot read
    (pod-security-admission admission.go validateNamespace: api.ParseLevel, api.ParseVersion)."""
    errors: Errors = []
    labels = mapping(mapping(doc.get("metadata")).get("labels"))
    for mode in ("enforce", "audit", "warn"):
        level = labels.get(f"{_PSA_PREFIX}{mode}")
        if isinstance(level, str) and level not in _PSA_LEVELS:
            where = f"metadata.labels[{_PSA_PREFIX}{mode}]"
            errors.append(
                (where, invalid(level, "must be one of privileged, baseline, restricted"))
            )
        version = labels.get(f"{_PSA_PREFIX}{mode}-version")
        if isinstance(version, str) and version != "latest" and not _PSA_VERSION.fullmatch(version):
            where = f"metadata.labels[{_PSA_PREFIX}{mode}-version]"
            errors.append((where, invalid(version, 'must be "latest" or "v1.x"')))
    return errors


def _namespace_all(doc: dict) -> Errors:
    return core.namespace_finalizers(doc) + _namespace(doc)


# (group, kind) -> the restart policies its pod template allows (None: any the Pod allows).
RESTART_POLICIES = {
    ("batch", "Job"): ("OnFailure", "Never"),
    ("batch", "CronJob"): ("OnFailure", "Never"),
    ("apps", "Deployment"): ("Always",),
    ("apps", "StatefulSet"): ("Always",),
    ("apps", "DaemonSet"): ("Always",),
    ("apps", "ReplicaSet"): ("Always",),
    ("", "ReplicationController"): ("Always",),
    ("", "Pod"): ("Always", "OnFailure", "Never"),
}

# What the port of a kind in KIND_CHECKS leaves out of the server's validation ("" or absent:
# nothing); `trainops coverage` prints it, and an object of such a kind is reported partly judged.
LEFT_OUT: dict[tuple[str, str], str] = {
    (group, kind): text
    for group, module in (
        ("admissionregistration.k8s.io", admissionregistration),
        ("flowcontrol.apiserver.k8s.io", flowcontrol),
        ("coordination.k8s.io", coordination),
        ("storage.k8s.io", storage),
        ("node.k8s.io", node),
        ("apiregistration.k8s.io", apiregistration),
        ("certificates.k8s.io", certificates),
        ("", persistent_volume),
        ("", core),
        ("", endpoints),
        ("discovery.k8s.io", discovery),
        ("events.k8s.io", events),
        ("", events),
    )
    for kind, text in module.LEFT_OUT.items()
}

KIND_CHECKS: dict[tuple[str, str], Callable[[dict], Errors]] = {
    ("batch", "Job"): batch.job,
    ("batch", "CronJob"): batch.cron_job,
    ("jobset.x-k8s.io", "JobSet"): batch.jobset,
    ("", "PersistentVolumeClaim"): core.persistent_volume_claim,
    ("", "Service"): service.service,
    ("networking.k8s.io", "NetworkPolicy"): networking.network_policy,
    ("networking.k8s.io", "Ingress"): networking.ingress,
    ("networking.k8s.io", "IngressClass"): networking.ingress_class,
    ("apps", "Deployment"): apps.deployment,
    ("apps", "StatefulSet"): apps.stateful_set,
    ("apps", "DaemonSet"): apps.daemon_set,
    ("apps", "ReplicaSet"): apps.replica_set,
    ("rbac.authorization.k8s.io", "Role"): _policy_rules,
    ("rbac.authorization.k8s.io", "ClusterRole"): _policy_rules,
    ("rbac.authorization.k8s.io", "RoleBinding"): _binding,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): _binding,
    ("", "ConfigMap"): core.config_map,
    ("", "Secret"): core.secret,
    ("policy", "PodDisruptionBudget"): policy.pod_disruption_budget,
    ("scheduling.k8s.io", "PriorityClass"): scheduling.priority_class,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): (
        apiextensions.custom_resource_definition
    ),
    ("autoscaling", "HorizontalPodAutoscaler"): autoscaling.horizontal_pod_autoscaler,
    ("", "ResourceQuota"): core.resource_quota,
    ("", "LimitRange"): core.limit_range,
    ("", "Namespace"): _namespace_all,
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"): (
        admissionregistration.validating_admission_policy
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"): (
        admissionregistration.validating_admission_policy_binding
    ),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"): (
        admissionregistration.validating_webhook_configuration
    ),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"): (
        admissionregistration.mutating_webhook_configuration
    ),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"): (
        flowcontrol.priority_level_configuration
    ),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"): flowcontrol.flow_schema,
    ("coordination.k8s.io", "Lease"): coordination.lease,
    ("storage.k8s.io", "StorageClass"): storage.storage_class,
    ("storage.k8s.io", "VolumeAttachment"): storage.volume_attachment,
    ("storage.k8s.io", "CSIDriver"): storage.csi_driver,
    ("storage.k8s.io", "CSINode"): storage.csi_node,
    ("node.k8s.io", "RuntimeClass"): node.runtime_class,
    ("certificates.k8s.io", "CertificateSigningRequest"): certificates.certificate_signing_request,
    ("", "PersistentVolume"): persistent_volume.persistent_volume,
    ("", "Endpoints"): endpoints.endpoints,
    ("discovery.k8s.io", "EndpointSlice"): discovery.endpoint_slice,
    ("", "Event"): events.core_event,
    ("events.k8s.io", "Event"): events.events_event,
    ("", "Node"): core.node,
    ("", "ServiceAccount"): core_controllers.service_account,
    ("", "PodTemplate"): core_controllers.pod_template,
    ("", "ReplicationController"): core_controllers.replication_controller,
    ("storage.k8s.io", "CSIStorageCapacity"): storage.csi_storage_capacity,
    ("apiregistration.k8s.io", "APIService"): apiregistration.api_service,
}
