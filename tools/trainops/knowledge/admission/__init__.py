"""What the operators and the GitOps controllers refuse that the API server accepts: their
validating admission webhooks and the checks their controllers make before acting, ported from
the pinned sources, one package per operator (as upstream lays out its webhooks).

Each port is an AdmissionCheck in CHECKS; the `operator-admission` rule applies every check that
names an object's kind, and `trainops coverage` reads the same registry, so what is ported and
what each port leaves out is printed from here, not from a hand-kept list.
"""

from __future__ import annotations

from trainops.knowledge.admission import (
    argocd,
    flux,
    jobset,
    kuberay,
    kueue,
    mpi_operator,
    training_operator,
    volcano,
)
from trainops.knowledge.admission.check import AdmissionCheck, Refusal

# Each operator's package lists its ports (CHECKS); the registry is their union.
CHECKS: list[AdmissionCheck] = [
    *kueue.CHECKS,
    *training_operator.CHECKS,
    *jobset.CHECKS,
    *kuberay.CHECKS,
    *mpi_operator.CHECKS,
    *flux.CHECKS,
    *argocd.CHECKS,
    *volcano.CHECKS,
]

__all__ = ["CHECKS", "AdmissionCheck", "Refusal", "checks_for"]


def checks_for(group: str, kind: str) -> list[AdmissionCheck]:
    return [c for c in CHECKS if (group, kind) in c.kinds]
