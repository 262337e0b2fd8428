"""JobSet v0.12.0 pkg/webhooks/jobset_webhook.go: jobSetWebhook.ValidateCreate, after its
mutating webhook's Default (the API server calls the mutating webhook first).

Most of its refusals are plain errors (fmt.Errorf), which the webhook wraps as
field.InternalError with no field: they are reported at "spec", worded as upstream words them."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    domain_prefixed_path,
    invalid,
    is_int,
    too_long,
)
from trainops.model.shape import mapping, mappings, strings

UPSTREAM = "pkg/webhooks/jobset_webhook.go ValidateCreate, JobSet v0.12.0"

# The feature gates ValidateCreate reads, at their v0.12.0 defaults (pkg/features/features.go).
DEFAULTS: Mapping[str, bool] = {"InPlaceRestart": False, "RestartJob": False}

_MAX_INT32 = (1 << 31) - 1
_DNS1035_TOO_LONG = "must be no more than 63 characters"
_GROUP_NAME_TOO_LONG = (
    ".spec.replicatedJob[].groupName is too long, must be less than 63 characters"
)
_JOB_NAME_TOO_LONG = (
    "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
)
_POD_NAME_TOO_LONG = (
    "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
)
_SUBDOMAIN_TOO_LONG = ".spec.network.subdomain is too long, must be less than 63 characters"
_MAX_MANAGED_BY = 63
_MAX_REPLICAS_RESTART_JOB = 1024
_RULE_NAME = re.compile(r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?")
_FAILURE_REASONS = (
    "BackoffLimitExceeded",
    "DeadlineExceeded",
    "FailedIndexes",
    "MaxFailedIndexesExceeded",
    "PodFailurePolicy",
)
COORDINATOR_KEY = "jobset.sigs.k8s.io/coordinator"


def default(doc: dict) -> dict:
    """jobSetWebhook.Default, as far as ValidateCreate reads it: a success policy of operator
    All, each Job Indexed; and the CRD's defaults, applied before: one replica and the group
    name "default" a replicated Job."""
    doc = copy.deepcopy(doc)
    spec = doc.setdefault("spec", {}) if isinstance(doc.get("spec", {}), dict) else {}
    if spec.get("successPolicy") is None:
        spec["successPolicy"] = {"operator": "All"}
    for job in mappings(spec.get("replicatedJobs")):
        job.setdefault("replicas", 1)
        job.setdefault("groupName", "default")
        template = job.get("template")
        if isinstance(template, dict) and isinstance(template.get("spec"), dict):
            template["spec"].setdefault("completionMode", "Indexed")
    return doc


def validate_defaulted(doc: dict) -> Errors:
    return validate_create(default(doc))


def _plain(text: str) -> tuple[str, str]:
    """A fmt.Errorf refusal, wrapped as field.InternalError(nil, err)."""
    return ("spec", f"Internal error: {text}")


def _dns1035(value: str, path: str, too_long_text: str) -> Errors:
    return [
        (path, invalid(value, too_long_text if _DNS1035_TOO_LONG in m else m))
        for m in names.dns1035_label(value)
    ]


def validate_create(doc: dict, gates: Mapping[str, bool] = DEFAULTS) -> Errors:
    name = str(mapping(doc.get("metadata")).get("name") or "")
    spec = mapping(doc.get("spec"))
    failure = spec.get("failurePolicy")
    failure = failure if isinstance(failure, dict) else None
    errors: Errors = []
    if (
        not gates["InPlaceRestart"]
        and failure
        and failure.get("restartStrategy") == "InPlaceRestart"
    ):
        errors.append(
            _plain(
                "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled"
            )
        )
    jobs = mappings(spec.get("replicatedJobs"))
    if jobs and jobs[0].get("dependsOn") is not None:
        errors.append(_plain("DependsOn can't be set for the first ReplicatedJob"))
    subdomain = mapping(spec.get("network")).get("subdomain")
    if isinstance(subdomain, str) and subdomain:
        where = "spec.network.subdomain"
        errors += [(where, invalid(subdomain, m)) for m in names.dns1123_subdomain(subdomain)]
        errors += _dns1035(subdomain, where, _SUBDOMAIN_TOO_LONG)
    manager = spec.get("managedBy")
    if isinstance(manager, str):
        errors += domain_prefixed_path(manager, "spec.managedBy")
        if len(manager) > _MAX_MANAGED_BY:
            errors.append(("spec.managedBy", too_long(_MAX_MANAGED_BY)))
    seen: set[str] = set()
    for index, job in enumerate(jobs):
        errors += _replicated_job(name, job, index, seen, failure, gates)
    for target in strings(mapping(spec.get("successPolicy")).get("targetReplicatedJobs")):
        if target not in seen:
            errors.append(
                _plain(
                    f"invalid replicatedJob name '{target}' does not appear in .spec.ReplicatedJobs"
                )
            )
    if failure is not None:
        errors += _failure_policy(failure, jobs, seen, gates)
    coordinator = spec.get("coordinator")
    if isinstance(coordinator, dict):
        errors += _coordinator(name, spec, coordinator, jobs)
    return errors


def _replicated_job(
    name: str,
    job: dict,
    index: int,
    seen: set[str],
    failure: dict | None,
    gates: Mapping[str, bool],
) -> Errors:
    where = f"spec.replicatedJobs[{index}]"
    job_name = str(job.get("name") or "")
    seen.add(job_name)
    job_spec = mapping(mapping(job.get("template")).get("spec"))
    replicas = job["replicas"] if is_int(job.get("replicas")) else 0
    parallelism = job_spec["parallelism"] if is_int(job_spec.get("parallelism")) else 1
    errors: Errors = []
    if parallelism * replicas > _MAX_INT32:
        errors.append(
            _plain(
                f"the product of replicas and parallelism must not exceed {_MAX_INT32} "
                f"for replicatedJob '{job_name}'"
            )
        )
    errors += _dns1035(str(job.get("groupName") or ""), f"{where}.groupName", _GROUP_NAME_TOO_LONG)
    longest_job = f"{name}-{job_name}-{replicas - 1}"  # placement.GenJobName, largest index
    errors += _dns1035(longest_job, f"{where}.name", _JOB_NAME_TOO_LONG)
    completions = job_spec.get("completions")
    if job_spec.get("completionMode") == "Indexed" and is_int(completions):
        longest_pod = f"{name}-{job_name}-{replicas - 1}-{completions - 1}-abcde"
        errors += [
            (
                f"{where}.name",
                invalid(longest_job, _POD_NAME_TOO_LONG if _DNS1035_TOO_LONG in m else m),
            )
            for m in names.dns1035_label(longest_pod)
        ]
    for depends in mappings(job.get("dependsOn")):
        if depends.get("name") not in seen:
            errors.append(
                _plain(
                    f"replicatedJob: {job_name} cannot depend on replicatedJob: {depends.get('name')}"
                )
            )
    if gates["InPlaceRestart"] and failure and failure.get("restartStrategy") == "InPlaceRestart":
        errors += _in_place_restart(job_name, job_spec, f"{where}.template.spec")
    return errors


def _in_place_restart(job_name: str, job_spec: dict, where: str) -> Errors:
    errors: Errors = []
    if job_spec.get("backoffLimit") != _MAX_INT32:
        detail = f"replicatedJob {job_name}: must be set to {_MAX_INT32} (MaxInt32) when in-place restart is enabled"
        errors.append((f"{where}.backoffLimit", invalid(job_spec.get("backoffLimit"), detail)))
    if job_spec.get("podReplacementPolicy") != "Failed":
        detail = f"replicatedJob {job_name}: must be set to Failed when in-place restart is enabled"
        errors.append(
            (f"{where}.podReplacementPolicy", invalid(job_spec.get("podReplacementPolicy"), detail))
        )
    completions, parallelism = job_spec.get("completions"), job_spec.get("parallelism")
    if completions is None or parallelism is None or completions != parallelism:
        detail = (
            f"replicatedJob {job_name}: completions and parallelism must be set and equal to each "
            "other when in-place restart is enabled"
        )
        errors.append((f"{where}.completions", invalid(completions, detail)))
    return errors


def _failure_policy(
    failure: dict, jobs: list[dict], seen: set[str], gates: Mapping[str, bool]
) -> Errors:
    """validateFailurePolicy."""
    rules = mappings(failure.get("rules"))
    errors: Errors = []
    if any(r.get("action") in ("RestartJob", "RestartJobAndIgnoreMaxRestarts") for r in rules):
        if not gates["RestartJob"]:
            return [
                _plain(
                    "RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not "
                    "allowed when RestartJob feature gate is disabled"
                )
            ]
        if any(
            is_int(j.get("replicas")) and j["replicas"] > _MAX_REPLICAS_RESTART_JOB for j in jobs
        ):
            errors.append(
                _plain(
                    "JobSet cannot have a failure policy rule with RestartJob or "
                    "RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > "
                    f"{_MAX_REPLICAS_RESTART_JOB}"
                )
            )
    with_name: dict[str, list[int]] = {}
    for index, rule in enumerate(rules):
        rule_name = str(rule.get("name") or "")
        if not 1 <= len(rule_name) <= 128:
            errors.append(
                _plain(
                    f"invalid failure policy rule name of length {len(rule_name)}, the rule name must "
                    "be at least 1 characters long and at most 128 characters long"
                )
            )
        with_name.setdefault(rule_name, []).append(index)
        if not _RULE_NAME.fullmatch(rule_name):
            errors.append(
                _plain(
                    f"invalid failure policy rule name '{rule_name}', a failure policy rule name must "
                    "start with an alphabetic character, optionally followed by a string of "
                    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'"
                )
            )
        for target in strings(rule.get("targetReplicatedJobs")):
            if target not in seen:
                errors.append(
                    _plain(
                        f"invalid replicatedJob name '{target}' in failure policy does not appear in "
                        ".spec.ReplicatedJobs"
                    )
                )
        for reason in strings(rule.get("onJobFailureReasons")):
            if reason not in _FAILURE_REASONS:
                errors.append(
                    _plain(
                        f"invalid job failure reason '{reason}' in failure policy is not a "
                        "recognized job failure reason"
                    )
                )
    for rule_name, indices in with_name.items():
        if len(indices) > 1:
            shown_indices = "[" + " ".join(str(i) for i in indices) + "]"
            errors.append(
                _plain(
                    f"rule names are not unique, rules with indices {shown_indices} all have the "
                    f"same name '{rule_name}'"
                )
            )
    return errors


def _coordinator(name: str, spec: dict, coordinator: dict, jobs: list[dict]) -> Errors:
    """validateCoordinator and validateCoordinatorLabelValue."""
    errors: Errors = []
    target = str(coordinator.get("replicatedJob") or "")
    job_index = coordinator["jobIndex"] if is_int(coordinator.get("jobIndex")) else 0
    pod_index = coordinator["podIndex"] if is_int(coordinator.get("podIndex")) else 0
    job = next((j for j in jobs if j.get("name") == target), None)
    if job is None:
        errors.append(_plain(f"coordinator replicatedJob {target} does not exist"))
    else:
        job_spec = mapping(mapping(job.get("template")).get("spec"))
        replicas = job["replicas"] if is_int(job.get("replicas")) else 0
        completions = job_spec.get("completions")
        if not 0 <= job_index < replicas:
            errors.append(
                _plain(f"coordinator job index {job_index} is invalid for replicatedJob {target}")
            )
        elif job_spec.get("completionMode") != "Indexed" or not is_int(completions):
            errors.append(
                _plain(
                    "job for coordinator pod must be indexed completion mode, and completions "
                    "number must be set"
                )
            )
        elif not 0 <= pod_index < completions:
            errors.append(
                _plain(
                    f"coordinator pod index {pod_index} is invalid for replicatedJob {target} "
                    f"job index {job_index}"
                )
            )
    subdomain = mapping(spec.get("network")).get("subdomain") or name
    endpoint = f"{name}-{target}-{job_index}-{pod_index}.{subdomain}"
    if problems := names.label_value(endpoint):
        errors.append(
            _plain(
                f'spec will lead to invalid label value "{endpoint}" for coordinator label '
                f'"{COORDINATOR_KEY}" (long JobSet / ReplicatedJob / SubDomain name?): '
                + ", ".join(problems)
            )
        )
    return errors
