"""admissionregistration.k8s.io as kube-apiserver v1.32.13 validates it on create
(pkg/apis/admissionregistration/validation/validation.go), after the v1 defaults
(pkg/apis/admissionregistration/v1/defaults.go: failurePolicy Fail, matchPolicy Equivalent, empty
namespace and object selectors, a rule's scope "*", a webhook's timeoutSeconds 10): the
ValidatingAdmissionPolicy with its CEL compiled and type-checked (admission_cel.py), its Binding,
and the webhook configurations. MutatingAdmissionPolicy is alpha in v1.32 (v1alpha1, off by
default): the server does not serve it, so it is not ported."""

from __future__ import annotations

from urllib.parse import urlsplit

from trainops.knowledge.apivalidation import admission_cel, names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    duplicate,
    forbidden,
    go_strings,
    invalid,
    not_supported,
    path_segment,
    required,
    too_many,
    validate_label_selector,
)
from trainops.model.shape import mapping, mappings

_FAILURE_POLICIES = ("Fail", "Ignore")
_MATCH_POLICIES = ("Equivalent", "Exact")
_SCOPES = ("*", "Cluster", "Namespaced")
_OPERATIONS = ("*", "CONNECT", "CREATE", "DELETE", "UPDATE")
_ACTIONS = ("Audit", "Deny", "Warn")
_REASONS = ("Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized")
_SIDE_EFFECTS = ("None", "NoneOnDryRun")  # noSideEffectClasses: create requires one of them
_REVIEW_VERSIONS = ("v1", "v1beta1")
_MAX_AUDIT_ANNOTATIONS = 20
_MAX_VALUE_EXPRESSION = 5 * 1024


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _has_wildcard(values: list[str]) -> bool:
    return "*" in values


def _resources(resources: list[str], path: str, subresources: bool) -> Errors:
    """validateResources / validateResourcesNoSubResources."""
    errors: Errors = []
    if not resources:
        errors.append((path, required()))
    if not subresources:
        for index, resource in enumerate(resources):
            if resource == "":
                errors.append((f"{path}[{index}]", required()))
            if "/" in resource:
                errors.append(
                    (f"{path}[{index}]", invalid(resource, "must not specify subresources"))
                )
        if len(resources) > 1 and _has_wildcard(resources):
            message = "if '*' is present, must not specify other resources"
            errors.append((path, invalid(go_strings(resources), message)))
        return errors
    with_wild_sub: set[str] = set()
    with_wild_res: set[str] = set()
    double = single = plain = False
    for index, item in enumerate(resources):
        if item == "":
            errors.append((f"{path}[{index}]", required()))
            continue
        double = double or item == "*/*"
        single = single or item == "*"
        res, slash, sub = item.partition("/")
        if not slash:
            plain = item != "*"
            continue
        if res in with_wild_sub:
            message = f"if '{res}/*' is present, must not specify {item}"
            errors.append((f"{path}[{index}]", invalid(item, message)))
        if sub in with_wild_res:
            message = f"if '*/{sub}' is present, must not specify {item}"
            errors.append((f"{path}[{index}]", invalid(item, message)))
        if sub == "*":
            with_wild_sub.add(res)
        if res == "*":
            with_wild_res.add(sub)
    if len(resources) > 1 and double:
        message = "if '*/*' is present, must not specify other resources"
        errors.append((path, invalid(go_strings(resources), message)))
    if single and plain:
        message = "if '*' is present, must not specify other resources without subresources"
        errors.append((path, invalid(go_strings(resources), message)))
    return errors


