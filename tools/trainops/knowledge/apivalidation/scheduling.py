"""scheduling.k8s.io PriorityClasses as kube-apiserver v1.32.13 validates them
(pkg/apis/scheduling/validation)."""

from __future__ import annotations

from trainops.knowledge.apivalidation.formats import (
    Errors,
    is_int,
    not_supported,
    required,
)

_HIGHEST_USER_PRIORITY = 1000000000  # scheduling HighestUserDefinablePriority
# scheduling/v1 SystemPriorityClasses: name -> value (neither is the global default).
_SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": 2000001000,
    "system-cluster-critical": 2000000000,
}
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def priority_class(doc: dict) -> Errors:
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
