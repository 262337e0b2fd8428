"""Kueue v0.18.6 pkg/controller/jobs/job/job_webhook.go: JobWebhook.validateCreate."""

from __future__ import annotations

from collections.abc import Mapping

from trainops.knowledge.admission.go import atoi, parse_bool
from trainops.knowledge.admission.kueue import jobframework
from trainops.knowledge.admission.kueue.features import DEFAULTS
from trainops.knowledge.apivalidation.formats import Errors, forbidden, invalid, is_int
from trainops.model.shape import mapping

UPSTREAM = "pkg/controller/jobs/job/job_webhook.go validateCreate, Kueue v0.18.6"

MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
COMPLETIONS_EQUAL_PARALLELISM = "kueue.x-k8s.io/job-completions-equal-parallelism"
_META = "spec.template.metadata"


def pods_count(spec: dict) -> int:
    """Job.podsCount: parallelism (defaulted to 1), or completions when fewer."""
    count = spec["parallelism"] if is_int(spec.get("parallelism")) else 1
    completions = spec.get("completions")
    return completions if is_int(completions) and completions < count else count


def validate_create(doc: dict, gates: Mapping[str, bool] = DEFAULTS) -> Errors:
    errors = jobframework.validate_job_on_create(doc, "batch", "Job", gates)
    errors += _partial_admission(doc)
    errors += _sync_completions(doc)
    if gates["TopologyAwareScheduling"]:
        errors += _topology_request(doc, gates)
    return errors


def _annotations(doc: dict) -> dict:
    return mapping(mapping(doc.get("metadata")).get("annotations"))


def _partial_admission(doc: dict) -> Errors:
    """validatePartialAdmissionCreate."""
    text = _annotations(doc).get(MIN_PARALLELISM)
    if not isinstance(text, str):
        return []
    where = f"metadata.annotations[{MIN_PARALLELISM}]"
    errors: Errors = []
    value = atoi(text)
    count = pods_count(mapping(doc.get("spec")))
    if isinstance(value, str):
        errors.append((where, invalid(text, value)))
    elif value >= count or value <= 0:
        errors.append((where, invalid(value, f"should be between 0 and {count - 1}")))
    if jobframework.elastic(doc):
        detail = "partial admission and elastic job cannot be used together"
        errors.append((where, invalid(text, detail)))
    return errors


def _sync_completions(doc: dict) -> Errors:
    """validateSyncCompletionCreate."""
    text = _annotations(doc).get(COMPLETIONS_EQUAL_PARALLELISM)
    if not isinstance(text, str):
        return []
    where = f"metadata.annotations[{COMPLETIONS_EQUAL_PARALLELISM}]"
    spec = mapping(doc.get("spec"))
    enabled = parse_bool(text)
    if isinstance(enabled, str):
        return [(where, invalid(text, enabled))]
    errors: Errors = []
    if enabled:
        if spec.get("completionMode") in (None, "NonIndexed"):
            errors.append((where, invalid(text, "should not be enabled for NonIndexed jobs")))
        parallelism = spec["parallelism"] if is_int(spec.get("parallelism")) else 1
        completions = spec["completions"] if is_int(spec.get("completions")) else 1
        if parallelism != completions:
            detail = f"should be equal to parallelism when {COMPLETIONS_EQUAL_PARALLELISM} annotation is true"
            errors.append(("spec.completions", invalid(spec.get("completions"), detail)))
    return errors


def _topology_request(doc: dict, gates: Mapping[str, bool]) -> Errors:
    """validateTopologyRequest: the pod template's topology annotations; an elastic Job asks
    for no required or preferred topology; a slice no larger than the Job's pods."""
    spec = mapping(doc.get("spec"))
    metadata = mapping(mapping(spec.get("template")).get("metadata"))
    errors = jobframework.validate_tas_pod_set_request(metadata, _META)
    if errors:
        return errors
    annotations = mapping(metadata.get("annotations"))
    if gates["ElasticJobsViaWorkloadSlices"] and jobframework.elastic(doc):
        for key, kind in (
            (jobframework.REQUIRED, "required"),
            (jobframework.PREFERRED, "preferred"),
        ):
            if key in annotations:
                detail = f"{kind} topology is not supported with elastic jobs"
                # field.Child, not Key: upstream joins the annotation with a dot.
                return [(f"{_META}.annotations.{key}", forbidden(detail))]
    return jobframework.validate_slice_size_upper_bound(metadata, _META, pods_count(spec))
