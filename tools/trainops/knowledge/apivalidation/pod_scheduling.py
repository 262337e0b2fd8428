"""Where a Pod may run and how it resolves names, as the API server validates it (validation.go:
validateAffinity and the node/pod affinity term checks, ValidateTolerations,
validateTopologySpreadConstraints, validatePodDNSConfig, ValidateHostAliases,
validateReadinessGates, validateSchedulingGates; apimachinery's ValidateLabelSelector)."""

from __future__ import annotations

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    forbidden,
    go_quote,
    invalid,
    not_supported,
    required,
    validate_label_selector,
)
from trainops.knowledge.apivalidation.meta import Errors
from trainops.knowledge.apivalidation.pod_common import (
    NOT_POSITIVE,
    as_int,
    as_str,
    dicts,
    is_ip,
    label,
    memoized,
    qualified,
    strings,
    subdomain,
)

_NOT_OPERATOR = "not a valid selector operator"
_WEIGHT = "must be in the range 1-100"


def _node_requirement(requirement: dict, path: str) -> Errors:
    """ValidateNodeSelectorRequirement (node affinity takes any label value)."""
    errors: Errors = []
    operator = requirement.get("operator")
    values = requirement.get("values")
    count = len(values) if isinstance(values, list) else 0
    if operator in ("In", "NotIn"):
        if not count:
            message = "must be specified when `operator` is 'In' or 'NotIn'"
            errors.append((f"{path}.values", required(message)))
    elif operator in ("Exists", "DoesNotExist"):
        if count:
            message = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            errors.append((f"{path}.values", forbidden(message)))
    elif operator in ("Gt", "Lt"):
        if count != 1:
            message = "must be specified single value when `operator` is 'Lt' or 'Gt'"
            errors.append((f"{path}.values", required(message)))
    else:
        errors.append((f"{path}.operator", invalid(as_str(operator), _NOT_OPERATOR)))
    return errors + qualified(f"{path}.key", as_str(requirement.get("key")))


def _node_field_requirement(requirement: dict, path: str) -> Errors:
    """ValidateNodeFieldSelectorRequirement: metadata.name only."""
    errors: Errors = []
    operator = requirement.get("operator")
    values = strings(requirement.get("values"))
    if operator in ("In", "NotIn"):
        if len(values) != 1:
            message = (
                "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            )
            errors.append((f"{path}.values", required(message)))
    else:
        errors.append((f"{path}.operator", invalid(as_str(operator), _NOT_OPERATOR)))
    key = as_str(requirement.get("key"))
    if key != "metadata.name":
        errors.append((f"{path}.key", invalid(key, "not a valid field selector key")))
    else:
        for index, value in enumerate(values):
            errors += subdomain(f"{path}.values[{index}]", value)
    return errors


def _node_selector_term(term: object, path: str) -> Errors:
    if not isinstance(term, dict):
        return []
    errors: Errors = []
    for index, requirement in enumerate(dicts(term.get("matchExpressions"))):
        errors += _node_requirement(requirement, f"{path}.matchExpressions[{index}]")
    for index, requirement in enumerate(dicts(term.get("matchFields"))):
        errors += _node_field_requirement(requirement, f"{path}.matchFields[{index}]")
    return errors


def node_selector(selector: dict, path: str) -> Errors:
    """ValidateNodeSelector: at least one term, each term's requirements."""
    where = f"{path}.nodeSelectorTerms"
    terms = selector.get("nodeSelectorTerms")
    if not terms or not isinstance(terms, list):
        return [(where, required("must have at least one node selector term"))]
    errors: Errors = []
    for index, term in enumerate(terms):
        errors += _node_selector_term(term, f"{where}[{index}]")
    return errors


def _node_affinity(affinity: dict, path: str) -> Errors:
    errors: Errors = []
    selector = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if isinstance(selector, dict):
        errors += node_selector(selector, f"{path}.requiredDuringSchedulingIgnoredDuringExecution")
    preferred = affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
    for index, term in enumerate(preferred if isinstance(preferred, list) else []):
        if not isinstance(term, dict):
            continue
        where = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{index}]"
        weight = as_int(term.get("weight")) or 0
        if not 0 < weight <= 100:
            errors.append((f"{where}.weight", invalid(weight, _WEIGHT)))
        errors += _node_selector_term(term.get("preference"), f"{where}.preference")
    return errors


