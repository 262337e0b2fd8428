"""An environment as a whole: what its cluster can hold, what already runs there, and every set
of jobs Kueue may admit at once, placed pod by pod.

- Nodes: each pool of the environment's profile at its maximum size, each node offering the
  pool's allocatable (the provider's reservations already taken, knowledge/reservations.py).
- Residents, placed before any job: the profile's system pods (the control plane, CoreDNS, the
  CNI: `systemPods`, each cited in trainops.yaml) and the environment's DaemonSets on every node
  they select and tolerate; its Deployments, StatefulSets and ReplicaSets (the operators) and
  the profile's other system pods, replica by replica, on the first node that holds them. Jobs
  no Kueue queue admits (a Volcano Job) are not residents: they come and go.
- Admissions: for each ClusterQueue, every set of its jobs and every flavor Kueue may assign
  each (its nodeLabels and tolerations added to the pods, knowledge/flavors.py) whose gangs
  together stay within the flavors' nominal quota plus what the cohort lends — what Kueue's
  quota lets it admit at once.
- Placement: the admitted pods, largest gang first, each on the first node of a pool it selects
  and tolerates with room for its requests, as kube-scheduler's filters would allow it
  (kube-scheduler places pods one by one: a gang whose pods do not all fit runs in part).

Kueue releases a job's quota only when the job finishes (v0.18.6
pkg/controller/jobframework/reconciler.go: a job's Finished() marks its Workload finished;
pkg/controller/core/workload_controller.go deletes a finished Workload from the cache), so pods
that never schedule hold their gang's quota until then — unless `waitForPodsReady` evicts the
workload when its pods are not ready within the timeout and requeues it after a backoff
(apis/config/v1beta2/configuration_types.go, WaitForPodsReady).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field

from trainops.knowledge import flavors, kueue, profiles
from trainops.knowledge.pod_templates import templates_of
from trainops.knowledge.profiles import NodePool, Profile
from trainops.model import quantity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster
from trainops.model.shape import mapping, mappings, strings

# Resident controllers: their replicas run all the time.
_RESIDENT_KINDS = {("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "ReplicaSet")}
# Beyond this many jobs in one queue, only each job alone and all of them together are tried.
_MOST_ENUMERATED = 10


@dataclass
class Node:
    pool: NodePool
    index: int
    free: dict[str, float]


@dataclass(frozen=True)
class Resident:
    owner: str  # "DaemonSet kube-system/kindnet", "system pod etcd"
    requests: dict[str, float]
    pool: str | None  # where it runs (None: no node holds it)
    per_node: bool = False


@dataclass(frozen=True)
class PodSet:
    name: str
    count: int
    spec: dict
    requests: dict[str, float]


@dataclass(frozen=True, eq=False)  # compared and hashed by identity
class QueuedJob:
    obj: K8sObject
    queue: K8sObject  # its ClusterQueue
    pod_sets: tuple[PodSet, ...]
    usage: dict[str, float]  # the whole gang's requests
    # Per resource group the gang uses: (the resources it covers, the flavors Kueue may assign).
    groups: tuple[tuple[frozenset[str], tuple[str, ...]], ...]

    @property
    def label(self) -> str:
        return f"{self.obj.kind} {self.obj.name}"

    @property
    def pods(self) -> int:
        return sum(s.count for s in self.pod_sets)

    def choices(self) -> list[tuple[str, ...]]:
        return [tuple(c) for c in itertools.product(*(names for _, names in self.groups))]


@dataclass(frozen=True, eq=False)
class Admission:
    """Jobs Kueue may admit at once (each with its flavors), and how many of each one's pods fit."""

    queue: K8sObject
    jobs: tuple[tuple[QueuedJob, tuple[str, ...]], ...]
    usage: dict[tuple[str, str], float]  # (flavor, resource) -> requested
    placed: dict[str, int]  # job label -> pods placed

    def short(self) -> list[QueuedJob]:
        """The jobs not all of whose pods fit."""
        return [job for job, _ in self.jobs if self.placed[job.label] < job.pods]


