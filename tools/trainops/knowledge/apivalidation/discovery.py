"""discovery.k8s.io EndpointSlices as kube-apiserver v1.32.13 validates them on create
(pkg/apis/discovery/validation/validation.go ValidateEndpointSliceCreate, validateEndpoints,
validatePorts), after the v1 defaults (a port's protocol TCP)."""

from __future__ import annotations

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.endpoints import host_and_node, number_and_protocol
from trainops.knowledge.apivalidation.formats import (
    Errors,
    duplicate,
    invalid,
    not_supported,
    parse_ip,
    required,
    too_many,
)
from trainops.model.shape import mappings

_ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")
_MAX_ENDPOINTS = 1000
_MAX_ADDRESSES = 100
_MAX_PORTS = 20000


def _address(address: str, kind: str, path: str) -> Errors:
    ip = parse_ip(address)
    if kind == "IPv4" and (ip is None or ip.version != 4):
        return [(path, invalid(address, "must be a valid IPv4 address"))]
    if kind == "IPv6" and (ip is None or ip.version != 6 or "." in address):
        return [(path, invalid(address, "must be a valid IPv6 address"))]
    if kind == "FQDN":
        return [(path, invalid(address, m)) for m in names.dns1123_subdomain(address)]
    return []


def endpoint_slice(doc: dict) -> Errors:
    errors: Errors = []
    kind = doc.get("addressType")
    kind = kind if isinstance(kind, str) else ""
    if kind not in _ADDRESS_TYPES:
        errors.append(("addressType", not_supported(kind, _ADDRESS_TYPES)))
    endpoints = mappings(doc.get("endpoints"))
    if len(endpoints) > _MAX_ENDPOINTS:
        errors.append(("endpoints", too_many(len(endpoints), _MAX_ENDPOINTS)))
    for index, endpoint in enumerate(endpoints):
        path = f"endpoints[{index}]"
        addresses = endpoint.get("addresses")
        addresses = (
            [a for a in addresses if isinstance(a, str)] if isinstance(addresses, list) else []
        )
        if not addresses:
            errors.append((f"{path}.addresses", required("must contain at least 1 address")))
        elif len(addresses) > _MAX_ADDRESSES:
            errors.append((f"{path}.addresses", too_many(len(addresses), _MAX_ADDRESSES)))
        for at, address in enumerate(addresses):
            errors += _address(address, kind, f"{path}.addresses[{at}]")
        errors += host_and_node(endpoint, path, names.is_dns1123_label)
    errors += _ports(mappings(doc.get("ports")))
    return errors


def _ports(ports: list[dict]) -> Errors:
    errors: Errors = []
    if len(ports) > _MAX_PORTS:
        errors.append(("ports", too_many(len(ports), _MAX_PORTS)))
    seen: set[str] = set()
    for index, port in enumerate(ports):
        path = f"ports[{index}]"
        name = port.get("name")
        name = name if isinstance(name, str) else ""
        if name:
            errors += [(f"{path}.name", invalid(name, m)) for m in names.dns1123_label(name)]
        if name in seen:
            errors.append((f"{path}.name", duplicate(name)))
        seen.add(name)
        errors += number_and_protocol(port, path, 0)
        app = port.get("appProtocol")
        if isinstance(app, str) and app:
            errors += [(f"{path}.appProtocol", invalid(app, m)) for m in names.qualified_name(app)]
    return errors


LEFT_OUT = {"EndpointSlice": "the endpoints' zone and hints, the deprecated topology map"}