def _rule(rule: dict, path: str) -> Errors:
    """validateRuleWithOperations (validateRule, subresources allowed)."""
    errors: Errors = []
    for key, what in (
        ("operations", "operations"),
        ("apiGroups", "API groups"),
        ("apiVersions", "API versions"),
    ):
        values = _strings(rule.get(key))
        if not values:
            errors.append((f"{path}.{key}", required()))
        if len(values) > 1 and _has_wildcard(values):
            message = f"if '*' is present, must not specify other {what}"
            errors.append((f"{path}.{key}", invalid(go_strings(values), message)))
    operations = _strings(rule.get("operations"))
    for index, operation in enumerate(operations):
        if operation not in _OPERATIONS:
            errors.append((f"{path}.operations[{index}]", not_supported(operation, _OPERATIONS)))
    versions = _strings(rule.get("apiVersions"))
    errors += [
        (f"{path}.apiVersions[{i}]", required())
        for i, version in enumerate(versions)
        if not version
    ]
    errors += _resources(_strings(rule.get("resources")), f"{path}.resources", True)
    scope = rule.get("scope")
    if isinstance(scope, str) and scope not in _SCOPES:
        errors.append((f"{path}.scope", not_supported(scope, _SCOPES)))
    return errors


def _named_rule(rule: dict, path: str) -> Errors:
    """validateNamedRuleWithOperations."""
    errors: Errors = []
    seen: set[str] = set()
    for index, name in enumerate(_strings(rule.get("resourceNames"))):
        where = f"{path}.resourceNames[{index}]"
        errors += [(where, invalid(name, m)) for m in path_segment(name)]
        if name in seen:
            errors.append((where, duplicate(name)))
        seen.add(name)
    return errors + _rule(rule, path)


def _match_resources(match: dict, path: str) -> Errors:
    """validateMatchResources, after SetDefaults_MatchResources."""
    errors: Errors = []
    policy = match.get("matchPolicy")
    if isinstance(policy, str) and policy not in _MATCH_POLICIES:
        errors.append((f"{path}.matchPolicy", not_supported(policy, _MATCH_POLICIES)))
    for key in ("namespaceSelector", "objectSelector"):
        if match.get(key) is not None:
            errors += validate_label_selector(match.get(key), f"{path}.{key}")
    for key in ("resourceRules", "excludeResourceRules"):
        for index, rule in enumerate(mappings(match.get(key))):
            errors += _named_rule(rule, f"{path}.{key}[{index}]")
    return errors


def _match_conditions(conditions: list[dict], path: str, params: bool) -> Errors:
    """validateMatchConditions / validateMatchCondition."""
    errors: Errors = []
    if len(conditions) > 64:
        errors.append((path, too_many(len(conditions), 64)))
    seen: set[str] = set()
    for index, condition in enumerate(conditions):
        where = f"{path}[{index}]"
        expression = _text(condition.get("expression")).strip()
        if not expression:
            errors.append((f"{where}.expression", required()))
        else:
            detail = admission_cel.compile_error(expression, ("bool",), params)
            if detail:
                errors.append((f"{where}.expression", invalid(expression, detail)))
        name = _text(condition.get("name"))
        if not name:
            errors.append((f"{where}.name", required()))
        else:
            errors += [(f"{where}.name", invalid(name, m)) for m in names.qualified_name(name)]
            if name in seen:
                errors.append((f"{where}.name", duplicate(name)))
            seen.add(name)
    return errors


def _param_kind(kind: dict, path: str) -> Errors:
    """validateParamKind."""
    errors: Errors = []
    api_version = _text(kind.get("apiVersion"))
    if not api_version:
        errors.append((f"{path}.apiVersion", required()))
    elif api_version.count("/") > 1:
        message = f"unexpected GroupVersion string: {api_version}"
        errors.append((f"{path}.apiVersion", invalid(api_version, message)))
    elif api_version != "/":
        group, _, version = api_version.rpartition("/")
        if group and (found := names.dns1123_subdomain(group)):
            errors.append((f"{path}.apiVersion", invalid(group, ",".join(found))))
        if not version:
            errors.append((f"{path}.apiVersion", invalid(api_version, "version must be specified")))
        elif found := names.dns1035_label(version):
            errors.append((f"{path}.apiVersion", invalid(version, ",".join(found))))
    name = _text(kind.get("kind"))
    if not name:
        errors.append((f"{path}.kind", required()))
    elif found := names.dns1035_label(name.lower()):
        message = "may have mixed case, but should otherwise match: " + ",".join(found)
        errors.append((f"{path}.kind", invalid(name, message)))
    return errors


