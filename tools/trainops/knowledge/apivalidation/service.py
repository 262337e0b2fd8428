"""Services as kube-apiserver v1.32.13 validates them (core ValidateService), after the defaults
it applies first (core/v1 SetDefaults_Service) and the strategy's syncing of clusterIP and
clusterIPs (pkg/registry/core/service normalizeClusterIPs).

What depends on the cluster's configuration is left out: whether a clusterIP lies in the
service CIDR and is free, dual-stack support (ipFamilyPolicy RequireDualStack, two families),
and node ports in the cluster's NodePort range — the allocators decide those, not validation."""

from __future__ import annotations

import ipaddress

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    IP_MESSAGE,
    Errors,
    GoValue,
    duplicate,
    forbidden,
    go_quote,
    go_strings,
    invalid,
    is_int,
    not_supported,
    parse_cidr,
    parse_ip,
    required,
    validate_labels,
)

_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")  # sets.List: sorted
_AFFINITIES = ("ClientIP", "None")
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_FAMILIES = ("IPv4", "IPv6")
_FAMILY_POLICIES = ("PreferDualStack", "RequireDualStack", "SingleStack")
_TRAFFIC_POLICIES = ("Cluster", "Local")
_KUBELET_PORT = 10250  # ports.KubeletPort
_MAX_AFFINITY_SECONDS = 86400  # core.MaxClientIPServiceAffinitySeconds
_SOURCE_RANGES = "service.beta.kubernetes.io/load-balancer-source-ranges"
_TOPOLOGY_HINTS = "service.kubernetes.io/topology-aware-hints"
_TOPOLOGY_MODE = "service.kubernetes.io/topology-mode"


def _port_go(port: dict) -> GoValue:
    """The (protocol, port) key ValidateService reports a duplicate port with."""
    protocol = port.get("protocol") or "TCP"
    number = port.get("port") if is_int(port.get("port")) else 0
    return GoValue(
        f'core.ServicePort{{Name:"", Protocol:{go_quote(str(protocol))}, '
        f"AppProtocol:(*string)(nil), Port:{number}, "
        f'TargetPort:intstr.IntOrString{{Type:0, IntVal:0, StrVal:""}}, NodePort:0}}'
    )


