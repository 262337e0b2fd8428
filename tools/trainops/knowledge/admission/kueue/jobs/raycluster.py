"""Kueue v0.18.6 pkg/controller/jobs/raycluster: RayClusterWebhook.validateCreate
(raycluster_webhook.go) and what the RayJob webhook shares with it (common.go ValidateCreate,
ValidateTopologyRequest)."""

from __future__ import annotations

from collections.abc import Mapping

from trainops.knowledge.admission.kueue import jobframework
from trainops.knowledge.admission.kueue.features import DEFAULTS
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    forbidden,
    go_quote,
    invalid,
    is_int,
    too_many,
)
from trainops.model.shape import mapping, mappings, sequence

UPSTREAM = "pkg/controller/jobs/raycluster/raycluster_webhook.go validateCreate, Kueue v0.18.6"

MAX_POD_SETS = 10  # jobframework/constants.go MaxPodSets
HEAD = "head"  # raycluster_controller.go headGroupPodSetName
ELASTIC_GATE = "kueue.x-k8s.io/elastic-job"  # v1beta2 ElasticJobSchedulingGate
MULTIKUEUE = "kueue.x-k8s.io/multikueue"


def validate_create(doc: dict, gates: Mapping[str, bool] = DEFAULTS) -> Errors:
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    if jobframework.managed(doc):
        if gates["ElasticJobsViaWorkloadSlices"] and jobframework.elastic(doc):
            errors += _elastic_job(spec)
        elif spec.get("enableInTreeAutoscaling") is True:
            detail = (
                "a kueue-managed RayCluster can use autoscaling only as an elastic job: enable the "
                'ElasticJobsViaWorkloadSlices feature gate and set the "kueue.x-k8s.io/elastic-job": '
                '"true" annotation'
            )
            errors.append(("spec.enableInTreeAutoscaling", invalid(True, detail)))
        errors += _pod_sets_and_names(spec, "spec")
    errors += jobframework.validate_job_on_create(doc, "ray.io", "RayCluster", gates)
    if gates["TopologyAwareScheduling"]:
        topology = cluster_topology_request(spec)
        if topology == [jobframework.first_build_error(pod_sets(spec, "spec"))]:
            return topology  # JobPodSets' error is the webhook's whole answer
        errors += topology
    return errors


def validate_cluster_spec(doc: dict, cluster: dict, path: str) -> Errors:
    """common.go ValidateCreate: what a Kueue-managed RayJob's cluster spec may not be."""
    errors: Errors = []
    if cluster.get("enableInTreeAutoscaling") is True and not jobframework.elastic(doc):
        detail = "a kueue managed job should only use autoscaling when workload slicing is enabled"
        errors.append((f"{path}.enableInTreeAutoscaling", invalid(True, detail)))
    return errors + _pod_sets_and_names(cluster, path)


def _pod_sets_and_names(cluster: dict, path: str) -> Errors:
    errors: Errors = []
    workers = sequence(cluster.get("workerGroupSpecs"))
    if (count := len(workers) + 1) > MAX_POD_SETS:
        errors.append((f"{path}.workerGroupSpecs", too_many(count, MAX_POD_SETS)))
    for i, group in enumerate(workers):
        if mapping(group).get("groupName") == HEAD:
            where = f"{path}.workerGroupSpecs[{i}].groupName"
            errors.append((where, forbidden(f"{go_quote(HEAD)} is reserved for the head group")))
    return errors


def _gates_value(template_spec: dict) -> GoValue:
    gates = mappings(template_spec.get("schedulingGates"))
    if not gates:
        return GoValue("[]v1.PodSchedulingGate(nil)")
    inner = ", ".join(
        f"v1.PodSchedulingGate{{Name:{go_quote(str(g.get('name', '')))}}}" for g in gates
    )
    return GoValue(f"[]v1.PodSchedulingGate{{{inner}}}")


def _elastic_job(spec: dict) -> Errors:
    """validateElasticJob: every group's pods carry the elastic-job scheduling gate."""
    errors: Errors = []
    detail = "an elastic job must have the ElasticJobSchedulingGate"
    templates = [
        (f"spec.workerGroupSpecs[{i}]", mapping(g).get("template"))
        for i, g in enumerate(sequence(spec.get("workerGroupSpecs")))
    ]
    templates.append(("spec.headGroupSpec", mapping(spec.get("headGroupSpec")).get("template")))
    for where, template in templates:
        template_spec = mapping(mapping(template).get("spec"))
        names = [g.get("name") for g in mappings(template_spec.get("schedulingGates"))]
        if ELASTIC_GATE not in names:
            value = _gates_value(template_spec)
            errors.append((f"{where}.template.spec.schedulingGates", invalid(value, detail)))
    if spec.get("enableInTreeAutoscaling") is True and spec.get("managedBy") == MULTIKUEUE:
        detail = "in-tree autoscaling is not supported for a MultiKueue-managed elastic RayCluster"
        errors.append(("spec.enableInTreeAutoscaling", forbidden(detail)))
    return errors


def worker_count(group: dict) -> int:
    """BuildPodSets: replicas (1 when unset), times numOfHosts when more than one."""
    count = group["replicas"] if is_int(group.get("replicas")) else 1
    hosts = group.get("numOfHosts")
    return count * hosts if is_int(hosts) and hosts > 1 else count


def pod_sets(cluster: dict, path: str) -> list[jobframework.PodSet]:
    """BuildPodSets: the head (one pod), then each worker group."""
    head = mapping(mapping(cluster.get("headGroupSpec")).get("template"))
    sets = [
        jobframework.PodSet(
            mapping(head.get("metadata")), f"{path}.headGroupSpec.template.metadata", 1
        )
    ]
    for i, group in enumerate(sequence(cluster.get("workerGroupSpecs"))):
        group = mapping(group)
        metadata = mapping(mapping(group.get("template")).get("metadata"))
        where = f"{path}.workerGroupSpecs[{i}].template.metadata"
        sets.append(jobframework.PodSet(metadata, where, worker_count(group)))
    return sets


def _upper_bound(pod_set: jobframework.PodSet) -> Errors:
    return jobframework.validate_slice_size_upper_bound(
        pod_set.metadata, pod_set.path, pod_set.count
    )


def _tas(pod_set: jobframework.PodSet) -> Errors:
    return jobframework.validate_tas_pod_set_request(pod_set.metadata, pod_set.path)


def cluster_topology_request(cluster: dict) -> Errors:
    """RayClusterWebhook.validateTopologyRequest: the head's request; then, when the pod sets
    build, the groups, the head's slice and each worker group's request and slice."""
    sets = pod_sets(cluster, "spec")
    errors = _tas(sets[0])
    failed = jobframework.first_build_error(sets)
    if failed is None:
        errors += jobframework.validate_pod_set_grouping(sets) + _upper_bound(sets[0])
        for pod_set in sets[1:]:
            errors += _tas(pod_set) + _upper_bound(pod_set)
    return errors or ([failed] if failed else [])


def topology_request(cluster: dict, path: str) -> Errors:
    """common.go ValidateTopologyRequest (a RayJob's cluster): the head's request, then, when
    the pod sets build, its slice and the groups; each worker group's request, and its slice
    when they build."""
    sets = pod_sets(cluster, path)
    failed = jobframework.first_build_error(sets)
    errors = _tas(sets[0])
    if failed is None:
        errors += _upper_bound(sets[0]) + jobframework.validate_pod_set_grouping(sets)
    for pod_set in sets[1:]:
        errors += _tas(pod_set) + ([] if failed else _upper_bound(pod_set))
    return errors or ([failed] if failed else [])
