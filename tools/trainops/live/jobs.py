"""What a training job is doing: its Kueue Workload, its pods, the Warning events about them.

The Workload is the one the job owns (Kueue's jobframework makes it with an owner reference to
the job). The pods are those whose owner references lead back to the job, through the objects
an operator makes in between (a batch Job of a JobSet or of a RayJob's submitter, a RayJob's
RayCluster). Events are the Warning events about the job, its Workload, those objects and pods,
newest first. All of it is read with a few lists per namespace, never object by object.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from trainops.knowledge import kueue
from trainops.live.client import ReadOnlyClient
from trainops.live.diagnosis import Diagnosis, conditions, diagnose, scheduled, unschedulable
from trainops.live.discovery import Discovery
from trainops.live.health import Health
from trainops.model.objects import K8sObject
from trainops.model.shape import mapping, mappings

WORKLOAD_CONDITIONS = ("QuotaReserved", "Admitted", "PodsReady", "Evicted", "Finished")
RECENT_EVENTS = 5
# Objects operators create between a training job and its pods.
_INTERMEDIATES = (("batch", "Job"), ("ray.io", "RayCluster"))
METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"


def is_training_job(obj: K8sObject) -> bool:
    return kueue.framework(obj) is not None or (obj.group, obj.kind) == ("batch.volcano.sh", "Job")


def expected_pods(obj: K8sObject) -> int:
    if (obj.group, obj.kind) == ("batch.volcano.sh", "Job"):
        tasks = mappings(mapping(obj.doc.get("spec")).get("tasks"))
        return sum(t["replicas"] if isinstance(t.get("replicas"), int) else 1 for t in tasks)
    return sum(count for count, _ in kueue.pod_sets(obj))


@dataclass
class NamespaceView:
    workloads: list[dict] = field(default_factory=list)
    pods: list[dict] = field(default_factory=list)
    owned: list[dict] = field(default_factory=list)  # metadata of the intermediates
    events: list[dict] = field(default_factory=list)  # Warning events


def _items(client: ReadOnlyClient, path: str, query=None, accept=None) -> list[dict]:
    reply = client.get(path, query, accept) if accept else client.get(path, query)
    body = client.require(reply, f"list {path}")
    return mappings(mapping(body).get("items"))


def read_namespace(client: ReadOnlyClient, discovery: Discovery, namespace: str) -> NamespaceView:
    paths: dict[str, tuple[str, list | None, str | None]] = {
        "pods": (f"/api/v1/namespaces/{namespace}/pods", None, None),
        "events": (
            f"/api/v1/namespaces/{namespace}/events",
            [("fieldSelector", "type=Warning")],
            None,
        ),
    }
    workloads = discovery.preferred_resource("kueue.x-k8s.io", "Workload")
    if workloads is not None:
        paths["workloads"] = (workloads.path(namespace), None, None)
    for group, kind in _INTERMEDIATES:
        resource = discovery.preferred_resource(group, kind)
        if resource is not None:
            paths[f"owned {kind}"] = (resource.path(namespace), None, METADATA_LIST)
    with ThreadPoolExecutor(max_workers=len(paths)) as pool:
        lists = dict(zip(paths, pool.map(lambda args: _items(client, *args), paths.values())))
    return NamespaceView(
        lists.get("workloads", []),
        lists["pods"],
        [item for key, items in lists.items() if key.startswith("owned ") for item in items],
        lists["events"],
    )


@dataclass
class JobReport:
    obj: K8sObject
    health: Health
    queue: str | None
    workload: str | None
    workload_conditions: list[dict]
    pods: list[dict]  # name, phase, node, detail
    expected_pods: int
    events: list[dict]  # time, reason, object, message, count
    diagnoses: list[Diagnosis]

    @property
    def problems(self) -> list[Diagnosis]:
        return [d for d in self.diagnoses if d.problem]


def _uid(item: dict) -> str | None:
    return mapping(item.get("metadata")).get("uid")


def _descendants(root: str, view: NamespaceView) -> set[str]:
    parents: dict[str, set[str]] = {}
    for item in view.owned + view.pods:
        uid = _uid(item)
        for reference in mappings(mapping(item.get("metadata")).get("ownerReferences")):
            if uid and isinstance(reference.get("uid"), str):
                parents.setdefault(uid, set()).add(reference["uid"])
    found, changed = {root}, True
    while changed:
        changed = False
        for child, owners in parents.items():
            if child not in found and owners & found:
                found.add(child)
                changed = True
    return found


def _when(event: dict) -> str:
    metadata = mapping(event.get("metadata"))
    return str(
        event.get("lastTimestamp")
        or event.get("eventTime")
        or metadata.get("creationTimestamp")
        or ""
    )


def _pod_summary(pod: dict) -> dict:
    metadata, spec, status = (
        mapping(pod.get("metadata")),
        mapping(pod.get("spec")),
        mapping(pod.get("status")),
    )
    detail = unschedulable(pod)
    for state in mappings(status.get("initContainerStatuses")) + mappings(
        status.get("containerStatuses")
    ):
        waiting = mapping(mapping(state.get("state")).get("waiting"))
        if waiting.get("reason") and detail is None:
            detail = f"{state.get('name')}: {waiting['reason']}" + (
                f": {waiting['message']}" if waiting.get("message") else ""
            )
    return {
        "name": metadata.get("name"),
        "phase": status.get("phase") or "Pending",
        "node": spec.get("nodeName"),
        "scheduled": scheduled(pod),
        "detail": detail,
    }


def report(obj: K8sObject, live: dict | None, health: Health, view: NamespaceView) -> JobReport:
    labels = mapping(obj.doc["metadata"].get("labels"))
    queue = labels.get(kueue.QUEUE_LABEL)
    root = _uid(live) if live else None
    related = _descendants(root, view) if root else set()
    workload = next(
        (
            w
            for w in view.workloads
            if root
            and any(
                r.get("uid") == root
                for r in mappings(mapping(w.get("metadata")).get("ownerReferences"))
            )
        ),
        None,
    )
    if workload is not None and _uid(workload):
        related.add(str(_uid(workload)))
    pods = [p for p in view.pods if _uid(p) in related]
    events = sorted(
        (
            e
            for e in view.events
            if mapping(e.get("involvedObject")).get("uid") in related
            or (
                mapping(e.get("involvedObject")).get("kind") == obj.kind
                and mapping(e.get("involvedObject")).get("name") == obj.name
            )
        ),
        key=_when,
        reverse=True,
    )
    found = conditions(workload)
    finished = health.state.value in ("healthy", "degraded") or (
        found.get("Finished", {}).get("status") == "True"
    )
    return JobReport(
        obj,
        health,
        queue if isinstance(queue, str) else None,
        mapping(mapping(workload).get("metadata")).get("name") if workload else None,
        [found[kind] for kind in WORKLOAD_CONDITIONS if kind in found],
        [_pod_summary(p) for p in pods],
        expected_pods(obj),
        [
            {
                "time": _when(e),
                "reason": e.get("reason"),
                "object": f"{mapping(e.get('involvedObject')).get('kind')}/{mapping(e.get('involvedObject')).get('name')}",
                "message": e.get("message"),
                "count": e["count"] if isinstance(e.get("count"), int) else 1,
            }
            for e in events[:RECENT_EVENTS]
        ],
        []
        if live is None  # its health says it is missing; nothing else can be known
        else diagnose(
            live,
            workload,
            pods,
            events,
            expected_pods(obj),
            queued=isinstance(queue, str) and kueue.framework(obj) is not None,
            finished=finished,
        ),
    )