def service(doc: dict) -> Errors:  # noqa: C901 - one upstream function, check for check
    spec = doc.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    metadata = doc.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    annotations = annotations if isinstance(annotations, dict) else {}
    errors: Errors = []
    if _TOPOLOGY_MODE in annotations and _TOPOLOGY_HINTS in annotations:
        mode, hints = annotations[_TOPOLOGY_MODE], annotations[_TOPOLOGY_HINTS]
        if mode != hints:
            message = f"must match annotations[{_TOPOLOGY_HINTS}] when both are specified"
            errors.append((f"metadata.annotations[{_TOPOLOGY_MODE}]", invalid(str(mode), message)))
    kind = spec.get("type") or "ClusterIP"  # SetDefaults_Service
    ports = spec.get("ports")
    ports = [p for p in ports if isinstance(p, dict)] if isinstance(ports, list) else []
    cluster_ip = spec.get("clusterIP")
    cluster_ip = cluster_ip if isinstance(cluster_ip, str) else ""
    cluster_ips = spec.get("clusterIPs")
    cluster_ips = (
        [i if isinstance(i, str) else "" for i in cluster_ips]
        if isinstance(cluster_ips, list)
        else []
    )
    # normalizeClusterIPs: each of clusterIP and clusterIPs fills the other when it is unset.
    if cluster_ip and not cluster_ips:
        cluster_ips = [cluster_ip]
    elif not cluster_ip and cluster_ips:
        cluster_ip = cluster_ips[0]
    headless = len(cluster_ips) == 1 and cluster_ips[0] == "None"
    if not ports and not headless and kind != "ExternalName":
        errors.append(("spec.ports", required()))
    if kind == "LoadBalancer":
        if headless:
            message = "may not be set to 'None' for LoadBalancer services"
            errors.append(("spec.clusterIPs[0]", invalid("None", message)))
    elif kind == "NodePort" and headless:
        message = "may not be set to 'None' for NodePort services"
        errors.append(("spec.clusterIPs[0]", invalid("None", message)))
    elif kind == "ExternalName":
        if cluster_ips:
            errors.append(
                ("spec.clusterIPs", forbidden("may not be set for ExternalName services"))
            )
        if spec.get("ipFamilies"):
            errors.append(
                ("spec.ipFamilies", forbidden("may not be set for ExternalName services"))
            )
        if spec.get("ipFamilyPolicy") is not None:
            message = "may not be set for ExternalName services"
            errors.append(("spec.ipFamilyPolicy", forbidden(message)))
        external = spec.get("externalName")
        external = external.removesuffix(".") if isinstance(external, str) else ""
        if external:
            errors += [
                ("spec.externalName", invalid(external, m))
                for m in names.dns1123_subdomain(external)
            ]
        else:
            errors.append(("spec.externalName", required()))
    errors += _ports(ports, kind)
    selector = spec.get("selector")
    if isinstance(selector, dict) and selector:
        errors += validate_labels(selector, "spec.selector")
    affinity = spec.get("sessionAffinity") or "None"
    if affinity == "ClientIP":
        config = spec.get("sessionAffinityConfig")
        client = config.get("clientIP") if isinstance(config, dict) else None
        timeout = client.get("timeoutSeconds") if isinstance(client, dict) else None
        # SetDefaults_Service fills an unset timeout with 10800 (and the config around it)
        if is_int(timeout) and not 0 < timeout <= _MAX_AFFINITY_SECONDS:
            message = f"must be greater than 0 and less than {_MAX_AFFINITY_SECONDS}"
            errors.append(
                ("spec.sessionAffinityConfig.clientIP.timeoutSeconds", invalid(timeout, message))
            )
    elif affinity != "None":
        errors.append(("spec.sessionAffinity", not_supported(str(affinity), _AFFINITIES)))
    if kind != "ExternalName" and (cluster_ips or "ipFamilies" in spec or "ipFamilyPolicy" in spec):
        errors += _cluster_ips(spec, cluster_ip, cluster_ips, headless)
    external_ips = spec.get("externalIPs")
    if isinstance(external_ips, list):
        for index, address in enumerate(external_ips):
            if isinstance(address, str):
                errors += _external_ip(address, index)
    if kind not in _TYPES:
        errors.append(("spec.type", not_supported(str(kind), _TYPES)))
    if "loadBalancerSourceRanges" in spec or _SOURCE_RANGES in annotations:
        errors += _source_ranges(spec, annotations, kind)
    if kind != "LoadBalancer" and spec.get("allocateLoadBalancerNodePorts") is not None:
        message = "may only be used when `type` is 'LoadBalancer'"
        errors.append(("spec.allocateLoadBalancerNodePorts", forbidden(message)))
    lb_class = spec.get("loadBalancerClass")
    if isinstance(lb_class, str):  # validateLoadBalancerClassField
        if kind == "LoadBalancer":
            errors += [
                ("spec.loadBalancerClass", invalid(lb_class, m))
                for m in names.qualified_name(lb_class)
            ]
        else:
            message = "may only be used when `type` is 'LoadBalancer'"
            errors.append(("spec.loadBalancerClass", forbidden(message)))
    if _TRAFFIC_KEYS.intersection(spec):
        errors += _traffic_policies(spec, kind, external_ips)
    return errors


_TRAFFIC_KEYS = frozenset(
    [
        "externalTrafficPolicy",
        "healthCheckNodePort",
        "internalTrafficPolicy",
        "trafficDistribution",
    ]
)


def _ports(ports: list[dict], kind: str) -> Errors:
    """validateServicePort for each port, and ValidateService's checks across them: the kubelet
    port on a LoadBalancer, nodePorts on a ClusterIP Service, duplicate nodePorts and ports."""
    errors: Errors = []
    seen_names: set[str] = set()
    node_ports: set[tuple[str, int]] = set()
    pairs: set[tuple[str, int]] = set()
    several = len(ports) > 1
    for index, port in enumerate(ports):
        errors += _port(port, several, seen_names, index)
        number = port.get("port")
        protocol = str(port.get("protocol") or "TCP")
        if kind == "LoadBalancer" and number == _KUBELET_PORT:
            message = f"may not expose port {_KUBELET_PORT} externally since it is used by kubelet"
            errors.append((f"spec.ports[{index}]", invalid(_KUBELET_PORT, message)))
        node_port = port.get("nodePort")
        if node_port:
            if kind == "ClusterIP":
                message = "may not be used when `type` is 'ClusterIP'"
                errors.append((f"spec.ports[{index}].nodePort", forbidden(message)))
            if is_int(node_port):
                if (protocol, node_port) in node_ports:
                    errors.append((f"spec.ports[{index}].nodePort", duplicate(node_port)))
                node_ports.add((protocol, node_port))
        key = (protocol, number if is_int(number) else 0)
        if key in pairs:
            errors.append((f"spec.ports[{index}]", duplicate(_port_go(port))))
        pairs.add(key)
    return errors


