"""NetworkPolicies, Ingresses and IngressClasses as kube-apiserver v1.32.13 validates them
(pkg/apis/networking/validation)."""

from __future__ import annotations

import ipaddress
import re

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    CIDR_MESSAGE,
    Errors,
    GoValue,
    domain_prefixed_path,
    forbidden,
    go_strings,
    invalid,
    is_int,
    not_supported,
    parse_cidr,
    parse_ip,
    path_segment,
    required,
    too_long,
    validate_label_selector,
)

_PROTOCOLS = ("TCP", "UDP", "SCTP")
_POLICY_TYPES = ("Ingress", "Egress")
_PORT_RANGE = "must be between 1 and 65535, inclusive"


def _port(port: dict, path: str) -> Errors:
    """ValidateNetworkPolicyPort."""
    errors: Errors = []
    protocol = port.get("protocol")
    if isinstance(protocol, str) and protocol not in _PROTOCOLS:
        errors.append((f"{path}.protocol", not_supported(protocol, _PROTOCOLS)))
    number, end = port.get("port"), port.get("endPort")
    if number is not None:
        if is_int(number):
            if not 1 <= number <= 65535:
                errors.append((f"{path}.port", invalid(number, _PORT_RANGE)))
            if is_int(end):
                if end < number:
                    message = "must be greater than or equal to `port`"
                    errors.append((f"{path}.endPort", invalid(number, message)))
                if not 1 <= end <= 65535:
                    errors.append((f"{path}.endPort", invalid(end, _PORT_RANGE)))
        elif isinstance(number, str):
            if is_int(end):
                message = "may not be specified when `port` is non-numeric"
                errors.append((f"{path}.endPort", invalid(end, message)))
            errors += [(f"{path}.port", invalid(number, m)) for m in names.port_name(number)]
    elif is_int(end):
        message = "may not be specified when `port` is not specified"
        errors.append((f"{path}.endPort", invalid(end, message)))
    return errors


def _peer(peer: dict, path: str) -> Errors:
    """ValidateNetworkPolicyPeer."""
    errors: Errors = []
    count = 0
    for key in ("podSelector", "namespaceSelector"):
        selector = peer.get(key)
        if selector is not None:
            count += 1
            errors += validate_label_selector(selector, f"{path}.{key}")
    block = peer.get("ipBlock")
    if block is not None:
        count += 1
        if isinstance(block, dict):
            errors += _ip_block(block, f"{path}.ipBlock")
    if count == 0:
        errors.append((path, required("must specify a peer")))
    elif count > 1 and block is not None:
        errors.append((path, forbidden("may not specify both ipBlock and another peer")))
    return errors


def _ip_block(block: dict, path: str) -> Errors:
    """ValidateIPBlock: a CIDR, and exceptions strictly inside it."""
    cidr = block.get("cidr")
    if not cidr:
        return [(f"{path}.cidr", required())]
    if not isinstance(cidr, str):
        return []
    network = parse_cidr(cidr)
    if network is None:
        return [(f"{path}.cidr", invalid(cidr, CIDR_MESSAGE))]
    errors: Errors = []
    excepted = block.get("except")
    for index, text in enumerate(excepted if isinstance(excepted, list) else ()):
        if not isinstance(text, str):
            continue
        where = f"{path}.except[{index}]"
        inner = parse_cidr(text)
        if inner is None:
            errors.append((where, invalid(text, CIDR_MESSAGE)))
            continue
        if not _contains(network, inner) or network.prefixlen >= inner.prefixlen:
            errors.append((where, invalid(text, "must be a strict subset of `cidr`")))
    return errors


def _as_go(network: ipaddress.IPv4Network | ipaddress.IPv6Network) -> tuple[bytes, bytes]:
    """net.IPNet's networkNumberAndMask: an IPv4-mapped IPv6 network is read as IPv4."""
    address, mask = network.network_address, network.netmask.packed
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    if mapped is not None:
        return mapped.packed, mask[12:]
    return address.packed, mask


def _contains(
    network: ipaddress.IPv4Network | ipaddress.IPv6Network,
    inner: ipaddress.IPv4Network | ipaddress.IPv6Network,
) -> bool:
    """net.IPNet.Contains(inner's network address), as Go compares across the two families."""
    number, mask = _as_go(network)
    address, _ = _as_go(inner)
    if len(address) != len(number):
        return False
    return all(n & m == a & m for n, m, a in zip(number, mask, address, strict=True))