def validating_admission_policy(doc: dict) -> Errors:
    """validateValidatingAdmissionPolicySpec (create: every expression a new one)."""
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    failure = spec.get("failurePolicy")
    if isinstance(failure, str) and failure not in _FAILURE_POLICIES:
        errors.append(("spec.failurePolicy", not_supported(failure, _FAILURE_POLICIES)))
    kind = spec.get("paramKind")
    params = isinstance(kind, dict)
    if params:
        errors += _param_kind(kind, "spec.paramKind")
    constraints = spec.get("matchConstraints")
    if not isinstance(constraints, dict):
        errors.append(("spec.matchConstraints", required()))
    else:
        errors += _match_resources(constraints, "spec.matchConstraints")
        if not mappings(constraints.get("resourceRules")):
            errors.append(("spec.matchConstraints.resourceRules", required()))
    errors += _match_conditions(
        mappings(spec.get("matchConditions")), "spec.matchConditions", params
    )
    declared = mappings(spec.get("variables"))
    variables = tuple(_text(v.get("name")) for v in declared) if declared else None
    for index, variable in enumerate(declared):
        where = f"spec.variables[{index}]"
        name = _text(variable.get("name"))
        if not name.strip():
            errors.append((f"{where}.name", required("name is not specified")))
        elif not _is_cel_identifier(name):
            errors.append((f"{where}.name", invalid(name, "name is not a valid CEL identifier")))
        expression = _text(variable.get("expression"))
        if not expression.strip():
            errors.append((f"{where}.expression", required("expression is not specified")))
        else:
            detail = admission_cel.compile_error(expression, (), params, True, variables)
            if detail:
                errors.append((f"{where}.expression", invalid(expression, detail)))
    validations = mappings(spec.get("validations"))
    annotations = mappings(spec.get("auditAnnotations"))
    if not validations and not annotations:
        message = "validations or auditAnnotations must contain at least one item"
        errors.append(("spec.validations", required(message)))
        errors.append(("spec.auditAnnotations", required(message)))
        return errors
    for index, validation in enumerate(validations):
        errors += _validation(validation, f"spec.validations[{index}]", params, variables)
    if len(annotations) > _MAX_AUDIT_ANNOTATIONS:
        shown = f"must not have more than {_MAX_AUDIT_ANNOTATIONS} auditAnnotations"
        errors.append(("spec.auditAnnotations", invalid("", shown)))
    name = _text(mapping(doc.get("metadata")).get("name"))
    keys: set[str] = set()
    for index, annotation in enumerate(annotations):
        where = f"spec.auditAnnotations[{index}]"
        key = _text(annotation.get("key"))
        if name:
            errors += [
                (f"{where}.key", invalid(f"{name}/{key}", m))
                for m in names.qualified_name(f"{name}/{key}")
            ]
        else:
            errors.append((f"{where}.key", invalid(key, "requires metadata.name be non-empty")))
        value = _text(annotation.get("valueExpression"))
        if not value.strip():
            errors.append(
                (f"{where}.valueExpression", required("valueExpression is not specified"))
            )
        elif len(value.strip()) > _MAX_VALUE_EXPRESSION:
            message = f"must not exceed {_MAX_VALUE_EXPRESSION} bytes in length"
            errors.append((f"{where}.valueExpression", required(message)))
        else:
            detail = admission_cel.compile_error(
                value.strip(), ("string", "null"), params, True, variables
            )
            if detail:
                errors.append((f"{where}.valueExpression", invalid(value, detail)))
        if key in keys:
            errors.append((f"{where}.key", duplicate(key)))
        keys.add(key)
    return errors


