"""Kueue v0.18.6 pkg/controller/jobs/rayjob/rayjob_webhook.go: RayJobWebhook.validateCreate."""

from __future__ import annotations

from collections.abc import Mapping

from trainops.knowledge.admission.kueue import jobframework
from trainops.knowledge.admission.kueue.features import DEFAULTS
from trainops.knowledge.admission.kueue.jobs import raycluster
from trainops.knowledge.apivalidation.formats import Errors, go_map, invalid, required
from trainops.model.shape import mapping

UPSTREAM = "pkg/controller/jobs/rayjob/rayjob_webhook.go validateCreate, Kueue v0.18.6"


def validate_create(doc: dict, gates: Mapping[str, bool] = DEFAULTS) -> Errors:
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    cluster = spec.get("rayClusterSpec")
    if jobframework.managed(doc):
        selector = mapping(spec.get("clusterSelector"))
        if selector and cluster is not None:
            detail = "a kueue managed job should not use an existing cluster"
            return [("spec.clusterSelector", invalid(go_map(selector), detail))]
        if selector:
            return []
        if cluster is None:
            detail = (
                "rayClusterSpec is required for Kueue-managed jobs that don't use clusterSelector"
            )
            return [("spec.rayClusterSpec", required(detail))]
        if spec.get("shutdownAfterJobFinishes") is not True:
            detail = "a kueue managed job should delete the cluster after finishing"
            errors.append(("spec.shutdownAfterJobFinishes", invalid(False, detail)))
        errors += raycluster.validate_cluster_spec(doc, mapping(cluster), "spec.rayClusterSpec")
    errors += jobframework.validate_job_on_create(doc, "ray.io", "RayJob", gates)
    if gates["TopologyAwareScheduling"] and isinstance(cluster, dict):
        topology = raycluster.topology_request(cluster, "spec.rayClusterSpec")
        failed = jobframework.first_build_error(raycluster.pod_sets(cluster, "spec.rayClusterSpec"))
        if topology == [failed]:
            return topology  # JobPodSets' error is the webhook's whole answer
        errors += topology
    return errors
