"""flowcontrol.apiserver.k8s.io as kube-apiserver v1.32.13 validates it on create
(pkg/apis/flowcontrol/validation/validation.go, ValidatePriorityLevelConfiguration and
ValidateFlowSchema), after the v1 defaults (pkg/apis/flowcontrol/v1/defaults.go: a Limited level's
nominalConcurrencyShares 30 and lendablePercent 0; queuing's queues 64, handSize 8,
queueLengthLimit 50; a FlowSchema's matchingPrecedence 1000)."""

from __future__ import annotations

import math

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    forbidden,
    go_quote,
    go_strings,
    invalid,
    is_int,
    not_supported,
    required,
)
from trainops.model.shape import mapping, mappings

_MAX_HASH_BITS = 60  # shufflesharding.MaxHashBits
_TYPES = ("Exempt", "Limited")
_RESPONSE_TYPES = ("Queue", "Reject")


def _percent(value: object, path: str) -> Errors:
    if is_int(value) and not 0 <= value <= 100:
        return [(path, invalid(value, "must be between 0 and 100, inclusive"))]
    return []


def _not_negative(value: object, path: str, message: str) -> Errors:
    return [(path, invalid(value, message))] if is_int(value) and value < 0 else []


def priority_level_configuration(doc: dict) -> Errors:
    """ValidatePriorityLevelConfigurationSpec (the mandatory levels' names apart)."""
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    kind = spec.get("type")
    name = mapping(doc.get("metadata")).get("name")
    if (name == "exempt") != (kind == "Exempt"):
        message = "type must be 'Exempt' if and only if name is 'exempt'"
        errors.append(("spec.type", invalid(kind if isinstance(kind, str) else "", message)))
    limited, exempt = spec.get("limited"), spec.get("exempt")
    if kind == "Exempt":
        if limited is not None:
            errors.append(("spec.limited", forbidden("must be nil if the type is not Limited")))
        if isinstance(exempt, dict):
            errors += _not_negative(
                exempt.get("nominalConcurrencyShares"),
                "spec.exempt.nominalConcurrencyShares",
                "must be a non-negative number",
            )
            errors += _percent(exempt.get("lendablePercent"), "spec.exempt.lendablePercent")
    elif kind == "Limited":
        if exempt is not None:
            errors.append(("spec.exempt", forbidden("must be nil if the type is Limited")))
        if not isinstance(limited, dict):
            errors.append(("spec.limited", required("must not be empty when type is Limited")))
        else:
            errors += _limited(limited)
    else:
        errors.append(("spec.type", not_supported(kind if isinstance(kind, str) else "", _TYPES)))
    return errors


def _limited(limited: dict) -> Errors:
    errors: Errors = []
    errors += _not_negative(
        limited.get("nominalConcurrencyShares"),
        "spec.limited.nominalConcurrencyShares",
        "must be a non-negative integer",
    )
    errors += _percent(limited.get("lendablePercent"), "spec.limited.lendablePercent")
    errors += _not_negative(
        limited.get("borrowingLimitPercent"),
        "spec.limited.borrowingLimitPercent",
        "if specified, must be a non-negative integer",
    )
    response = mapping(limited.get("limitResponse"))
    kind = response.get("type")
    queuing = response.get("queuing")
    path = "spec.limited.limitResponse"
    if kind == "Queue":
        if not isinstance(queuing, dict):
            errors.append((f"{path}.queuing", required("must not be empty if the type is Queue")))
        else:
            errors += _queuing(queuing, f"{path}.queuing")
    elif kind == "Reject":
        if queuing is not None:
            errors.append(
                (
                    f"{path}.queuing",
                    forbidden("must be nil if limited.limitResponse.type is not Limited"),
                )
            )
    else:
        errors.append(
            (f"{path}.type", not_supported(kind if isinstance(kind, str) else "", _RESPONSE_TYPES))
        )
    return errors


def _queuing(queuing: dict, path: str) -> Errors:
    """ValidatePriorityLevelQueuingConfiguration, after SetDefaults_QueuingConfiguration."""
    errors: Errors = []
    length = queuing.get("queueLengthLimit") or 50
    queues = queuing.get("queues") or 64
    hand = queuing.get("handSize") or 8
    if not (is_int(length) and is_int(queues) and is_int(hand)):
        return errors
    if length <= 0:
        errors.append((f"{path}.queueLengthLimit", invalid(length, "must be positive")))
    if queues <= 0:
        errors.append((f"{path}.queues", invalid(queues, "must be positive")))
    if hand <= 0:
        errors.append((f"{path}.handSize", invalid(hand, "must be positive")))
    if queues > 0 and hand > 0:
        if hand > queues:
            message = f"should not be greater than queues ({queues})"
            errors.append((f"{path}.handSize", invalid(hand, message)))
        elif math.ceil(math.log2(queues) * hand) > _MAX_HASH_BITS:  # RequiredEntropyBits
            message = (
                f"required entropy bits of deckSize {queues} and handSize {hand} should not be "
                f"greater than {_MAX_HASH_BITS}"
            )
            errors.append((f"{path}.handSize", invalid(hand, message)))
    return errors