def _is_cel_identifier(name: str) -> bool:
    """isCELIdentifier: [_a-zA-Z][_a-zA-Z0-9]*, not a CEL reserved word."""
    reserved = {
        "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
        "function", "if", "import", "let", "loop", "package", "namespace", "return", "var",
        "void", "while",
    }  # fmt: skip
    return bool(names.CEL_IDENTIFIER.fullmatch(name)) and name not in reserved


def _validation(
    validation: dict, path: str, params: bool, variables: tuple[str, ...] | None
) -> Errors:
    """validateValidation."""
    errors: Errors = []
    expression = _text(validation.get("expression"))
    if not expression.strip():
        errors.append((f"{path}.expression", required("expression is not specified")))
    else:
        detail = admission_cel.compile_error(expression, ("bool",), params, True, variables)
        if detail:
            errors.append((f"{path}.expression", invalid(expression, detail)))
    message_expression = _text(validation.get("messageExpression"))
    if message_expression and not message_expression.strip():
        errors.append(
            (
                f"{path}.messageExpression",
                invalid(message_expression, "must be non-empty if specified"),
            )
        )
    elif message_expression.strip():
        detail = admission_cel.compile_error(
            message_expression, ("string",), params, False, variables
        )
        if detail:
            errors.append((f"{path}.messageExpression", invalid(message_expression, detail)))
    message = _text(validation.get("message"))
    if message and not message.strip():
        errors.append(
            (f"{path}.message", invalid(message, "message must be non-empty if specified"))
        )
    elif "\n" in message.strip() or "\r" in message.strip():
        errors.append((f"{path}.message", invalid(message, "message must not contain line breaks")))
    reason = validation.get("reason")
    if isinstance(reason, str) and reason not in _REASONS:
        errors.append((f"{path}.reason", not_supported(reason, _REASONS)))
    return errors


def validating_admission_policy_binding(doc: dict) -> Errors:
    """validateValidatingAdmissionPolicyBindingSpec (its match resources are reported at
    `spec.matchResouces`, misspelt upstream)."""
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    policy = _text(spec.get("policyName"))
    if not policy:
        errors.append(("spec.policyName", required()))
    else:
        errors += [("spec.policyName", invalid(policy, m)) for m in names.dns1123_subdomain(policy)]
    reference = spec.get("paramRef")
    if isinstance(reference, dict):
        errors += _param_ref(reference)
    match = spec.get("matchResources")
    if isinstance(match, dict):
        errors += _match_resources(match, "spec.matchResouces")
    actions = _strings(spec.get("validationActions"))
    seen: set[str] = set()
    for index, action in enumerate(actions):
        if action not in _ACTIONS:
            errors.append((f"spec.validationActions[{index}]", not_supported(action, _ACTIONS)))
        if action in seen:
            errors.append((f"spec.validationActions[{index}]", duplicate(action)))
        seen.add(action)
    if {"Deny", "Warn"} <= seen:
        message = (
            "must not contain both Deny and Warn (repeating the same validation failure "
            "information in the API response and headers serves no purpose)"
        )
        shown = go_strings(actions, "admissionregistration.ValidationAction")
        errors.append(("spec.validationActions", invalid(shown, message)))
    if not seen:
        errors.append(
            ("spec.validationActions", required("at least one validation action is required"))
        )
    return errors


def _param_ref(reference: dict) -> Errors:
    """validateParamRef."""
    errors: Errors = []
    path = "spec.paramRef"
    name = _text(reference.get("name"))
    selector = reference.get("selector")
    if name:
        errors += [(f"{path}.name", invalid(name, m)) for m in path_segment(name)]
        if selector is not None:
            errors.append((f"{path}.name", forbidden("name and selector are mutually exclusive")))
    if selector is not None:
        errors += validate_label_selector(selector, f"{path}.selector")
        if name:
            errors.append(
                (f"{path}.selector", forbidden("name and selector are mutually exclusive"))
            )
    if not name and selector is None:
        errors.append((path, required("one of name or selector must be specified")))
    action = _text(reference.get("parameterNotFoundAction"))
    if not action:
        errors.append((f"{path}.parameterNotFoundAction", required()))
    elif action not in ("Deny", "Allow"):
        errors.append((f"{path}.parameterNotFoundAction", not_supported(action, ("Deny", "Allow"))))
    return errors


