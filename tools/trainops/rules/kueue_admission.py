"""Jobs in Kueue-managed namespaces must be admissible by Kueue.

What it catches, for every job-like object Kueue manages (batch/v1 Job, the kubeflow.org/v1
training jobs, MPIJob v2beta1, RayJob, RayCluster, JobSet) in a namespace that has a LocalQueue or
is selected by a ClusterQueue of the same environment:

- no `kueue.x-k8s.io/queue-name` label (with manageJobsWithoutQueueName: false the job bypasses
  quota entirely); a LocalQueue that does not exist in the namespace; its ClusterQueue missing, or
  not selecting the namespace;
- a requested resource no resource group of the ClusterQueue covers (the job never admits: a GPU
  job on a queue without `nvidia.com/gpu` quota), or a gang (every replica: head and workers, all
  roles) that no flavor can hold with its nominal quota plus what its cohort can lend — the job
  waits forever; the finding gives the numbers;
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

from collections import defaultdict
from collections.abc import Iterator
from functools import lru_cache

import yaml

from trainops.model import quantity
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping, mappings, sequence, strings

ID = "kueue-admission"
SEVERITY = Severity.ERROR
SUMMARY = "jobs in Kueue-managed namespaces are admissible: queue, quota, suspend, integration"

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
_KUBEFLOW = {
    "PyTorchJob": "pytorchReplicaSpecs",
    "TFJob": "tfReplicaSpecs",
    "PaddleJob": "paddleReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs",
    "MPIJob": "mpiReplicaSpecs",
}


def framework(obj: K8sObject) -> str | None:
    """Kueue's integration name for a job kind it can manage (None otherwise)."""
    if obj.group == "batch" and obj.kind == "Job":
        return "batch/job"
    if obj.group == "kubeflow.org" and obj.kind in _KUBEFLOW:
        return f"kubeflow.org/{obj.kind.lower()}"
    if obj.group == "ray.io" and obj.kind in ("RayJob", "RayCluster"):
        return f"ray.io/{obj.kind.lower()}"
    if obj.group == "jobset.x-k8s.io" and obj.kind == "JobSet":
        return "jobset.x-k8s.io/jobset"
    return None


def suspend_path(obj: K8sObject) -> tuple[str, ...]:
    return ("spec", "runPolicy", "suspend") if obj.group == "kubeflow.org" else ("spec", "suspend")


def pod_requests(spec: dict) -> dict[str, float]:
    """What a pod asks the scheduler for: containers summed, or the largest init container if more."""

    def of(container: dict) -> dict[str, float]:
        resources = mapping(container.get("resources"))
        merged = {
            **(mapping(resources.get("limits"))),
            **(mapping(resources.get("requests"))),
        }  # requests default to limits
        return {name: quantity.parse(value) for name, value in merged.items()}

    total: dict[str, float] = defaultdict(float)
    for container in mappings(spec.get("containers")):
        for name, value in of(container).items():
            total[name] += value
    for container in mappings(spec.get("initContainers")):
        for name, value in of(container).items():
            total[name] = max(total[name], value)
    return dict(total)


def pod_sets(obj: K8sObject) -> list[tuple[int, dict]]:
    """(pod count, pod spec) of every pod set Kueue admits together for this job."""
    spec = mapping(obj.doc.get("spec"))

    def template_spec(template: object) -> dict:
        return mapping(mapping(template).get("spec"))

    if obj.kind == "Job":
        return [(_count(spec.get("parallelism", 1)), template_spec(spec.get("template")))]
    if obj.group == "kubeflow.org":
        return [
            (_count(r.get("replicas", 1)), template_spec(r.get("template")))
            for r in mapping(spec.get(_KUBEFLOW[obj.kind])).values()
            if isinstance(r, dict)
        ]
    if obj.group == "jobset.x-k8s.io":
        return [
            (
                _count(job.get("replicas", 1))
                * _count(mapping(mapping(job.get("template")).get("spec")).get("parallelism", 1)),
                template_spec(
                    (mapping((mapping(job.get("template"))).get("spec"))).get("template")
                ),
            )
            for job in mappings(spec.get("replicatedJobs"))
        ]
    cluster = mapping(spec.get("rayClusterSpec")) if obj.kind == "RayJob" else spec
    sets = [(1, template_spec((mapping(cluster.get("headGroupSpec"))).get("template")))]
    sets += [
        (_count(g.get("replicas", g.get("minReplicas", 1))), template_spec(g.get("template")))
        for g in mappings(cluster.get("workerGroupSpecs"))
    ]
    if obj.kind == "RayJob" and spec.get("submitterPodTemplate"):
        sets.append((1, template_spec(spec["submitterPodTemplate"])))
    return sets


def gang_requests(obj: K8sObject) -> dict[str, float]:
    total: dict[str, float] = defaultdict(float)
    for count, spec in pod_sets(obj):
        for name, value in pod_requests(spec).items():
            total[name] += count * value
    return dict(total)


