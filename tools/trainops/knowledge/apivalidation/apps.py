"""Deployments, StatefulSets, DaemonSets and ReplicaSets as kube-apiserver v1.32.13 validates
them (pkg/apis/apps/validation), after the apps/v1 defaults (SetDefaults_Deployment, …) and the
StatefulSet strategy's dropping of fields behind disabled gates (maxUnavailable: the
MaxUnavailableStatefulSet gate is alpha). The pod template itself is the pod port's."""

from __future__ import annotations

from trainops.knowledge.apivalidation import core, names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    does_not_match,
    forbidden,
    go_intstr,
    go_quote,
    go_selector,
    intstr_value,
    invalid,
    is_int,
    non_negative,
    not_more_than_100_percent,
    not_supported,
    positive_int_or_percent,
    required,
    selector_is_empty,
    selector_matches,
    validate_label_selector,
)


def _spec(doc: dict) -> dict:
    spec = doc.get("spec")
    return spec if isinstance(spec, dict) else {}


def _template_labels(spec: dict) -> object:
    template = spec.get("template")
    metadata = template.get("metadata") if isinstance(template, dict) else None
    return metadata.get("labels") if isinstance(metadata, dict) else None


def _selector(spec: dict, owner: str, template_check: str) -> Errors:
    """The selector checks the apps kinds share: ValidateLabelSelector, an empty selector, and
    one that does not select its template (skipped when it does not convert).
    template_check: "non-empty" (ReplicaSets, Deployments, StatefulSets: an empty selector is
    not matched against the template) or "always" (DaemonSets)."""
    selector = spec.get("selector")
    if not isinstance(selector, dict):
        return []  # a missing selector is the schema's to report (apps/v1 requires it)
    errors = validate_label_selector(selector, "spec.selector")
    converts = not errors
    if selector_is_empty(selector):
        errors.append(
            (
                "spec.selector",
                invalid(go_selector(selector), f"empty selector is invalid for {owner}"),
            )
        )
    if not converts:
        detail = "" if owner == "statefulset" else "invalid label selector"
        if owner != "daemonset":
            errors.append(("spec.selector", invalid(go_selector(selector), detail)))
        return errors
    if template_check == "always" or not selector_is_empty(selector):
        labels = _template_labels(spec)
        if not selector_matches(selector, labels if isinstance(labels, dict) else {}):
            errors.append(("spec.template.metadata.labels", does_not_match(labels)))
    return errors


def replica_set(doc: dict) -> Errors:
    """apps ValidateReplicaSetSpec."""
    spec = _spec(doc)
    errors = non_negative(spec, "replicas", "spec") + non_negative(spec, "minReadySeconds", "spec")
    errors += _selector(spec, "deployment", "non-empty")
    return errors + core.active_deadline(spec, "ReplicaSet")


def deployment(doc: dict) -> Errors:
    """apps ValidateDeploymentSpec (strategy: ValidateDeploymentStrategy), after
    SetDefaults_Deployment (RollingUpdate, 25% and 25%, a progress deadline of 600 s)."""
    spec = _spec(doc)
    errors = non_negative(spec, "replicas", "spec") if "replicas" in spec else []
    errors += _selector(spec, "deployment", "non-empty")
    errors += core.active_deadline(spec, "ReplicaSet")
    if "strategy" in spec:
        errors += _deployment_strategy(spec.get("strategy"))
    if "minReadySeconds" in spec or "progressDeadlineSeconds" in spec:
        errors += non_negative(spec, "minReadySeconds", "spec")
        deadline = spec.get("progressDeadlineSeconds")
        deadline = 600 if deadline is None else deadline
        ready = spec.get("minReadySeconds")
        ready = ready if is_int(ready) else 0
        if is_int(deadline):
            if deadline < 0:
                message = "must be greater than or equal to 0"
                errors.append(("spec.progressDeadlineSeconds", invalid(deadline, message)))
            if deadline <= ready:
                message = "must be greater than minReadySeconds"
                errors.append(("spec.progressDeadlineSeconds", invalid(deadline, message)))
    if "revisionHistoryLimit" in spec:
        errors += non_negative(spec, "revisionHistoryLimit", "spec")
    return errors


