"""Kueue's quota promises no more than the environment's cluster can run.

What it catches, in the model of each environment (knowledge/capacity.py: the profile's node
pools after the provider's reservations, the pods already running there — the profile's system
pods, the DaemonSets, the operators' Deployments — and every set of jobs Kueue may admit at once,
placed pod by pod):
- a ClusterQueue's nominal quota of a flavor above what that flavor's pools have left after the
  system and operator pods: Kueue admits what the nodes cannot hold;
- a job Kueue may admit (alone, or with others within the quota) whose pods do not all fit the
  nodes: the rest stay Pending while the whole gang holds its quota;
- in a queue with more such sets than trainops places one by one (knowledge/capacity.py,
  MOST_SETS beyond each job alone), a job a sound worst case cannot clear: the finding says it
  is that bound, not a placement (it may be pessimistic, never optimistic), and a warning;
- jobs outside Kueue's quota (a Volcano Job, a job with no queue-name label) are placed on the
  nodes beside the system and operator pods first, so a quota sized to the whole of what is left
  is reported as above;
- a Volcano Queue such jobs run in whose `capability` (none set: the whole cluster) is more than
  the nodes have left beside the system and operator pods once Kueue's nominal quota is taken:
  Volcano and Kueue each admit what together the nodes cannot hold;
- where such a gang can be placed only in part, a Kueue configuration without
  `waitForPodsReady`: the pods that did start, and the quota, are held until the job ends
  (its activeDeadlineSeconds, or never).

Why it matters: Kueue counts requests against its quota, not against the nodes. kube-scheduler
places pods one at a time, so a gang that does not fit starts in part; Kueue releases its quota
only once the job finishes (v0.18.6 jobframework/reconciler.go and core/workload_controller.go),
so the queue stalls behind a job that can never run.

How to fix: size the flavor's nominal quota to what `trainops capacity` shows is free (beside the
jobs outside it, and the capability of the Volcano Queues they run in); shrink the
jobs' requests (or move them to a flavor with room); enable `waitForPodsReady` in
operators/kueue/controller-config.yaml, so that Kueue evicts a gang whose pods are not ready in
time and requeues it after a backoff.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge import capacity
from trainops.knowledge.capacity import Admission, Bounded, Model, QueuedJob
from trainops.model import quantity
from trainops.model.findings import Finding, Severity, on_object
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered

ID = "capacity"
SEVERITY = Severity.ERROR
SUMMARY = "Kueue's quota fits what the nodes have left after system and operator pods"


def _finding(rendered: Rendered, obj: K8sObject, message: str, path: str, hint: str) -> Finding:
    return on_object(ID, SEVERITY, rendered.root, obj, message, path, hint)


def _free(model: Model, job: QueuedJob, names: tuple[str, ...]) -> str:
    """What the pools of the job's flavors have left after the residents, for the message."""
    rooms = [r for r in model.rooms if r.queue is job.queue and r.flavor in names]
    return "; ".join(f"{r.flavor} on {', '.join(r.pools)}: {capacity.show(r.free)}" for r in rooms)


def _job_findings(
    rendered: Rendered, model: Model, job: QueuedJob, admission: Admission
) -> Iterator[Finding]:
    placed = admission.placed[job.label]
    others = [other.label for other, _ in admission.jobs if other is not job]
    names = dict(admission.jobs)[job]
    together = f" together with {', '.join(others)}" if others else ""
    yield _finding(
        rendered,
        job.obj,
        f"Kueue may admit it{together} into flavor {', '.join(names)} (its gang: "
        f"{capacity.show(job.usage)}), yet placed pod by pod on the {model.profile.name} "
        f"cluster, its system and operator pods already there (left for jobs: "
        f"{_free(model, job, names)}), only {placed} of its {job.pods} pods fit: the rest stay "
        "Pending while the gang holds its quota",
        "spec",
        "lower the flavor's nominal quota to what is left (`trainops capacity`), or request less",
    )


def _bounded_findings(rendered: Rendered, model: Model, bound: Bounded) -> Iterator[Finding]:
    job = bound.job
    search = model.search_of(job.queue)
    size = search.size if search is not None else 1
    placed = f"{search.placed} placed, " if search is not None else ""
    # A warning: the bound may flag a gang that every set in fact leaves room for (in a third of
    # the random environments of tests/test_capacity_scale.py it did).
    yield on_object(
        ID,
        Severity.WARNING,
        rendered.root,
        job.obj,
        f"Kueue may admit it into flavor {', '.join(bound.flavors)} (its gang: "
        f"{capacity.show(job.usage)}) with other jobs of ClusterQueue {job.queue.name}, in "
        f"more sets than trainops places one by one ({placed}every set of up to {size} "
        f"job{'s' if size != 1 else ''}); bounding the rest by a worst case (the gangs placed "
        f"before it using all the quota lets them, where it hurts most), on the "
        f"{model.profile.name} cluster (left for jobs: {_free(model, job, bound.flavors)}) as "
        f"few as {bound.at_least} of its {job.pods} pods may fit, the rest Pending while the "
        "gang holds its quota. This is an approximation: it may be pessimistic, never "
        "optimistic",
        "spec",
        "lower the flavor's nominal quota to what is left (`trainops capacity`), or request "
        "less; `trainops capacity` shows which sets were placed",
    )


