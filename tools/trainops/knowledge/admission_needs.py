"""What an operator's admission webhook needs before it admits an object, and updates it refuses.

Some webhooks admit an object only once another object exists and is ready, as the webhook's own
informer cache sees it; GitOps must then apply and wait for the needed object before the one that
names it. A controller sets the readiness after the needed object is created, so applying both in
one step (one Argo CD phase and wave, one Flux Kustomization) fails the first sync.

Some webhooks refuse an update with a plain denial: kube-apiserver turns it into a 400 Bad Request
with the webhook's message (k8s.io/apiserver v0.32.13
pkg/admission/plugin/webhook/errors/statuserror.go, ToStatusErr). Flux's
`kustomize.toolkit.fluxcd.io/force: enabled` recreates an object only after an error it takes
for an immutable field: a Conflict, an Invalid, or a message matching `is immutable` or
`immutable field` (fluxcd/pkg ssa v0.76.1, the version kustomize-controller v1.9.4 uses,
ssa/errors/immutable.go IsImmutableError). Such a denial is neither, so force never recreates the
object and every change in git fails the Kustomization until someone deletes the object. Under
Flux such a kind is created once (`kustomize.toolkit.fluxcd.io/ssa: IfNotPresent`, fluxcd/pkg ssa
manager_apply.go shouldSkipApply), and a new run is a new name.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainops.model.objects import K8sObject
from trainops.model.shape import mapping

FLUX_SSA = "kustomize.toolkit.fluxcd.io/ssa"


@dataclass(frozen=True)
class Need:
    """An object of `kind` is admitted only once the object of `needed` its `field` names exists
    and is `ready`."""

    kind: tuple[str, str]
    field: tuple[str, ...]
    needed: tuple[str, str]
    namespaced: bool  # the needed object is in the admitted object's namespace
    ready: str
    upstream: str
    default: str | None = None  # what the field means when unset (another webhook fills it)


NEEDS: tuple[Need, ...] = (
    # validateJobCreate reads the Queue from the webhook's lister: "unable to find job queue", or
    # "can only submit job to queue with state `Open`"; Volcano's queue controller opens a new
    # Queue (pkg/controllers/queue). An unset queue is `default` (mutate_job.go
    # patchDefaultQueue), which Volcano creates itself.
    Need(
        ("batch.volcano.sh", "Job"),
        ("spec", "queue"),
        ("scheduling.volcano.sh", "Queue"),
        False,
        "status.state Open",
        "volcano-sh/volcano v1.15.1 pkg/webhooks/admission/jobs/validate/admit_job.go "
        "validateJobCreate",
        "default",
    ),
)

# Kinds whose webhook refuses updates of most of their spec with a message Flux does not take for
# an immutable field (see above): (group, kind) -> the upstream function and what it allows.
UPDATE_REFUSED: dict[tuple[str, str], str] = {
    ("batch.volcano.sh", "Job"): (
        "volcano-sh/volcano v1.15.1 pkg/webhooks/admission/jobs/validate/admit_job.go "
        "validateJobUpdate: only minAvailable, tasks[*].replicas and priorityClassName may change"
    ),
}


def needs_of(obj: K8sObject) -> list[tuple[Need, str]]:
    """Each Need of the object with the name of the object it needs (none for a built-in
    default)."""
    found = []
    for need in NEEDS:
        if (obj.group, obj.kind) != need.kind:
            continue
        value: object = obj.doc
        for key in need.field:
            value = mapping(value).get(key)
        name = value if isinstance(value, str) and value else need.default
        if name and name != need.default:
            found.append((need, name))
    return found


def matches(need: Need, obj: K8sObject, namespace: str | None, name: str) -> bool:
    """Whether `obj` is the object `need` names (`name`, in `namespace` if namespaced)."""
    return (
        (obj.group, obj.kind) == need.needed
        and obj.name == name
        and (not need.namespaced or obj.namespace == namespace)
    )