def flow_schema(doc: dict) -> Errors:
    """ValidateFlowSchemaSpec: precedence, the level's name, the distinguisher."""
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    precedence = spec.get("matchingPrecedence")
    if is_int(precedence) and precedence <= 0:
        errors.append(("spec.matchingPrecedence", invalid(precedence, "must be a positive value")))
    if is_int(precedence) and precedence > 10000:
        errors.append(
            ("spec.matchingPrecedence", invalid(precedence, "must not be greater than 10000"))
        )
    level = mapping(spec.get("priorityLevelConfiguration"))
    if not level.get("name"):
        errors.append(
            ("spec.priorityLevelConfiguration.name", required("must reference a priority level"))
        )
    method = spec.get("distinguisherMethod")
    if isinstance(method, dict):
        kind = method.get("type")
        if kind not in ("ByNamespace", "ByUser"):
            shown = GoValue(
                f"flowcontrol.FlowDistinguisherMethod{{Type:{go_quote(str(kind or ''))}}}"
            )
            errors.append(
                ("spec.distinguisherMethod.type", not_supported(shown, ("ByNamespace", "ByUser")))
            )
    for index, rule in enumerate(mappings(spec.get("rules"))):
        errors += _policy_rules(rule, f"spec.rules[{index}]")
    return errors


def _policy_rules(rule: dict, path: str) -> Errors:
    """ValidateFlowSchemaPolicyRulesWithSubjects."""
    errors: Errors = []
    subjects = mappings(rule.get("subjects"))
    if not subjects:
        errors.append((f"{path}.subjects", required("subjects must contain at least one value")))
    for index, subject in enumerate(subjects):
        errors += _subject(subject, f"{path}.subjects[{index}]")
    resources = mappings(rule.get("resourceRules"))
    others = mappings(rule.get("nonResourceRules"))
    if not resources and not others:
        message = "at least one of resourceRules and nonResourceRules has to be non-empty"
        errors.append((path, required(message)))
    for index, resource in enumerate(resources):
        errors += _resource_rule(resource, f"{path}.resourceRules[{index}]")
    for index, other in enumerate(others):
        where = f"{path}.nonResourceRules[{index}]"
        errors += _listed(other, "verbs", where, "verbs", "verbs must contain at least one value")
        message = "nonResourceURLs must contain at least one value"
        errors += _listed(other, "nonResourceURLs", where, "non-resource urls", message)
    return errors


_SUBJECT_KINDS = ("Group", "ServiceAccount", "User")


def _subject(subject: dict, path: str) -> Errors:
    """ValidateFlowSchemaSubject and the checks of its User, Group or ServiceAccount."""
    kind = subject.get("kind")
    if kind not in _SUBJECT_KINDS:
        shown = kind if isinstance(kind, str) else ""
        return [(f"{path}.kind", not_supported(shown, _SUBJECT_KINDS))]
    errors: Errors = []
    key = {"User": "user", "Group": "group", "ServiceAccount": "serviceAccount"}[kind]
    chosen = subject.get(key)
    if not isinstance(chosen, dict):
        message = f"{key} is required when subject kind is '{kind}'"
        errors.append((f"{path}.{key}", required(message)))
    elif kind == "ServiceAccount":
        name, namespace = chosen.get("name"), chosen.get("namespace")
        if not name:
            message = "must specify the serviceaccount name, or '*' to match all names"
            errors.append((f"{path}.serviceAccount.name", required(message)))
        elif isinstance(name, str) and name != "*":
            errors += [
                (f"{path}.serviceAccount.name", invalid(name, m))
                for m in names.dns1123_subdomain(name)
            ]
        if not namespace:
            message = "must specify namespace for service account"
            errors.append((f"{path}.serviceAccount.namespace", required(message)))
        elif isinstance(namespace, str):
            errors += [
                (f"{path}.serviceAccount.namespace", invalid(namespace, m))
                for m in names.dns1123_label(namespace)
            ]
    elif not chosen.get("name"):
        errors.append(
            (
                f"{path}.{key}.name",
                required(f"{'username' if kind == 'User' else 'name'} is required"),
            )
        )
    for other in ("user", "group", "serviceAccount"):
        if other != key and subject.get(other) is not None:
            wanted = {"user": "User", "group": "Group", "serviceAccount": "ServiceAccount"}[other]
            message = f"{other} is forbidden when subject kind is not '{wanted}'"
            errors.append((f"{path}.{other}", forbidden(message)))
    return errors


def _listed(rule: dict, key: str, path: str, what: str, empty: str) -> Errors:
    """A rule's list: at least one value, and '*' alone."""
    values = rule.get(key)
    values = [v for v in values if isinstance(v, str)] if isinstance(values, list) else []
    if not values:
        return [(f"{path}.{key}", required(empty))]
    if len(values) > 1 and "*" in values:
        message = f"if '*' is present, must not specify other {what}"
        return [(f"{path}.{key}", invalid(go_strings(values), message))]
    return []


def _resource_rule(rule: dict, path: str) -> Errors:
    """ValidateFlowSchemaResourcePolicyRule."""
    errors = _listed(rule, "verbs", path, "verbs", "verbs must contain at least one value")
    message = "resource rules must supply at least one api group"
    errors += _listed(rule, "apiGroups", path, "api groups", message)
    message = "resource rules must supply at least one resource"
    errors += _listed(rule, "resources", path, "resources", message)
    spaces = rule.get("namespaces")
    spaces = [v for v in spaces if isinstance(v, str)] if isinstance(spaces, list) else []
    if not spaces and rule.get("clusterScope") is not True:
        message = "resource rules that are not cluster scoped must supply at least one namespace"
        errors.append((f"{path}.namespaces", required(message)))
    elif len(spaces) > 1 and "*" in spaces:
        message = "if '*' is present, must not specify other namespaces"
        errors.append((f"{path}.namespaces", invalid(go_strings(spaces), message)))
    for index, space in enumerate(spaces):
        if space != "*":
            errors += [
                (f"{path}.namespaces[{index}]", invalid(space, m))
                for m in names.dns1123_label(space)
            ]
    return errors


LEFT_OUT = {
    "PriorityLevelConfiguration": "the mandatory levels' (exempt, catch-all) required spec",
    "FlowSchema": "the non-resource URLs' syntax",
}
