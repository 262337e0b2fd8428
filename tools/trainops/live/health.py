"""One definition of an object's health, in the words of Argo CD and of Flux.

`judge(obj)` decides a state and a message once; `argocd()` and `flux()` project it onto each
tool's vocabulary. The custom kinds follow the repository's own checks, which the tests run side
by side with this module: gitops/argocd/health-checks/*.lua in a real Lua 5.1 (same status, same
message) and the Flux `healthCheckExprs` of gitops/flux/<env> in a real CEL (same status). The
two tools differ on purpose where docs/gitops.md says so ("Queued is healthy"): a run that is under
way or queued is Progressing or Suspended to Argo CD and Current to Flux, so the states are as
fine as both need:

    state        Argo CD      Flux         e.g.
    healthy      Healthy      Current      a job succeeded, a queue is active
    running      Progressing  Current      a run accepted and under way (Flux does not wait for it;
                                           a batch Job is the exception: InProgress until done)
    suspended    Suspended    Current      queued by Kueue (suspended until its quota frees)
    suspending   Suspended    InProgress   a RayJob being suspended
    progressing  Progressing  InProgress   not there yet
    degraded     Degraded     Failed       a failed run, an inactive queue
    missing      Missing      NotFound     not in the cluster
    unknown      Unknown      Unknown      Argo CD's Unknown, passed through by an Application

Flux adds one rule of its own before any expression: an object whose `status.observedGeneration`
differs from `metadata.generation` is InProgress (fluxcd/pkg runtime/cel status_evaluator.go).

Built-in kinds follow gitops-engine's pkg/health (health_deployment.go, health_statefulset.go,
health_daemonset.go, health_job.go, health_pvc.go, health_service.go, health_apiservice.go) and,
for Flux, kstatus (fluxcd/cli-utils pkg/kstatus/status core.go: a CRD is Current once Established
and Failed when its names are not accepted) and kustomize-controller's own Job reader (a Job is
Current only when suspended or complete: knowledge/gitops_health.py). A kind with no check
is healthy once it exists, as both tools count it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from trainops.knowledge.gitops_health import flux_job_status
from trainops.model.shape import mapping, mappings


class State(str, Enum):
    HEALTHY = "healthy"
    RUNNING = "running"
    SUSPENDED = "suspended"
    SUSPENDING = "suspending"
    PROGRESSING = "progressing"
    DEGRADED = "degraded"
    MISSING = "missing"
    UNKNOWN = "unknown"


ARGOCD = {
    State.HEALTHY: "Healthy",
    State.RUNNING: "Progressing",
    State.SUSPENDED: "Suspended",
    State.SUSPENDING: "Suspended",
    State.PROGRESSING: "Progressing",
    State.DEGRADED: "Degraded",
    State.MISSING: "Missing",
    State.UNKNOWN: "Unknown",
}
FLUX = {
    State.HEALTHY: "Current",
    State.RUNNING: "Current",
    State.SUSPENDED: "Current",
    State.SUSPENDING: "InProgress",
    State.PROGRESSING: "InProgress",
    State.DEGRADED: "Failed",
    State.MISSING: "NotFound",
    State.UNKNOWN: "Unknown",
}
# gitops-engine pkg/health health.go `healthOrder`: an application is as healthy as its worst.
ARGOCD_ORDER = ["Healthy", "Suspended", "Progressing", "Missing", "Degraded", "Unknown"]


NOT_RECONCILED = "Not yet reconciled by {controller}"


@dataclass(frozen=True)
class Health:
    state: State
    message: str = ""
    # Where Flux reads the kind with a reader of its own rather than from the state (a batch Job).
    flux_status: str | None = None

    @property
    def argocd(self) -> str:
        return ARGOCD[self.state]

    def flux(self, obj: dict) -> str:
        status, metadata = mapping(obj.get("status")), mapping(obj.get("metadata"))
        if (
            "observedGeneration" in status
            and "generation" in metadata
            and status["observedGeneration"] != metadata["generation"]
        ):
            return "InProgress"
        return self.flux_status or FLUX[self.state]


def _status(obj: dict) -> dict | None:
    status = obj.get("status")
    return status if isinstance(status, dict) else None


def _or(*values: object) -> object:
    """Lua's `a or b`: the first value that is not nil (an empty string counts)."""
    return next((v for v in values if v is not None), None)