@dataclass(frozen=True, eq=False)
class FlavorRoom:
    """A ClusterQueue's nominal quota of one flavor against what its pools have left."""

    queue: K8sObject
    flavor: str
    pools: tuple[str, ...]
    nominal: dict[str, float]
    free: dict[str, float]  # its pools' allocatable less the residents on them
    paths: dict[str, str]  # resource -> the nominalQuota's path in the ClusterQueue

    def over(self) -> dict[str, tuple[float, float]]:
        return {
            name: (amount, self.free.get(name, 0.0))
            for name, amount in self.nominal.items()
            if amount > self.free.get(name, 0.0) + 1e-9
        }


@dataclass
class PoolRow:
    pool: NodePool
    allocatable: dict[str, float]  # all its nodes
    requested: dict[str, float]  # by residents
    quota: list[tuple[str, dict[str, float]]] = field(default_factory=list)  # flavors on it


@dataclass
class Model:
    environment: str | None
    profile: Profile
    pools: list[PoolRow]
    residents: list[Resident]
    rooms: list[FlavorRoom]
    jobs: list[QueuedJob]
    admissions: list[Admission]
    kueue_config: K8sObject | None
    wait_for_pods_ready: dict | None

    def failing(self) -> list[Admission]:
        return [a for a in self.admissions if a.short()]


def _add(total: dict[str, float], more: dict[str, float], times: float = 1.0) -> None:
    for name, amount in more.items():
        total[name] = total.get(name, 0.0) + amount * times


def _fits(free: dict[str, float], requests: dict[str, float]) -> bool:
    return all(free.get(name, 0.0) + 1e-9 >= amount for name, amount in requests.items() if amount)


def _selects(spec: dict, pool: NodePool) -> bool:
    """The pod may run on the pool's nodes (labels and taints; resources aside)."""
    return profiles.misfit(spec, {}, pool) is None


def _nodes(profile: Profile) -> list[Node]:
    return [
        Node(pool, index, dict(pool.allocatable))
        for pool in profile.pools
        for index in range(pool.max_nodes)
    ]


def _place(nodes: list[Node], spec: dict, requests: dict[str, float]) -> Node | None:
    selects: dict[int, bool] = {}  # by pool: its nodes are alike but for what is free on them
    for node in nodes:
        pool = id(node.pool)
        if pool not in selects:
            selects[pool] = _selects(spec, node.pool)
        if selects[pool] and _fits(node.free, requests):
            for name, amount in requests.items():
                node.free[name] = node.free.get(name, 0.0) - amount
            return node
    return None


def _requests(spec: dict) -> dict[str, float] | None:
    try:
        return {n: v for n, v in kueue.pod_requests(spec).items() if v}
    except ValueError:
        return None  # kueue-admission and schedulable report unreadable quantities


def _residents(cluster: Cluster, profile: Profile, nodes: list[Node]) -> list[Resident]:
    found: list[Resident] = []
    for pod in profile.system_pods:
        if not pod.per_node:
            continue
        for node in nodes:
            if pod.runs_on(node.pool):
                _add(node.free, pod.requests, -1)
        found += [
            Resident(f"system pod {pod.name}", pod.requests, pool.name, per_node=True)
            for pool in profile.pools
            if pod.runs_on(pool)
        ]
    for obj in cluster.objects():
        if (obj.group, obj.kind) != ("apps", "DaemonSet"):
            continue
        for template in templates_of(obj):
            requests = _requests(template.spec)
            if requests is None:
                continue
            for node in nodes:
                if _selects(template.spec, node.pool):
                    _add(node.free, requests, -1)
            found += [
                Resident(f"DaemonSet {obj.namespace}/{obj.name}", requests, pool.name, True)
                for pool in profile.pools
                if _selects(template.spec, pool)
            ]
    for pod in profile.system_pods:
        if pod.per_node:
            continue
        eligible = [n for n in nodes if pod.runs_on(n.pool)]
        for _ in range(pod.replicas):
            node = _place(eligible, {}, pod.requests)
            found.append(
                Resident(f"system pod {pod.name}", pod.requests, node.pool.name if node else None)
            )
    for obj in cluster.objects():
        if (obj.group, obj.kind) not in _RESIDENT_KINDS:
            continue
        replicas = mapping(obj.doc.get("spec")).get("replicas", 1)
        replicas = replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1
        for template in templates_of(obj):
            requests = _requests(template.spec)
            if requests is None:
                continue
            for _ in range(replicas):
                node = _place(nodes, template.spec, requests)
                found.append(
                    Resident(
                        f"{obj.kind} {obj.namespace}/{obj.name}",
                        requests,
                        node.pool.name if node else None,
                    )
                )
    return found


