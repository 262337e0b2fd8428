"""Elastic PyTorchJobs: where their rendezvous lives, and what losing that pod costs.

Training Operator v1.8.1, pkg/controller.v1/pytorch/elastic.go: an elasticPolicy without
`rdzvHost` puts the rendezvous endpoint (PET_RDZV_ENDPOINT) at `<job>-worker-0`
(generateEnvRDZVEndpoint), and `rdzvConf` becomes PET_RDZV_CONF (generateEnvRDZVConf). torch
2.13's c10d backend hosts the rendezvous TCPStore in the agent whose hostname matches the
endpoint, that is worker-0's, and every other agent is its client, waiting `read_timeout`
seconds (rdzvConf; 60 by default) for it (torch/distributed/elastic/rendezvous/
c10d_rendezvous_backend.py, _create_tcp_store). When worker-0's pod is lost (a spot reclaim),
the store goes with it: every other agent's rendezvous fails and its container exits, to be
restarted by the kubelet (restartPolicy OnFailure), again each time it waits `read_timeout` in
vain, until the replacement worker-0 hosts a new store. Kueue gives the replacement up to its
waitForPodsReady recoveryTimeout (the timeout when unset: v0.18.6 apis/config/v1beta2/
defaults.go) before it evicts the job. The Training Operator fails the job once the restarts of
its running pods' containers sum to `backoffLimit` (v1.8.1 pkg/core/job.go, PastBackoffLimit:
`result >= BackoffLimit`).

An `rdzvHost` of the form `<job>-<replica type>-<index>` names a pod of the job: the Training
Operator names each pod, and the headless Service it makes for it, so (v1.8.1 pkg/core/utils.go,
GenGeneralName: the replica type lower-cased); any other host is outside the job. torchrun
restarts its workers after a member is lost at most PET_MAX_RESTARTS (`maxRestarts`) times, 0
when unset (torch 2.13 distributed/run.py, --max-restarts), after which the agent, and its
container, fails.
"""

from __future__ import annotations

import contextlib
import math
import re
from dataclasses import dataclass

from trainops.knowledge import flavors, kueue
from trainops.knowledge.profiles import Profile
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster
from trainops.model.shape import mapping, mappings

DEFAULT_READ_TIMEOUT = 60  # c10d_rendezvous_backend.py, _create_tcp_store


@dataclass(frozen=True)
class Rendezvous:
    host: str
    # The replica type whose pod `host` names ("Master", "Worker") and its index; None for a host
    # outside the job.
    replica: str | None
    index: int
    explicit: bool  # rdzvHost set, rather than worker-0 by default
    read_timeout: int
    max_replicas: int
    backoff_limit: int | None
    max_restarts: int  # torchrun's, 0 when unset


_POD_HOST = re.compile(r"(?P<type>[a-z]+)-(?P<index>0|[1-9][0-9]*)")


def _pod_of(job: str, host: str, specs: dict) -> tuple[str | None, int]:
    """The replica type and index of the job's pod that `host` (a name or a DNS name in the
    namespace) names; (None, 0) for a host outside the job."""
    first = host.split(".")[0]
    if not first.startswith(job + "-"):
        return None, 0
    matched = _POD_HOST.fullmatch(first[len(job) + 1 :])
    if not matched:
        return None, 0
    for replica in specs:  # the Service is named with the lower-cased replica type
        if isinstance(replica, str) and replica.lower() == matched["type"]:
            return replica, int(matched["index"])
    return matched["type"].capitalize(), int(matched["index"])


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def rendezvous(obj: K8sObject) -> Rendezvous | None:
    """The rendezvous of an elastic PyTorchJob; None for any other object."""
    if obj.group != "kubeflow.org" or obj.kind != "PyTorchJob":
        return None
    spec = mapping(obj.doc.get("spec"))
    policy = spec.get("elasticPolicy")
    if not isinstance(policy, dict):
        return None
    specs = mapping(spec.get("pytorchReplicaSpecs"))
    named = policy.get("rdzvHost")
    explicit = isinstance(named, str) and bool(named)
    host = named if isinstance(named, str) and named else f"{obj.name}-worker-0"
    replica, index = _pod_of(obj.name, host, specs)
    read_timeout = DEFAULT_READ_TIMEOUT
    for entry in mappings(policy.get("rdzvConf")):
        if entry.get("key") == "read_timeout":
            with contextlib.suppress(ValueError):  # not a number: torch refuses it at start
                read_timeout = int(str(entry.get("value")))
    worker = mapping(specs.get("Worker"))
    replicas = _int(policy.get("maxReplicas", worker.get("replicas", 1)))
    return Rendezvous(
        host,
        replica,
        index,
        explicit,
        read_timeout,
        replicas if replicas is not None else 1,
        _int(mapping(spec.get("runPolicy")).get("backoffLimit")),
        _int(policy.get("maxRestarts")) or 0,
    )