def _true_conditions(status: dict) -> list[dict]:
    return [c for c in mappings(status.get("conditions")) if c.get("status") == "True"]


# --- the repository's custom kinds (gitops/argocd/health-checks, gitops/flux/<env>) ----------


def _pytorchjob(obj: dict) -> Health:
    """pytorchjob.lua: the newest true condition decides (the Training Operator appends a
    condition when it changes: training-operator v1.8.1 pkg/util/status.go `setCondition`)."""
    return _newest_condition(obj, "the Training Operator")


def _mpijob(obj: dict) -> Health:
    """mpijob.lua (gitops/argocd/mpi): as the PyTorchJob's, with the MPI Operator v0.8.0's
    conditions (pkg/apis/kubeflow/v2beta1/types.go)."""
    return _newest_condition(obj, "the MPI Operator")


def _newest_condition(obj: dict, operator: str) -> Health:
    status = _status(obj)
    if status is None or status.get("conditions") is None:
        return Health(State.PROGRESSING, f"Waiting for {operator}")
    true = _true_conditions(status)
    if not true:
        return Health(State.PROGRESSING, f"Waiting for {operator}")
    latest = true[-1]
    message = str(_or(latest.get("message"), latest.get("type")))
    state = {
        "Succeeded": State.HEALTHY,
        "Failed": State.DEGRADED,
        "Suspended": State.SUSPENDED,
        "Running": State.RUNNING,
    }.get(str(latest.get("type")), State.PROGRESSING)
    return Health(state, message)


def _rayjob(obj: dict) -> Health:
    """rayjob.lua: jobDeploymentStatus says where the job is, jobStatus how it ended."""
    status = _status(obj)
    if status is None or status.get("jobDeploymentStatus") is None:
        return Health(State.PROGRESSING, "Waiting for KubeRay")
    deployment = str(status["jobDeploymentStatus"])
    job = str(_or(status.get("jobStatus"), ""))
    detail = str(_or(status.get("message"), ""))
    if deployment == "Complete" and job == "SUCCEEDED":
        return Health(State.HEALTHY, "Ray job succeeded")
    if deployment == "Failed" or (deployment == "Complete" and job in ("FAILED", "STOPPED")):
        return Health(
            State.DEGRADED,
            f"Ray job {(job or deployment).lower()}" + (f": {detail}" if detail else ""),
        )
    if deployment in ("Suspended", "Suspending"):
        state = State.SUSPENDED if deployment == "Suspended" else State.SUSPENDING
        return Health(state, "Suspended (waiting for quota)")
    state = State.RUNNING if deployment == "Running" else State.PROGRESSING
    return Health(state, f"Ray job {deployment.lower()}" + (f", {job.lower()}" if job else ""))


def _raycluster(obj: dict) -> Health:
    status = _status(obj)
    if status is None or status.get("state") is None:
        return Health(State.PROGRESSING, "Waiting for the Ray head and workers")
    state = str(status["state"])
    if state == "ready":
        return Health(State.HEALTHY, "Ray cluster ready")
    if state == "failed":
        return Health(State.DEGRADED, str(_or(status.get("reason"), "Ray cluster failed")))
    if state == "suspended":
        return Health(State.SUSPENDED, "Suspended (waiting for quota)")
    return Health(State.PROGRESSING, f"Ray cluster {state}")


