"""policy PodDisruptionBudgets as kube-apiserver v1.32.13 validates them (pkg/apis/policy/validation)."""

from __future__ import annotations

from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    invalid,
    not_more_than_100_percent,
    not_supported,
    positive_int_or_percent,
    validate_label_selector,
)
from trainops.model.shape import mapping

_EVICTION_POLICIES = ("AlwaysAllow", "IfHealthyBudget")  # sets.List: sorted


def pod_disruption_budget(doc: dict) -> Errors:
    """policy ValidatePodDisruptionBudgetSpec."""
    spec = mapping(doc.get("spec"))
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
