"""Kueue v0.18.6 pkg/controller/jobs/mpijob/mpijob_webhook.go: MpiJobWebhook.validateCommon
(its errors sorted by field, as ValidateCreate sorts them)."""

from __future__ import annotations

from collections.abc import Mapping

from trainops.knowledge.admission.kueue import jobframework
from trainops.knowledge.admission.kueue.features import DEFAULTS
from trainops.knowledge.apivalidation.formats import Errors, is_int
from trainops.model.shape import mapping

UPSTREAM = "pkg/controller/jobs/mpijob/mpijob_webhook.go validateCommon, Kueue v0.18.6"


def validate_create(doc: dict, gates: Mapping[str, bool] = DEFAULTS) -> Errors:
    errors = jobframework.validate_job_on_create(doc, "kubeflow.org", "MPIJob", gates)
    if gates["TopologyAwareScheduling"]:
        specs = mapping(mapping(doc.get("spec")).get("mpiReplicaSpecs"))
        pod_sets = []
        for replica_type in ("Launcher", "Worker"):
            if not isinstance(replica := specs.get(replica_type), dict):
                continue
            count = replica["replicas"] if is_int(replica.get("replicas")) else 1
            pod_sets.append(
                jobframework.PodSet(
                    mapping(mapping(replica.get("template")).get("metadata")),
                    f"spec.mpiReplicaSpecs[{replica_type}].template.metadata",
                    1 if replica_type == "Launcher" else count,
                )
            )
        topology = jobframework.validate_built_pod_sets(pod_sets)
        if topology[:1] == [jobframework.first_build_error(pod_sets)]:
            return topology
        errors += topology
    return sorted(errors, key=lambda error: error[0])