def host_spec(obj: K8sObject, found: Rendezvous) -> dict | None:
    """The pod spec of the job's pod that hosts the rendezvous; None when the job has no such pod
    (a host outside the job, or a replica type or index it does not have)."""
    if found.replica is None:
        return None
    replica = mapping(
        mapping(mapping(obj.doc.get("spec")).get("pytorchReplicaSpecs")).get(found.replica)
    )
    replicas = _int(replica.get("replicas"))
    if not replica or found.index >= (replicas if replicas is not None else 1):
        return None
    return mapping(mapping(replica.get("template")).get("spec"))


def restarts_per_loss(found: Rendezvous, recovery_seconds: float) -> int:
    """At most how many container restarts one loss of worker-0 costs: each other worker's
    container fails once per `read_timeout` while the replacement is awaited (the kubelet's
    crash back-off only spaces them out)."""
    return (found.max_replicas - 1) * max(1, math.ceil(recovery_seconds / found.read_timeout))


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|m|s|ms)")
_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def seconds(duration: object) -> float | None:
    """A Go duration (`10m`, `1h30m`, `90s`) in seconds; None when it is not one."""
    if not isinstance(duration, str) or not duration:
        return None
    parts = _DURATION.findall(duration)
    if not parts or "".join(n + u for n, u in parts) != duration:
        return None
    return sum(float(n) * _UNITS[u] for n, u in parts)


def recovery_seconds(cluster: Cluster) -> float | None:
    """How long Kueue waits for a lost pod's replacement (waitForPodsReady recoveryTimeout, or
    its timeout); None without waitForPodsReady."""
    found = kueue.wait_for_pods_ready(cluster)
    if found is None or found[1] is None:
        return None
    section = found[1]
    return seconds(section.get("recoveryTimeout")) or seconds(section.get("timeout"))


def spot_flavors(
    obj: K8sObject, worker_spec: dict, cluster: Cluster, profile: Profile
) -> list[str]:
    """The spot flavors of the job's ClusterQueue that Kueue may assign its workers."""
    defined_queues = cluster.memo("kueue", kueue.Kueue)
    queue_name = mapping(mapping(obj.doc.get("metadata")).get("labels")).get(kueue.QUEUE_LABEL)
    local = defined_queues.local_queues.get((obj.namespace, queue_name))
    queue = defined_queues.cluster_queues.get(
        mapping(local.doc.get("spec")).get("clusterQueue") if local else None
    )
    if queue is None:
        return []
    defined = flavors.defined(cluster)
    found = []
    for group in mappings(mapping(queue.doc.get("spec")).get("resourceGroups")):
        for entry in mappings(group.get("flavors")):
            name = entry.get("name")
            flavor = defined.get(name) if isinstance(name, str) else None
            if flavor is None or name in found:
                continue
            if flavors.compatible(worker_spec, flavor) and flavors.is_spot(flavor, profile):
                found.append(name)
    return found
