"""The MPI Operator v0.8.0: what its controller refuses before acting. It serves no admission
webhook; its controller validates each MPIJob (pkg/apis/kubeflow/validation)."""

from __future__ import annotations

from trainops.knowledge.admission.check import AdmissionCheck
from trainops.knowledge.admission.mpi_operator import validation

OPERATOR = "MPI Operator v0.8.0"

CHECKS: list[AdmissionCheck] = [
    AdmissionCheck(
        OPERATOR,
        (("kubeflow.org", "MPIJob"),),
        validation.UPSTREAM,
        "controller",
        validation.controller_check,
        "",
    )
]
