"""Jobs name Kueue WorkloadPriorityClasses the environment defines.

What it catches, for every job-like object Kueue manages (the kinds of `kueue-admission`) in a
namespace a LocalQueue or ClusterQueue of the same environment covers:

- a `kueue.x-k8s.io/priority-class` label naming a WorkloadPriorityClass that no layer of the
  environment defines (kueue.x-k8s.io, v1beta1 or v1beta2; the classes are cluster-scoped);
- (warning) an empty `kueue.x-k8s.io/priority-class` label, which Kueue reads as no class at
  all (pkg/controller/jobframework/utils.go, WorkloadPriorityClassName): the priority then comes
  from the pods' priorityClassName, or the cluster's default PriorityClass.

Why it matters: Kueue v0.18.6 looks the class up when it builds the job's Workload
(pkg/controller/jobframework/reconciler.go, ExtractPriority, through
pkg/util/priority/priority.go, GetPriorityFromWorkloadPriorityClass) and returns the lookup's
error: no Workload is created, so the job stays suspended and is never admitted, with nothing
but a controller error to say why. Kueue's webhook also refuses to remove the label from a job
later (pkg/controller/jobframework/validation.go: "WorkloadPriorityClass cannot be removed from a
workload"), so the fix is to define the class, or recreate the job.

How to fix: define the WorkloadPriorityClass in the platform layer (beside the ClusterQueue), or
label the job with one that exists; the finding names those defined.

Passing (the class is defined):

    apiVersion: kueue.x-k8s.io/v1beta2
    kind: WorkloadPriorityClass
    metadata: {name: scheduled}
    value: 100
    ---
    apiVersion: batch/v1
    kind: Job
    metadata:
      labels: {kueue.x-k8s.io/queue-name: team-lq, kueue.x-k8s.io/priority-class: scheduled}

Failing: the same Job labelled `kueue.x-k8s.io/priority-class: urgent` with no class `urgent`.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.kueue import Kueue, framework
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping

ID = "workload-priority-class"
SEVERITY = Severity.ERROR
SUMMARY = "jobs name Kueue WorkloadPriorityClasses the environment defines"

# Kueue v0.18.6, pkg/controller/constants/constants.go: WorkloadPriorityClassLabel.
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
_PATH = f"metadata.labels.{PRIORITY_CLASS_LABEL}"


def _finding(
    rendered: Rendered, obj, message: str, hint: str, severity: Severity = SEVERITY
) -> Finding:
    return Finding(ID, severity, message, rendered.root, obj.file, obj.line, obj.ref, _PATH, hint)


def _priority_classes(cluster: Cluster) -> frozenset[str]:
    """The names of the WorkloadPriorityClasses the environment's layers define."""
    return frozenset(
        obj.name
        for obj in cluster.objects()
        if obj.group == "kueue.x-k8s.io" and obj.kind == "WorkloadPriorityClass" and obj.name
    )


def _hint(defined: list[str]) -> str:
    if defined:
        return f"label it with a defined class ({', '.join(defined)}), or define the class"
    return "define the WorkloadPriorityClass in the platform layer, beside the ClusterQueue"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    kueue = cluster.memo("kueue", Kueue)
    classes = cluster.memo("workload-priority-classes", _priority_classes)
    defined = sorted(classes)
    for obj in rendered.objects:
        if framework(obj) is None or not obj.namespace or not kueue.manages(obj.namespace):
            continue
        labels = mapping(mapping(obj.doc.get("metadata")).get("labels"))
        if PRIORITY_CLASS_LABEL not in labels:
            continue
        name = labels[PRIORITY_CLASS_LABEL]
        if name in (None, ""):
            yield _finding(
                rendered,
                obj,
                f"the {PRIORITY_CLASS_LABEL} label is empty: Kueue reads it as no class, and the "
                "priority comes from the pods' priorityClassName or the cluster's default",
                "remove the label, or name a WorkloadPriorityClass",
                Severity.WARNING,
            )
        elif str(name) not in classes:
            yield _finding(
                rendered,
                obj,
                f"names WorkloadPriorityClass {name}, which no layer of the environment defines: "
                "Kueue creates no Workload for the job, so it is never admitted",
                _hint(defined),
            )