def _queue_of(obj: K8sObject, defined: kueue.Kueue) -> K8sObject | None:
    if kueue.framework(obj) is None or not obj.namespace or not defined.manages(obj.namespace):
        return None
    name = mapping(mapping(obj.doc.get("metadata")).get("labels")).get(kueue.QUEUE_LABEL)
    local = defined.local_queues.get((obj.namespace, str(name)))
    if local is None:
        return None
    return defined.cluster_queues.get(str(mapping(local.doc.get("spec")).get("clusterQueue")))


def _queued(obj: K8sObject, cluster: Cluster, defined: kueue.Kueue) -> QueuedJob | None:
    queue = _queue_of(obj, defined)
    if queue is None:
        return None
    sets = []
    for name, count, spec in kueue.named_pod_sets(obj):
        requests = _requests(spec)
        if requests is None:
            return None
        sets.append(PodSet(name, count, spec, requests))
    usage: dict[str, float] = {}
    for pod_set in sets:
        _add(usage, pod_set.requests, pod_set.count)
    specs = flavors.defined(cluster)
    groups = []
    for group in mappings(mapping(queue.doc.get("spec")).get("resourceGroups")):
        covered = frozenset(strings(group.get("coveredResources")))
        wanted = {n: v for n, v in usage.items() if n in covered}
        if not wanted:
            continue
        names = []
        for entry in mappings(group.get("flavors")):
            name = entry.get("name")
            if name not in specs or not all(flavors.compatible(s.spec, specs[name]) for s in sets):
                continue
            try:
                holds = all(sum(defined.available(queue, name, r)) >= v for r, v in wanted.items())
            except ValueError:
                return None
            if holds:
                names.append(str(name))
        if not names:
            return None  # never admitted: kueue-admission says why
        groups.append((covered, tuple(names)))
    return QueuedJob(obj, queue, tuple(sets), usage, tuple(groups))


def _admissions(
    queue: K8sObject, jobs: list[QueuedJob], defined: kueue.Kueue, nodes: list[Node], cluster
) -> list[Admission]:
    if len(jobs) > _MOST_ENUMERATED:
        subsets = [(job,) for job in jobs] + [tuple(jobs)]
    else:
        subsets = [
            combo
            for size in range(1, len(jobs) + 1)
            for combo in itertools.combinations(jobs, size)
        ]
    specs = flavors.defined(cluster)
    found = []
    for subset in subsets:
        for choice in itertools.product(*(job.choices() for job in subset)):
            usage: dict[tuple[str, str], float] = defaultdict(float)
            for job, names in zip(subset, choice):
                for (covered, _), name in zip(job.groups, names):
                    for resource, amount in job.usage.items():
                        if resource in covered:
                            usage[(name, resource)] += amount
            try:
                within = all(
                    amount <= sum(defined.available(queue, flavor, resource)) + 1e-9
                    for (flavor, resource), amount in usage.items()
                )
            except ValueError:
                continue
            if not within:
                continue
            state = [Node(n.pool, n.index, dict(n.free)) for n in nodes]
            placed: dict[str, int] = {}
            ordered = sorted(zip(subset, choice), key=lambda pair: -pair[0].usage.get("cpu", 0.0))
            for job, names in ordered:
                assigned = [specs[name] for name in names]
                count = 0
                for pod_set in job.pod_sets:
                    spec = flavors.admitted_spec(pod_set.spec, assigned)
                    for _ in range(pod_set.count):
                        count += _place(state, spec, pod_set.requests) is not None
                placed[job.label] = count
            found.append(Admission(queue, tuple(zip(subset, choice)), dict(usage), placed))
    return found


