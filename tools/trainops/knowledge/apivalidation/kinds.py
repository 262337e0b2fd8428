"""Per-kind validation of built-in kinds, as kube-apiserver v1.32.13 validates them: the registry
(KIND_CHECKS) and the smaller kinds; the larger ones have their own modules — Jobs, CronJobs and
the Jobs a JobSet creates (batch.py; the schedule: cron.py), Deployments, StatefulSets, DaemonSets
and ReplicaSets (apps.py), Services (service.py), ConfigMaps, Secrets, PVCs, LimitRanges,
ResourceQuotas (core.py), NetworkPolicies and Ingresses (networking.py); helpers shared by all
(field error texts, Go values, selectors, IPs, quantities): formats.py."""

from __future__ import annotations

import re
from collections.abc import Callable

from trainops.knowledge.apivalidation import (
    admissionregistration,
    apps,
    batch,
    certificates,
    coordination,
    core,
    discovery,
    endpoints,
    events,
    flowcontrol,
    names,
    networking,
    node,
    persistent_volume,
    service,
    storage,
)
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    go_quantity,
    go_strings,
    invalid,
    is_int,
    not_more_than_100_percent,
    not_supported,
    parse_quantity,
    path_segment,
    positive_int_or_percent,
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


# --- PodDisruptionBudgets (pkg/apis/policy/validation) ------------------------------------------

_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")  # sets.List: sorted


def _disruption_budget(doc: dict) -> Errors:
    """policy ValidatePodDisruptionBudgetSpec."""
    spec = _spec(doc)
    errors: Errors = []
    low, high = spec.get("minAvailable"), spec.get("maxUnavailable")
    if low is not None and high is not None:
        shown = GoValue(
            "policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000000000), "
            "Selector:(*v1.LabelSelector)(nil), MaxUnavailable:(*intstr.IntOrString)(0xc000000000), "
            "UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}"
        )
        errors.append(
            ("spec", invalid(shown, "minAvailable and maxUnavailable cannot be both set"))
        )
    for key, value in (("minAvailable", low), ("maxUnavailable", high)):
        if value is not None:
            errors += positive_int_or_percent(value, f"spec.{key}")
            errors += not_more_than_100_percent(value, f"spec.{key}")
    errors += validate_label_selector(spec.get("selector"), "spec.selector")
    policy = spec.get("unhealthyPodEvictionPolicy")
    if isinstance(policy, str) and policy not in _EVICTION_POLICIES:
        errors.append(
            ("spec.unhealthyPodEvictionPolicy", not_supported(policy, _EVICTION_POLICIES))
        )
    return errors


# --- PriorityClasses (pkg/apis/scheduling/validation) -------------------------------------------

_HIGHEST_USER_PRIORITY = 1000000000  # scheduling HighestUserDefinablePriority
# scheduling/v1 SystemPriorityClasses: name -> value (neither is the global default).
_SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
}
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def _priority_class(doc: dict) -> Errors:
    """scheduling ValidatePriorityClass."""
    errors: Errors = []
    value = doc.get("value")
    value = value if is_int(value) else 0
    metadata = doc.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if isinstance(name, str) and name.startswith("system-"):
        reason = None  # IsKnownSystemPriorityClass
        if name not in _SYSTEM_PRIORITY_CLASSES:
            reason = f"{name} is not a known system priority class"
        elif value != _SYSTEM_PRIORITY_CLASSES[name]:
            reason = f"value of {name} PriorityClass must be {_SYSTEM_PRIORITY_CLASSES[name]}"
        elif doc.get("globalDefault") is True:
            reason = f"globalDefault of {name} PriorityClass must be false"
        if reason is not None:
            message = f"priority class names with 'system-' prefix are reserved for system use only. error: {reason}"
            errors.append(("metadata.name", f"Forbidden: {message}"))
    elif value > _HIGHEST_USER_PRIORITY:
        message = f"maximum allowed value of a user defined priority is {_HIGHEST_USER_PRIORITY}"
        errors.append(("value", f"Forbidden: {message}"))
    policy = doc.get("preemptionPolicy")
    if policy == "":
        errors.append(("preemptionPolicy", required()))
    elif isinstance(policy, str) and policy not in _PREEMPTION_POLICIES:
        errors.append(("preemptionPolicy", not_supported(policy, _PREEMPTION_POLICIES)))
    return errors


