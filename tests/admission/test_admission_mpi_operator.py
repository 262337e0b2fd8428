"""The MPI Operator v0.8.0's own validation test table (tests/admission/mpi_operator) judges its
port in trainops.knowledge.admission.mpi_operator."""

from __future__ import annotations

import pytest

from admission.tables import cases, judge
from trainops.knowledge.admission.mpi_operator import validation


@pytest.mark.parametrize(("table", "case"), cases("mpi_operator"))
def test_upstream_case(table, case):
    judge(validation.validate_mpi_job(case["object"]), table, case)


def test_the_controller_judges_the_defaulted_job_it_manages():
    job = {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "metadata": {"name": "allreduce"},
        "spec": {"mpiReplicaSpecs": {"Launcher": {"template": {"spec": {"containers": [{}]}}}}},
    }
    assert validation.controller_check(job) == []  # the defaults fill what ValidateMPIJob needs
    job["spec"]["mpiReplicaSpecs"]["Worker"] = {"template": {"spec": {"containers": [{}]}}}
    assert validation.controller_check(job) == [
        (
            "spec.mpiReplicaSpecs[Worker].replicas",
            "Invalid value: 0: must be greater than or equal to 1",
        )
    ]
    job["spec"]["runPolicy"] = {"managedBy": "kueue.x-k8s.io/multikueue"}
    assert validation.controller_check(job) == []  # another controller's
    assert validation.controller_check({**job, "apiVersion": "kubeflow.org/v1"}) == []
