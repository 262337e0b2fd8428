"""An elastic PyTorchJob on spot nodes keeps its rendezvous off them, and can restart its workers.

What it catches, for an elastic PyTorchJob (spec.elasticPolicy) whose workers Kueue may admit to a
spot flavor (the ResourceFlavor's nodeLabels select only spot pools of the environment's cluster
profile):
- its rendezvous host is a pod Kueue may place on spot nodes too: `<job>-worker-0` when no
  `rdzvHost` is set (Training Operator v1.8.1 elastic.go), or the pod `rdzvHost` names. torch's
  c10d backend keeps the rendezvous store in that pod's agent, so a reclaim of that one pod fails
  every other worker's agent, and each container restarts every `read_timeout` seconds (rdzvConf;
  torch's c10d default 60) until the replacement hosts a new store or Kueue's waitForPodsReady
  recoveryTimeout evicts the job; the job fails once those restarts sum to `backoffLimit` (v1.8.1
  pkg/core/job.go, PastBackoffLimit);
- `rdzvHost` names a pod of the job that it does not have (a replica type or an index it lacks):
  nothing answers there and no worker ever rendezvouses;
- torchrun may not restart its workers (`maxRestarts` unset or 0, torchrun's default): losing
  any spot worker fails the other workers' agents, and their containers' restarts count to
  `backoffLimit`.

Why it matters: spot nodes are reclaimed at any time; an elastic job exists to carry on through
that. Here the loss of one particular pod, or of any, fails the whole job instead.

How to fix: run the rendezvous store in a pod of its own off spot nodes: a Master replica running
workloads/bookstore-ml/train/rendezvous_store.py, named by `rdzvHost`, with a required node
affinity that excludes the spot flavors' nodeLabels, and `is_host=false` in rdzvConf
(components/spot-elastic); give `maxRestarts` at least 1.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge import elastic, profiles
from trainops.model.findings import Finding, Severity, on_object
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping

ID = "elastic-spot"
SEVERITY = Severity.ERROR
SUMMARY = "an elastic PyTorchJob on spot nodes keeps its rendezvous off them and can restart"

_FIX_HOST = (
    "run the rendezvous store in a pod of its own off spot nodes: a Master replica serving it "
    "(rendezvous_store.py), named by elasticPolicy.rdzvHost, with a required node affinity that "
    "excludes the spot flavors' nodeLabels (components/spot-elastic)"
)


def _cost(found: elastic.Rendezvous, cluster: Cluster) -> str:
    """What losing the rendezvous host costs the job, in container restarts."""
    recovery = elastic.recovery_seconds(cluster)
    # Without waitForPodsReady Kueue never evicts the job: the wait, and the restarts, have no
    # bound.
    cost = elastic.restarts_per_loss(found, recovery) if recovery else None
    over = (
        f"over Kueue's {recovery:g}s recovery timeout"
        if recovery
        else "for as long as the replacement takes (no waitForPodsReady: Kueue never evicts)"
    )
    restarts = (
        f"{f'up to {cost}' if cost else 'unbounded'} container restarts "
        f"({found.max_replicas - 1} other worker(s), each failing every read_timeout "
        f"{found.read_timeout}s {over})"
    )
    limit = found.backoff_limit
    if limit is not None and (cost is None or cost >= limit):
        return (
            f"{restarts}, and backoffLimit {limit} fails the whole job at that (v1.8.1 "
            "pkg/core/job.go, PastBackoffLimit)"
        )
    return restarts


def _job_findings(
    rendered: Rendered, obj: K8sObject, cluster: Cluster, profile: profiles.Profile | None
) -> Iterator[Finding]:
    found = elastic.rendezvous(obj)
    if found is None:
        return
    specs = mapping(mapping(obj.doc["spec"]).get("pytorchReplicaSpecs"))
    worker = mapping(mapping(mapping(specs.get("Worker")).get("template")).get("spec"))
    host = elastic.host_spec(obj, found)
    if found.replica is not None and host is None:
        yield on_object(
            ID,
            SEVERITY,
            rendered.root,
            obj,
            f"PyTorchJob {obj.name} rendezvouses on {found.host}, the name the Training Operator "
            f"would give {found.replica} pod {found.index} (v1.8.1 pkg/core/utils.go, "
            f"GenGeneralName), but the job has no such pod: no store answers there and no "
            "worker ever rendezvouses",
            "spec.elasticPolicy.rdzvHost",
            f"name a pod the job has (`{obj.name}-master-0` with a Master replica), or drop "
            "rdzvHost",
        )
        return
    if profile is None:  # which flavors are spot is the profile's to say
        return
    spot = elastic.spot_flavors(obj, worker, cluster, profile)
    if not spot:
        return
    on_spot = elastic.spot_flavors(obj, host, cluster, profile) if host is not None else []
    if on_spot:
        how = "rdzvHost" if found.explicit else "no rdzvHost: Training Operator v1.8.1 elastic.go"
        yield on_object(
            ID,
            SEVERITY,
            rendered.root,
            obj,
            f"PyTorchJob {obj.name} rendezvouses on {found.host} ({how}), which Kueue may place "
            f"on spot flavor {', '.join(on_spot)}: torch's c10d store lives in that pod's agent "
            "(torch 2.13 c10d_rendezvous_backend.py, _create_tcp_store), so a reclaim of it fails "
            f"every other worker's agent, costing {_cost(found, cluster)}",
            "spec.elasticPolicy.rdzvHost",
            _FIX_HOST,
        )
    if found.max_restarts < 1:
        yield on_object(
            ID,
            SEVERITY,
            rendered.root,
            obj,
            f"PyTorchJob {obj.name}'s workers may run on spot flavor {', '.join(spot)}, but "
            "torchrun may restart them 0 times (maxRestarts unset or 0, torch 2.13 "
            "distributed/run.py --max-restarts): losing any worker fails the others' agents, "
            "and their containers' restarts count to backoffLimit (v1.8.1 pkg/core/job.go, "
            "PastBackoffLimit)",
            "spec.elasticPolicy.maxRestarts",
            "set elasticPolicy.maxRestarts to at least the reclaims a run should survive",
        )


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    profile = profiles.profile_of(cluster)
    for obj in rendered.objects:
        yield from _job_findings(rendered, obj, cluster, profile)