def _custom_resource_definition(doc: dict) -> Errors:
    """apiextensions ValidateCustomResourceDefinitionSpec: a scope, and in v1 a schema for every
    version whose root is an object."""
    spec = _spec(doc)
    errors: Errors = []
    scope = spec.get("scope")
    if isinstance(scope, str) and scope not in ("Cluster", "Namespaced"):
        errors.append(("spec.scope", not_supported(scope, ("Cluster", "Namespaced"))))
    for index, version in enumerate(_dicts(spec.get("versions"))):
        where = f"spec.versions[{index}].schema.openAPIV3Schema"
        schema = mapping(version.get("schema")).get("openAPIV3Schema")
        if not isinstance(schema, dict) or not schema:
            errors.append((where, "Required value: schemas are required"))
        elif schema.get("type") != "object":
            errors.append((f"{where}.type", "Invalid value: must be object at the root"))
    return errors


# --- HorizontalPodAutoscalers (pkg/apis/autoscaling/validation) ---------------------------------

_MAX_PERIOD_SECONDS = 1800  # MaxPeriodSeconds
_MAX_STABILIZATION_SECONDS = 3600  # MaxStabilizationWindowSeconds
_SELECT_POLICIES = ("Disabled", "Max", "Min")  # sets.List: sorted
_POLICY_TYPES = ("Percent", "Pods")
_METRIC_TYPES = ("ContainerResource", "External", "Object", "Pods", "Resource")
_SOURCES = {
    "Object": "object",
    "Pods": "pods",
    "Resource": "resource",
    "External": "external",
    "ContainerResource": "containerResource",
}


def _autoscaler(doc: dict) -> Errors:
    """autoscaling ValidateHorizontalPodAutoscaler (v2 fields; the v1 form converts to them), after
    SetDefaults_HorizontalPodAutoscaler (HPAScaleToZero is alpha: minReplicas at least 1)."""
    spec = _spec(doc)
    errors: Errors = []
    low, high = spec.get("minReplicas"), spec.get("maxReplicas")
    if is_int(low) and low < 1:
        errors.append(("spec.minReplicas", invalid(low, "must be greater than or equal to 1")))
    if is_int(high):
        if high < 1:
            errors.append(("spec.maxReplicas", invalid(high, "must be greater than 0")))
        if high < (low if is_int(low) else 1):
            message = "must be greater than or equal to `minReplicas`"
            errors.append(("spec.maxReplicas", invalid(high, message)))
    target = spec.get("scaleTargetRef")
    errors += _object_reference(target if isinstance(target, dict) else {}, "spec.scaleTargetRef")
    metrics = _list(spec.get("metrics"))
    for index, metric in enumerate(metrics):
        if isinstance(metric, dict):
            errors += _metric(metric, f"spec.metrics[{index}]")
    if low == 0 and not any(
        isinstance(m, dict) and m.get("type") in ("Object", "External") for m in metrics
    ):  # validateMetrics (an HPA without metrics is defaulted to a CPU one)
        message = "must specify at least one Object or External metric to support scaling to zero replicas"
        errors.append(("spec.metrics", f"Forbidden: {message}"))
    cpu = spec.get("targetCPUUtilizationPercentage")  # autoscaling/v1
    if is_int(cpu) and cpu < 1:
        errors.append(
            (
                "spec.metrics[0].resource.target.averageUtilization",
                invalid(cpu, "must be greater than 0"),
            )
        )
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        for key in ("scaleUp", "scaleDown"):
            rules = behavior.get(key)
            if isinstance(rules, dict):
                errors += _scaling_rules(rules, f"spec.behavior.{key}")
    return errors


def _object_reference(reference: dict, path: str) -> Errors:
    """ValidateCrossVersionObjectReference."""
    errors: Errors = []
    for key in ("kind", "name"):
        value = reference.get(key)
        if not value:
            errors.append((f"{path}.{key}", required()))
        elif isinstance(value, str):
            errors += [(f"{path}.{key}", invalid(value, m)) for m in path_segment(value)]
    return errors


