"""MPI Operator v0.8.0 pkg/apis/kubeflow/validation/validation.go: ValidateMPIJob, which the
controller (pkg/controller/mpi_job_controller.go syncHandler) runs after the v2beta1 defaults
(pkg/apis/kubeflow/v2beta1/default.go SetDefaults_MPIJob): on failure it records a warning event
and never creates the launcher or the workers."""

from __future__ import annotations

import copy

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    invalid,
    is_int,
    not_supported,
    required,
)
from trainops.model.shape import mapping

UPSTREAM = "pkg/apis/kubeflow/validation/validation.go ValidateMPIJob, MPI Operator v0.8.0"

# sets.NewString(...).List(): sorted.
_CLEAN_POLICIES = ("All", "None", "Running")
_IMPLEMENTATIONS = ("Intel", "MPICH", "OpenMPI")
_RESTART_POLICIES = ("Never", "OnFailure")
_OPERATOR = "kubeflow.org/mpi-operator"  # KubeflowJobController
_MANAGED_BY = (_OPERATOR, "kueue.x-k8s.io/multikueue")
_NON_NEGATIVE = "must be greater than or equal to 0"  # apimachinery IsNegativeErrorMsg


def controller_check(doc: dict) -> Errors:
    """What the controller refuses: nothing for a kubeflow.org/v1 MPIJob (the Training
    Operator's) or one another controller manages (managedByExternalController), else
    ValidateMPIJob of the defaulted MPIJob."""
    if doc.get("apiVersion") != "kubeflow.org/v2beta1":
        return []
    manager = mapping(mapping(doc.get("spec")).get("runPolicy")).get("managedBy")
    if manager is not None and manager != _OPERATOR:
        return []
    return validate_mpi_job(default(doc))


def default(doc: dict) -> dict:
    """SetDefaults_MPIJob: clean pod policy None, one slot a worker, /root/.ssh, OpenMPI; the
    launcher OnFailure and one replica, the workers Never and no replica."""
    doc = copy.deepcopy(doc)
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        return doc
    run_policy = spec.setdefault("runPolicy", {})
    if isinstance(run_policy, dict) and run_policy.get("cleanPodPolicy") is None:
        run_policy["cleanPodPolicy"] = "None"
    if spec.get("slotsPerWorker") is None:
        spec["slotsPerWorker"] = 1
    if not spec.get("sshAuthMountPath"):
        spec["sshAuthMountPath"] = "/root/.ssh"
    if not spec.get("mpiImplementation"):
        spec["mpiImplementation"] = "OpenMPI"
    specs = mapping(spec.get("mpiReplicaSpecs"))
    for role, restart, replicas in (("Launcher", "OnFailure", 1), ("Worker", "Never", 0)):
        if isinstance(replica := specs.get(role), dict):
            if not replica.get("restartPolicy"):
                replica["restartPolicy"] = restart
            if replica.get("replicas") is None:
                replica["replicas"] = replicas
    return doc


def validate_mpi_job(doc: dict) -> Errors:
    spec = mapping(doc.get("spec"))
    return _name(doc, spec) + _spec(spec)


def _name(doc: dict, spec: dict) -> Errors:
    """validateMPIJobName: the last worker's hostname, <name>-worker-<n-1>, is a DNS-1035 label."""
    name = str(mapping(doc.get("metadata")).get("name") or "")
    worker = mapping(mapping(spec.get("mpiReplicaSpecs")).get("Worker"))
    count = worker.get("replicas")
    replicas = count if is_int(count) and count > 0 else 1
    hostname = f"{name}-worker-{replicas - 1}"
    if problems := names.dns1035_label(hostname):
        detail = (
            f'will not able to create pod and service with invalid DNS label "{hostname}": '
            + ", ".join(problems)
        )
        return [("metadata.name", invalid(name, detail))]
    return []


def _non_negative(value: object, path: str) -> Errors:
    return [(path, invalid(value, _NON_NEGATIVE))] if is_int(value) and value < 0 else []


def _spec(spec: dict) -> Errors:
    """validateMPIJobSpec and validateRunPolicy."""
    errors = _replica_specs(spec.get("mpiReplicaSpecs"))
    slots = spec.get("slotsPerWorker")
    if slots is None:
        errors.append(("spec.slotsPerWorker", required("must have number of slots per worker")))
    else:
        errors += _non_negative(slots, "spec.slotsPerWorker")
    policy = mapping(spec.get("runPolicy"))
    clean = policy.get("cleanPodPolicy")
    if clean is None:
        errors.append(("spec.runPolicy.cleanPodPolicy", required("must have clean Pod policy")))
    elif clean not in _CLEAN_POLICIES:
        errors.append(("spec.runPolicy.cleanPodPolicy", not_supported(clean, _CLEAN_POLICIES)))
    for key in ("ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit"):
        errors += _non_negative(policy.get(key), f"spec.runPolicy.{key}")
    manager = policy.get("managedBy")
    if manager is not None and manager not in _MANAGED_BY:
        errors.append(("spec.runPolicy.managedBy", not_supported(manager, _MANAGED_BY)))
    if not spec.get("sshAuthMountPath"):
        detail = "must have a mount path for SSH credentials"
        errors.append(("spec.sshAuthMountPath", required(detail)))
    implementation = spec.get("mpiImplementation") or ""
    if implementation not in _IMPLEMENTATIONS:
        errors.append(("spec.mpiImplementation", not_supported(implementation, _IMPLEMENTATIONS)))
    return errors


def _replica_specs(specs: object) -> Errors:
    """validateMPIReplicaSpecs: a Launcher of one replica; Workers, when given, at least one."""
    path = "spec.mpiReplicaSpecs"
    if specs is None:
        return [(path, required("must have replica specs"))]
    specs = mapping(specs)
    launcher, worker = specs.get("Launcher"), specs.get("Worker")
    if not isinstance(launcher, dict):
        errors = [(f"{path}[Launcher]", required("must have Launcher replica spec"))]
    else:
        errors = _replica_spec(launcher, f"{path}[Launcher]")
        if is_int(count := launcher.get("replicas")) and count != 1:
            errors.append((f"{path}[Launcher].replicas", invalid(count, "must be 1")))
    if isinstance(worker, dict):
        errors += _replica_spec(worker, f"{path}[Worker]")
        if is_int(count := worker.get("replicas")) and count <= 0:
            detail = "must be greater than or equal to 1"
            errors.append((f"{path}[Worker].replicas", invalid(count, detail)))
    return errors


def _replica_spec(spec: dict, path: str) -> Errors:
    """validateReplicaSpec."""
    errors: Errors = []
    if spec.get("replicas") is None:
        errors.append((f"{path}.replicas", required("must define number of replicas")))
    restart = spec.get("restartPolicy") or ""
    if restart not in _RESTART_POLICIES:
        errors.append((f"{path}.restartPolicy", not_supported(restart, _RESTART_POLICIES)))
    containers = mapping(mapping(spec.get("template")).get("spec")).get("containers")
    if not isinstance(containers, list) or not containers:
        detail = "must define at least one container"
        errors.append((f"{path}.template.spec.containers", required(detail)))
    return errors