def _quota_findings(rendered: Rendered, model: Model, queue: K8sObject) -> Iterator[Finding]:
    for room in model.rooms:
        if room.queue is not queue:
            continue
        for name, (nominal, free) in sorted(room.over().items()):
            yield _finding(
                rendered,
                queue,
                f"flavor {room.flavor} has {name} nominal quota {quantity.show(name, nominal)}, "
                f"more than its pools ({', '.join(room.pools)}) have left once the system and "
                f"operator pods{_outside_named(model)} run ({quantity.show(name, free)}): Kueue "
                "admits jobs the nodes cannot hold",
                room.paths.get(name, "spec.resourceGroups"),
                f"lower it to at most {quantity.show(name, free)} (`trainops capacity` shows "
                "the environment), or add nodes to the pools",
            )


def _outside_named(model: Model) -> str:
    """`` and the jobs outside Kueue's quota (Job x)`` when there are any, for the message."""
    owners = sorted({r.owner for r in model.residents if r.outside_quota})
    return f" and the jobs outside Kueue's quota ({', '.join(owners)})" if owners else ""


def _volcano_findings(rendered: Rendered, model: Model, queue: K8sObject) -> Iterator[Finding]:
    for room in model.volcano:
        if room.queue is not queue:
            continue
        beside = (
            f"the nodes' room beside the system and operator pods less Kueue's nominal quota "
            f"({capacity.show(room.quota)})"
        )
        if room.capability is None:
            yield _finding(
                rendered,
                queue,
                f"Volcano Queue {room.name} runs jobs outside Kueue's quota "
                f"({', '.join(room.jobs)}) and sets no capability: Volcano may fill the whole "
                f"cluster with them while Kueue admits its quota ({beside}: "
                f"{capacity.show(room.left)})",
                "spec",
                "set spec.capability to at most what is left (`trainops capacity`)",
            )
            continue
        for name, (amount, left) in sorted(room.over().items()):
            yield _finding(
                rendered,
                queue,
                f"Volcano Queue {room.name} runs jobs outside Kueue's quota "
                f"({', '.join(room.jobs)}) with capability {name} {quantity.show(name, amount)}, "
                f"more than {beside} leaves ({quantity.show(name, max(left, 0.0))}): Volcano "
                "and Kueue together admit what the nodes cannot hold",
                f"spec.capability.{name}",
                f"lower it to at most {quantity.show(name, max(left, 0.0))}, or lower Kueue's "
                "quota beside it",
            )


def _readiness_findings(rendered: Rendered, model: Model, config: K8sObject) -> Iterator[Finding]:
    if model.wait_for_pods_ready is not None:
        return
    failing = model.smallest_failing
    short = sorted({job.label for job in model.jobs if id(job) in failing})
    bounded = sorted({bound.job.label for bound in model.bounded} - set(short))
    if not short and not bounded:
        return
    named = ", ".join(short)
    if bounded:
        named += ("; " if named else "") + "by a worst case, not a placement: " + ", ".join(bounded)
    yield _finding(
        rendered,
        config,
        f"Kueue may admit gangs the {model.profile.name} cluster can place only in part "
        f"({named}), and its configuration has no waitForPodsReady: the pods that "
        "started and the whole gang's quota are held until the job ends",
        "data.controller_manager_config.yaml",
        "add waitForPodsReady with a timeout and a requeuing backoff to "
        "operators/kueue/controller-config.yaml",
    )


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    model = capacity.model_of(cluster)
    if model is None:
        return
    failing = model.smallest_failing
    short = {id(job.obj): job for job in model.jobs if id(job) in failing}
    bounded = {id(bound.job.obj): bound for bound in model.bounded}
    queues = {id(room.queue) for room in model.rooms}
    volcano = {id(room.queue) for room in model.volcano if room.queue is not None}
    for obj in rendered.objects:
        if id(obj) in short:
            job = short[id(obj)]
            yield from _job_findings(rendered, model, job, failing[id(job)])
        elif id(obj) in bounded:
            yield from _bounded_findings(rendered, model, bounded[id(obj)])
        elif id(obj) in queues:
            yield from _quota_findings(rendered, model, obj)
        elif id(obj) in volcano:
            yield from _volcano_findings(rendered, model, obj)
        elif obj is model.kueue_config:
            yield from _readiness_findings(rendered, model, obj)
