"""An elastic PyTorchJob on spot nodes survives the loss of its rendezvous host.

What it catches: an elastic PyTorchJob (spec.elasticPolicy) whose workers Kueue may admit to a
spot flavor (the ResourceFlavor's nodeLabels select only spot pools of the environment's cluster
profile), whose rendezvous is on `<job>-worker-0` (no `rdzvHost`: Training Operator v1.8.1
elastic.go), and whose `backoffLimit` one loss of worker-0 can exhaust: while Kueue awaits the
replacement (its waitForPodsReady recoveryTimeout), each other worker's container fails every
`read_timeout` seconds (rdzvConf; torch's c10d default 60), and the job fails when those restarts
sum to backoffLimit (v1.8.1 pkg/core/job.go, PastBackoffLimit).

Why it matters: spot nodes are reclaimed at any time; an elastic job exists to carry on through
that. Here the loss of one particular pod, the rendezvous host, instead fails the whole job.

How to fix: let the other workers wait for the replacement rather than restart: rdzvConf
`read_timeout` of at least Kueue's recovery timeout (then one loss costs each other worker one
restart), and a backoffLimit above what a loss costs ((maxReplicas - 1) restarts); or put the
rendezvous (`rdzvHost`) on a pod that is not on spot nodes.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge import elastic, profiles
from trainops.model.findings import Finding, Severity, on_object
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping

ID = "elastic-spot"
SEVERITY = Severity.ERROR
SUMMARY = "an elastic PyTorchJob on spot nodes survives the loss of its rendezvous host"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    profile = profiles.profile_of(cluster)
    if profile is None:
        return
    recovery = None
    for obj in rendered.objects:
        found = elastic.rendezvous(obj)
        if found is None or not found.on_worker_0 or found.backoff_limit is None:
            continue
        worker = mapping(mapping(mapping(obj.doc["spec"]).get("pytorchReplicaSpecs")).get("Worker"))
        spec = mapping(mapping(worker.get("template")).get("spec"))
        spot = elastic.spot_flavors(obj, spec, cluster, profile)
        if not spot:
            continue
        recovery = recovery or elastic.recovery_seconds(cluster)
        # Without waitForPodsReady Kueue never evicts the job: the wait, and the restarts, have
        # no bound.
        cost = elastic.restarts_per_loss(found, recovery) if recovery else None
        if cost is not None and cost < found.backoff_limit:
            continue
        over = (
            f"over Kueue's {recovery:g}s recovery timeout"
            if recovery
            else "for as long as the replacement takes (no waitForPodsReady: Kueue never evicts)"
        )
        yield on_object(
            ID,
            SEVERITY,
            rendered.root,
            obj,
            f"PyTorchJob {obj.name} rendezvouses on {found.host} (no rdzvHost: Training Operator "
            f"v1.8.1 elastic.go), which Kueue may place on spot flavor {', '.join(spot)}; losing "
            f"it costs {f'up to {cost}' if cost else 'unbounded'} container restarts "
            f"({found.max_replicas - 1} other worker(s), each failing every read_timeout "
            f"{found.read_timeout}s {over}), and backoffLimit {found.backoff_limit} fails the "
            "whole job at that (v1.8.1 pkg/core/job.go, PastBackoffLimit)",
            "spec.runPolicy.backoffLimit",
            "set elasticPolicy.rdzvConf read_timeout to at least Kueue's recovery timeout and "
            "backoffLimit above maxReplicas - 1, or rdzvHost to a pod off spot nodes",
        )
