"""What Kueue manages and admits: the job kinds of its integrations, the pod sets it admits
together and what they request, the queues and quotas an environment defines, and the
integrations its configuration enables. Facts from the pinned Kueue (v0.18) jobframework and its
ClusterQueue API; the kueue-admission, runnable, schedulable and other rules judge with them.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

import yaml

from trainops.model import quantity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster
from trainops.model.shape import mapping, mappings, sequence, strings
from trainops.model.yaml_bounds import load_bounded

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
    return [(count, spec) for _, count, spec in named_pod_sets(obj)]


def named_pod_sets(obj: K8sObject) -> list[tuple[str, int, dict]]:
    """(name, pod count, pod spec) of every pod set Kueue admits together for this job: the
    Job's pods, each replica type of a training job, each replicated Job of a JobSet, a Ray
    cluster's head and worker groups and a RayJob's submitter."""
    spec = mapping(obj.doc.get("spec"))

    def template_spec(template: object) -> dict:
        return mapping(mapping(template).get("spec"))

    if obj.kind == "Job":
        return [("pods", _count(spec.get("parallelism", 1)), template_spec(spec.get("template")))]
    if obj.group == "kubeflow.org":
        return [
            (str(name), _count(r.get("replicas", 1)), template_spec(r.get("template")))
            for name, r in mapping(spec.get(_KUBEFLOW[obj.kind])).items()
            if isinstance(r, dict)
        ]
    if obj.group == "jobset.x-k8s.io":
        return [
            (
                str(job.get("name", "job")),
                _count(job.get("replicas", 1))
                * _count(mapping(mapping(job.get("template")).get("spec")).get("parallelism", 1)),
                template_spec(
                    (mapping((mapping(job.get("template"))).get("spec"))).get("template")
                ),
            )
            for job in mappings(spec.get("replicatedJobs"))
        ]
    cluster = mapping(spec.get("rayClusterSpec")) if obj.kind == "RayJob" else spec
    sets = [("head", 1, template_spec((mapping(cluster.get("headGroupSpec"))).get("template")))]
    sets += [
        (
            str(g.get("groupName", "workers")),
            _count(g.get("replicas", g.get("minReplicas", 1))),
            template_spec(g.get("template")),
        )
        for g in mappings(cluster.get("workerGroupSpecs"))
    ]
    if obj.kind == "RayJob" and spec.get("submitterPodTemplate"):
        sets.append(("submitter", 1, template_spec(spec["submitterPodTemplate"])))
    return sets


def gang_requests(obj: K8sObject) -> dict[str, float]:
    total: dict[str, float] = defaultdict(float)
    for count, spec in pod_sets(obj):
        for name, value in pod_requests(spec).items():
            total[name] += count * value
    return dict(total)


# Assignments of pod sets to flavors past which `split_fits` stops looking and does not say a
# gang never fits (it says only what it can prove).
_MOST_ASSIGNMENTS = 20_000


def split_fits(kueue: Kueue, queue: K8sObject, group: dict, obj: K8sObject) -> bool:
    """Whether the job's pod sets fit a resource group of its ClusterQueue, each pod set in a
    flavor of its own choosing, within each flavor's nominal quota plus what the cohort can lend.
    Kueue assigns flavors pod set by pod set (v0.18.6 pkg/scheduler/flavorassigner/
    flavorassigner.go, Assign), so a gang no one flavor holds may still fit split between two.
    True too when there are more assignments than _MOST_ASSIGNMENTS to try."""
    covered = set(strings(group.get("coveredResources")))
    wants = []
    for _, count, spec in named_pod_sets(obj):
        want = {n: v * count for n, v in pod_requests(spec).items() if n in covered and v > 0}
        if want:
            wants.append(want)
    names = [str(entry.get("name")) for entry in mappings(group.get("flavors"))]
    if len(names) ** len(wants) > _MOST_ASSIGNMENTS:
        return True
    room = {name: {r: sum(kueue.available(queue, name, r)) for r in covered} for name in names}

    def place(index: int) -> bool:
        if index == len(wants):
            return True
        for name in names:
            left, want = room[name], wants[index]
            if all(left[r] + 1e-9 >= v for r, v in want.items()):
                for r, v in want.items():
                    left[r] -= v
                if place(index + 1):
                    return True
                for r, v in want.items():
                    left[r] += v
        return False

    return place(0)


def _count(value: object) -> int:
    """A replica or parallelism count; one that is not a whole number (the schema rule says so)
    counts as 1."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 1


def selects(selector: object, labels: dict) -> bool:
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


def wait_for_pods_ready(cluster: Cluster) -> tuple[K8sObject, dict | None] | None:
    """(the ConfigMap holding Kueue's configuration, its `waitForPodsReady` section or None when
    it has none) for the environment, or None when the environment defines no Kueue
    configuration. Kueue v0.18.6 turns the feature on by the section's presence alone
    (pkg/util/waitforpodsready/waitforpodsready.go: Enabled is `cfg != nil`)."""
    for obj in cluster.objects():
        data = obj.doc.get("data") if obj.kind == "ConfigMap" else None
        text = data.get("controller_manager_config.yaml") if isinstance(data, dict) else None
        if isinstance(text, str) and "config.kueue.x-k8s.io" in text:
            section = _section(text, "waitForPodsReady")
            return obj, section if isinstance(section, dict) else None
    return None


@lru_cache(maxsize=16)
def _parsed(text: str) -> object:
    try:
        return load_bounded(text)
    except yaml.YAMLError:
        return None


def _section(text: str, key: str) -> object:
    config = _parsed(text)
    return config.get(key) if isinstance(config, dict) else None


@lru_cache(maxsize=16)
def _frameworks(text: str) -> frozenset[str] | None:
    """The integrations a Kueue configuration enables; None when it is not YAML. Every
    environment's operators layer holds the same configuration: it is read once."""
    try:
        config = load_bounded(text)
    except yaml.YAMLError:
        return None
    integrations = config.get("integrations") if isinstance(config, dict) else None
    frameworks = integrations.get("frameworks") if isinstance(integrations, dict) else None
    if not isinstance(frameworks, list):
        return frozenset()
    return frozenset(f for f in frameworks if isinstance(f, str))


class Kueue:
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
            selects((mapping(q.doc.get("spec"))).get("namespaceSelector"), labels)
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
