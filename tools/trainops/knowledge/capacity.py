"""An environment as a whole: what its cluster can hold, what already runs there, and every set
of jobs Kueue may admit at once, placed pod by pod.

- Nodes: each pool of the environment's profile at its maximum size, each node offering the
  pool's allocatable (the provider's reservations already taken, knowledge/reservations.py).
  Nodes alike (same pool, same room left) are kept as one run with a count, so neither a pool's
  size nor a replica count sizes anything: placing n pods alike costs what placing one does.
- Residents, placed before any job: the profile's system pods (the control plane, CoreDNS, the
  CNI: `systemPods`, each cited in trainops.yaml) and the environment's DaemonSets on every node
  they select and tolerate; its Deployments, StatefulSets and ReplicaSets (the operators) and
  the profile's other system pods, replica by replica, on the first node that holds them.
- Jobs outside Kueue's quota, placed after the residents and before Kueue's room is measured:
  the jobs no Kueue queue admits run on the same nodes (a Volcano Job: Kueue v0.18.6 has no
  Volcano integration, pkg/controller/jobs holds none; a Kueue job kind without the queue-name
  label, which Kueue leaves alone unless manageJobsWithoutQueueName is set,
  pkg/controller/jobframework/reconciler.go). What Kueue's quota may admit is what is left
  beside them, and a Volcano Queue those jobs run in may hold up to its `capability` ("upper
  limit of queue resource usage", Volcano's docs/queue_resource_management.md): that capability
  is held against what the nodes have left beside the residents once Kueue's nominal quota is
  taken (VolcanoRoom).
- Admissions: for each ClusterQueue, every set of its jobs and every flavor Kueue may assign
  each (its nodeLabels and tolerations added to the pods, knowledge/flavors.py) whose gangs
  together stay within the flavors' nominal quota plus what the cohort lends — what Kueue's
  quota lets it admit at once. Sets are grown one job at a time and a set over the quota is
  never grown further, smallest sets first, up to MOST_SETS sets beyond the jobs alone: a
  ClusterQueue admits workloads only while the sum of their requests stays within a flavor's
  quota (Kueue's site/content/en/docs/concepts/cluster_queue.md, "admits Workloads if and only
  if" and "Flavors and borrowing semantics", read at a commit of main, not at the v0.18.6 tag),
  and requests, never negative, only add up: no superset of a set over it is admitted.
- Placement: the admitted pods, largest gang first, each on the first node of a pool it selects
  and tolerates with room for its requests, as kube-scheduler's filters would allow it
  (kube-scheduler places pods one by one: a gang whose pods do not all fit runs in part).
- Past MOST_SETS, a queue's other sets are not placed one by one: each job not already shown
  short is held to a worst case instead (_worst_placed), which never says a gang fits when some
  admissible set leaves it short; a job it cannot clear is reported as bounded, not placed.

Kueue releases a job's quota only when the job finishes (v0.18.6
pkg/controller/jobframework/reconciler.go: a job's Finished() marks its Workload finished;
pkg/controller/core/workload_controller.go deletes a finished Workload from the cache), so pods
that never schedule hold their gang's quota until then — unless `waitForPodsReady` evicts the
workload when its pods are not ready within the timeout and requeues it after a backoff
(apis/config/v1beta2/configuration_types.go, WaitForPodsReady).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property

from trainops.knowledge import flavors, kueue, profiles
from trainops.knowledge.pod_templates import templates_of
from trainops.knowledge.profiles import NodePool, Profile
from trainops.model import quantity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster
from trainops.model.shape import mapping, mappings, sequence, strings

# Resident controllers: their replicas run all the time.
_RESIDENT_KINDS = {("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "ReplicaSet")}
# Sets of two or more jobs placed pod by pod in one queue; past it, the worst case bounds the rest.
# Every set of one job is always placed (one per job and flavor choice: linear).
MOST_SETS = 512
# A pod count above this is none the API server accepts (replicas and parallelism are int32; a
# JobSet multiplies two): the object is judged unreadable, as an unreadable quantity is.
_MOST_PODS = 2**62
# Extensions of a set tried against the quota before the search stops (most fail when the
# quota is tight, and trying them all is quadratic in the jobs).
_MOST_TRIES = 50 * MOST_SETS
# Up to this many nodes, the worst case weighs every way the resources may share them.
_MOST_NODES_WEIGHED = 16
_SLACK = 1e-9  # what float sums of quantities may be off by


@dataclass
class NodeRun:
    """`count` nodes of one pool with the same room left, in the order kube-scheduler's
    first-fit tries them."""

    pool: NodePool
    count: int
    free: dict[str, float]


@dataclass(frozen=True)
class Resident:
    owner: str  # "DaemonSet kube-system/kindnet", "system pod etcd"
    requests: dict[str, float]
    pool: str | None  # where it runs (None: no node holds it)
    per_node: bool = False
    pods: int = 1  # how many of its pods are here (per_node: on each node of the pool)
    outside_quota: bool = False  # a job that runs outside Kueue's quota (a Volcano Job, unqueued)

    @property
    def shown(self) -> str:
        return self.owner + (OUTSIDE if self.outside_quota else "")


@dataclass(frozen=True)
class PodSet:
    name: str
    count: int
    spec: dict
    requests: dict[str, float]


# A gang's flavor assignments modelled, at most: one of a pod set per flavor and group multiplies
# them (a JobSet of ten replicated Jobs and three flavors has 59,049); past it, its queue's search
# says it is incomplete.
MOST_CHOICES = 256


@dataclass(frozen=True, eq=False)  # compared and hashed by identity
class QueuedJob:
    obj: K8sObject
    queue: K8sObject  # its ClusterQueue
    pod_sets: tuple[PodSet, ...]
    usage: dict[str, float]  # the whole gang's requests
    # Per resource group the gang uses: (the resources it covers, for each pod set the flavors
    # Kueue may assign it, None where the pod set requests none of them). Kueue assigns each pod
    # set a flavor of its own in each group, the pod sets in turn (v0.18.6 pkg/scheduler/
    # flavorassigner/flavorassigner.go, Assign): a gang may take two flavors, a Master that
    # tolerates no GPU taint on-demand quota and its GPU workers the GPU flavor.
    groups: tuple[tuple[frozenset[str], tuple[tuple[str, ...] | None, ...]], ...]

    @property
    def label(self) -> str:
        return f"{self.obj.kind} {self.obj.name}"

    @property
    def pods(self) -> int:
        return sum(s.count for s in self.pod_sets)

    @property
    def _slots(self) -> list[tuple[str, ...]]:
        return [names for _, per_set in self.groups for names in per_set if names is not None]

    def choices(self) -> list[tuple[str, ...]]:
        """The assignments Kueue may make: a flavor for each pod set in each group it uses,
        group by group, the pod sets in order; the first MOST_CHOICES of them, in the order of
        the flavors, which is the order Kueue tries them in (flavorassigner.go)."""
        return [tuple(c) for c in itertools.islice(itertools.product(*self._slots), MOST_CHOICES)]

    @property
    def every_choice(self) -> bool:
        """Whether choices() holds every assignment (a gang of many pod sets may have more)."""
        return math.prod(len(names) for names in self._slots) <= MOST_CHOICES

    def assigned(self, choice: tuple[str, ...]) -> list[tuple[frozenset[str], list[str]]]:
        """Per group, the flavor the choice gives each pod set (None: it uses none of the group)."""
        found, position = [], 0
        for covered, per_set in self.groups:
            flavors_of: list = []
            for names in per_set:
                flavors_of.append(None if names is None else choice[position])
                position += names is not None
            found.append((covered, flavors_of))
        return found

    def flavors_of(self, choice: tuple[str, ...]) -> list[list[str]]:
        """Per pod set, the flavors the choice gives it (one in each group it uses)."""
        per_set: list[list[str]] = [[] for _ in self.pod_sets]
        for _, given in self.assigned(choice):
            for index, name in enumerate(given):
                if name is not None:
                    per_set[index].append(name)
        return per_set


def flavor_names(choice: tuple[str, ...]) -> tuple[str, ...]:
    """The flavors of a choice, each once, in order: what a message names."""
    return tuple(dict.fromkeys(choice))


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
class Search:
    """How a ClusterQueue's admissible sets were judged: each placed (complete), or the first
    `placed` of them (every set of up to `size` jobs, smallest first) and a worst case past them."""

    queue: K8sObject
    placed: int
    complete: bool
    size: int  # the most jobs in a set placed


@dataclass(frozen=True, eq=False)
class Bounded:
    """A job the worst case could not clear in a queue whose sets were not all placed: with the
    jobs placed before it taking what the quota lets them, as few as `at_least` of its pods
    may fit (with the flavors `flavors`)."""

    job: QueuedJob
    flavors: tuple[str, ...]
    at_least: int


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
            if amount > self.free.get(name, 0.0) + _SLACK
        }


@dataclass(frozen=True, eq=False)
class VolcanoRoom:
    """A Volcano Queue that jobs outside Kueue's quota run in: its capability (None: none set, so
    the whole cluster) against what the nodes it may use have left beside the residents, less
    Kueue's nominal quota of the flavors on them (what Kueue may fill at the same time)."""

    name: str
    queue: K8sObject | None  # the Queue object (None: not in the environment)
    capability: dict[str, float] | None
    left: dict[str, float]
    quota: dict[str, float]  # Kueue's nominal quota on those pools
    jobs: tuple[str, ...]  # the jobs outside Kueue that name it

    def over(self) -> dict[str, tuple[float, float]]:
        """Resource -> (capability, left) where the capability is more than is left (with no
        capability, every resource is: the queue may take the whole cluster)."""
        if self.capability is None:
            return {name: (math.inf, amount) for name, amount in self.left.items()}
        return {
            name: (amount, self.left.get(name, 0.0))
            for name, amount in self.capability.items()
            if amount > max(self.left.get(name, 0.0), 0.0) + _SLACK
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
    searches: list[Search] = field(default_factory=list)
    bounded: list[Bounded] = field(default_factory=list)
    volcano: list[VolcanoRoom] = field(default_factory=list)

    def failing(self) -> list[Admission]:
        return [a for a in self.admissions if a.short()]

    @cached_property  # every root of the environment asks
    def smallest_failing(self) -> dict[int, Admission]:
        """By id(job): the first of the smallest admissions in which its pods do not all fit."""
        found: dict[int, Admission] = {}
        for admission in self.failing():
            for job in admission.short():
                known = found.get(id(job))
                if known is None or len(admission.jobs) < len(known.jobs):
                    found[id(job)] = admission
        return found

    def search_of(self, queue: K8sObject) -> Search | None:
        return next((s for s in self.searches if s.queue is queue), None)


def _add(total: dict[str, float], more: dict[str, float], times: float = 1.0) -> None:
    for name, amount in more.items():
        total[name] = total.get(name, 0.0) + amount * times


def _selects(spec: dict, pool: NodePool) -> bool:
    """The pod may run on the pool's nodes (labels and taints; resources aside)."""
    return profiles.misfit(spec, {}, pool) is None


def _nodes(profile: Profile) -> list[NodeRun]:
    return [NodeRun(pool, pool.max_nodes, dict(pool.allocatable)) for pool in profile.pools]


def _room(free: dict[str, float], requests: dict[str, float]) -> int | None:
    """How many pods of `requests` one node with `free` takes, placed one by one while each
    fits (every requested amount within what is free, give or take _SLACK); None: any number."""
    most: int | None = None
    for name, amount in requests.items():
        have = free.get(name, 0.0) + _SLACK
        if have < amount:
            return 0
        if math.isinf(have):
            continue
        fits = math.floor(have / amount)
        most = fits if most is None else min(most, fits)
    return most


def _place(
    runs: list[NodeRun], pools: frozenset[int], requests: dict[str, float], count: int
) -> list[tuple[NodePool, int]]:
    """Place `count` pods alike, each on the first node (of a pool in `pools`, by id) with room,
    as first-fit does one by one; `runs` is split where the nodes of a run come to differ.
    Returns (pool, pods placed there) in node order."""
    placed: list[tuple[NodePool, int]] = []
    left, index = count, 0
    while left and index < len(runs):
        run = runs[index]
        room = _room(run.free, requests) if id(run.pool) in pools else 0
        if room == 0:
            index += 1
            continue
        if room is None:  # it requests nothing: the first node takes them all
            room = left
        full = min(run.count, left // room)
        rest = left - full * room if full < run.count else 0
        pieces = []
        if full:
            pieces.append(NodeRun(run.pool, full, _less(run.free, requests, room)))
        if rest:
            pieces.append(NodeRun(run.pool, 1, _less(run.free, requests, rest)))
        untouched = run.count - full - (1 if rest else 0)
        if untouched:
            pieces.append(NodeRun(run.pool, untouched, run.free))
        runs[index : index + 1] = pieces
        here = full * room + rest
        placed.append((run.pool, here))
        left -= here
        index += len(pieces) - (1 if untouched else 0)
    return placed


def _less(free: dict[str, float], requests: dict[str, float], pods: int) -> dict[str, float]:
    less = dict(free)
    _add(less, requests, -float(pods))
    return less


def _requests(spec: dict) -> dict[str, float] | None:
    try:
        found = {n: v for n, v in kueue.pod_requests(spec).items() if v}
    except ValueError:
        return None  # kueue-admission and schedulable report unreadable quantities
    if any(not 0 < v < math.inf for v in found.values()):
        return None  # negative or unbounded: the API server refuses it (api-validation says so)
    return found


def _replicas(obj: K8sObject) -> int:
    replicas = mapping(obj.doc.get("spec")).get("replicas", 1)
    if not isinstance(replicas, int) or isinstance(replicas, bool):
        return 1
    return min(max(replicas, 0), _MOST_PODS)  # more than any node holds, counted all the same


def _residents(cluster: Cluster, profile: Profile, nodes: list[NodeRun]) -> list[Resident]:
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
        eligible = frozenset(
            id(pool) for pool in profile.pools if pod.runs_on(pool) and _selects({}, pool)
        )
        found += _placed(f"system pod {pod.name}", nodes, eligible, pod.requests, pod.replicas)
    for obj in cluster.objects():
        if (obj.group, obj.kind) not in _RESIDENT_KINDS:
            continue
        replicas = _replicas(obj)
        for template in templates_of(obj):
            requests = _requests(template.spec)
            if requests is None:
                continue
            pools = frozenset(id(p) for p in profile.pools if _selects(template.spec, p))
            owner = f"{obj.kind} {obj.namespace}/{obj.name}"
            found += _placed(owner, nodes, pools, requests, replicas)
    return found


VOLCANO_JOB = ("batch.volcano.sh", "Job")
OUTSIDE = " (outside Kueue's quota)"  # follows a Resident's owner when it is such a job
VOLCANO_QUEUE = ("scheduling.volcano.sh", "Queue")
# A Volcano Job naming no queue is put in `default` (Volcano v1.15.1
# pkg/webhooks/admission/jobs/mutate/mutate_job.go, patchDefaultQueue).
_VOLCANO_DEFAULT_QUEUE = "default"
# GitOps hooks run to completion before or after a sync: they come and go with it.
_HOOK_ANNOTATIONS = ("argocd.argoproj.io/hook", "helm.sh/hook")


def _outside_pod_sets(obj: K8sObject, defined: kueue.Kueue) -> list[tuple[int, dict]] | None:
    """(pod count, pod spec) of each pod set of a job that runs outside Kueue's quota, or None
    when obj is no such job: a Volcano Job (every task's replicas), or a job kind Kueue manages
    with no queue-name label (Kueue does not suspend it). A GitOps hook is none: it runs only
    during a sync."""
    annotations = mapping(mapping(obj.doc.get("metadata")).get("annotations"))
    if any(key in annotations for key in _HOOK_ANNOTATIONS):
        return None
    if (obj.group, obj.kind) == VOLCANO_JOB:
        tasks = sequence(mapping(obj.doc.get("spec")).get("tasks"))
        found = []
        for template in templates_of(obj):
            index = int(template.path.removeprefix("spec.tasks[").partition("]")[0])
            replicas = mapping(tasks[index]).get("replicas", 1)
            if isinstance(replicas, int) and not isinstance(replicas, bool) and replicas >= 0:
                found.append((min(replicas, _MOST_PODS), template.spec))
        return found
    if kueue.framework(obj) is None or obj.kind == "RayCluster":
        return None  # a RayCluster is a resident's kind of its own; not a job
    labels = mapping(mapping(obj.doc.get("metadata")).get("labels"))
    if kueue.QUEUE_LABEL in labels or _queue_of(obj, defined) is not None:
        return None
    return [
        (count, spec) for _, count, spec in kueue.named_pod_sets(obj) if 0 <= count <= _MOST_PODS
    ]


def _outside(
    cluster: Cluster, profile: Profile, nodes: list[NodeRun], defined: kueue.Kueue
) -> tuple[list[Resident], dict[str, list[tuple[str, frozenset[int]]]]]:
    """The jobs outside Kueue's quota placed as residents, and by Volcano queue name the jobs
    in it with the pools (by id) their pods may use."""
    found: list[Resident] = []
    queues: dict[str, list[tuple[str, frozenset[int]]]] = {}
    for obj in cluster.objects():
        pod_sets = _outside_pod_sets(obj, defined)
        if pod_sets is None:
            continue
        kind = "Volcano Job" if (obj.group, obj.kind) == VOLCANO_JOB else obj.kind
        owner = f"{kind} {obj.namespace}/{obj.name}"
        reach: frozenset[int] = frozenset()
        for count, spec in pod_sets:
            requests = _requests(spec)
            if requests is None:
                continue
            pools = frozenset(id(p) for p in profile.pools if _selects(spec, p))
            reach |= pools
            found += _placed(owner, nodes, pools, requests, count, outside_quota=True)
        if (obj.group, obj.kind) == VOLCANO_JOB:
            name = mapping(obj.doc.get("spec")).get("queue") or _VOLCANO_DEFAULT_QUEUE
            queues.setdefault(str(name), []).append((owner, reach))
    return found, queues


def _volcano_rooms(
    cluster: Cluster,
    profile: Profile,
    before: list[NodeRun],
    rooms: list[FlavorRoom],
    queues: dict[str, list[tuple[str, frozenset[int]]]],
) -> list[VolcanoRoom]:
    defined = {obj.name: obj for obj in cluster.objects() if (obj.group, obj.kind) == VOLCANO_QUEUE}
    found = []
    for name, jobs in sorted(queues.items()):
        reach = frozenset().union(*(pools for _, pools in jobs))
        names = {pool.name for pool in profile.pools if id(pool) in reach}
        left: dict[str, float] = {}
        for node in before:
            if id(node.pool) in reach:
                _add(left, node.free, node.count)
        quota: dict[str, float] = {}
        for room in rooms:
            if names & set(room.pools):
                _add(quota, room.nominal)
        _add(left, quota, -1.0)
        queue = defined.get(name)
        capability: dict[str, float] | None = None
        if queue is not None:
            raw = mapping(mapping(queue.doc.get("spec")).get("capability"))
            if raw:
                capability = {}
                for resource, amount in raw.items():
                    try:
                        capability[str(resource)] = quantity.parse(amount)
                    except ValueError:
                        continue  # api-validation reports an unreadable quantity
        found.append(
            VolcanoRoom(name, queue, capability, left, quota, tuple(job for job, _ in jobs))
        )
    return found


def _placed(
    owner: str,
    nodes: list[NodeRun],
    pools: frozenset[int],
    requests: dict,
    replicas: int,
    outside_quota: bool = False,
) -> list[Resident]:
    """Residents for `replicas` pods placed first-fit: one per pool they landed in (in node
    order), and one for those no node holds."""
    by_pool: dict[str | None, int] = {}
    for pool, pods in _place(nodes, pools, requests, replicas):
        by_pool[pool.name] = by_pool.get(pool.name, 0) + pods
    unplaced = replicas - sum(by_pool.values())
    if unplaced:
        by_pool[None] = unplaced
    return [
        Resident(owner, requests, name, pods=pods, outside_quota=outside_quota)
        for name, pods in by_pool.items()
    ]


def _queue_of(obj: K8sObject, defined: kueue.Kueue) -> K8sObject | None:
    if kueue.framework(obj) is None or not obj.namespace or not defined.manages(obj.namespace):
        return None
    name = mapping(mapping(obj.doc.get("metadata")).get("labels")).get(kueue.QUEUE_LABEL)
    local = defined.local_queues.get((obj.namespace, str(name)))
    if local is None:
        return None
    return defined.cluster_queues.get(str(mapping(local.doc.get("spec")).get("clusterQueue")))


def _available(
    defined: kueue.Kueue, queue: K8sObject, key: tuple[str, str], known: dict
) -> float | None:
    """A ClusterQueue's nominal quota of (flavor, resource) plus what its cohort lends (None:
    unreadable, so nothing is admitted with it), read once a build: every job asks."""
    if (queue.name, key) not in known:
        try:
            known[(queue.name, key)] = sum(defined.available(queue, *key))
        except ValueError:
            known[(queue.name, key)] = None
    return known[(queue.name, key)]


def _queued(
    obj: K8sObject, cluster: Cluster, defined: kueue.Kueue, quota: dict
) -> QueuedJob | None:
    queue = _queue_of(obj, defined)
    if queue is None:
        return None
    sets = []
    for name, count, spec in kueue.named_pod_sets(obj):
        requests = _requests(spec)
        if requests is None or not 0 <= count <= _MOST_PODS:
            return None
        sets.append(PodSet(name, count, spec, requests))
    usage: dict[str, float] = {}
    for pod_set in sets:
        _add(usage, pod_set.requests, pod_set.count)
    specs = flavors.defined(cluster)
    groups = []
    for group in mappings(mapping(queue.doc.get("spec")).get("resourceGroups")):
        covered = frozenset(strings(group.get("coveredResources")))
        per_set: list[tuple[str, ...] | None] = []
        for pod_set in sets:
            wanted = {n: v * pod_set.count for n, v in pod_set.requests.items() if n in covered}
            if not wanted:
                per_set.append(None)
                continue
            names = []
            for entry in mappings(group.get("flavors")):
                name = entry.get("name")
                if name not in specs or not flavors.compatible(pod_set.spec, specs[name]):
                    continue
                amounts = [
                    (_available(defined, queue, (name, r), quota), v) for r, v in wanted.items()
                ]
                if any(limit is None for limit, _ in amounts):
                    return None
                if all(limit >= v for limit, v in amounts if limit is not None):
                    names.append(str(name))
            if not names:
                return None  # never admitted: kueue-admission says why
            per_set.append(tuple(names))
        if any(names is not None for names in per_set):
            groups.append((covered, tuple(per_set)))
    return QueuedJob(obj, queue, tuple(sets), usage, tuple(groups))


class _Queue:
    """One ClusterQueue's jobs, their flavor choices, and what each choice asks of the quota and
    of the nodes: worked out once, shared by every set they are in."""

    def __init__(
        self,
        queue: K8sObject,
        jobs: list[QueuedJob],
        defined: kueue.Kueue,
        cluster: Cluster,
        profile: Profile,
        quota: dict,
    ):
        self.queue, self.jobs, self.profile = queue, jobs, profile
        self.specs = flavors.defined(cluster)
        self.choices = [job.choices() for job in jobs]
        self.usage = [
            [_flavor_usage(job, names) for names in choices]
            for job, choices in zip(jobs, self.choices)
        ]
        # Each pod set as admitted with each choice: (the pools it may run on, by id, its
        # requests, its pod count).
        self.pods = [
            [
                [
                    self._pod_set(pod_set, names)
                    for pod_set, names in zip(job.pod_sets, job.flavors_of(choice))
                ]
                for choice in choices
            ]
            for job, choices in zip(jobs, self.choices)
        ]
        # Where the placement puts each job among the others: largest gang (by CPU) first.
        self.order = [(-job.usage.get("cpu", 0.0), j) for j, job in enumerate(jobs)]
        self._defined, self._quota = defined, quota
        self._covering_of: dict[str, list[tuple[str, frozenset[int]]] | None] = {}

    def _pod_set(self, pod_set: PodSet, names: list[str]) -> tuple:
        spec = flavors.admitted_spec(pod_set.spec, [self.specs[name] for name in names])
        pools = frozenset(id(pool) for pool in self.profile.pools if _selects(spec, pool))
        return pools, pod_set.requests, pod_set.count

    def available(self, key: tuple[str, str]) -> float | None:
        return _available(self._defined, self.queue, key, self._quota)

    def others_load(self, resource: str, amount: float, pools: frozenset[int], mine: dict) -> float:
        """The most of `resource` the jobs placed first (`amount` together) may put on the
        pools: where the queue's resource groups cover it, no more than the quota of the flavors
        whose nodes lie there leaves beside the job's own share (`mine`) of it."""
        covering = self._covering(resource)
        if covering is None:
            return amount
        quota = 0.0
        for name, reach in covering:
            if reach & pools:
                quota += (self.available((name, resource)) or 0.0) - mine.get((name, resource), 0.0)
        return min(amount, max(quota, 0.0))

    def _covering(self, resource: str) -> list[tuple[str, frozenset[int]]] | None:
        """The flavors of the group covering `resource` (None: none does), each with the pools
        its nodeLabels select (by id): where the pods of a job assigned it may run."""
        if resource not in self._covering_of:
            self._covering_of[resource] = self._flavors_covering(resource)
        return self._covering_of[resource]

    def _flavors_covering(self, resource: str) -> list[tuple[str, frozenset[int]]] | None:
        groups = mappings(mapping(self.queue.doc.get("spec")).get("resourceGroups"))
        covering = [g for g in groups if resource in strings(g.get("coveredResources"))]
        if not covering:
            return None
        return [
            (
                name,
                frozenset(
                    map(id, flavors.pools_of(self.specs[name], self.profile, tolerated=False))
                ),
            )
            for group in covering
            for entry in mappings(group.get("flavors"))
            # no job is assigned a flavor the environment does not define
            if isinstance(name := entry.get("name"), str) and name in self.specs
        ]

    def within(self, usage: dict[tuple[str, str], float], more: dict) -> bool:
        for key, amount in more.items():
            limit = self.available(key)
            if limit is None or usage.get(key, 0.0) + amount > limit + _SLACK:
                return False
        return True


def _flavor_usage(job: QueuedJob, choice: tuple[str, ...]) -> dict[tuple[str, str], float]:
    usage: dict[tuple[str, str], float] = {}
    for covered, given in job.assigned(choice):
        for pod_set, name in zip(job.pod_sets, given):
            if name is None:
                continue
            for resource, amount in pod_set.requests.items():
                if resource in covered:
                    key = (name, resource)
                    usage[key] = usage.get(key, 0.0) + amount * pod_set.count
    return usage


# A set of jobs Kueue may admit: (job indexes, choice indexes, its usage of the quota).
_Set = tuple[tuple[int, ...], tuple[int, ...], dict[tuple[str, str], float]]


def _admissible(queue: _Queue) -> tuple[list[_Set], int | None]:
    """The sets Kueue may admit, smallest first and in the order of the jobs and their choices,
    each grown only from an admissible set (a set over the quota has no admissible superset):
    every set of one job, then at most MOST_SETS more, trying at most _MOST_TRIES extensions.
    Returns (sets, None) when that is all of them, else (sets, the most jobs of a size whose
    sets are all there)."""
    level: list[_Set] = [
        ((j,), (c,), dict(usage))
        for j, usages in enumerate(queue.usage)
        for c, usage in enumerate(usages)
        if queue.within({}, usage)
    ]
    found: list[_Set] = []
    grown_in_all, tries = 0, 0
    while level:
        level.sort(key=lambda chosen: (chosen[0], chosen[1]))
        found += level
        grown: list[_Set] = []
        for jobs, choices, usage in level:
            for j in range(jobs[-1] + 1, len(queue.jobs)):
                for c, more in enumerate(queue.usage[j]):
                    tries += 1
                    if tries > _MOST_TRIES:
                        return found + sorted(grown, key=lambda s: (s[0], s[1])), len(jobs)
                    if not queue.within(usage, more):
                        continue
                    if grown_in_all == MOST_SETS:
                        return found + sorted(grown, key=lambda s: (s[0], s[1])), len(jobs)
                    total = dict(usage)
                    for key, amount in more.items():
                        total[key] = total.get(key, 0.0) + amount
                    grown.append(((*jobs, j), (*choices, c), total))
                    grown_in_all += 1
        level = grown
    return found, None


def _admit(queue: _Queue, chosen: _Set, nodes: list[NodeRun]) -> Admission:
    indexes, choices, usage = chosen
    state = list(nodes)  # _place replaces runs, never edits one
    placed: dict[str, int] = {}
    for j, c in sorted(zip(indexes, choices), key=lambda pair: queue.order[pair[0]]):
        count = 0
        for pools, requests, pods in queue.pods[j][c]:
            count += sum(here for _, here in _place(state, pools, requests, pods))
        placed[queue.jobs[j].label] = count
    jobs = tuple(
        (queue.jobs[j], flavor_names(queue.choices[j][c])) for j, c in zip(indexes, choices)
    )
    return Admission(queue.queue, jobs, dict(usage), placed)


def _bounded(queue: _Queue, nodes: list[NodeRun], short: set[int]) -> list[Bounded]:
    """The jobs of a queue not all of whose sets were placed that the worst case cannot clear
    (jobs already shown short in a placed set aside): at its worst choice of flavors."""
    # What the jobs placed before each one request together, in the placement's order.
    before: dict[int, dict[str, float]] = {}
    running: dict[str, float] = {}
    for _, j in sorted(queue.order):
        before[j] = dict(running)
        _add(running, queue.jobs[j].usage)
    found = []
    for j, job in enumerate(queue.jobs):
        if id(job) in short:
            continue
        worst = min(
            (_worst_placed(queue, j, c, before[j], nodes), c) for c in range(len(queue.choices[j]))
        )
        if worst[0] < job.pods:
            found.append(Bounded(job, flavor_names(queue.choices[j][worst[1]]), worst[0]))
    return found


def _worst_placed(
    queue: _Queue, j: int, c: int, before: dict[str, float], nodes: list[NodeRun]
) -> int:
    """At least how many of job j's pods fit with choice c in any admissible set, whatever the
    other jobs of the set. Sound, not tight: what is placed before each of its pod sets — the
    jobs the placement puts first (`before`, all of them, no more than the quota of the
    flavors on its pools lets them use) and the job's own earlier pod sets — is taken to land
    where it costs the pod set the most room, each resource on its own (_destroyed)."""
    mine = queue.usage[j][c]
    own: dict[str, float] = {}
    at_least = 0
    for pools, requests, count in queue.pods[j][c]:
        runs = [run for run in nodes if id(run.pool) in pools]
        slots = _slots(runs, requests)
        if slots is None:  # it requests nothing: the first node takes them all
            at_least += count
            continue
        load = {
            name: queue.others_load(name, before.get(name, 0.0), pools, mine) + own.get(name, 0.0)
            for name in requests
        }
        lost = _lost(runs, requests, load)
        at_least += max(0, min(count, slots - lost))
        _add(own, requests, count)
    return at_least


def _slots(runs: list[NodeRun], requests: dict[str, float]) -> int | None:
    """How many pods of `requests` the runs hold (None: any number, as it requests nothing)."""
    if not runs:
        return 0
    total = 0
    for run in runs:
        room = _room(run.free, requests)
        if room is None:
            return None
        total += room * run.count
    return total


def _lost(runs: list[NodeRun], requests: dict[str, float], load: dict[str, float]) -> int:
    """The most slots for pods of `requests` the loads can take away together. A node loses
    what the resource that hurts it most takes, not their sum: with few nodes, every way of
    giving each node to one resource is weighed (_destroyed_within); with more, each
    resource's loss is added up, which may say more, never less."""
    hit = [name for name, amount in load.items() if amount > 0]
    nodes = sum(run.count for run in runs if _room(run.free, requests))
    if len(hit) < 2 or nodes > _MOST_NODES_WEIGHED:
        return sum(_destroyed(runs, requests, name, load[name]) for name in hit)
    best = [0] * (nodes + 1)  # by how many nodes the resources so far may touch
    for name in hit:
        taken = _destroyed_within(runs, requests, name, load[name])
        best = [max(best[t - u] + taken[u] for u in range(t + 1)) for t in range(nodes + 1)]
    return best[nodes]


def _destroyed_within(
    runs: list[NodeRun], requests: dict[str, float], name: str, load: float
) -> list[int]:
    """_destroyed's bound touching at most t nodes, for each t from 0 to every node with room."""
    amount = requests[name]
    spares: list[float] = []
    slots, most = 0, 0
    for run in runs:
        room = _room(run.free, requests) or 0
        if room:
            spares += [max(run.free.get(name, 0.0) - room * amount, 0.0)] * run.count
            slots, most = slots + room * run.count, max(most, room)
    spares.sort()
    taken, best, spent = [0], 0, 0.0
    for t, spare in enumerate(spares, 1):
        spent += spare
        if math.isinf(load):
            best = t * most
        elif spent <= load + _SLACK:
            rest = int((load + _SLACK - spent) // amount)
            best = max(best, t + min(t * (most - 1), slots - t, rest))
        taken.append(min(best, slots))
    return taken


def _destroyed(runs: list[NodeRun], requests: dict[str, float], name: str, load: float) -> int:
    """The most slots for pods of `requests` that `load` of one resource can take away, however
    it is split among the nodes. A node losing k of its m slots to it must hold more than its
    spare (what it has beyond m pods' worth) plus k-1 pods' worth, so with t nodes touched:
    at most t + min(t(m_max-1), slots-t, (load - the t smallest spares) / a pod's worth)."""
    amount = requests[name]
    nodes: list[tuple[float, int]] = []  # (spare, how many nodes), smallest spare first
    slots, most = 0, 0
    for run in runs:
        room = _room(run.free, requests) or 0
        if room:
            nodes.append((max(run.free.get(name, 0.0) - room * amount, 0.0), run.count))
            slots, most = slots + room * run.count, max(most, room)
    if math.isinf(load):
        return slots
    nodes.sort()
    budget = load + _SLACK
    best, touched, spent = 0, 0, 0.0
    for spare, count in nodes:
        # Within this run the bound is concave in t: its maximum is at an end of the run or
        # where two of the terms of its min cross (floor and ceiling of each).
        reach = count if spare == 0 else min(count, int((budget - spent) // spare))
        left = (budget - spent) / amount
        rate = spare / amount
        crossings = [slots / most - touched]  # t(m_max-1) = slots-t
        if most - 1 + rate:  # t(m_max-1) = what the load has left, in pods
            crossings.append((left - touched * (most - 1)) / (most - 1 + rate))
        if rate != 1:  # slots-t = what the load has left
            crossings.append((left - slots + touched) / (rate - 1))
        candidates = {0, reach}
        for at in crossings:
            if math.isfinite(at):
                candidates |= {math.floor(at), math.floor(at) + 1}
        for k in candidates:
            if 0 <= k <= reach:
                t = touched + k
                rest = int(max(budget - spent - k * spare, 0.0) // amount)
                best = max(best, t + min(t * (most - 1), slots - t, rest))
        if reach < count:
            break  # later runs spare more
        touched, spent = touched + count, spent + count * spare
    return min(slots, best)


def _rooms(
    cluster: Cluster, profile: Profile, nodes: list[NodeRun], defined: kueue.Kueue
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
                        _add(free, node.free, node.count)
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
    before = [NodeRun(run.pool, run.count, dict(run.free)) for run in nodes]
    outside, volcano_queues = _outside(cluster, profile, nodes, defined)
    residents += outside
    quota: dict = {}
    jobs = [job for obj in cluster.objects() if (job := _queued(obj, cluster, defined, quota))]
    admissions: list[Admission] = []
    searches, bounded = [], []
    for queue in defined.cluster_queues.values():
        mine = [job for job in jobs if job.queue is queue]
        if not mine:
            continue
        work = _Queue(queue, mine, defined, cluster, profile, quota)
        sets, partial = _admissible(work)
        placed = [_admit(work, chosen, nodes) for chosen in sets]
        admissions += placed
        most = max((len(a.jobs) for a in placed), default=0)
        complete = partial is None and all(job.every_choice for job in mine)
        searches.append(Search(queue, len(placed), complete, partial or most))
        if not complete:
            short = {id(job) for admission in placed for job in admission.short()}
            bounded += _bounded(work, nodes, short)
    rooms = _rooms(cluster, profile, nodes, defined)
    volcano = _volcano_rooms(cluster, profile, before, rooms, volcano_queues)
    rows = []
    for pool in profile.pools:
        allocatable: dict[str, float] = {}
        _add(allocatable, pool.allocatable, pool.max_nodes)
        requested: dict[str, float] = {}
        for node in nodes:
            if node.pool is pool:
                used = {n: pool.allocatable.get(n, 0.0) - v for n, v in node.free.items()}
                _add(requested, used, node.count)
        row = PoolRow(pool, allocatable, {n: v for n, v in requested.items() if v > _SLACK})
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
        searches,
        bounded,
        volcano,
    )


def model_of(cluster: Cluster) -> Model | None:
    return cluster.memo("capacity", build)


def show(amounts: dict[str, float]) -> str:
    """`cpu 1.85, memory 6.34Gi` (cpu and memory first)."""
    order = sorted(amounts, key=lambda n: ({"cpu": 0, "memory": 1}.get(n, 2), n))
    # A node filled to the last pod is left -1e-16, not "-0m"
    shown = {n: amounts[n] if abs(amounts[n]) > _SLACK else 0.0 for n in order}
    return ", ".join(f"{n} {quantity.show(n, shown[n])}" for n in order) or "-"