_node_affinity_memo = memoized(_node_affinity)


def _pod_affinity_term(term: dict, path: str) -> Errors:
    """validatePodAffinityTerm."""
    get = term.get
    selector = get("labelSelector")
    errors = validate_label_selector(selector, f"{path}.labelSelector") if selector else []
    if (namespace_selector := get("namespaceSelector")) is not None:
        errors += validate_label_selector(namespace_selector, f"{path}.namespaceSelector")
    if namespaces := get("namespaces"):
        for namespace in strings(namespaces):
            errors += label(f"{path}.namespace", namespace)
    if get("matchLabelKeys") or get("mismatchLabelKeys"):
        errors += _label_keys(term, selector, path)
    topology_key = get("topologyKey")
    if topology_key.__class__ is str and topology_key and not names.qualified_name(topology_key):
        return errors
    topology_key = as_str(topology_key)
    if not topology_key:
        errors.append((f"{path}.topologyKey", required("can not be empty")))
    return errors + qualified(f"{path}.topologyKey", topology_key)


def _label_keys(term: dict, selector: object, path: str) -> Errors:
    """validateMatchLabelKeysAndMismatchLabelKeys (without the Pod's own labels, which the Pod
    strategy merges into the selector first)."""
    errors: Errors = []
    match_keys = strings(term.get("matchLabelKeys"))
    mismatch_keys = strings(term.get("mismatchLabelKeys"))
    for key, keys in (("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)):
        if not keys:
            continue
        if not isinstance(selector, dict):
            message = "must not be specified when labelSelector is not set"
            errors.append((f"{path}.{key}", forbidden(message)))
            continue
        for index, name in enumerate(keys):
            errors += qualified(f"{path}.{key}[{index}]", name)
    if isinstance(selector, dict) and match_keys:
        positions = {key: index for index, key in enumerate(match_keys)}
        match_labels = selector.get("matchLabels")
        seen = set(match_labels) if isinstance(match_labels, dict) else set()
        for expression in dicts(selector.get("matchExpressions")):
            key = as_str(expression.get("key"))
            if key in positions and key in seen:
                message = "exists in both matchLabelKeys and labelSelector"
                errors.append((f"{path}[{positions[key]}]", invalid(key, message)))
            seen.add(key)
    mismatched = set(mismatch_keys)
    for index, key in enumerate(match_keys):
        if key in mismatched:
            message = "exists in both matchLabelKeys and mismatchLabelKeys"
            errors.append((f"{path}.matchLabelKeys[{index}]", invalid(key, message)))
    return errors


def _pod_affinity(affinity: dict, path: str) -> Errors:
    """validatePodAffinity / validatePodAntiAffinity."""
    errors: Errors = []
    required_terms = affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    for index, term in enumerate(dicts(required_terms)):
        where = f"{path}.requiredDuringSchedulingIgnoredDuringExecution[{index}]"
        errors += _pod_affinity_term(term, where)
    preferred = affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
    for index, weighted in enumerate(dicts(preferred)):
        where = f"{path}.preferredDuringSchedulingIgnoredDuringExecution[{index}]"
        weight = as_int(weighted.get("weight")) or 0
        if not 0 < weight <= 100:
            errors.append((f"{where}.weight", invalid(weight, _WEIGHT)))
        term = weighted.get("podAffinityTerm")
        errors += _pod_affinity_term(
            term if isinstance(term, dict) else {}, f"{where}.podAffinityTerm"
        )
    return errors


def affinity(value: object, path: str) -> Errors:
    """validateAffinity."""
    if not isinstance(value, dict):
        return []
    errors: Errors = []
    node = value.get("nodeAffinity")
    if isinstance(node, dict):  # node affinities recur, word for word, across objects
        errors += _node_affinity_memo(node, f"{path}.nodeAffinity")
    for key in ("podAffinity", "podAntiAffinity"):
        pod = value.get(key)
        if isinstance(pod, dict):
            errors += _pod_affinity(pod, f"{path}.{key}")
    return errors


_OPERATORS = ("Equal", "Exists")
_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def tolerations(value: list, path: str) -> Errors:
    """ValidateTolerations."""
    errors: Errors = []
    for index, toleration in enumerate(value):
        if not isinstance(toleration, dict):
            continue
        where = f"{path}[{index}]"
        key, operator = as_str(toleration.get("key")), as_str(toleration.get("operator"))
        effect, tolerated = as_str(toleration.get("effect")), as_str(toleration.get("value"))
        if key:
            errors += qualified(f"{where}.key", key)
        if not key and operator != "Exists":
            message = 'operator must be Exists when `key` is empty, which means "match all values and all keys"'
            errors.append((f"{where}.operator", invalid(operator, message)))
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            message = "effect must be 'NoExecute' when `tolerationSeconds` is set"
            errors.append((f"{where}.effect", invalid(effect, message)))
        if operator in ("Equal", ""):
            if problems := names.label_value(tolerated):
                errors.append((f"{where}.operator", invalid(tolerated, ";".join(problems))))
        elif operator == "Exists":
            if tolerated:
                message = "value must be empty when `operator` is 'Exists'"
                errors.append((f"{where}.operator", invalid(tolerated, message)))
        else:
            errors.append((f"{where}.operator", not_supported(operator, _OPERATORS)))
        if effect and effect not in _EFFECTS:
            errors.append((f"{where}.effect", not_supported(effect, _EFFECTS)))
    return errors


_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
_INCLUSION_POLICIES = ("Honor", "Ignore")


def topology_spread(value: list, path: str) -> Errors:
    """validateTopologySpreadConstraints."""
    errors: Errors = []
    constraints = [(i, c) for i, c in enumerate(value) if isinstance(c, dict)]
    for position, (index, constraint) in enumerate(constraints):
        where = f"{path}[{index}]"
        skew = as_int(constraint.get("maxSkew")) or 0
        if skew <= 0:
            errors.append((f"{where}.maxSkew", invalid(skew, NOT_POSITIVE)))
        key = as_str(constraint.get("topologyKey"))
        if not key:
            errors.append((f"{where}.topologyKey", required("can not be empty")))
        action = as_str(constraint.get("whenUnsatisfiable"))
        if action not in _UNSATISFIABLE:
            errors.append((f"{where}.whenUnsatisfiable", not_supported(action, _UNSATISFIABLE)))
        for _, later in constraints[position + 1 :]:
            if (
                as_str(later.get("topologyKey")) == key
                and as_str(later.get("whenUnsatisfiable")) == action
            ):
                errors.append(
                    (
                        f"{where}.{{topologyKey, whenUnsatisfiable}}",
                        f"Duplicate value: {go_quote(f'{{{key}, {action}}}')}",
                    )
                )
                break
        domains = constraint.get("minDomains")
        if domains is not None and (count := as_int(domains)) is not None:
            if count <= 0:
                errors.append((f"{where}.minDomains", invalid(count, NOT_POSITIVE)))
            if action != "DoNotSchedule":
                message = (
                    f"can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {action}"
                )
                errors.append((f"{where}.minDomains", invalid(count, message)))
        for policy_key in ("nodeAffinityPolicy", "nodeTaintsPolicy"):
            policy = constraint.get(policy_key)
            if isinstance(policy, str) and policy not in _INCLUSION_POLICIES:
                errors.append((f"{where}.{policy_key}", not_supported(policy, _INCLUSION_POLICIES)))
        selector = constraint.get("labelSelector")
        match_keys = strings(constraint.get("matchLabelKeys"))
        if match_keys:
            selector_keys: set[str] = set()
            if isinstance(selector, dict):
                if isinstance(selector.get("matchLabels"), dict):
                    selector_keys.update(str(k) for k in selector["matchLabels"])
                selector_keys.update(
                    as_str(e.get("key")) for e in dicts(selector.get("matchExpressions"))
                )
            else:
                message = "must not be specified when labelSelector is not set"
                errors.append((f"{where}.matchLabelKeys", forbidden(message)))
            for key_index, match_key in enumerate(match_keys):
                errors += qualified(f"{where}.matchLabelKeys[{key_index}]", match_key)
                if match_key in selector_keys:
                    message = "exists in both matchLabelKeys and labelSelector"
                    errors.append(
                        (f"{where}.matchLabelKeys[{key_index}]", invalid(match_key, message))
                    )
        errors += validate_label_selector(selector, f"{where}.labelSelector")
    return errors


def dns_config(spec: dict, path: str) -> Errors:
    """validatePodDNSConfig (RelaxedDNSSearchValidation is off in v1.32)."""
    config = spec.get("dnsConfig")
    where = f"{path}.dnsConfig"
    if spec.get("dnsPolicy") == "None":
        if not isinstance(config, dict):
            return [(where, required("must provide `dnsConfig` when `dnsPolicy` is None"))]
        if not config.get("nameservers"):
            message = "must provide at least one DNS nameserver when `dnsPolicy` is None"
            return [(f"{where}.nameservers", required(message))]
    if not isinstance(config, dict):
        return []
    errors: Errors = []
    nameservers = strings(config.get("nameservers"))
    if len(nameservers) > 3:
        errors.append(
            (f"{where}.nameservers", invalid(nameservers, "must not have more than 3 nameservers"))
        )
    for index, server in enumerate(nameservers):
        if not is_ip(server):
            message = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
            errors.append((f"{where}.nameservers[{index}]", invalid(server, message)))
    searches = strings(config.get("searches"))
    if len(searches) > 32:
        errors.append(
            (f"{where}.searches", invalid(searches, "must not have more than 32 search paths"))
        )
    if len(" ".join(searches)) > 2048:
        message = "must not have more than 2048 characters (including spaces) in the search list"
        errors.append((f"{where}.searches", invalid(searches, message)))
    for index, search in enumerate(searches):
        errors += subdomain(f"{where}.searches[{index}]", search.removesuffix("."))
    for index, option in enumerate(
        config.get("options") or [] if isinstance(config.get("options"), list) else []
    ):
        if isinstance(option, dict) and not as_str(option.get("name")):
            errors.append((f"{where}.options[{index}]", required("must not be empty")))
    return errors


def host_aliases(value: list, path: str) -> Errors:
    """ValidateHostAliases."""
    errors: Errors = []
    for index, alias in enumerate(value):
        if not isinstance(alias, dict):
            continue
        address = as_str(alias.get("ip"))
        if not is_ip(address):
            message = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
            errors.append((f"{path}[{index}].ip", invalid(address, message)))
        for host_index, hostname in enumerate(strings(alias.get("hostnames"))):
            errors += subdomain(f"{path}[{index}].hostnames[{host_index}]", hostname)
    return errors


def readiness_gates(value: list, path: str) -> Errors:
    errors: Errors = []
    for index, gate in enumerate(value):
        if isinstance(gate, dict):
            condition = as_str(gate.get("conditionType"))
            errors += qualified(f"{path}[{index}].conditionType", condition)
    return errors


def scheduling_gates(value: list, path: str) -> Errors:
    errors: Errors = []
    seen: set[str] = set()
    for index, gate in enumerate(value):
        if not isinstance(gate, dict):
            continue
        name = as_str(gate.get("name"))
        errors += qualified(f"{path}[{index}]", name)
        if name in seen:
            errors.append((f"{path}[{index}]", f"Duplicate value: {go_quote(name)}"))
        seen.add(name)
    return errors