def _deployment_strategy(strategy: object) -> Errors:
    """ValidateDeploymentStrategy and ValidateRollingUpdateDeployment."""
    strategy = strategy if isinstance(strategy, dict) else {}
    errors: Errors = []
    kind = strategy.get("type") or "RollingUpdate"
    rolling = strategy.get("rollingUpdate")
    if kind == "Recreate":
        if rolling is not None:
            message = "may not be specified when strategy `type` is 'Recreate'"
            errors.append(("spec.strategy.rollingUpdate", forbidden(message)))
    elif kind == "RollingUpdate":
        rolling = rolling if isinstance(rolling, dict) else {}
        path = "spec.strategy.rollingUpdate"
        unavailable, surge = rolling.get("maxUnavailable"), rolling.get("maxSurge")
        unavailable = "25%" if unavailable is None else unavailable
        surge = "25%" if surge is None else surge
        errors += positive_int_or_percent(unavailable, f"{path}.maxUnavailable")
        errors += positive_int_or_percent(surge, f"{path}.maxSurge")
        if intstr_value(unavailable) == 0 and intstr_value(surge) == 0:
            message = "may not be 0 when `maxSurge` is 0"
            errors.append((f"{path}.maxUnavailable", invalid(go_intstr(unavailable), message)))
        errors += not_more_than_100_percent(unavailable, f"{path}.maxUnavailable")
    elif isinstance(kind, str):
        shown = GoValue(
            f"apps.DeploymentStrategy{{Type:{go_quote(kind)}, "
            f"RollingUpdate:{_pointer('apps.RollingUpdateDeployment', rolling)}}}"
        )
        errors.append(("spec.strategy", not_supported(shown, ("Recreate", "RollingUpdate"))))
    return errors


def _pointer(type_name: str, value: object) -> str:
    return f"(*{type_name})(nil)" if value is None else f"(*{type_name})(0xc000000000)"


def daemon_set(doc: dict) -> Errors:
    """apps ValidateDaemonSetSpec (ValidateDaemonSetUpdateStrategy, ValidateRollingUpdateDaemonSet)."""
    spec = _spec(doc)
    errors = _selector(spec, "daemonset", "always")
    errors += core.active_deadline(spec, "DaemonSet")
    errors += non_negative(spec, "minReadySeconds", "spec")
    errors += non_negative(spec, "templateGeneration", "spec")
    strategy = spec.get("updateStrategy")
    strategy = strategy if isinstance(strategy, dict) else {}
    kind = strategy.get("type") or "RollingUpdate"  # SetDefaults_DaemonSet
    rolling = strategy.get("rollingUpdate")
    if kind == "RollingUpdate":
        rolling = rolling if isinstance(rolling, dict) else {}
        path = "spec.updateStrategy.rollingUpdate"
        unavailable = rolling.get("maxUnavailable")
        surge = rolling.get("maxSurge")
        unavailable = 1 if unavailable is None else unavailable
        surge = 0 if surge is None else surge
        errors += positive_int_or_percent(unavailable, f"{path}.maxUnavailable")
        errors += positive_int_or_percent(surge, f"{path}.maxSurge")
        errors += not_more_than_100_percent(unavailable, f"{path}.maxUnavailable")
        errors += not_more_than_100_percent(surge, f"{path}.maxSurge")
        has_unavailable, has_surge = intstr_value(unavailable) != 0, intstr_value(surge) != 0
        if has_unavailable and has_surge:
            message = "may not be set when maxUnavailable is non-zero"
            errors.append((f"{path}.maxSurge", invalid(go_intstr(surge), message)))
        elif not has_unavailable and not has_surge:
            errors.append((f"{path}.maxUnavailable", required("cannot be 0 when maxSurge is 0")))
    elif kind != "OnDelete" and isinstance(kind, str):
        shown = GoValue(
            f"apps.DaemonSetUpdateStrategy{{Type:{go_quote(kind)}, "
            f"RollingUpdate:{_pointer('apps.RollingUpdateDaemonSet', rolling)}}}"
        )
        errors.append(("spec.updateStrategy", not_supported(shown, ("RollingUpdate", "OnDelete"))))
    errors += non_negative(spec, "revisionHistoryLimit", "spec")
    return errors


