"""Why a training job is not running: the known shapes, read from the objects the cluster holds.

Given the job, its Kueue Workload, its pods and the Warning events about any of them, in the
order a person should look:

- webhook unavailable: an admission webhook could not be called (the API server's
  `failed calling webhook "<name>"`, k8s.io/apiserver pkg/admission/plugin/webhook/errors), so the
  operator's or Kueue's requests fail (a Service with no ready endpoints);
- rejected by Pod Security: the controller's pods are refused (`violates PodSecurity
  "<level>:<version>"`, k8s.io/pod-security-admission), reported as its FailedCreate events;
- image pull failing: a container waits with ErrImagePull, ImagePullBackOff, InvalidImageName,
  ErrImageNeverPull (the kubelet's reasons, k8s.io/kubernetes pkg/kubelet/images/types.go);
- gang partly placed: some of the job's pods are scheduled and others unschedulable (the
  scheduler's PodScheduled=False, reason Unschedulable), so a distributed run waits for the rest;
- unschedulable: none of them fits a node;
- evicted: Kueue evicted the Workload (preempted, PodsReady timeout: its Evicted condition);
- waiting for quota: Kueue has not reserved quota (QuotaReserved is not True): queued, which is
  healthy (docs/gitops.md, "Queued is healthy"), with Kueue's reason;
- no Kueue Workload: the job asks for a queue but Kueue has not made its Workload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trainops.model.shape import mapping, mappings

IMAGE_PULL = {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull"}
_WEBHOOK = re.compile(r'failed calling webhook "([^"]+)"(?:: (.*))?')
_POD_SECURITY = re.compile(r'violates PodSecurity "([^"]+)": (.*)')


@dataclass(frozen=True)
class Diagnosis:
    shape: str
    detail: str
    problem: bool = True  # False: a state that resolves itself (waiting for quota)

    def __str__(self) -> str:
        return f"{self.shape}: {self.detail}"


def conditions(obj: dict | None) -> dict[str, dict]:
    return {
        str(c.get("type")): c
        for c in mappings(mapping(mapping(obj).get("status")).get("conditions"))
    }


def _messages(job: dict | None, workload: dict | None, events: list[dict]) -> list[str]:
    found = [str(e.get("message") or "") for e in events]
    for obj in (job, workload):
        found += [str(c.get("message") or "") for c in conditions(obj).values()]
    return [m for m in found if m]


def _webhook(messages: list[str]) -> Diagnosis | None:
    for message in messages:
        match = _WEBHOOK.search(message)
        if match:
            cause = (match.group(2) or "").strip()
            return Diagnosis(
                "webhook unavailable",
                f"{match.group(1)}"
                + (f": {cause}" if cause else "")
                + " (the operator's webhook Service has no ready endpoint, or is unreachable)",
            )
    return None


def _pod_security(messages: list[str]) -> Diagnosis | None:
    for message in messages:
        match = _POD_SECURITY.search(message)
        if match:
            return Diagnosis("rejected by Pod Security", f"{match.group(1)}: {match.group(2)}")
    return None


def _container_states(pod: dict) -> list[tuple[str, dict, dict]]:
    """(container name, its spec, its state) for every init and regular container status."""
    spec, status = mapping(pod.get("spec")), mapping(pod.get("status"))
    specs = {
        str(c.get("name")): c
        for c in mappings(spec.get("initContainers")) + mappings(spec.get("containers"))
    }
    statuses = mappings(status.get("initContainerStatuses")) + mappings(
        status.get("containerStatuses")
    )
    return [(str(s.get("name")), mapping(specs.get(str(s.get("name")))), s) for s in statuses]


def _image_pull(pods: list[dict], events: list[dict]) -> Diagnosis | None:
    for pod in pods:
        for name, spec, state in _container_states(pod):
            waiting = mapping(mapping(state.get("state")).get("waiting"))
            if waiting.get("reason") in IMAGE_PULL:
                image = state.get("image") or spec.get("image") or "?"
                message = waiting.get("message") or ""
                pod_name = mapping(pod.get("metadata")).get("name")
                return Diagnosis(
                    "image pull failing",
                    f"pod {pod_name}, container {name}, image {image}: {waiting['reason']}"
                    + (f": {message}" if message else ""),
                )
    for event in events:
        if "Failed to pull image" in str(event.get("message", "")):
            involved = mapping(event.get("involvedObject"))
            return Diagnosis(
                "image pull failing", f"pod {involved.get('name')}: {event['message']}"
            )
    return None


def scheduled(pod: dict) -> bool:
    placed = conditions(pod).get("PodScheduled", {}).get("status") == "True"
    return placed or bool(mapping(pod.get("spec")).get("nodeName"))


def unschedulable(pod: dict) -> str | None:
    """The scheduler's message when it could not place the pod."""
    condition = conditions(pod).get("PodScheduled", {})
    if condition.get("status") == "False" and condition.get("reason") == "Unschedulable":
        return str(condition.get("message") or "no node fits it")
    return None


def _placement(pods: list[dict], expected: int) -> Diagnosis | None:
    live = [p for p in pods if mapping(p.get("status")).get("phase") not in ("Succeeded", "Failed")]
    placed = [p for p in live if scheduled(p)]
    waiting = [(p, why) for p in live if (why := unschedulable(p)) is not None]
    if not waiting:
        return None
    total = max(expected, len(live))
    first = waiting[0][1]
    if placed:
        return Diagnosis(
            "gang partly placed",
            f"{len(placed)} of {total} pods scheduled, {len(waiting)} unschedulable: {first}",
        )
    return Diagnosis("unschedulable", f"{len(waiting)} of {total} pods fit no node: {first}")


def _kueue(workload: dict | None, queued: bool) -> Diagnosis | None:
    if workload is None:
        if queued:
            return Diagnosis(
                "no Kueue Workload",
                "the job names a queue but Kueue has made no Workload for it: is "
                "kueue-controller-manager running, and does its configuration manage this kind?",
            )
        return None
    found = conditions(workload)
    if found.get("Finished", {}).get("status") == "True":
        return None
    evicted = found.get("Evicted", {})
    if evicted.get("status") == "True":
        return Diagnosis(
            "evicted",
            f"{evicted.get('reason') or 'Evicted'}: {evicted.get('message') or ''}".rstrip(": "),
        )
    reserved = found.get("QuotaReserved", {})
    if reserved.get("status") != "True":
        detail = reserved.get("message") or "the Workload waits in its ClusterQueue"
        reason = reserved.get("reason")
        return Diagnosis(
            "waiting for quota", f"{detail}" + (f" ({reason})" if reason else ""), problem=False
        )
    return None


def diagnose(
    job: dict | None,
    workload: dict | None,
    pods: list[dict],
    events: list[dict],
    expected_pods: int,
    queued: bool,
    finished: bool,
) -> list[Diagnosis]:
    """Every known shape that fits, most actionable first."""
    messages = _messages(job, workload, events)
    found = [
        _webhook(messages),
        _pod_security(messages),
        _image_pull(pods, events),
        _placement(pods, expected_pods),
        None if finished else _kueue(workload, queued),
    ]
    return [d for d in found if d is not None]