def _webhook_configuration(doc: dict, mutating: bool) -> Errors:
    """validateValidatingWebhookConfiguration / validateMutatingWebhookConfiguration on create."""
    errors: Errors = []
    seen: set[str] = set()
    for index, hook in enumerate(mappings(doc.get("webhooks"))):
        errors += _webhook(hook, f"webhooks[{index}]", mutating)
        name = _text(hook.get("name"))
        if name and name in seen:
            errors.append((f"webhooks[{index}].name", duplicate(name)))
        seen.add(name)
    return errors


def validating_webhook_configuration(doc: dict) -> Errors:
    return _webhook_configuration(doc, mutating=False)


def mutating_webhook_configuration(doc: dict) -> Errors:
    return _webhook_configuration(doc, mutating=True)


_FORM = "; desired format: https://host[/path]"


def _webhook_url(text: str, path: str) -> Errors:
    """k8s.io/apiserver pkg/util/webhook ValidateWebhookURL (https forced)."""
    try:
        url = urlsplit(text)
    except ValueError as error:
        return [(path, required(f"url must be a valid URL: {error}{_FORM}"))]
    errors: Errors = []
    if url.scheme != "https":
        errors.append((path, invalid(url.scheme, "'https' is the only allowed URL scheme" + _FORM)))
    host = url.netloc.rpartition("@")[2]
    if not host:
        errors.append((path, invalid(host, "host must be specified" + _FORM)))
    if "@" in url.netloc:
        user = url.netloc.rpartition("@")[0]
        errors.append((path, invalid(user, "user information is not permitted in the URL")))
    if url.fragment:
        errors.append((path, invalid(url.fragment, "fragments are not permitted in the URL")))
    if url.query:
        errors.append((path, invalid(url.query, "query parameters are not permitted in the URL")))
    return errors


def _webhook_service(service: dict, path: str) -> Errors:
    """ValidateWebhookService, after the default port 443."""
    errors: Errors = []
    if not _text(service.get("name")):
        errors.append((f"{path}.name", required("service name is required")))
    if not _text(service.get("namespace")):
        errors.append((f"{path}.namespace", required("service namespace is required")))
    port = service.get("port", 443)
    if isinstance(port, int) and not 1 <= port <= 65535:
        message = "port is not valid: must be between 1 and 65535, inclusive"
        errors.append((f"{path}.port", invalid(port, message)))
    target = service.get("path")
    if not isinstance(target, str) or target in ("", "/"):
        return errors
    if target == "//":
        return errors + [(f"{path}.path", invalid(target, "segment[0] may not be empty"))]
    if not target.startswith("/"):
        errors.append((f"{path}.path", invalid(target, "must start with a '/'")))
    rest = target[1:]
    rest = rest[:-1] if rest.endswith("/") else rest
    for index, step in enumerate(rest.split("/")):
        if not step:
            message = f"segment[{index}] may not be empty"
            errors.append((f"{path}.path", invalid(target, message)))
            continue
        errors += [
            (f"{path}.path", invalid(target, f"segment[{index}]: {m}"))
            for m in names.dns1123_subdomain(step)
        ]
    return errors