_RETENTION = ("Retain", "Delete")


def stateful_set(doc: dict) -> Errors:
    """apps ValidateStatefulSetSpec; and its volumeClaimTemplates, validated as the
    PersistentVolumeClaims the controller creates from them."""
    spec = _spec(doc)
    errors: Errors = []
    metadata = doc.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if isinstance(name, str) and not names.dns1123_subdomain(name):
        # ValidateStatefulSetName is NameIsDNSLabel; the subdomain's errors are the meta port's
        errors += [("metadata.name", invalid(name, m)) for m in names.is_dns1123_label(name)]
    if _STATEFULSET_RARER.intersection(spec):
        errors += _stateful_set_rarer(spec)
    if "replicas" in spec:
        errors += non_negative(spec, "replicas", "spec")
    errors += _selector(spec, "statefulset", "non-empty")
    errors += core.active_deadline(spec, "StatefulSet")
    templates = spec.get("volumeClaimTemplates")
    if templates:
        errors += core.claim_templates(templates)
    return errors


_STATEFULSET_RARER = frozenset(
    [
        "podManagementPolicy",
        "updateStrategy",
        "persistentVolumeClaimRetentionPolicy",
        "minReadySeconds",
        "ordinals",
    ]
)


def _stateful_set_rarer(spec: dict) -> Errors:
    """ValidateStatefulSetSpec's checks of the fields a StatefulSet rarely sets."""
    errors: Errors = []
    policy = spec.get("podManagementPolicy")
    if isinstance(policy, str) and policy and policy not in ("OrderedReady", "Parallel"):
        errors.append(
            ("spec.podManagementPolicy", invalid(policy, "must be 'OrderedReady' or 'Parallel'"))
        )
    strategy = spec.get("updateStrategy")
    strategy = strategy if isinstance(strategy, dict) else {}
    kind = strategy.get("type") or "RollingUpdate"  # SetDefaults_StatefulSet
    rolling = strategy.get("rollingUpdate")
    if kind == "OnDelete":
        if rolling is not None:
            partition = rolling.get("partition") if isinstance(rolling, dict) else None
            shown = GoValue(
                "apps.RollingUpdateStatefulSetStrategy{"
                f"Partition:{partition if is_int(partition) else 0}, "
                "MaxUnavailable:(*intstr.IntOrString)(nil)}"
            )
            message = "only allowed for updateStrategy 'RollingUpdate'"
            errors.append(("spec.updateStrategy.rollingUpdate", invalid(shown, message)))
    elif kind == "RollingUpdate":
        if isinstance(rolling, dict):
            # validateRollingUpdateStatefulSet; maxUnavailable is dropped before it (alpha gate)
            errors += non_negative(rolling, "partition", "spec.updateStrategy.rollingUpdate")
    elif isinstance(kind, str):
        shown = GoValue(
            f"apps.StatefulSetUpdateStrategy{{Type:{go_quote(kind)}, "
            f"RollingUpdate:{_pointer('apps.RollingUpdateStatefulSetStrategy', rolling)}}}"
        )
        errors.append(
            ("spec.updateStrategy", invalid(shown, "must be 'RollingUpdate' or 'OnDelete'"))
        )
    retention = spec.get("persistentVolumeClaimRetentionPolicy")
    if isinstance(retention, dict):  # ValidatePersistentVolumeClaimRetentionPolicy
        for key in ("whenDeleted", "whenScaled"):
            value = retention.get(key)
            if isinstance(value, str) and value and value not in _RETENTION:
                path = f"spec.persistentVolumeClaimRetentionPolicy.{key}"
                errors.append((path, not_supported(value, _RETENTION)))
    errors += non_negative(spec, "minReadySeconds", "spec")
    ordinals = spec.get("ordinals")
    if isinstance(ordinals, dict):
        errors += non_negative(ordinals, "start", "spec.ordinals")
    return errors
