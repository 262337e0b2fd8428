"""The health a GitOps controller computes for what it waits on, where that differs from "the run
was accepted".

Flux kustomize-controller v1.9.4 (internal/controller/kustomization_controller.go checkHealth):
with `wait: true` it waits for every object it applied, else for the objects `healthChecks`
names, each to be Current, up to `timeout`; past it the Kustomization is Ready=False
(HealthCheckFailed) and every reconcile (each `retryInterval`) waits the whole timeout again. How
an object's status is read (the first status reader that supports its GroupKind wins:
fluxcd/cli-utils pkg/kstatus/polling/engine/engine.go statusReaderForGroupKind):
- a batch Job: fluxcd/pkg runtime v0.110.1 runtime/statusreaders/job.go jobConditions — Current
  when `spec.suspend` is true or its Complete condition is True, Failed on a True Failed
  condition, otherwise InProgress: a Job that runs is InProgress until it finishes. That reader
  comes before the `healthCheckExprs` readers (getClientAndPoller), so an expression for batch
  Jobs changes nothing, unless the Kustomization impersonates (`serviceAccountName` or
  `kubeConfig`: runtime/client/impersonator.go appends the Job reader after them);
- a kind with a `healthCheckExprs` entry: that entry (runtime/cel/status_evaluator.go);
- a PersistentVolumeClaim: kstatus core.go pvcConditions — InProgress until Bound.

So a layer whose Kustomization waits on a training Job waits as long as the training runs: a
Job of hours makes the layer unready for hours, and each reconcile holds a worker for the timeout.

Argo CD v3.5.1 (gitops-engine pkg/health/health_job.go): a running Job is Progressing; a sync
waits for it only when the Application's sync has more than one phase or wave
(gitops-engine pkg/sync/sync_context.go Sync: running tasks of a multi-step sync are waited for).
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.admission.flux.kustomize_controller import group_kind
from trainops.model.objects import K8sObject
from trainops.model.shape import mapping, mappings

CURRENT, IN_PROGRESS, FAILED = "Current", "InProgress", "Failed"
JOB = ("batch", "Job")
QUEUE_NAME = "kueue.x-k8s.io/queue-name"
JOB_READER = "fluxcd/pkg runtime v0.110.1 runtime/statusreaders/job.go jobConditions"


def flux_job_status(obj: dict) -> tuple[str, str]:
    """jobConditions: (status, message) of a batch Job as kustomize-controller reads it."""
    spec, status = mapping(obj.get("spec")), mapping(obj.get("status"))
    if spec.get("suspend") is True:
        return CURRENT, "Job is suspended"
    for condition in mappings(status.get("conditions")):
        if condition.get("status") != "True":
            continue
        if condition.get("type") == "Complete":
            return CURRENT, "Job Completed"
        if condition.get("type") == "Failed":
            return FAILED, "Job Failed"
    if not status.get("startTime"):
        return IN_PROGRESS, "Job not started"
    return IN_PROGRESS, "Job in progress"


def _impersonates(spec: dict) -> bool:
    return bool(spec.get("serviceAccountName")) or spec.get("kubeConfig") is not None


def _has_expression(spec: dict, key: tuple[str, str]) -> bool:
    group = key[0]
    return any(
        group_kind(e.get("apiVersion"), e.get("kind")) in (key, (group, ""))
        for e in mappings(spec.get("healthCheckExprs"))
    )


def flux_waits_on(kustomization: K8sObject, applied: list[K8sObject]) -> Iterator[K8sObject]:
    """The objects of `applied` kustomize-controller waits to be Current before the Kustomization
    is Ready: all with `wait: true`, else those `healthChecks` names (checkHealth)."""
    spec = mapping(kustomization.doc.get("spec"))
    if spec.get("wait") is True:
        yield from applied
        return
    wanted = {
        (str(c.get("kind")), str(c.get("name")), str(c.get("namespace") or ""))
        for c in mappings(spec.get("healthChecks"))
    }
    for obj in applied:
        if (obj.kind, obj.name, obj.namespace or "") in wanted:
            yield obj


def flux_blocks_while_running(kustomization: K8sObject, obj: K8sObject) -> str | None:
    """Why kustomize-controller, waiting on `obj`, counts a training run InProgress for as long as
    it runs (None when it does not). A training run is a Job Kueue queues (its
    `kueue.x-k8s.io/queue-name` label): it may wait for quota, then runs as long as it trains. A
    Job that sets something up (a certificate, a migration) is what waiting is for."""
    labels = mapping(mapping(obj.doc.get("metadata")).get("labels"))
    if (obj.group, obj.kind) != JOB or QUEUE_NAME not in labels:
        return None
    spec = mapping(kustomization.doc.get("spec"))
    if _impersonates(spec) and _has_expression(spec, JOB):
        return None  # its own healthCheckExprs entry decides, which this module does not judge
    return (
        "kustomize-controller counts a batch Job InProgress until it completes, its reader "
        f"coming before any healthCheckExprs ({JOB_READER})"
    )