def _port(port: dict, require_name: bool, seen: set[str], index: int) -> Errors:
    """core validateServicePort, of a port as SetDefaults_Service leaves it (protocol TCP; an
    unset targetPort is the port, so a port out of range is reported for both)."""
    errors: Errors = []
    name = port.get("name")
    if isinstance(name, str) and name:
        if problems := names.is_dns1123_label(name):
            errors += [(f"spec.ports[{index}].name", invalid(name, m)) for m in problems]
        if name in seen:
            errors.append((f"spec.ports[{index}].name", duplicate(name)))
        seen.add(name)
    elif require_name:
        errors.append((f"spec.ports[{index}].name", required()))
    number = port.get("port")
    if is_int(number) and not 0 < number < 65536:
        errors.append((f"spec.ports[{index}].port", invalid(number, _PORT_RANGE)))
    protocol = port.get("protocol")
    if protocol and protocol not in _PROTOCOLS and isinstance(protocol, str):
        errors.append((f"spec.ports[{index}].protocol", not_supported(protocol, _PROTOCOLS)))
    target = port.get("targetPort")
    if target == 0 or target == "" or target is None:
        target = number
    if isinstance(target, str):
        if problems := names.port_name(target):
            errors += [(f"spec.ports[{index}].targetPort", invalid(target, m)) for m in problems]
    elif is_int(target) and not 0 < target < 65536:
        errors.append((f"spec.ports[{index}].targetPort", invalid(target, _PORT_RANGE)))
    app_protocol = port.get("appProtocol")
    if isinstance(app_protocol, str) and (problems := names.qualified_name(app_protocol)):
        errors += [(f"spec.ports[{index}].appProtocol", invalid(app_protocol, m)) for m in problems]
    return errors


_PORT_RANGE = "must be between 1 and 65535, inclusive"


def _cluster_ips(spec: dict, cluster_ip: str, cluster_ips: list[str], headless: bool) -> Errors:
    """core ValidateServiceClusterIPsRelatedFields (but what the allocator decides)."""
    errors: Errors = []
    if cluster_ip and cluster_ips and cluster_ips[0] != cluster_ip:
        errors.append(
            (
                "spec.clusterIPs",
                invalid(go_strings(cluster_ips), "first value must match `clusterIP`"),
            )
        )
    families = spec.get("ipFamilies")
    families = families if isinstance(families, list) else []
    seen: set[str] = set()
    for index, family in enumerate(families):
        if not isinstance(family, str):
            continue
        if family not in _FAMILIES:
            errors.append((f"spec.ipFamilies[{index}]", not_supported(str(family), _FAMILIES)))
        if family in seen:
            errors.append((f"spec.ipFamilies[{index}]", duplicate(str(family))))
        seen.add(str(family))
    policy = spec.get("ipFamilyPolicy")
    if isinstance(policy, str) and policy not in _FAMILY_POLICIES:
        errors.append(("spec.ipFamilyPolicy", not_supported(policy, _FAMILY_POLICIES)))
    invalid_ips = False
    for index, address in enumerate(cluster_ips):
        if index == 0 and address == "None":
            if len(cluster_ips) > 1:
                invalid_ips = True
                message = "'None' must be the first and only value"
                errors.append(("spec.clusterIPs", invalid(go_strings(cluster_ips), message)))
            continue
        if parse_ip(address) is None:
            invalid_ips = True
            errors.append((f"spec.clusterIPs[{index}]", invalid(address, IP_MESSAGE)))
    if len(cluster_ips) > 2:
        errors.append(
            ("spec.clusterIPs", invalid(go_strings(cluster_ips), "may only hold up to 2 values"))
        )
    if invalid_ips:
        return errors
    if len(cluster_ips) > 1:
        parsed = [parse_ip(a) for a in cluster_ips]
        versions = {p.version for p in parsed if p is not None}
        if len(cluster_ips) != 2 or len(versions) != 2:
            message = "may specify no more than one IP for each IP family"
            errors.append(("spec.clusterIPs", invalid(go_strings(cluster_ips), message)))
    if not headless and cluster_ips and families:
        for index, address in enumerate(cluster_ips[: len(families)]):
            ip = parse_ip(address)
            is_v6 = ip is not None and ip.version == 6 and ip.ipv4_mapped is None
            if families[index] == "IPv4" and is_v6:
                message = f"expected an IPv4 value as indicated by `ipFamilies[{index}]`"
                errors.append((f"spec.clusterIPs[{index}]", invalid(address, message)))
            if families[index] == "IPv6" and not is_v6:
                message = f"expected an IPv6 value as indicated by `ipFamilies[{index}]`"
                errors.append((f"spec.clusterIPs[{index}]", invalid(address, message)))
    return errors


def _external_ip(address: str, index: int) -> Errors:
    return non_special_ip(address, f"spec.externalIPs[{index}]")


