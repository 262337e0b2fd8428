"""NetworkPolicy semantics (networking.k8s.io/v1): which ports one endpoint may open to another.

Follows the Kubernetes documentation (concepts/services-networking/network-policies) and the API
reference of NetworkPolicySpec:
- A pod is isolated for a direction when a policy in its namespace selects it (`podSelector`)
  and lists that direction in `policyTypes` (absent: Ingress, plus Egress when `egress` is set).
  An isolated pod accepts (or opens) only what the union of those policies' rules allows;
  a pod no policy isolates is open in that direction.
- A connection needs both ends: the source's egress and the destination's ingress.
- A rule with no `from`/`to` matches every peer; with no `ports`, every port of every protocol.
  A peer with `podSelector` alone means pods of the policy's own namespace; `namespaceSelector`
  alone, every pod of the matching namespaces; both, matching pods in matching namespaces.
  `ipBlock` is meant for addresses outside the cluster: here it matches only endpoints outside
  the pod network (the API server, a metadata server), never pods, whose addresses are not known.
- A port is a number or a container port's name (resolved on the destination pod), `protocol`
  defaults to TCP, `endPort` makes a range.

We evaluate this ourselves rather than with network-config-analyzer (PyPI): that package pins
exact versions of PyYAML and networkx below our lock, brings a GitHub API client and lxml, and
answers with whole connectivity maps; a rule needs, per required path, the ports that are missing
and the policies (with their file and line) that withhold them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from trainops.model.objects import K8sObject
from trainops.model.shape import mapping, mappings, sequence

PROTOCOLS = ("TCP", "UDP", "SCTP")
MAX_PORT = 65535
NAMESPACE_NAME_LABEL = (
    "kubernetes.io/metadata.name"  # set on every namespace by the API server (v1.21+)
)


@dataclass(frozen=True)
class Endpoint:
    """Something that opens or accepts connections: pods of one template, or an address outside the pod network."""

    description: str
    namespace: (
        str | None
    )  # None: outside the pod network (no policy isolates it; only ipBlock peers match it)
    labels: Mapping[str, str] = field(default_factory=dict)
    named_ports: Mapping[tuple[str, str], int] = field(
        default_factory=dict
    )  # (name, protocol) -> number
    address: str | None = None  # an IP, for endpoints outside the pod network when it is known


class PortSet:
    """Ports per protocol, as sorted, disjoint, inclusive ranges."""

    def __init__(self, ranges: Mapping[str, Iterable[tuple[int, int]]] | None = None):
        self.ranges: dict[str, list[tuple[int, int]]] = {}
        for protocol, spans in (ranges or {}).items():
            merged = _merge(spans)
            if merged:
                self.ranges[protocol] = merged

    @classmethod
    def everything(cls) -> PortSet:
        return _EVERYTHING  # no PortSet is changed once made: one is shared

    @classmethod
    def of(cls, protocol: str, first: int, last: int | None = None) -> PortSet:
        return cls({protocol: [(first, first if last is None else last)]})

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PortSet) and self.ranges == other.ranges

    def __or__(self, other: PortSet) -> PortSet:
        keys = set(self.ranges) | set(other.ranges)
        return PortSet({p: self.ranges.get(p, []) + other.ranges.get(p, []) for p in keys})

    def __and__(self, other: PortSet) -> PortSet:
        result: dict[str, list[tuple[int, int]]] = {}
        for protocol in set(self.ranges) & set(other.ranges):
            result[protocol] = [
                (max(a, c), min(b, d))
                for a, b in self.ranges[protocol]
                for c, d in other.ranges[protocol]
                if max(a, c) <= min(b, d)
            ]
        return PortSet(result)

    def __sub__(self, other: PortSet) -> PortSet:
        result: dict[str, list[tuple[int, int]]] = {}
        for protocol, spans in self.ranges.items():
            remaining = spans
            for c, d in other.ranges.get(protocol, []):
                remaining = [
                    piece
                    for a, b in remaining
                    for piece in ((a, min(b, c - 1)), (max(a, d + 1), b))
                    if piece[0] <= piece[1]
                ]
            result[protocol] = remaining
        return PortSet(result)

    def __str__(self) -> str:
        if not self.ranges:
            return "nothing"
        parts = []
        for protocol in sorted(self.ranges):
            spans = self.ranges[protocol]
            if spans == [(1, MAX_PORT)]:
                parts.append(f"every {protocol} port")
                continue
            shown = [f"{a}" if a == b else f"{a}-{b}" for a, b in spans[:6]]
            more = f" and {len(spans) - 6} more ranges" if len(spans) > 6 else ""
            parts.append(f"{protocol} {', '.join(shown)}{more}")
        return "; ".join(parts)


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for first, last in sorted(spans):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


_EVERYTHING = PortSet({protocol: [(1, MAX_PORT)] for protocol in PROTOCOLS})


def selector_matches(selector: object, labels: Mapping[str, str]) -> bool:
    """A LabelSelector: matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist) all hold."""
    if not isinstance(selector, dict):
        return False
    match_labels = mapping(selector.get("matchLabels"))
    if not isinstance(match_labels, dict) or any(
        labels.get(k) != str(v) for k, v in match_labels.items()
    ):
        return False
    for expression in mappings(selector.get("matchExpressions")):
        if not isinstance(expression, dict):
            return False
        key, operator = str(expression.get("key")), expression.get("operator")
        values = [str(v) for v in sequence(expression.get("values"))]
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return False
    return True


@dataclass(frozen=True)
class Policy:
    """A NetworkPolicy; what every endpoint asks of it is read once (a corpus has thousands)."""

    obj: K8sObject

    @cached_property
    def spec(self) -> dict:
        spec = self.obj.doc.get("spec")
        return spec if isinstance(spec, dict) else {}

    @cached_property
    def namespace(self) -> str:
        return self.obj.namespace or "default"

    def types(self) -> set[str]:
        return self._types

    @cached_property
    def _types(self) -> set[str]:
        declared = self.spec.get("policyTypes")
        if isinstance(declared, list) and declared:
            return {str(t) for t in declared}
        return {"Ingress"} | ({"Egress"} if self.spec.get("egress") else set())

    def selects(self, endpoint: Endpoint, direction: str) -> bool:
        return (
            endpoint.namespace == self.namespace
            and direction in self.types()
            and selector_matches(self.spec.get("podSelector", {}), endpoint.labels)
        )

    def rules(self, direction: str) -> list[dict]:
        rules = sequence(self.spec.get("ingress" if direction == "Ingress" else "egress"))
        return [r for r in rules if isinstance(r, dict)] if isinstance(rules, list) else []

    def __str__(self) -> str:
        where = f"{self.obj.file}:{self.obj.line}" if self.obj.line else self.obj.file
        return f"NetworkPolicy {self.namespace}/{self.obj.name} ({where})"


@dataclass
class _Candidates:
    """A namespace's policies, indexed by the first of their podSelector's matchLabels."""

    policies: list[Policy]
    by_label: dict[tuple[str, str], list[int]]
    always: list[int]

    @classmethod
    def of(cls, policies: list[Policy]) -> _Candidates:
        by_label: dict[tuple[str, str], list[int]] = {}
        always: list[int] = []
        for index, policy in enumerate(policies):
            selector = policy.spec.get("podSelector", {})
            labels = selector.get("matchLabels") if isinstance(selector, dict) else None
            if isinstance(labels, dict) and labels:
                key, value = next(iter(labels.items()))
                by_label.setdefault((str(key), str(value)), []).append(index)
            else:
                always.append(index)
        return cls(policies, by_label, always)

    def for_labels(self, labels: Mapping[str, str]) -> list[int]:
        """The indexes, in order, of the policies whose selector may match `labels`."""
        found = set(self.always)
        for key, value in labels.items():
            if isinstance(key, str) and isinstance(value, str):
                found.update(self.by_label.get((key, value), ()))
        return sorted(found)


class Cluster:
    """The namespaces (with labels) and NetworkPolicies of one environment."""

    def __init__(self, policies: list[Policy], namespace_labels: Mapping[str, Mapping[str, str]]):
        self.policies = policies
        self._namespace_labels = namespace_labels
        # A policy isolates only pods of its own namespace: look there alone (a corpus has thousands).
        self._by_namespace: dict[str, list[Policy]] = {}
        for policy in policies:
            self._by_namespace.setdefault(policy.namespace, []).append(policy)
        # And there, only the policies that may select the pod: one whose podSelector has
        # matchLabels selects only pods with its first label (a corpus has hundreds of policies
        # per namespace, each for one application); the others are always tried.
        self._candidates = {
            namespace: _Candidates.of(members) for namespace, members in self._by_namespace.items()
        }
        self._verdicts: dict[tuple, Verdict] = {}

    def labels_of_namespace(self, name: str) -> dict[str, str]:
        return {**self._namespace_labels.get(name, {}), NAMESPACE_NAME_LABEL: name}

    def isolating(self, endpoint: Endpoint, direction: str) -> list[Policy]:
        candidates = self._candidates.get(endpoint.namespace or "")
        if candidates is None:
            return []
        return [
            candidates.policies[index]
            for index in candidates.for_labels(endpoint.labels)
            if candidates.policies[index].selects(endpoint, direction)
        ]

    def _peer_matches(self, peer: dict, policy: Policy, other: Endpoint) -> bool:
        if "ipBlock" in peer:
            return other.namespace is None and _in_block(peer.get("ipBlock"), other.address)
        if other.namespace is None:
            return False
        if "namespaceSelector" in peer:
            if not selector_matches(
                mapping(peer.get("namespaceSelector")), self.labels_of_namespace(other.namespace)
            ):
                return False
        elif other.namespace != policy.namespace:
            return False
        return "podSelector" not in peer or selector_matches(
            mapping(peer.get("podSelector")), other.labels
        )

    def _rule_ports(self, rule: dict, destination: Endpoint) -> PortSet:
        entries = rule.get("ports")
        if not entries:
            return PortSet.everything()
        allowed = PortSet()
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            protocol = str(entry.get("protocol") or "TCP")
            port, end = entry.get("port"), entry.get("endPort")
            if port is None:
                allowed |= PortSet.of(protocol, 1, MAX_PORT)
            elif isinstance(port, int) and not isinstance(port, bool):
                allowed |= PortSet.of(
                    protocol, port, end if isinstance(end, int) and end >= port else port
                )
            elif isinstance(port, str) and (port, protocol) in destination.named_ports:
                allowed |= PortSet.of(protocol, destination.named_ports[(port, protocol)])
        return allowed

    def _direction(
        self, local: Endpoint, remote: Endpoint, destination: Endpoint, direction: str
    ) -> tuple[PortSet, list[Policy]]:
        """What `local`'s policies let through to or from `remote` in one direction, and those policies."""
        isolating = self.isolating(local, direction) if local.namespace is not None else []
        if not isolating:
            return PortSet.everything(), []
        peers_key = "from" if direction == "Ingress" else "to"
        allowed = PortSet()
        for policy in isolating:
            for rule in policy.rules(direction):
                peers = rule.get(peers_key)
                if peers and not (
                    isinstance(peers, list)
                    and any(
                        isinstance(p, dict) and self._peer_matches(p, policy, remote) for p in peers
                    )
                ):
                    continue  # a malformed peer list matches nothing; the schema rule reports it
                allowed |= self._rule_ports(rule, destination)
        return allowed, isolating

    def allowed(self, source: Endpoint, destination: Endpoint) -> Verdict:
        key = (_key(source), _key(destination))
        if (
            key not in self._verdicts
        ):  # many pods share labels: each pair of kinds of pod is worked out once
            egress, egress_policies = self._direction(source, destination, destination, "Egress")
            ingress, ingress_policies = self._direction(destination, source, destination, "Ingress")
            self._verdicts[key] = Verdict(
                egress & ingress, egress, egress_policies, ingress, ingress_policies
            )
        return self._verdicts[key]