def _count(value: object) -> int:
    """A replica or parallelism count; one that is not a whole number (the schema rule says so)
    counts as 1."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def _selects(selector: object, labels: dict) -> bool:
    if not isinstance(selector, dict):
        return False  # a nil namespaceSelector matches no namespace
    for key, value in (mapping(selector.get("matchLabels"))).items():
        if labels.get(key) != value:
            return False
    for expression in mappings(selector.get("matchExpressions")):
        key, operator, values = (
            expression.get("key"),
            expression.get("operator"),
            sequence(expression.get("values")),
        )
        present = key in labels
        if (
            (operator == "In" and labels.get(key) not in values)
            or (operator == "NotIn" and present and labels[key] in values)
            or (operator == "Exists" and not present)
            or (operator == "DoesNotExist" and present)
        ):
            return False
    return True


def kueue_configuration(cluster: Cluster) -> tuple[str | None, set[str]] | None:
    """(namespace, enabled integrations) of the Kueue configuration this environment defines, if any."""
    found = None
    for obj in cluster.objects():
        data = obj.doc.get("data") if obj.kind == "ConfigMap" else None
        text = data.get("controller_manager_config.yaml") if isinstance(data, dict) else None
        if isinstance(text, str) and "config.kueue.x-k8s.io" in text:
            frameworks = _frameworks(text)
            if frameworks is not None:
                found = (obj.namespace, set(frameworks))
    return found


@lru_cache(maxsize=16)
def _frameworks(text: str) -> frozenset[str] | None:
    """The integrations a Kueue configuration enables; None when it is not YAML. Every
    environment's operators layer holds the same configuration: it is read once."""
    try:
        config = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    integrations = config.get("integrations") if isinstance(config, dict) else None
    frameworks = integrations.get("frameworks") if isinstance(integrations, dict) else None
    if not isinstance(frameworks, list):
        return frozenset()
    return frozenset(f for f in frameworks if isinstance(f, str))


class _Kueue:
    """What Kueue objects and configuration this environment defines."""

    def __init__(self, cluster: Cluster):
        objects = [o for o in cluster.objects() if o.group == "kueue.x-k8s.io"]
        self.local_queues = {(o.namespace, o.name): o for o in objects if o.kind == "LocalQueue"}
        self.cluster_queues = {o.name: o for o in objects if o.kind == "ClusterQueue"}
        self.namespace_labels = cluster.namespace_labels
        found = kueue_configuration(cluster)
        self.frameworks = found[1] if found else None

    def manages(self, namespace: str) -> bool:
        if any(ns == namespace for ns, _ in self.local_queues):
            return True
        labels = {
            **(self.namespace_labels(namespace) or {}),
            "kubernetes.io/metadata.name": namespace,
        }
        return any(
            _selects((mapping(q.doc.get("spec"))).get("namespaceSelector"), labels)
            for q in self.cluster_queues.values()
        )

    def available(self, queue: K8sObject, flavor: str, resource: str) -> tuple[float, float]:
        """(nominal quota, what the cohort can lend) of a ClusterQueue for a flavor and resource."""

        def quota(cq: K8sObject, key: str) -> float | None:
            for group in mappings((mapping(cq.doc.get("spec"))).get("resourceGroups")):
                for entry in mappings(group.get("flavors")):
                    if entry.get("name") == flavor:
                        for item in mappings(entry.get("resources")):
                            if item.get("name") == resource and key in item:
                                return quantity.parse(item[key])
            return None

        nominal = quota(queue, "nominalQuota") or 0.0
        cohort = (mapping(queue.doc.get("spec"))).get("cohortName") or (
            mapping(queue.doc.get("spec"))
        ).get("cohort")
        lendable = 0.0
        if cohort:
            for other in self.cluster_queues.values():
                if (
                    other is queue
                    or (
                        (mapping(other.doc.get("spec"))).get("cohortName")
                        or (mapping(other.doc.get("spec"))).get("cohort")
                    )
                    != cohort
                ):
                    continue
                lending = quota(other, "lendingLimit")
                lendable += (
                    lending if lending is not None else (quota(other, "nominalQuota") or 0.0)
                )
        borrowing = quota(queue, "borrowingLimit")
        return nominal, min(lendable, borrowing) if borrowing is not None else lendable


def _finding(rendered, obj, message, path, hint=None) -> Finding:
    return Finding(ID, SEVERITY, message, rendered.root, obj.file, obj.line, obj.ref, path, hint)


def _quota_findings(rendered, obj, kueue: _Kueue, queue: K8sObject) -> Iterator[Finding]:
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
            shortfalls.append(f"flavor {flavor['name']}: {', '.join(short)}")
        else:
            asked = ", ".join(f"{n} {quantity.show(n, v)}" for n, v in sorted(wanted.items()))
            yield _finding(
                rendered,
                obj,
                f"the whole gang requests {asked}, more than ClusterQueue {queue.name} can ever "
                f"admit ({'; '.join(shortfalls)}): the job waits forever",
                "spec",
                f"raise {queue.name}'s nominalQuota (or borrowing), or request less",
            )


def _queue_hint(kueue: _Kueue, namespace: str) -> str:
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
    kueue = cluster.memo("kueue", _Kueue)
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
        if not _selects((mapping(queue.doc.get("spec"))).get("namespaceSelector"), labels):
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