def _kueue_queue(obj: dict) -> Health:
    """kueue-queue.lua: the Active condition (kueue v0.18.6 sets it True or False)."""
    status = _status(obj)
    health = Health(State.PROGRESSING, "Waiting for Kueue")
    if status is None or status.get("conditions") is None:
        return health
    for condition in mappings(status.get("conditions")):
        if condition.get("type") == "Active":
            message = str(_or(condition.get("message"), condition.get("reason"), ""))
            active = condition.get("status") == "True"
            health = Health(State.HEALTHY if active else State.DEGRADED, message)
    return health


def _jobset(obj: dict) -> Health:
    status = _status(obj)
    if status is None:  # the JobSet controller writes a status on its first reconcile
        return Health(State.PROGRESSING, NOT_RECONCILED.format(controller="the JobSet controller"))
    if status.get("conditions") is None:  # reconciled, never suspended: its Jobs run
        return Health(State.PROGRESSING, "JobSet running")
    found = {
        str(c.get("type")): str(_or(c.get("message"), c.get("type")))
        for c in _true_conditions(status)
    }
    for kind, state in (
        ("Failed", State.DEGRADED),
        ("Completed", State.HEALTHY),
        ("Suspended", State.SUSPENDED),
    ):
        if kind in found:
            return Health(state, found[kind])
    # Resumed (JobSet v0.12.0 turns Suspended to False: setJobSetResumedCondition) and not
    # recreating its Jobs (RestartingJobSet): a run under way, which Flux does not wait for.
    resumed = any(
        c.get("type") == "Suspended" and c.get("status") == "False"
        for c in mappings(status.get("conditions"))
    )
    if resumed and "RestartingJobSet" not in found:
        return Health(State.RUNNING, "JobSet running")
    return Health(State.PROGRESSING, "JobSet running")


# Volcano Job phases (volcano v1.15.1 batch.volcano.sh_jobs.yaml enumerates ten): Pending waits
# for its gang, and with Running, Completing and Completed is accepted by Flux.
_VOLCANO_RUNNING = {"Pending", "Running", "Completing"}


def _volcano_job(obj: dict) -> Health:
    status = _status(obj)
    state = mapping(status.get("state")) if status is not None else {}
    if status is None or status.get("state") is None or state.get("phase") is None:
        return Health(State.PROGRESSING, "Waiting for Volcano")
    phase = str(state["phase"])
    detail = str(_or(state.get("message"), state.get("reason"), "")) or f"Volcano Job {phase}"
    if phase == "Completed":
        return Health(State.HEALTHY, detail)
    if phase in ("Failed", "Terminated", "Terminating"):
        return Health(State.DEGRADED, detail)
    if phase in ("Aborted", "Aborting"):
        return Health(State.SUSPENDED, detail)
    return Health(State.RUNNING if phase in _VOLCANO_RUNNING else State.PROGRESSING, detail)


def _volcano_queue(obj: dict) -> Health:
    status = _status(obj)
    if status is None or status.get("state") is None:
        return Health(State.PROGRESSING, "Waiting for Volcano")
    state = str(status["state"])
    if state == "Open":
        return Health(State.HEALTHY, f"Queue {state}")
    if state in ("Closed", "Closing"):
        return Health(State.DEGRADED, f"Queue {state}")
    return Health(State.PROGRESSING, f"Queue {state}")


_APPLICATION_STATES = {
    v: k for k, v in ARGOCD.items() if k not in (State.RUNNING, State.SUSPENDING)
}


def _application(obj: dict) -> Health:
    health = mapping(mapping(_status(obj)).get("health"))
    if health.get("status") is None:
        return Health(State.PROGRESSING, "")
    state = _APPLICATION_STATES.get(str(health["status"]), State.UNKNOWN)
    return Health(state, str(_or(health.get("message"), "")))


# --- built-in kinds: gitops-engine pkg/health, and kstatus for Flux -----------------------------


def _int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _generation_observed(obj: dict) -> bool:
    generation = _int(mapping(obj.get("metadata")).get("generation"))
    return generation <= _int(mapping(_status(obj)).get("observedGeneration"))