def _scaling_rules(rules: dict, path: str) -> Errors:
    """validateScalingRules (defaults fill what is unset; an empty policies list stays empty)."""
    errors: Errors = []
    window = rules.get("stabilizationWindowSeconds")
    if is_int(window):
        if window < 0:
            errors.append(
                (
                    f"{path}.stabilizationWindowSeconds",
                    invalid(window, "must be greater than or equal to zero"),
                )
            )
        if window > _MAX_STABILIZATION_SECONDS:
            message = f"must be less than or equal to {_MAX_STABILIZATION_SECONDS}"
            errors.append((f"{path}.stabilizationWindowSeconds", invalid(window, message)))
    select = rules.get("selectPolicy")
    if isinstance(select, str) and select not in _SELECT_POLICIES:
        errors.append((f"{path}.selectPolicy", not_supported(select, _SELECT_POLICIES)))
    policies = rules.get("policies")
    if isinstance(policies, list):
        if not policies:
            errors.append((f"{path}.policies", required("must specify at least one Policy")))
        for index, policy in enumerate(policies):
            if isinstance(policy, dict):
                errors += _scaling_policy(policy, f"{path}.policies[{index}]")
    return errors


def _scaling_policy(policy: dict, path: str) -> Errors:
    """validateScalingPolicy."""
    errors: Errors = []
    kind = policy.get("type")
    if kind not in ("Pods", "Percent"):
        errors.append(
            (f"{path}.type", not_supported(kind if isinstance(kind, str) else "", _POLICY_TYPES))
        )
    value = policy.get("value")
    value = value if is_int(value) else 0
    if value <= 0:
        errors.append((f"{path}.value", invalid(value, "must be greater than zero")))
    period = policy.get("periodSeconds")
    period = period if is_int(period) else 0
    if period <= 0:
        errors.append((f"{path}.periodSeconds", invalid(period, "must be greater than zero")))
    if period > _MAX_PERIOD_SECONDS:
        message = f"must be less than or equal to {_MAX_PERIOD_SECONDS}"
        errors.append((f"{path}.periodSeconds", invalid(period, message)))
    return errors


def _metric(metric: dict, path: str) -> Errors:
    """validateMetricSpec: a known type, its source populated, no other source."""
    errors: Errors = []
    kind = metric.get("type")
    kind = kind if isinstance(kind, str) else ""
    if not kind:
        errors.append((f"{path}.type", required("must specify a metric source type")))
    if kind not in _METRIC_TYPES:
        errors.append((f"{path}.type", not_supported(kind, _METRIC_TYPES)))
    present = [
        k
        for k in ("object", "external", "pods", "resource", "containerResource")
        if metric.get(k) is not None
    ]
    if present:
        source = metric[present[0]]
        if isinstance(source, dict):
            errors += _SOURCE_CHECKS[present[0]](source, f"{path}.{present[0]}")
    expected = _SOURCES.get(kind)
    if expected is not None and metric.get(expected) is None:
        message = "must populate information for the given metric source"
        errors.append((f"{path}.{expected}", required(message)))
    if kind and expected is None:
        errors.append((f"{path}.type", not_supported(kind, _METRIC_TYPES)))
    if len(present) != 1:
        for key in present:
            if key != expected:
                errors.append(
                    (f"{path}.{key}", "Forbidden: must populate the given metric source only")
                )
    return errors


def _target(target: object, path: str) -> Errors:
    """validateMetricTarget."""
    target = target if isinstance(target, dict) else {}
    errors: Errors = []
    kind = target.get("type")
    if not kind:
        errors.append((f"{path}.type", required("must specify a metric target type")))
    if kind not in ("Utilization", "Value", "AverageValue"):
        shown = kind if isinstance(kind, str) else ""
        errors.append(
            (f"{path}.type", invalid(shown, "must be either Utilization, Value, or AverageValue"))
        )
    for key in ("value", "averageValue"):
        amount = target.get(key)
        if amount is None:
            continue
        parsed = parse_quantity(amount)
        if isinstance(parsed, str):
            errors.append((f"{path}.{key}", parsed))
        elif parsed is not None and parsed.value <= 0:
            errors.append((f"{path}.{key}", invalid(go_quantity(parsed), "must be positive")))
    utilization = target.get("averageUtilization")
    if is_int(utilization) and utilization < 1:
        errors.append(
            (f"{path}.averageUtilization", invalid(utilization, "must be greater than 0"))
        )
    return errors