def _webhook(hook: dict, path: str, mutating: bool) -> Errors:
    """validateValidatingWebhook / validateMutatingWebhook and validateAdmissionReviewVersions."""
    errors: Errors = []
    name = _text(hook.get("name"))
    if not name:
        errors.append((f"{path}.name", required()))
    else:
        errors += [(f"{path}.name", invalid(name, m)) for m in names.fully_qualified_name(name)]
    for index, rule in enumerate(mappings(hook.get("rules"))):
        errors += _rule(rule, f"{path}.rules[{index}]")
    failure = hook.get("failurePolicy")
    if isinstance(failure, str) and failure not in _FAILURE_POLICIES:
        errors.append((f"{path}.failurePolicy", not_supported(failure, _FAILURE_POLICIES)))
    policy = hook.get("matchPolicy")
    if isinstance(policy, str) and policy not in _MATCH_POLICIES:
        errors.append((f"{path}.matchPolicy", not_supported(policy, _MATCH_POLICIES)))
    effects = hook.get("sideEffects")
    if not isinstance(effects, str):
        message = f"must specify one of {', '.join(_SIDE_EFFECTS)}"
        errors.append((f"{path}.sideEffects", required(message)))
    elif effects not in _SIDE_EFFECTS:
        errors.append((f"{path}.sideEffects", not_supported(effects, _SIDE_EFFECTS)))
    timeout = hook.get("timeoutSeconds")
    if isinstance(timeout, int) and not 1 <= timeout <= 30:
        message = "the timeout value must be between 1 and 30 seconds"
        errors.append((f"{path}.timeoutSeconds", invalid(timeout, message)))
    for key in ("namespaceSelector", "objectSelector"):
        if hook.get(key) is not None:
            errors += validate_label_selector(hook.get(key), f"{path}.{key}")
    client = mapping(hook.get("clientConfig"))
    if (client.get("url") is None) == (client.get("service") is None):
        message = "exactly one of url or service is required"
        errors.append((f"{path}.clientConfig", required(message)))
    elif isinstance(client.get("url"), str):
        errors += _webhook_url(client["url"], f"{path}.clientConfig.url")
    elif isinstance(client.get("service"), dict):
        errors += _webhook_service(client["service"], f"{path}.clientConfig.service")
    if mutating:
        policy = hook.get("reinvocationPolicy")
        if isinstance(policy, str) and policy not in ("IfNeeded", "Never"):
            errors.append(
                (f"{path}.reinvocationPolicy", not_supported(policy, ("IfNeeded", "Never")))
            )
    errors += _match_conditions(
        mappings(hook.get("matchConditions")), f"{path}.matchConditions", False
    )
    versions = _strings(hook.get("admissionReviewVersions"))
    where = f"{path}.admissionReviewVersions"
    if not versions:
        errors.append((where, required(f"must specify one of {', '.join(_REVIEW_VERSIONS)}")))
        return errors
    seen: set[str] = set()
    for index, version in enumerate(versions):
        if version in seen:
            errors.append((f"{where}[{index}]", invalid(version, "duplicate version")))
            continue
        seen.add(version)
        errors += [(f"{where}[{index}]", invalid(version, m)) for m in names.dns1035_label(version)]
    if not seen & set(_REVIEW_VERSIONS):
        message = f"must include at least one of {', '.join(_REVIEW_VERSIONS)}"
        errors.append((where, invalid(go_strings(versions), message)))
    return errors


LEFT_OUT = {
    "ValidatingAdmissionPolicy": (
        "CEL: `request`, `namespaceObject` and `variables` are typed as maps (an unknown field of "
        "them is not caught, an undeclared variable is) and variables as dyn; expressions calling "
        "the Kubernetes CEL libraries (quantity(), isSorted(), url(), ip(), the authorizer's "
        "methods…) or comparing int with double are not type-checked; the cost budget"
    ),
    "ValidatingAdmissionPolicyBinding": "",
    "ValidatingWebhookConfiguration": (
        "a URL Go's url.Parse refuses that Python's urlsplit reads; matchConditions as for "
        "ValidatingAdmissionPolicy"
    ),
    "MutatingWebhookConfiguration": (
        "a URL Go's url.Parse refuses that Python's urlsplit reads; matchConditions as for "
        "ValidatingAdmissionPolicy"
    ),
}