def _deployment(obj: dict) -> Health:
    spec, status = mapping(obj.get("spec")), mapping(_status(obj))
    if spec.get("paused"):
        return Health(State.SUSPENDED, "Deployment is paused")
    if not _generation_observed(obj):
        return Health(
            State.PROGRESSING,
            "Waiting for rollout to finish: observed deployment generation less than desired generation",
        )
    progressing = next(
        (c for c in mappings(status.get("conditions")) if c.get("type") == "Progressing"), {}
    )
    replicas = _int(spec.get("replicas"), 1)
    updated, available = _int(status.get("updatedReplicas")), _int(status.get("availableReplicas"))
    current = _int(status.get("replicas"))
    name = mapping(obj.get("metadata")).get("name")
    if progressing.get("reason") == "ProgressDeadlineExceeded":
        return Health(State.DEGRADED, f'Deployment "{name}" exceeded its progress deadline')
    if updated < replicas:
        return Health(
            State.PROGRESSING,
            f"Waiting for rollout to finish: {updated} out of {replicas} new replicas have been updated...",
        )
    if current > updated:
        return Health(
            State.PROGRESSING,
            f"Waiting for rollout to finish: {current - updated} old replicas are pending termination...",
        )
    if available < updated:
        return Health(
            State.PROGRESSING,
            f"Waiting for rollout to finish: {available} of {updated} updated replicas are available...",
        )
    return Health(State.HEALTHY, "")


def _replicated(what: str) -> Callable[[dict], Health]:
    """StatefulSet and DaemonSet: observed, then every replica ready and updated."""

    def judge(obj: dict) -> Health:
        spec, status = mapping(obj.get("spec")), mapping(_status(obj))
        if not _generation_observed(obj) or not status.get("observedGeneration"):
            return Health(State.PROGRESSING, f"Waiting for {what} spec update to be observed...")
        if what == "statefulset":
            wanted, ready = _int(spec.get("replicas"), 1), _int(status.get("readyReplicas"))
        else:
            wanted = _int(status.get("desiredNumberScheduled"))
            ready = _int(status.get("numberAvailable"))
        if ready < wanted:
            return Health(State.PROGRESSING, f"Waiting for {wanted - ready} pods to be ready...")
        return Health(State.HEALTHY, "")

    return judge


def _job(obj: dict) -> Health:
    """health_job.go: Degraded on a Failed condition, else Suspended on a true Suspended one, else
    Healthy once any of Complete or Suspended is there; until then Progressing. Flux reads a Job
    with its own reader (knowledge/gitops_health.py flux_job_status): a started Job is
    InProgress until it completes."""
    health = _job_argocd(obj)
    return Health(health.state, health.message, flux_job_status(obj)[0])


def _job_argocd(obj: dict) -> Health:
    status = mapping(_status(obj))
    failed = complete = suspended = False
    message = ""
    for condition in mappings(status.get("conditions")):
        kind, true = condition.get("type"), condition.get("status") == "True"
        if kind == "Failed" and true:
            failed, complete, message = True, True, str(condition.get("message") or "")
        elif kind == "Complete" and true:
            complete, message = True, str(condition.get("message") or "")
        elif kind == "Suspended":
            complete = True
            message = str(condition.get("message") or "")
            suspended = suspended or true
    if failed:
        return Health(State.DEGRADED, message)
    if suspended:  # the job controller's condition, not spec.suspend, as gitops-engine reads it
        return Health(State.SUSPENDED, message or "Job is suspended")
    if complete:
        return Health(State.HEALTHY, message)
    if status.get("startTime"):
        return Health(State.RUNNING, f"Job in progress: {_int(status.get('active'))} active")
    return Health(State.PROGRESSING, "Job not started")