def non_special_ip(address: str, path: str) -> Errors:
    """IsValidIP, then core ValidateNonSpecialIP (an external IP, an Endpoints address)."""
    ip = parse_ip(address)
    if ip is None:
        return [(path, invalid(address, IP_MESSAGE))]
    errors: Errors = []
    v4 = ip if ip.version == 4 else ip.ipv4_mapped
    if ip.is_unspecified or (v4 is not None and v4.is_unspecified):
        errors.append((path, invalid(address, f"may not be unspecified ({address})")))
    if (v4 is not None and v4 in _LOOPBACK4) or (v4 is None and ip.is_loopback):
        message = "may not be in the loopback range (127.0.0.0/8, ::1/128)"
        errors.append((path, invalid(address, message)))
    if (v4 is not None and v4 in _LINK_LOCAL4) or (v4 is None and ip in _LINK_LOCAL6):
        message = "may not be in the link-local range (169.254.0.0/16, fe80::/10)"
        errors.append((path, invalid(address, message)))
    if (v4 is not None and v4 in _MULTICAST4) or (v4 is None and ip in _MULTICAST6):
        message = "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"
        errors.append((path, invalid(address, message)))
    return errors


_LOOPBACK4 = ipaddress.IPv4Network("127.0.0.0/8")
_LINK_LOCAL4 = ipaddress.IPv4Network("169.254.0.0/16")
_LINK_LOCAL6 = ipaddress.IPv6Network("fe80::/10")
_MULTICAST4 = ipaddress.IPv4Network("224.0.0.0/24")
_MULTICAST6 = ipaddress.IPv6Network("ff02::/16")  # Go's IsLinkLocalMulticast: ff02::/16


def _source_ranges(spec: dict, annotations: dict, kind: str) -> Errors:
    """loadBalancerSourceRanges, or the annotation that predates it."""
    errors: Errors = []
    ranges = spec.get("loadBalancerSourceRanges")
    if isinstance(ranges, list) and ranges:
        path = "spec.LoadBalancerSourceRanges"
        if kind != "LoadBalancer":
            errors.append((path, forbidden("may only be used when `type` is 'LoadBalancer'")))
        for index, value in enumerate(ranges):
            if isinstance(value, str) and parse_cidr(value.strip()) is None:
                errors.append((f"{path}[{index}]", invalid(value.strip(), _CIDR)))
    elif _SOURCE_RANGES in annotations:
        path = f"metadata.annotations[{_SOURCE_RANGES}]"
        if kind != "LoadBalancer":
            errors.append((path, forbidden("may only be used when `type` is 'LoadBalancer'")))
        value = str(annotations[_SOURCE_RANGES]).strip()
        if value:
            for cidr in value.split(","):
                cidr = cidr.strip()
                if parse_cidr(cidr) is None:
                    errors.append((path, invalid(cidr, _CIDR)))
    return errors


_CIDR = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def _traffic_policies(spec: dict, kind: str, external_ips: object) -> Errors:
    """validateServiceExternalTrafficPolicy, validateServiceInternalTrafficFieldsValue,
    validateServiceTrafficDistribution (the defaults filled: Cluster where it applies)."""
    errors: Errors = []
    accessible = kind in ("LoadBalancer", "NodePort") or (
        kind == "ClusterIP" and isinstance(external_ips, list) and len(external_ips) > 0
    )
    external = spec.get("externalTrafficPolicy")
    if external:
        if not accessible:
            message = "may only be set for externally-accessible services"
            errors.append(("spec.externalTrafficPolicy", invalid(str(external), message)))
        elif external not in _TRAFFIC_POLICIES:
            errors.append(
                ("spec.externalTrafficPolicy", not_supported(str(external), _TRAFFIC_POLICIES))
            )
    health = spec.get("healthCheckNodePort")
    needs_health = kind == "LoadBalancer" and external == "Local"
    if is_int(health) and health != 0:
        if not needs_health:
            message = "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"
            errors.append(("spec.healthCheckNodePort", invalid(health, message)))
        elif not 1 <= health <= 65535:
            message = "must be between 1 and 65535, inclusive"
            errors.append(("spec.healthCheckNodePort", invalid(health, message)))
    internal = spec.get("internalTrafficPolicy")
    if isinstance(internal, str) and internal not in _TRAFFIC_POLICIES:
        errors.append(("spec.internalTrafficPolicy", not_supported(internal, _TRAFFIC_POLICIES)))
    distribution = spec.get("trafficDistribution")
    if isinstance(distribution, str) and distribution != "PreferClose":
        errors.append(("spec.trafficDistribution", not_supported(distribution, ("PreferClose",))))
    return errors