def _key(endpoint: Endpoint) -> tuple:
    return (
        endpoint.namespace,
        endpoint.address,
        tuple(sorted(endpoint.labels.items())),
        tuple(sorted(endpoint.named_ports.items())),
    )


@dataclass(frozen=True)
class Verdict:
    ports: PortSet  # what may flow from source to destination
    egress: PortSet
    egress_policies: list[Policy]
    ingress: PortSet
    ingress_policies: list[Policy]

    def blockers(self, needed: PortSet) -> list[tuple[str, list[Policy], PortSet]]:
        """(direction, the policies isolating that side, what that side lets through) for each side that withholds part of `needed`."""
        found = []
        if needed - self.egress:
            found.append(("egress", self.egress_policies, self.egress & needed))
        if needed - self.ingress:
            found.append(("ingress", self.ingress_policies, self.ingress & needed))
        return found


def _in_block(block: object, address: str | None) -> bool:
    if not isinstance(block, dict):
        return False
    if address is None:
        return True  # an address we do not know (the API server's): any ipBlock may be the one that admits it
    try:
        ip = ipaddress.ip_address(address)
        if ip not in ipaddress.ip_network(str(block.get("cidr")), strict=False):
            return False
        return not any(
            ip in ipaddress.ip_network(str(e), strict=False) for e in sequence(block.get("except"))
        )
    except ValueError:
        return False