def _pvc(obj: dict) -> Health:
    phase = mapping(_status(obj)).get("phase")
    return {
        "Bound": Health(State.HEALTHY, ""),
        "Pending": Health(State.PROGRESSING, "PersistentVolumeClaim is Pending"),
        "Lost": Health(State.DEGRADED, "PersistentVolumeClaim is Lost"),
    }.get(str(phase), Health(State.PROGRESSING, "Waiting to be bound"))


def _service(obj: dict) -> Health:
    if mapping(obj.get("spec")).get("type") != "LoadBalancer":
        return Health(State.HEALTHY, "")
    if mappings(mapping(mapping(_status(obj)).get("loadBalancer")).get("ingress")):
        return Health(State.HEALTHY, "")
    return Health(State.PROGRESSING, "Waiting for the load balancer")


def _condition_health(
    kind: str, good: str, bad_reason: str | None = None
) -> Callable[[dict], Health]:
    """A kind whose condition `kind` says it is ready; `bad` False means it failed for good."""

    def judge(obj: dict) -> Health:
        conditions = {c.get("type"): c for c in mappings(mapping(_status(obj)).get("conditions"))}
        if bad_reason and conditions.get(bad_reason, {}).get("status") == "False":
            return Health(State.DEGRADED, str(conditions[bad_reason].get("message") or bad_reason))
        condition = conditions.get(kind, {})
        if condition.get("status") == "True":
            return Health(State.HEALTHY, str(condition.get("message") or good))
        detail = condition.get("message") or condition.get("reason") or f"not {kind} yet"
        return Health(State.PROGRESSING, str(detail))

    return judge


def _namespace(obj: dict) -> Health:
    if mapping(_status(obj)).get("phase") == "Terminating":
        return Health(State.PROGRESSING, "Namespace is terminating")
    return Health(State.HEALTHY, "")


CHECKS: dict[tuple[str, str], Callable[[dict], Health]] = {
    ("kubeflow.org", "PyTorchJob"): _pytorchjob,
    ("kubeflow.org", "MPIJob"): _mpijob,
    ("ray.io", "RayJob"): _rayjob,
    ("ray.io", "RayCluster"): _raycluster,
    ("kueue.x-k8s.io", "ClusterQueue"): _kueue_queue,
    ("kueue.x-k8s.io", "LocalQueue"): _kueue_queue,
    ("jobset.x-k8s.io", "JobSet"): _jobset,
    ("batch.volcano.sh", "Job"): _volcano_job,
    ("scheduling.volcano.sh", "Queue"): _volcano_queue,
    ("argoproj.io", "Application"): _application,
    ("apps", "Deployment"): _deployment,
    ("apps", "StatefulSet"): _replicated("statefulset"),
    ("apps", "DaemonSet"): _replicated("daemonset"),
    ("batch", "Job"): _job,
    ("", "PersistentVolumeClaim"): _pvc,
    ("", "Service"): _service,
    ("", "Namespace"): _namespace,
    ("apiregistration.k8s.io", "APIService"): _condition_health("Available", "available"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _condition_health(
        "Established", "established", bad_reason="NamesAccepted"
    ),
}


def judge(obj: dict | None, api_version: str | None = None, kind: str | None = None) -> Health:
    """The health of a live object (None: it is not in the cluster)."""
    if obj is None:
        return Health(State.MISSING, "not in the cluster")
    group = str(api_version or obj.get("apiVersion", "")).rpartition("/")[0]
    check = CHECKS.get((group, str(kind or obj.get("kind", ""))))
    return check(obj) if check is not None else Health(State.HEALTHY, "")


def argocd_worst(statuses: list[str]) -> str:
    """Argo CD's health of an application: its resources' worst."""
    return max(statuses, key=ARGOCD_ORDER.index, default="Healthy")


def flux_ready(statuses: list[str]) -> str:
    """A Kustomization with `wait: true`: Failed as soon as one object failed, Ready when every
    object is Current, in progress until then."""
    if "Failed" in statuses:
        return "Failed"
    return "Ready" if all(s == "Current" for s in statuses) else "InProgress"
