"""autoscaling HorizontalPodAutoscalers as kube-apiserver v1.32.13 validates them
(pkg/apis/autoscaling/validation)."""

from __future__ import annotations

from collections.abc import Callable

from trainops.knowledge.apivalidation import core, names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    go_quantity,
    invalid,
    is_int,
    not_supported,
    parse_quantity,
    path_segment,
    required,
)
from trainops.model.shape import mapping


def _listed(value: object) -> list:
    return value if isinstance(value, list) else []


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


def horizontal_pod_autoscaler(doc: dict) -> Errors:
    """autoscaling ValidateHorizontalPodAutoscaler (v2 fields; the v1 form converts to them), after
    SetDefaults_HorizontalPodAutoscaler (HPAScaleToZero is alpha: minReplicas at least 1)."""
    spec = mapping(doc.get("spec"))
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
    metrics = _listed(spec.get("metrics"))
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