def _metric_name(identifier: object, path: str) -> Errors:
    """validateMetricIdentifier."""
    name = identifier.get("name") if isinstance(identifier, dict) else None
    if not name:
        return [(f"{path}.name", required("must specify a metric name"))]
    return (
        [(f"{path}.name", invalid(name, m)) for m in path_segment(name)]
        if isinstance(name, str)
        else []
    )


def _object_source(source: dict, path: str) -> Errors:
    described = source.get("describedObject")
    errors = _object_reference(
        described if isinstance(described, dict) else {}, f"{path}.describedObject"
    )
    errors += _metric_name(source.get("metric"), f"{path}.metric")
    errors += _target(source.get("target"), f"{path}.target")
    target = mapping(source.get("target"))
    if target.get("value") is None and target.get("averageValue") is None:
        message = "must set either a target value or averageValue"
        errors.append((f"{path}.target.averageValue", required(message)))
    return errors


def _external_source(source: dict, path: str) -> Errors:
    errors = _metric_name(source.get("metric"), f"{path}.metric")
    errors += _target(source.get("target"), f"{path}.target")
    target = mapping(source.get("target"))
    value, average = target.get("value"), target.get("averageValue")
    if value is None and average is None:
        message = "must set either a target value for metric or a per-pod target"
        errors.append((f"{path}.target.averageValue", required(message)))
    if value is not None and average is not None:
        message = "may not set both a target value for metric and a per-pod target"
        errors.append((f"{path}.target.value", f"Forbidden: {message}"))
    return errors


def _pods_source(source: dict, path: str) -> Errors:
    errors = _metric_name(source.get("metric"), f"{path}.metric")
    errors += _target(source.get("target"), f"{path}.target")
    target = mapping(source.get("target"))
    if target.get("averageValue") is None:
        message = "must specify a positive target averageValue"
        errors.append((f"{path}.target.averageValue", required(message)))
    return errors


def _resource_source(source: dict, path: str, container: bool = False) -> Errors:
    errors: Errors = []
    name = source.get("name")
    if not name:
        errors.append((f"{path}.name", required("must specify a resource name")))
    elif container and isinstance(name, str):
        errors += core._container_resource_name(name, f"{path}.name")
    if container:
        owner = source.get("container")
        if not owner:
            errors.append((f"{path}.container", required("must specify a container")))
        elif isinstance(owner, str):
            errors += [
                (f"{path}.container", invalid(owner, m)) for m in names.is_dns1123_label(owner)
            ]
    errors += _target(source.get("target"), f"{path}.target")
    target = mapping(source.get("target"))
    utilization, average = target.get("averageUtilization"), target.get("averageValue")
    if utilization is None and average is None:
        message = "must set either a target raw value or a target utilization"
        errors.append((f"{path}.target.averageUtilization", required(message)))
    if utilization is not None and average is not None:
        message = "may not set both a target raw value and a target utilization"
        errors.append((f"{path}.target.averageValue", f"Forbidden: {message}"))
    return errors


_SOURCE_CHECKS: dict[str, Callable[[dict, str], Errors]] = {
    "object": _object_source,
    "external": _external_source,
    "pods": _pods_source,
    "resource": _resource_source,
    "containerResource": lambda source, path: _resource_source(source, path, container=True),
}


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
        ("certificates.k8s.io", certificates),
        ("", persistent_volume),
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
    ("policy", "PodDisruptionBudget"): _disruption_budget,
    ("scheduling.k8s.io", "PriorityClass"): _priority_class,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _custom_resource_definition,
    ("autoscaling", "HorizontalPodAutoscaler"): _autoscaler,
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
}
