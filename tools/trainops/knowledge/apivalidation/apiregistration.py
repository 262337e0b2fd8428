"""apiregistration.k8s.io as kube-apiserver v1.32.13 (its aggregator) validates an APIService on
create: k8s.io/kube-aggregator v1.32.13 pkg/apis/apiregistration/validation/validation.go
ValidateAPIService, after SetDefaults_ServiceReference (pkg/apis/apiregistration/v1/defaults.go:
a service's port defaults to 443). The name's path-segment syntax is meta.py's
(name_validator); the rest of ObjectMeta too."""

from __future__ import annotations

from trainops.knowledge.apivalidation import meta, names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    go_quote,
    invalid,
    is_int,
    required,
)
from trainops.knowledge.apivalidation.go_decode import base64_decode, base64_error
from trainops.model.shape import mapping

GROUP = "apiregistration.k8s.io"
_GROUP_PRIORITY_MAX = 20000
_VERSION_PRIORITY_MAX = 1000


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _int(value: object) -> int:
    return value if is_int(value) else 0


def _ca_bundle_bytes(value: object) -> int:
    """len(spec.caBundle) as decoded ([]byte from base64; text that does not decode is the
    decoder's error, not this check's)."""
    text = _text(value)
    if not text or base64_error(text) is not None:
        return 0
    return len(base64_decode(text))


def _name(doc: dict, required_name: str) -> Errors:
    """The name validator ValidateAPIService gives ValidateObjectMeta: once a name (or a
    generateName) is a path segment (meta.py), it must be spec.version + "." + spec.group. A
    name generated from generateName (rest.BeforeCreate: five random characters appended) never
    is."""
    metadata = mapping(doc.get("metadata"))
    valid = meta.name_validator(GROUP, "APIService")
    message = f'must be `spec.version+"."+spec.group`: {go_quote(required_name)}'
    errors: Errors = []
    name, generate = metadata.get("name"), metadata.get("generateName")
    if isinstance(generate, str) and generate and not valid(generate):
        if generate != required_name:
            errors.append(("metadata.generateName", invalid(generate, message)))
        if not (isinstance(name, str) and name):
            shown = GoValue(f"{go_quote(generate)} + 5 random characters")
            errors.append(("metadata.name", invalid(shown, message)))
    if isinstance(name, str) and name and not valid(name) and name != required_name:
        errors.append(("metadata.name", invalid(name, message)))
    return errors


def api_service(doc: dict) -> Errors:
    """kube-aggregator ValidateAPIService."""
    spec = mapping(doc.get("spec"))
    group, version = _text(spec.get("group")), _text(spec.get("version"))
    errors = _name(doc, f"{version}.{group}")
    if not group and version != "v1":
        detail = "only v1 may have an empty group and it better be legacy kube"
        errors.append(("spec.group", required(detail)))
    if group:
        errors += [("spec.group", invalid(group, m)) for m in names.dns1123_subdomain(group)]
    errors += [("spec.version", invalid(version, m)) for m in names.dns1035_label(version)]
    group_priority = _int(spec.get("groupPriorityMinimum"))
    if not 0 < group_priority <= _GROUP_PRIORITY_MAX:
        message = "must be positive and less than 20000"
        errors.append(("spec.groupPriorityMinimum", invalid(group_priority, message)))
    version_priority = _int(spec.get("versionPriority"))
    if not 0 < version_priority <= _VERSION_PRIORITY_MAX:
        message = "must be positive and less than 1000"
        errors.append(("spec.versionPriority", invalid(version_priority, message)))
    ca_bytes = _ca_bundle_bytes(spec.get("caBundle"))
    insecure = spec.get("insecureSkipTLSVerify") is True
    service = spec.get("service")
    if not isinstance(service, dict):
        if ca_bytes:
            message = "local APIServices may not have a caBundle"
            errors.append(("spec.caBundle", invalid(f"{ca_bytes} bytes", message)))
        if insecure:
            message = "local APIServices may not have insecureSkipTLSVerify"
            errors.append(("spec.insecureSkipTLSVerify", invalid(True, message)))
        return errors
    if not _text(service.get("namespace")):
        errors.append(("spec.service.namespace", required()))
    if not _text(service.get("name")):
        errors.append(("spec.service.name", required()))
    port = service.get("port")
    port = 443 if port is None else _int(port)  # SetDefaults_ServiceReference
    if not 1 <= port <= 65535:
        message = "port is not valid: must be between 1 and 65535, inclusive"
        errors.append(("spec.service.port", invalid(port, message)))
    if insecure and ca_bytes:
        errors.append(
            ("spec.insecureSkipTLSVerify", invalid(True, "may not be true if caBundle is present"))
        )
    return errors


LEFT_OUT: dict[str, str] = {}
