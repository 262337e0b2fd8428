"""Kueue v0.18.6 pkg/controller/jobs/jobset/jobset_webhook.go: JobSetWebhook.validateCreate."""

from __future__ import annotations

from collections.abc import Mapping

from trainops.knowledge.admission.kueue import jobframework
from trainops.knowledge.admission.kueue.features import DEFAULTS
from trainops.knowledge.apivalidation.formats import Errors, is_int
from trainops.model.shape import mapping, mappings

UPSTREAM = "pkg/controller/jobs/jobset/jobset_webhook.go validateCreate, Kueue v0.18.6"


def pods_count(replicated_job: dict) -> int:
    """podsCount: replicas times PodsCountPerReplica (parallelism, or completions when fewer)."""
    spec = mapping(mapping(replicated_job.get("template")).get("spec"))
    per_replica = spec["parallelism"] if is_int(spec.get("parallelism")) else 1
    completions = spec["completions"] if is_int(spec.get("completions")) else per_replica
    per_replica = min(per_replica, completions)
    replicas = replicated_job["replicas"] if is_int(replicated_job.get("replicas")) else 1
    return replicas * per_replica


def validate_create(doc: dict, gates: Mapping[str, bool] = DEFAULTS) -> Errors:
    errors = jobframework.validate_job_on_create(doc, "jobset.x-k8s.io", "JobSet", gates)
    if not gates["TopologyAwareScheduling"]:
        return errors
    pod_sets = [
        jobframework.PodSet(
            mapping(mapping(_template(job)).get("metadata")),
            f"spec.replicatedJobs[{i}].template.spec.template.metadata",
            pods_count(job),
        )
        for i, job in enumerate(mappings(mapping(doc.get("spec")).get("replicatedJobs")))
    ]
    topology = jobframework.validate_built_pod_sets(pod_sets)
    return (
        topology
        if topology[:1] == [jobframework.first_build_error(pod_sets)]
        else errors + topology
    )


def _template(job: dict) -> object:
    return mapping(mapping(job.get("template")).get("spec")).get("template")
