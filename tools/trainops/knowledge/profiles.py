"""Cluster profiles: what an environment's cluster provides (trainops.yaml `profiles`), and the
scheduling questions the storage, schedulable and runnable rules ask of it.

Scheduling follows kube-scheduler's filters for the parts a profile can answer: nodeSelector
and required node affinity against a pool's labels, NoSchedule/NoExecute taints against the
pod's tolerations, and the pod's requests against one node's allocatable
(https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/,
https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from trainops.knowledge import reservations
from trainops.model import quantity
from trainops.model.errors import CannotRun
from trainops.model.rendered import Cluster

# Labels the kubelet puts on every Linux amd64 node, which no profile needs to repeat
# (https://kubernetes.io/docs/reference/labels-annotations-taints/).
_WELL_KNOWN = {"kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}


@dataclass(frozen=True)
class StorageClass:
    name: str
    provisioner: str
    access_modes: frozenset[str]
    default: bool = False
    fs_group: bool = True  # whether the volume's ownership follows the pod's fsGroup


@dataclass(frozen=True)
class NodePool:
    name: str
    labels: dict[str, str]
    taints: list[dict]
    allocatable: dict[str, float]
    max_nodes: int = 1
    spot: bool = False

    def describe(self) -> str:
        return f"{self.name}{' (spot)' if self.spot else ''}"


@dataclass(frozen=True)
class SystemPod:
    """A pod the provider runs before any of ours (trainops.yaml profiles' `systemPods`)."""

    name: str
    requests: dict[str, float]
    per_node: bool = False
    replicas: int = 1
    pools: frozenset[str] | None = None  # None: every pool

    def runs_on(self, pool: NodePool) -> bool:
        return self.pools is None or pool.name in self.pools


@dataclass(frozen=True)
class NetworkPolicyEngine:
    """What enforces NetworkPolicies in a profile's cluster (trainops.yaml `networkPolicy`)."""

    enforced_by: str
    source: str
    setup: str | None = None

    @property
    def enforces(self) -> bool:
        return self.enforced_by.strip().lower() != "none"


@dataclass(frozen=True)
class Profile:
    name: str
    cloud: str
    storage_classes: dict[str, StorageClass]
    pools: list[NodePool]
    addons: frozenset[str] = field(default_factory=frozenset)
    system_pods: tuple[SystemPod, ...] = ()
    network_policy: NetworkPolicyEngine | None = None

    @property
    def default_class(self) -> StorageClass | None:
        return next((c for c in self.storage_classes.values() if c.default), None)


def profile_from(name: str, data: dict) -> Profile:
    classes = {
        class_name: StorageClass(
            class_name,
            entry["provisioner"],
            frozenset(entry["accessModes"]),
            bool(entry.get("default", False)),
            bool(entry.get("fsGroup", True)),
        )
        for class_name, entry in (data.get("storageClasses") or {}).items()
    }
    pools = [
        NodePool(
            pool["name"],
            {**_WELL_KNOWN, **(pool.get("labels") or {})},
            list(pool.get("taints") or []),
            _allocatable(name, data["cloud"], pool),
            int(pool.get("maxNodes", 1)),
            bool(pool.get("spot", False)),
        )
        for pool in data.get("nodePools") or []
    ]
    system = tuple(
        SystemPod(
            entry["name"],
            {res: quantity.parse(value) for res, value in entry["requests"].items()},
            bool(entry.get("perNode", False)),
            int(entry.get("replicas", 1)),
            frozenset(entry["pools"]) if "pools" in entry else None,
        )
        for entry in data.get("systemPods") or []
    )
    engine = data.get("networkPolicy")
    return Profile(
        name,
        data["cloud"],
        classes,
        pools,
        frozenset(data.get("addons") or []),
        system,
        NetworkPolicyEngine(engine["enforcedBy"], engine["source"], engine.get("setup"))
        if engine
        else None,
    )


def _allocatable(profile: str, cloud: str, pool: dict) -> dict[str, float]:
    """The pool's declared allocatable, held to the provider's formula where the machine's
    capacity is given: a profile promising more than the provider leaves is a config error."""
    declared = {res: quantity.parse(value) for res, value in pool["allocatable"].items()}
    if "capacity" in pool:
        capacity = {res: quantity.parse(value) for res, value in pool["capacity"].items()}
        try:
            over = reservations.overstated(cloud, capacity, pool.get("maxPods"), declared)
        except ValueError as error:
            raise CannotRun(f"profiles.{profile}.nodePools[{pool['name']}]: {error}") from None
        if over:
            raise CannotRun(
                f"profiles.{profile}.nodePools[{pool['name']}]: allocatable is more than the "
                f"{cloud} reservation formula leaves of its capacity ({'; '.join(over)})"
            )
    return declared


def environment_folder(cluster: Cluster) -> str | None:
    """The environment's folder (the parent of its layers) relative to the config's folder."""
    config = cluster.config
    folder = getattr(config, "folder", None)
    for rendered in cluster.roots:
        if rendered.path is None or folder is None:
            continue
        parent = rendered.path.resolve().parent
        if parent.is_relative_to(folder):
            return parent.relative_to(folder).as_posix()
    return None


def _load(cluster: Cluster) -> Profile | None:
    config = cluster.config
    environments: dict[str, str] = getattr(config, "environments", None) or {}
    where = environment_folder(cluster)
    name = environments.get(where) if where is not None else None
    if name is None:
        return None
    return profile_from(name, getattr(config, "profiles", {})[name])


def profile_of(cluster: Cluster) -> Profile | None:
    """The profile trainops.yaml assigns to this cluster's environment (None: no facts to check)."""
    return cluster.memo("profile", _load)


def registry_of(cluster: Cluster) -> str | None:
    """The registry trainops.yaml says this environment pulls its own images from: its own entry's
    `registry`, else, on a cloud profile, `provenance.registry` (None: none, as for kind, whose
    images are loaded into the node)."""
    registries: dict[str, str] = getattr(cluster.config, "registries", None) or {}
    where = environment_folder(cluster)
    if where is None:
        return None
    if where in registries:
        return registries[where]
    provenance = getattr(cluster.config, "provenance", None)
    profile = profile_of(cluster)
    if provenance is not None and profile is not None and profile.cloud != "kind":
        return provenance.registry
    return None


@dataclass(frozen=True)
class ImageTraits:
    name: str
    cuda: bool = False
    backends: frozenset[str] = frozenset()
    ray: bool = False
    script: str | None = None  # the training script it runs, relative to trainops.yaml
    rank: dict[str, float] = field(default_factory=dict)  # what one training process needs


def image_traits(cluster: Cluster, image: str) -> ImageTraits | None:
    """What trainops.yaml `images` declares of an image (matched by path, registry and tag aside),
    found once per image and cluster: every container of every rule asks."""
    known: dict[str, ImageTraits | None] = cluster.memo("image-traits", lambda _: {})
    if image not in known:
        known[image] = _declared_traits(cluster, image)
    return known[image]


def _declared_traits(cluster: Cluster, image: str) -> ImageTraits | None:
    declared: dict[str, dict] = getattr(cluster.config, "images", None) or {}
    path = image.split("@", 1)[0]
    last = path.rsplit("/", 1)[-1]
    if ":" in last:
        path = path[: len(path) - len(last)] + last.split(":", 1)[0]
    normalized = PurePosixPath(path).as_posix()  # once an image, not once a declared name
    for name, traits in declared.items():
        if path == name or normalized.endswith("/" + name):
            return ImageTraits(
                name,
                bool(traits.get("cuda", False)),
                frozenset(traits.get("backends") or []),
                bool(traits.get("ray", False)),
                traits.get("script"),
                {res: quantity.parse(v) for res, v in (traits.get("rank") or {}).items()},
            )
    return None


# --------------------------------------------------------------------------- scheduling


def _expression_holds(expression: dict, labels: dict[str, str]) -> bool:
    key, operator = expression.get("key"), expression.get("operator")
    values = [str(v) for v in expression.get("values") or []]
    present = key in labels
    if operator == "In":
        return present and labels[key] in values
    if operator == "NotIn":
        return not present or labels[key] not in values
    if operator == "Exists":
        return present
    if operator == "DoesNotExist":
        return not present
    if operator in ("Gt", "Lt") and present and values:
        try:
            actual, bound = int(labels[key]), int(values[0])
        except ValueError:
            return False
        return actual > bound if operator == "Gt" else actual < bound
    return False


def required_terms(spec: dict) -> list[dict]:
    affinity = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    return list((affinity or {}).get("nodeSelectorTerms") or [])


def term_holds(term: dict, labels: dict[str, str], keys: Collection[str] | None = None) -> bool:
    """A nodeSelectorTerm's expressions (only those on `keys`, when given) all hold for labels."""
    return all(
        _expression_holds(e, labels)
        for e in term.get("matchExpressions") or []
        if keys is None or e.get("key") in keys
    )


def selects(spec: dict, labels: dict[str, str]) -> bool:
    """nodeSelector and required node affinity (terms ORed, expressions ANDed) hold for labels."""
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != str(value):
            return False
    terms = required_terms(spec)
    return not terms or any(term_holds(term, labels) for term in terms)


def tolerates(tolerations: list[dict], taint: dict) -> bool:
    for toleration in tolerations:
        if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
            continue
        if toleration.get("operator") == "Exists":
            if not toleration.get("key") or toleration["key"] == taint.get("key"):
                return True
        elif toleration.get("key") == taint.get("key") and str(toleration.get("value", "")) == str(
            taint.get("value", "")
        ):
            return True
    return False


def untolerated(spec: dict, pool: NodePool) -> list[dict]:
    """The pool's taints that keep this pod off it (PreferNoSchedule only discourages)."""
    tolerations = spec.get("tolerations") or []
    return [
        t
        for t in pool.taints
        if t.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(tolerations, t)
    ]


def show_taint(taint: dict) -> str:
    value = f"={taint['value']}" if taint.get("value") else ""
    return f"{taint['key']}{value}:{taint['effect']}"


def misfit(spec: dict, requests: dict[str, float], pool: NodePool) -> str | None:
    """Why a pod cannot run on a node of this pool, or None when it can."""
    wrong = [
        f"{key}={value}"
        for key, value in (spec.get("nodeSelector") or {}).items()
        if pool.labels.get(key) != str(value)
    ]
    if wrong:
        return f"nodeSelector {', '.join(wrong)} is not among its labels"
    if not selects(spec, pool.labels):
        return "the required node affinity matches none of its labels"
    blocking = untolerated(spec, pool)
    if blocking:
        return f"it does not tolerate {', '.join(show_taint(t) for t in blocking)}"
    short = [
        f"{name} {quantity.show(name, amount)} > {quantity.show(name, pool.allocatable.get(name, 0.0))}"
        for name, amount in sorted(requests.items())
        if amount > pool.allocatable.get(name, 0.0)
    ]
    if short:
        return f"one node offers less than it requests ({', '.join(short)})"
    return None
