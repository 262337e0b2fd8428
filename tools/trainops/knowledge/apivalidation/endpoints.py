"""Endpoints as kube-apiserver v1.32.13 validates them on create
(pkg/apis/core/validation/validation.go ValidateEndpointsCreate, validateEndpointSubsets,
validateEndpointAddress, ValidateEndpointIP, validateEndpointPort), after the v1 defaults (a
port's protocol TCP)."""

from __future__ import annotations

from collections.abc import Callable

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    invalid,
    is_int,
    not_supported,
    required,
)
from trainops.knowledge.apivalidation.service import non_special_ip
from trainops.model.shape import mappings

PROTOCOLS = ("SCTP", "TCP", "UDP")
PORT_RANGE = "must be between 1 and 65535, inclusive"


def endpoints(doc: dict) -> Errors:
    errors: Errors = []
    for index, subset in enumerate(mappings(doc.get("subsets"))):
        path = f"subsets[{index}]"
        addresses = mappings(subset.get("addresses"))
        not_ready = mappings(subset.get("notReadyAddresses"))
        if not addresses and not not_ready:
            message = "must specify `addresses` or `notReadyAddresses`"
            errors.append((path, required(message)))
        for key, listed in (("addresses", addresses), ("notReadyAddresses", not_ready)):
            for at, address in enumerate(listed):
                errors += _address(address, f"{path}.{key}[{at}]")
        ports = mappings(subset.get("ports"))
        for at, port in enumerate(ports):
            errors += _port(port, f"{path}.ports[{at}]", len(ports) > 1)
    return errors


def _address(address: dict, path: str) -> Errors:
    """validateEndpointAddress."""
    ip = address.get("ip")
    errors = non_special_ip(ip if isinstance(ip, str) else "", f"{path}.ip")
    return errors + host_and_node(address, path, names.dns1123_label)


def host_and_node(entry: dict, path: str, label: Callable[[str], tuple[str, ...]]) -> Errors:
    """An address's (or a slice's endpoint's) hostname, a DNS label, and nodeName, a subdomain."""
    errors: Errors = []
    hostname = entry.get("hostname")
    if isinstance(hostname, str) and hostname:
        errors += [(f"{path}.hostname", invalid(hostname, m)) for m in label(hostname)]
    node = entry.get("nodeName")
    if isinstance(node, str) and node:
        errors += [(f"{path}.nodeName", invalid(node, m)) for m in names.dns1123_subdomain(node)]
    return errors


def _port(port: dict, path: str, named: bool) -> Errors:
    """validateEndpointPort: a name where there are several, a port, a protocol."""
    errors: Errors = []
    name = port.get("name")
    name = name if isinstance(name, str) else ""
    if named and not name:
        errors.append((f"{path}.name", required()))
    elif name:
        errors += [(f"{path}.name", invalid(name, m)) for m in names.dns1123_label(name)]
    return errors + number_and_protocol(port, path, 1)


def number_and_protocol(port: dict, path: str, lowest: int) -> Errors:
    """A port's number (an EndpointSlice's may be 0) and its protocol."""
    errors: Errors = []
    number = port.get("port")
    if is_int(number) and not lowest <= number <= 65535:
        errors.append((f"{path}.port", invalid(number, PORT_RANGE)))
    protocol = port.get("protocol")
    if isinstance(protocol, str) and protocol not in PROTOCOLS:
        errors.append((f"{path}.protocol", not_supported(protocol, PROTOCOLS)))
    return errors


LEFT_OUT = {"Endpoints": "the total number of addresses and ports (a warning upstream)"}
