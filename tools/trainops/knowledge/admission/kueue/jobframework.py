"""Kueue v0.18.6 pkg/controller/jobframework: what every job webhook checks on create
(validation.go ValidateJobOnCreate) and the topology requests of each pod set
(tas_validation.go ValidateTASPodSetRequest, ValidateSliceSizeAnnotationUpperBound)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from trainops.knowledge.admission.go import atoi, parse_bool
from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import Errors, forbidden, go_quote, invalid, required
from trainops.knowledge.apivalidation.pod_common import qualified
from trainops.model.shape import mapping

Refusal = tuple[str, str]

UPSTREAM = "pkg/controller/jobframework/validation.go ValidateJobOnCreate, Kueue v0.18.6"
TAS_UPSTREAM = (
    "pkg/controller/jobframework/tas_validation.go ValidateTASPodSetRequest, Kueue v0.18.6"
)

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
PREBUILT_WORKLOAD = "kueue.x-k8s.io/prebuilt-workload-name"  # label and annotation
MAX_EXEC_TIME_LABEL = "kueue.x-k8s.io/max-exec-time-seconds"
ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"
# validation.go supportedElasticJobGVKs (as "group/Kind"; every version of the kinds we ship).
_ELASTIC_KINDS = {
    ("batch", "Job"),
    ("ray.io", "RayCluster"),
    ("ray.io", "RayJob"),
    ("ray.io", "RayService"),
}
_LABEL_VALUE_MAX = 63

REQUIRED = "kueue.x-k8s.io/podset-required-topology"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
GROUP_NAME = "kueue.x-k8s.io/podset-group-name"
CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"


@dataclass(frozen=True)
class PodSet:
    """A pod set as a job's PodSets builds it: its pod template's metadata, where that is in the
    job, and how many pods it counts."""

    metadata: dict
    path: str
    count: int

    @property
    def annotations(self) -> dict:
        return mapping(self.metadata.get("annotations"))


def managed(doc: dict) -> bool:
    """Whether the object carries the queue-name label. A check upstream runs only when Kueue
    manages the object (the label, or manageJobsWithoutQueueName) runs here only on a labelled
    one: the namespaces Kueue manages without it are the cluster's, not the file's."""
    return bool(mapping(mapping(doc.get("metadata")).get("labels")).get(QUEUE_LABEL))


def validate_job_on_create(doc: dict, group: str, kind: str, gates: Mapping[str, bool]) -> Errors:
    """ValidateJobOnCreate: the queue-name label a DNS subdomain, the prebuilt workload's name
    one too, a positive max-exec-time label, the elastic-job annotation on kinds that support it.
    (The AdmissionGatedBy annotation's checks are behind an alpha gate, off by default.)"""
    metadata = mapping(doc.get("metadata"))
    labels, annotations = mapping(metadata.get("labels")), mapping(metadata.get("annotations"))
    errors = _as_crd_name(labels, QUEUE_LABEL, "metadata.labels")
    prebuilt = annotations.get(PREBUILT_WORKLOAD)
    wide = isinstance(prebuilt, str) and len(prebuilt) > _LABEL_VALUE_MAX
    if (gates["WorkloadIdentifierAnnotations"] or wide) and prebuilt:
        errors += _as_crd_name(annotations, PREBUILT_WORKLOAD, "metadata.annotations")
    else:
        errors += _as_crd_name(labels, PREBUILT_WORKLOAD, "metadata.labels")
    if isinstance(seconds := labels.get(MAX_EXEC_TIME_LABEL), str):
        where = f"metadata.labels[{MAX_EXEC_TIME_LABEL}]"
        value = atoi(seconds)
        if isinstance(value, str):
            errors.append((where, invalid(seconds, value)))
        elif value <= 0:
            errors.append((where, invalid(value, "should be greater than 0")))
    if elastic(doc) and (group, kind) not in _ELASTIC_KINDS:
        version = str(doc.get("apiVersion", "")).rpartition("/")[2]
        gvk = f"{group}/{version}, Kind={kind}" if group else f"/{version}, Kind={kind}"
        where = f"metadata.annotations[{ELASTIC_JOB_ANNOTATION}]"
        errors.append((where, forbidden(f"elastic job is not supported for {go_quote(gvk)}")))
    return errors


def elastic(doc: dict) -> bool:
    """workloadslicing.Enabled: the elastic-job annotation is "true"."""
    annotations = mapping(mapping(doc.get("metadata")).get("annotations"))
    return annotations.get(ELASTIC_JOB_ANNOTATION) == "true"


def _as_crd_name(values: dict, key: str, path: str) -> Errors:
    """ValidateLabelAsCRDName / ValidateAnnotationAsCRDName."""
    value = values.get(key)
    if not isinstance(value, str):
        return []
    problems = names.dns1123_subdomain(value)
    return [(f"{path}[{key}]", invalid(value, ",".join(problems)))] if problems else []


def validate_tas_pod_set_request(metadata: object, path: str) -> Errors:
    """ValidateTASPodSetRequest on one pod template's metadata (at `path`)."""
    annotations = mapping(mapping(metadata).get("annotations"))
    where = f"{path}.annotations"
    errors: Errors = []
    found = [a in annotations for a in (REQUIRED, PREFERRED, UNCONSTRAINED)]
    if sum(found) > 1:
        listed = ", ".join(go_quote(a) for a in (REQUIRED, PREFERRED, UNCONSTRAINED))
        detail = f"must not contain more than one topology annotation: [{listed}]"
        errors.append((where, f"Invalid value: {detail}"))  # field.OmitValueType: no value
    for key in (REQUIRED, PREFERRED, SLICE_REQUIRED):
        if isinstance(value := annotations.get(key), str):
            errors += qualified(f"{where}[{key}]", value)
    slice_required, slice_size = SLICE_REQUIRED in annotations, SLICE_SIZE in annotations
    if isinstance(group := annotations.get(GROUP_NAME), str):
        at = f"{where}[{GROUP_NAME}]"
        if group.isdigit() and group.isascii() and int(group) < 1 << 64:
            errors.append((at, invalid(group, "must not be a number")))
        if slice_size:
            errors.append((at, forbidden(f"may not be set when '{SLICE_SIZE}' is specified")))
        if slice_required:
            errors.append((at, forbidden(f"may not be set when '{SLICE_REQUIRED}' is specified")))
        if REQUIRED not in annotations and PREFERRED not in annotations:
            detail = f"may not be set when neither '{PREFERRED}' nor '{REQUIRED}' is specified"
            errors.append((at, forbidden(detail)))
    unconstrained = annotations.get(UNCONSTRAINED)
    if isinstance(unconstrained, str) and isinstance(parse_bool(unconstrained), str):
        at = f"{where}[{UNCONSTRAINED}]"
        errors.append((at, invalid(unconstrained, "must be a boolean value")))
    if isinstance(size := annotations.get(SLICE_SIZE), str):
        value = atoi(size, 32)
        if isinstance(value, str):
            errors.append((f"{where}[{SLICE_SIZE}]", invalid(size, "must be a numeric value")))
        elif value < 1:
            detail = "must be greater than or equal to 1"
            errors.append((f"{where}[{SLICE_SIZE}]", invalid(size, detail)))
    if slice_required and not slice_size:
        detail = f"must be set when '{SLICE_REQUIRED}' is specified"
        errors.append((f"{where}[{SLICE_SIZE}]", required(detail)))
    if slice_size and not slice_required:
        detail = f"may not be set when '{SLICE_REQUIRED}' is not specified"
        errors.append((f"{where}[{SLICE_SIZE}]", forbidden(detail)))
    if CONSTRAINTS in annotations:
        # validateSliceRequiredTopologyConstraintsAnnotation: its gate is alpha, off by default.
        detail = "the TASMultiLayerTopology feature gate must be enabled to use this annotation"
        errors.append((f"{where}[{CONSTRAINTS}]", forbidden(detail)))
    return errors


def validate_slice_size_upper_bound(metadata: object, path: str, count: int) -> Errors:
    """ValidateSliceSizeAnnotationUpperBound: a slice no larger than its pod set."""
    annotations = mapping(mapping(metadata).get("annotations"))
    size = annotations.get(SLICE_SIZE)
    if not isinstance(size, str):
        return []
    value = atoi(size, 32)
    where = f"{path}.annotations[{SLICE_SIZE}]"
    if isinstance(value, str):
        return [(where, invalid(size, "must be a numeric value"))]
    if value > count:
        return [(where, invalid(size, f"must not be greater than pod set count {count}"))]
    return []


def build_error(pod_set: PodSet) -> Refusal | None:
    """tas.go podSetTopologyRequestBuilder.Build's error, which makes JobPodSets fail: an
    unconstrained annotation that is not a boolean (when it is the request), a slice size that
    is not a number. The webhooks then skip what needs the pod sets and, when nothing else is
    refused, refuse with this error's text."""
    annotations = pod_set.annotations
    where = f"{pod_set.path}.annotations"
    if REQUIRED not in annotations and PREFERRED not in annotations:
        value = annotations.get(UNCONSTRAINED)
        if isinstance(value, str):
            error = parse_bool(value)
            return (f"{where}[{UNCONSTRAINED}]", error) if isinstance(error, str) else None
    size = annotations.get(SLICE_SIZE)
    if SLICE_REQUIRED in annotations and isinstance(size, str):
        error = atoi(size, 32)
        return (f"{where}[{SLICE_SIZE}]", error) if isinstance(error, str) else None
    return None


def first_build_error(pod_sets: list[PodSet]) -> Refusal | None:
    return next((e for p in pod_sets if (e := build_error(p)) is not None), None)


def validate_built_pod_sets(pod_sets: list[PodSet]) -> Errors:
    """What the JobSet and MPIJob webhooks' validateTopologyRequest does once JobPodSets has
    built the pod sets: each one's request and slice, then the groups. When they do not build,
    its error is the webhook's whole answer (ValidateCreate returns it alone): [that error]."""
    if (failed := first_build_error(pod_sets)) is not None:
        return [failed]
    errors: Errors = []
    for pod_set in pod_sets:
        errors += validate_tas_pod_set_request(pod_set.metadata, pod_set.path)
        errors += validate_slice_size_upper_bound(pod_set.metadata, pod_set.path, pod_set.count)
    return errors + validate_pod_set_grouping(pod_sets)


def validate_pod_set_grouping(pod_sets: list[PodSet]) -> Errors:
    """ValidatePodSetGroupingTopology: pod sets named into a group (with a required or preferred
    topology) come two by two, one of them a single pod, asking for the same topology."""
    groups: dict[str, list[PodSet]] = {}
    for pod_set in pod_sets:
        annotations = pod_set.annotations
        group = annotations.get(GROUP_NAME)
        if isinstance(group, str) and (REQUIRED in annotations or PREFERRED in annotations):
            groups.setdefault(group, []).append(pod_set)
    errors: Errors = []
    for group, members in groups.items():
        if len(members) != 2:
            detail = f"can only define groups of exactly 2 pod sets, got: {len(members)} pod set(s)"
            errors += [
                (f"{m.path}.annotations[{GROUP_NAME}]", invalid(group, detail)) for m in members
            ]
            continue
        first, second = members
        if first.count != 1 and second.count != 1:
            detail = (
                "can only define groups where at least one pod set has only 1 replica, got: "
                f"{first.count} replica(s) and {second.count} replica(s) in the group"
            )
            errors += [
                (f"{m.path}.annotations[{GROUP_NAME}]", invalid(group, detail)) for m in members
            ]
        if _request(first) != _request(second):
            for one, other in ((first, second), (second, first)):
                detail = (
                    f"must specify '{REQUIRED}' or '{PREFERRED}' topology consistent with "
                    f"'{other.path}.annotations' in group '{group}'"
                )
                errors.append((f"{one.path}.annotations", f"Invalid value: {detail}"))
    return errors


def _request(pod_set: PodSet) -> tuple[str | None, str | None]:
    """(Required, Preferred) of the pod set's topology request: required wins (Build)."""
    annotations = pod_set.annotations
    if REQUIRED in annotations:
        return (annotations[REQUIRED], None)
    return (None, annotations.get(PREFERRED))