def network_policy(doc: dict) -> Errors:
    """ValidateNetworkPolicySpec."""
    spec = doc.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    errors = validate_label_selector(spec.get("podSelector"), "spec.podSelector")
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        rules = spec.get(direction)
        for rule_index, rule in enumerate(rules if isinstance(rules, list) else ()):
            if not isinstance(rule, dict):
                continue
            where = f"spec.{direction}[{rule_index}]"
            ports = rule.get("ports")
            for index, port in enumerate(ports if isinstance(ports, list) else ()):
                if isinstance(port, dict):
                    errors += _port(port, f"{where}.ports[{index}]")
            listed = rule.get(peers)
            for index, peer in enumerate(listed if isinstance(listed, list) else ()):
                if isinstance(peer, dict):
                    errors += _peer(peer, f"{where}.{peers}[{index}]")
    policy_types = spec.get("policyTypes")
    if isinstance(policy_types, list):
        if len(policy_types) > len(_POLICY_TYPES):
            message = "may not specify more than two policyTypes"
            errors.append(
                (
                    "spec.policyTypes",
                    invalid(go_strings(policy_types, "networking.PolicyType"), message),
                )
            )
            return errors
        for index, kind in enumerate(policy_types):
            if kind not in _POLICY_TYPES:
                shown = kind if isinstance(kind, str) else ""
                errors.append((f"spec.policyTypes[{index}]", not_supported(shown, _POLICY_TYPES)))
    return errors


# --- Ingress -------------------------------------------------------------------------------------

_PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
_BAD_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
_BAD_SUFFIXES = ("/..", "/.")
_WILDCARD_MESSAGE = (
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which "
    "must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric "
    "character (e.g. '*.example.com', regex used for validation is "
    "'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
_INGRESS_CLASS_ANNOTATION = "kubernetes.io/ingress.class"


_WILDCARD = re.compile(r"\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _host(host: str, path: str) -> Errors:
    """A DNS subdomain, or with a `*` a wildcard one (IsWildcardDNS1123Subdomain)."""
    if "*" not in host:
        return [(path, invalid(host, m)) for m in names.dns1123_subdomain(host)]
    errors: Errors = []
    if len(host) > names.DNS1123_SUBDOMAIN_MAX:
        errors.append((path, invalid(host, "must be no more than 253 characters")))
    if not _WILDCARD.fullmatch(host):
        errors.append((path, invalid(host, _WILDCARD_MESSAGE)))
    return errors


def _backend(backend: dict, path: str) -> Errors:
    """validateIngressBackend."""
    resource, service = backend.get("resource"), backend.get("service")
    if resource is not None and service is not None:
        return [(path, invalid("", "cannot set both resource and service backends"))]
    errors: Errors = []
    if isinstance(resource, dict):
        errors += _typed_reference(resource, f"{path}.resource")
    elif isinstance(service, dict):
        name = service.get("name")
        if not name:
            errors.append((f"{path}.service.name", required()))
        elif isinstance(name, str):
            errors += [
                (f"{path}.service.name", invalid(name, m)) for m in names.dns1035_label(name)
            ]
        port = service.get("port")
        port = port if isinstance(port, dict) else {}
        name_of_port, number = port.get("name"), port.get("number")
        has_name = isinstance(name_of_port, str) and len(name_of_port) > 0
        has_number = is_int(number) and number != 0
        if has_name and has_number:
            errors.append((path, invalid("", "cannot set both port name & port number")))
        elif has_name:
            errors += [
                (f"{path}.service.port.name", invalid(name_of_port, m))
                for m in names.port_name(name_of_port)
            ]
        elif is_int(number) and number != 0:
            if not 1 <= number <= 65535:
                errors.append((f"{path}.service.port.number", invalid(number, _PORT_RANGE)))
        else:
            errors.append((path, required("port name or number is required")))
    elif resource is None and service is None:
        errors.append((path, invalid("", "resource or service backend is required")))
    return errors


def _typed_reference(reference: dict, path: str) -> Errors:
    """validateIngressTypedLocalObjectReference."""
    errors: Errors = []
    group = reference.get("apiGroup")
    if isinstance(group, str):
        errors += [(f"{path}.apiGroup", invalid(group, m)) for m in names.dns1123_subdomain(group)]
    for key in ("kind", "name"):
        value = reference.get(key)
        if not value:
            errors.append((f"{path}.{key}", required(f"{key} is required")))
        elif isinstance(value, str):
            errors += [(f"{path}.{key}", invalid(value, m)) for m in path_segment(value)]
    return errors


def ingress(doc: dict) -> Errors:
    """ValidateIngressCreate: ValidateIngressSpec, and the ingress-class annotation."""
    spec = doc.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    errors: Errors = []
    rules = spec.get("rules")
    rules = rules if isinstance(rules, list) else []
    default = spec.get("defaultBackend")
    if not rules and default is None:
        message = "either `defaultBackend` or `rules` must be specified"
        errors.append(("spec", invalid(_go_rules(spec.get("rules")), message)))
    if isinstance(default, dict):
        errors += _backend(default, "spec.defaultBackend")
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        where = f"spec.rules[{index}]"
        host = rule.get("host")
        if isinstance(host, str) and host:
            if parse_ip(host) is not None:
                errors.append(
                    (f"{where}.host", invalid(host, "must be a DNS name, not an IP address"))
                )
            errors += _host(host, f"{where}.host")
        http = rule.get("http")
        if isinstance(http, dict):
            paths = http.get("paths")
            paths = paths if isinstance(paths, list) else []
            if not paths:
                errors.append((f"{where}.http.paths", required()))
            for number, entry in enumerate(paths):
                if isinstance(entry, dict):
                    errors += _http_path(entry, f"{where}.http.paths[{number}]")
    tls = spec.get("tls")
    for index, entry in enumerate(tls if isinstance(tls, list) else ()):
        if not isinstance(entry, dict):
            continue
        hosts = entry.get("hosts")
        for number, host in enumerate(hosts if isinstance(hosts, list) else ()):
            if isinstance(host, str):
                errors += _host(host, f"spec.tls[{index}].hosts[{number}]")
        secret = entry.get("secretName")
        if isinstance(secret, str) and secret:
            errors += [
                (f"spec.tls[{index}].secretName", invalid(secret, m))
                for m in names.dns1123_subdomain(secret)
            ]
    class_name = spec.get("ingressClassName")
    if isinstance(class_name, str):
        errors += [
            ("spec.ingressClassName", invalid(class_name, m))
            for m in names.dns1123_subdomain(class_name)
        ]
    metadata = doc.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    if (
        isinstance(annotations, dict)
        and _INGRESS_CLASS_ANNOTATION in annotations
        and isinstance(class_name, str)
        and annotations[_INGRESS_CLASS_ANNOTATION] != class_name
    ):
        message = "must match `ingressClassName` when both are specified"
        value = str(annotations[_INGRESS_CLASS_ANNOTATION])
        errors.append((f"annotations.{_INGRESS_CLASS_ANNOTATION}", invalid(value, message)))
    return errors


def _go_rules(rules: object) -> GoValue:
    if isinstance(rules, list):
        return GoValue("[]networking.IngressRule{}")
    return GoValue("[]networking.IngressRule(nil)")


def _http_path(entry: dict, path: str) -> Errors:
    """validateHTTPIngressPath."""
    kind = entry.get("pathType")
    if kind is None:
        return [(f"{path}.pathType", required("pathType must be specified"))]
    errors: Errors = []
    value = entry.get("path")
    value = value if isinstance(value, str) else ""
    if kind in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errors.append((f"{path}.path", invalid(value, "must be an absolute path")))
        if value:
            for sequence in _BAD_SEQUENCES:
                if sequence in value:
                    errors.append(
                        (f"{path}.path", invalid(value, f"must not contain '{sequence}'"))
                    )
            for suffix in _BAD_SUFFIXES:
                if value.endswith(suffix):
                    errors.append((f"{path}.path", invalid(value, f"cannot end with '{suffix}'")))
    elif kind == "ImplementationSpecific":
        if value and not value.startswith("/"):
            errors.append((f"{path}.path", invalid(value, "must be an absolute path")))
    else:
        errors.append((f"{path}.pathType", not_supported(str(kind), _PATH_TYPES)))
    backend = entry.get("backend")
    errors += _backend(backend if isinstance(backend, dict) else {}, f"{path}.backend")
    return errors


def ingress_class(doc: dict) -> Errors:
    """validateIngressClassSpec: the controller a domain-prefixed path; the parameters."""
    spec = doc.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    errors: Errors = []
    controller = spec.get("controller")
    controller = controller if isinstance(controller, str) else ""
    if len(controller) > 250:
        errors.append(("spec.controller", too_long(250)))
    errors += domain_prefixed_path(controller, "spec.controller")
    parameters = spec.get("parameters")
    if isinstance(parameters, dict):
        path = "spec.parameters"
        errors += _typed_reference(parameters, path)
        scope = parameters.get("scope")
        namespace = parameters.get("namespace")
        if scope is None:
            errors.append((f"{path}.scope", required()))
        elif scope not in ("Cluster", "Namespace"):
            errors.append((f"{path}.scope", not_supported(str(scope), ("Cluster", "Namespace"))))
        elif scope == "Namespace":
            if namespace is None:
                message = "`parameters.scope` is set to 'Namespace'"
                errors.append((f"{path}.namespace", required(message)))
            elif isinstance(namespace, str):
                errors += [
                    (f"{path}.namespace", invalid(namespace, m))
                    for m in names.dns1123_label(namespace)
                ]
        elif namespace is not None:
            errors.append(
                (f"{path}.namespace", forbidden("`parameters.scope` is set to 'Cluster'"))
            )
    return errors
