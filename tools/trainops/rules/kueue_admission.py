"""Jobs in Kueue-managed namespaces must be admissible by Kueue.

What it catches, for every job-like object Kueue manages (batch/v1 Job, the kubeflow.org/v1
training jobs, MPIJob v2beta1, RayJob, RayCluster, JobSet) in a namespace that has a LocalQueue or
is selected by a ClusterQueue of the same environment:

- no `kueue.x-k8s.io/queue-name` label (with manageJobsWithoutQueueName: false the job bypasses
  quota entirely); a LocalQueue that does not exist in the namespace; its ClusterQueue missing, or
  not selecting the namespace;
- a requested resource no resource group of the ClusterQueue covers (the job never admits: a GPU
  job on a queue without `nvidia.com/gpu` quota, or one asking for a MIG instance such as
  `nvidia.com/mig-1g.10gb` or a time-sliced `nvidia.com/gpu.shared` the queue does not cover:
  each is a resource of its own to Kueue), or a gang (every replica: head and workers, all
  roles) that no flavor can hold with its nominal quota plus what its cohort can lend, nor the
  flavors together with each pod set in one of them (Kueue assigns flavors pod set by pod set) —
  the job waits forever; the finding gives the numbers;
- the suspend field Kueue flips (`spec.runPolicy.suspend` for kubeflow.org jobs, `spec.suspend`
  otherwise) set to false;
- a kind whose integration the Kueue configuration of the operators layer does not enable;
- a RayJob breaking Kueue's webhook rules: `shutdownAfterJobFinishes` must be true and in-tree
  autoscaling off.

Why it matters: each of these is accepted by the API server and then never runs, or runs outside
the quota the platform team set.

How to fix: label the job with the LocalQueue of its namespace; raise the ClusterQueue's quota (or
add the flavor/resource) or shrink the gang; leave suspend unset; enable the integration in
operators/kueue/controller-config.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.kueue import (
    QUEUE_LABEL,
    Kueue,
    framework,
    gang_requests,
    selects,
    split_fits,
    suspend_path,
)
from trainops.model import quantity
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping, mappings, strings

ID = "kueue-admission"
SEVERITY = Severity.ERROR
SUMMARY = "jobs in Kueue-managed namespaces are admissible: queue, quota, suspend, integration"


def _finding(rendered, obj, message, path, hint=None) -> Finding:
    return Finding(ID, SEVERITY, message, rendered.root, obj.file, obj.line, obj.ref, path, hint)


def _quota_findings(rendered, obj, kueue: Kueue, queue: K8sObject) -> Iterator[Finding]:
    requests = {name: value for name, value in gang_requests(obj).items() if value > 0}
    groups = mappings(mapping(queue.doc.get("spec")).get("resourceGroups"))
    covered = {name for group in groups for name in strings(group.get("coveredResources"))}
    for name in sorted(set(requests) - covered):
        yield _finding(
            rendered,
            obj,
            f"requests {name} ({quantity.show(name, requests[name])}), which ClusterQueue "
            f"{queue.name} covers in no resource group: it is never admitted",
            "spec",
            f"add {name} to a resource group of {queue.name}, or drop the request",
        )
    for group in groups:
        wanted = {
            name: requests[name]
            for name in strings(group.get("coveredResources"))
            if name in requests
        }
        if not wanted:
            continue
        shortfalls = []
        for flavor in mappings(group.get("flavors")):
            short = []
            for name, amount in wanted.items():
                nominal, lendable = kueue.available(queue, str(flavor.get("name")), name)
                if amount > nominal + lendable:
                    short.append(
                        f"{name} {quantity.show(name, amount)} > {quantity.show(name, nominal)} nominal + "
                        f"{quantity.show(name, lendable)} from the cohort"
                    )
            if not short:
                break
            shortfalls.append(f"flavor {flavor.get('name')}: {', '.join(short)}")
        else:
            if split_fits(kueue, queue, group, obj):
                continue  # each pod set fits a flavor of its own
            asked = ", ".join(f"{n} {quantity.show(n, v)}" for n, v in sorted(wanted.items()))
            yield _finding(
                rendered,
                obj,
                f"the whole gang requests {asked}, more than ClusterQueue {queue.name} can ever "
                f"admit ({'; '.join(shortfalls)}): the job waits forever",
                "spec",
                f"raise {queue.name}'s nominalQuota (or borrowing), or request less",
            )


def _queue_hint(kueue: Kueue, namespace: str) -> str:
    """Name the LocalQueues the job can use, as they are defined, rather than a placeholder."""
    names = sorted(name for ns, name in kueue.local_queues if ns == namespace)
    if len(names) == 1:
        return f"label it {QUEUE_LABEL}: {names[0]}"
    if names:
        return f"label it {QUEUE_LABEL} with one of the namespace's LocalQueues: {', '.join(names)}"
    return (
        f"define a LocalQueue in namespace {namespace} and label the job {QUEUE_LABEL}: <its name>"
    )


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    kueue = cluster.memo("kueue", Kueue)
    for obj in rendered.objects:
        name = framework(obj)
        if name is None or not obj.namespace or not kueue.manages(obj.namespace):
            continue
        node = obj.doc
        for key in suspend_path(obj):
            node = node.get(key) if isinstance(node, dict) else None
        if node is False:
            yield _finding(
                rendered,
                obj,
                "sets its suspend field to false: Kueue suspends jobs until it admits them",
                ".".join(suspend_path(obj)),
                "leave suspend unset; Kueue sets it",
            )
        if kueue.frameworks is not None and name not in kueue.frameworks:
            yield _finding(
                rendered,
                obj,
                f"Kueue's configuration does not enable the {name} integration, so Kueue ignores "
                "this job",
                "kind",
                f"add {name} to integrations.frameworks in operators/kueue/controller-config.yaml",
            )
        if obj.kind == "RayJob":
            spec = mapping(obj.doc.get("spec"))
            if spec.get("shutdownAfterJobFinishes") is not True:
                yield _finding(
                    rendered,
                    obj,
                    "Kueue admits a RayJob only with shutdownAfterJobFinishes: true",
                    "spec.shutdownAfterJobFinishes",
                )
            if (mapping(spec.get("rayClusterSpec"))).get("enableInTreeAutoscaling") is True:
                yield _finding(
                    rendered,
                    obj,
                    "Kueue does not admit a RayJob with in-tree autoscaling",
                    "spec.rayClusterSpec.enableInTreeAutoscaling",
                )
        queue_name = (mapping((mapping(obj.doc.get("metadata"))).get("labels"))).get(QUEUE_LABEL)
        if not queue_name:
            yield _finding(
                rendered,
                obj,
                f"namespace {obj.namespace} is Kueue-managed but the job has no {QUEUE_LABEL} label: "
                "it runs outside every quota",
                "metadata.labels",
                _queue_hint(kueue, obj.namespace),
            )
            continue
        local = kueue.local_queues.get((obj.namespace, queue_name))
        if local is None:
            yield _finding(
                rendered,
                obj,
                f"LocalQueue {queue_name} does not exist in namespace {obj.namespace}",
                f"metadata.labels.{QUEUE_LABEL}",
                _queue_hint(kueue, obj.namespace),
            )
            continue
        cq_name = mapping(local.doc.get("spec")).get("clusterQueue")
        queue = kueue.cluster_queues.get(cq_name) if isinstance(cq_name, str) else None
        if queue is None:
            existing = ", ".join(sorted(kueue.cluster_queues)) or "none is defined"
            yield _finding(
                rendered,
                obj,
                f"LocalQueue {queue_name} points at ClusterQueue {cq_name}, which does not exist",
                f"metadata.labels.{QUEUE_LABEL}",
                f"point LocalQueue {queue_name}'s spec.clusterQueue at an existing ClusterQueue ({existing})",
            )
            continue
        labels = {
            **(kueue.namespace_labels(obj.namespace) or {}),
            "kubernetes.io/metadata.name": obj.namespace,
        }
        if not selects((mapping(queue.doc.get("spec"))).get("namespaceSelector"), labels):
            yield _finding(
                rendered,
                obj,
                f"ClusterQueue {cq_name}'s namespaceSelector does not select namespace {obj.namespace}",
                f"metadata.labels.{QUEUE_LABEL}",
            )
            continue
        try:
            yield from _quota_findings(rendered, obj, kueue, queue)
        except ValueError as error:
            yield _finding(rendered, obj, f"cannot read a quantity: {error}", "spec")
