"""The NetworkPolicies of an environment let through every connection its training needs.

What it catches: a connection a workload needs that the environment's NetworkPolicies (every
layer of `overlays/<env>`) block, in whole or in part, with the policies that block it:
- between the pods of one distributed job (PyTorchJob and the other Kubeflow jobs, a Volcano Job
  with the pytorch, tensorflow or mpi plugin, a JobSet whose pods find each other by hostname):
  every TCP port, both ways — torch.distributed's
  store listens on MASTER_PORT (or, with elastic c10d rendezvous, on a random port) and gloo/NCCL
  connect the ranks on ephemeral ports;
- within a Ray cluster (RayCluster, RayJob, RayService): every TCP port between head and workers;
  the RayJob submitter and the KubeRay operator's pods (RayJob, RayService) to the head's
  dashboard port (8265 unless `dashboard-port` is set);
- every pod to the cluster DNS (kube-system pods `k8s-app: kube-dns`, UDP and TCP 53);
- the API server to the pods behind each admission webhook, conversion webhook and aggregated
  API Service, on the Service's target port, where a policy isolates those pods.
Which connections each framework needs, and why, is data in `trainops/knowledge/network/traffic.py`, with
its upstream sources. Policy semantics follow the Kubernetes documentation: a pod a policy
selects is isolated in that policy's directions; a connection needs the source's egress and the
destination's ingress; `ipBlock` peers never match pods.

Why it matters: the manifests apply and the pods start, then training hangs until its timeout
(PyTorch), a RayJob never completes and holds Kueue quota until activeDeadlineSeconds, or every
write of a kind a webhook guards fails.

How to fix: allow what the finding names, in the layer that holds the blocking policy: for a
distributed job, ingress and egress between its pods with no `ports` (or `protocol: TCP` and no
port); for Ray, ingress to the head's dashboard port from the operator's namespace.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.network import netpol, traffic
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping

ID = "network-reachability"
SEVERITY = Severity.ERROR
SUMMARY = "NetworkPolicies let through what distributed training, Ray, DNS and webhooks need"


def _network(cluster: Cluster) -> tuple[netpol.Cluster, list[netpol.Endpoint], list[traffic.Need]]:
    objects = list(cluster.objects())
    policies = [
        netpol.Policy(o)
        for o in objects
        if o.kind == "NetworkPolicy" and o.api_version == "networking.k8s.io/v1"
    ]
    labels = {}
    for obj in objects:
        if obj.kind == "Namespace" and obj.api_version == "v1":
            found = (mapping(obj.doc.get("metadata"))).get("labels")
            labels[obj.name] = (
                {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}
            )
    return (
        netpol.Cluster(policies, labels),
        traffic.ray_operator_pods(objects),
        list(traffic.webhook_needs(objects)),
    )


def _finding(rendered: Rendered, need: traffic.Need, verdict: netpol.Verdict) -> Finding:
    missing = need.ports - verdict.ports
    allowed = (
        "nothing"
        if not verdict.ports
        else f"only {verdict.ports & need.ports}"
        if verdict.ports & need.ports
        else "none of it"
    )
    sides = "; ".join(
        f"its {direction} is limited by {', '.join(str(p) for p in policies)} to {passing or 'nothing of it'}"
        for direction, policies, passing in verdict.blockers(need.ports)
    )
    message = (
        f"{need.source.description} → {need.destination.description} needs {need.ports} ({need.why}), "
        f"but {allowed} may pass ({missing} blocked): {sides}"
    )
    hint = (
        "allow every TCP port between the job's pods (ingress and egress rules with no ports)"
        if need.ports == traffic.ALL_TCP
        else f"allow {missing} from {need.source.description} to {need.destination.description}"
    )
    return Finding(
        ID,
        SEVERITY,
        message,
        rendered.root,
        need.obj.file,
        need.obj.line,
        need.obj.ref,
        need.path,
        hint,
    )


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    network, ray_operators, webhooks = cluster.memo("network-reachability", _network)
    if not network.policies:
        return  # nothing isolates any pod: every connection is open
    objects = rendered.objects
    needs = [
        need for obj in objects for need in traffic.workload_needs(obj, ray_operators)
    ] + webhooks
    own = {id(obj) for obj in objects}
    for need in needs:
        if id(need.obj) not in own:
            continue  # a webhook configuration of another layer is reported with that layer
        verdict = network.allowed(need.source, need.destination)
        if need.ports - verdict.ports:
            yield _finding(rendered, need, verdict)