def _rooms(
    cluster: Cluster, profile: Profile, nodes: list[Node], defined: kueue.Kueue
) -> list[FlavorRoom]:
    specs = flavors.defined(cluster)
    rooms = []
    for queue in defined.cluster_queues.values():
        for g, group in enumerate(mappings(mapping(queue.doc.get("spec")).get("resourceGroups"))):
            for f, entry in enumerate(mappings(group.get("flavors"))):
                name = entry.get("name")
                if name not in specs:
                    continue
                pools = flavors.pools_of(specs[name], profile, tolerated=True)
                if not pools:
                    continue  # schedulable: its nodeLabels match no pool
                nominal, paths = {}, {}
                for r, resource in enumerate(mappings(entry.get("resources"))):
                    try:
                        amount = quantity.parse(resource.get("nominalQuota", 0))
                    except ValueError:
                        continue
                    nominal[str(resource.get("name"))] = amount
                    paths[str(resource.get("name"))] = (
                        f"spec.resourceGroups[{g}].flavors[{f}].resources[{r}].nominalQuota"
                    )
                free: dict[str, float] = {}
                for node in nodes:
                    if node.pool in pools:
                        _add(free, node.free)
                rooms.append(
                    FlavorRoom(queue, str(name), tuple(p.name for p in pools), nominal, free, paths)
                )
    return rooms


def build(cluster: Cluster) -> Model | None:
    """The environment's model, or None when it has no cluster profile."""
    profile = profiles.profile_of(cluster)
    if profile is None:
        return None
    nodes = _nodes(profile)
    residents = _residents(cluster, profile, nodes)
    defined = cluster.memo("kueue", kueue.Kueue)
    jobs = [job for obj in cluster.objects() if (job := _queued(obj, cluster, defined))]
    admissions = []
    for queue in defined.cluster_queues.values():
        mine = [job for job in jobs if job.queue is queue]
        if mine:
            admissions += _admissions(queue, mine, defined, nodes, cluster)
    rooms = _rooms(cluster, profile, nodes, defined)
    rows = []
    for pool in profile.pools:
        allocatable: dict[str, float] = {}
        _add(allocatable, pool.allocatable, pool.max_nodes)
        requested: dict[str, float] = {}
        for node in nodes:
            if node.pool is pool:
                _add(requested, {n: pool.allocatable.get(n, 0.0) - v for n, v in node.free.items()})
        row = PoolRow(pool, allocatable, {n: v for n, v in requested.items() if v > 1e-9})
        row.quota = [(room.flavor, room.nominal) for room in rooms if pool.name in room.pools]
        rows.append(row)
    found = kueue.wait_for_pods_ready(cluster)
    return Model(
        profiles.environment_folder(cluster),
        profile,
        rows,
        residents,
        rooms,
        jobs,
        admissions,
        found[0] if found else None,
        found[1] if found else None,
    )


def model_of(cluster: Cluster) -> Model | None:
    return cluster.memo("capacity", build)


def show(amounts: dict[str, float]) -> str:
    """`cpu 1.85, memory 6.34Gi` (cpu and memory first)."""
    order = sorted(amounts, key=lambda n: ({"cpu": 0, "memory": 1}.get(n, 2), n))
    return ", ".join(f"{n} {quantity.show(n, amounts[n])}" for n in order) or "-"
