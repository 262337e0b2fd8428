"""Jobs and CronJobs as kube-apiserver v1.32.13 validates them (pkg/apis/batch/validation), with
what the server does before it validates: the Job's defaults (batch/v1 SetDefaults_Job) and the
selector and labels its strategy generates (pkg/registry/batch/job generateSelector). A CronJob's
jobTemplate gets neither: it is validated as written (ValidateJobTemplateSpec). The Jobs a JobSet
controller creates from its replicated Job templates are validated as Jobs."""

from __future__ import annotations

import re

from trainops.knowledge.apivalidation import cron, names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    does_not_match,
    domain_prefixed_path,
    go_atoi,
    go_ints,
    go_map,
    go_quote,
    go_selector,
    invalid,
    is_int,
    non_negative,
    not_supported,
    required,
    selector_matches,
    too_long,
    too_many,
    validate_label_selector,
)

_MAX_PARALLELISM_INDEXED = 100_000  # maxParallelismForIndexedJob
_MAX_FAILED_INDEXES = 100_000  # maxFailedIndexesForIndexedJob
_COMPLETIONS_SOFT_LIMIT = 100_000  # completionsSoftLimit
_PARALLELISM_HIGH_COMPLETIONS = 10_000  # parallelismLimitForHighCompletions
_MAX_FAILED_HIGH_COMPLETIONS = 10_000  # maxFailedIndexesLimitForHighCompletions
_MAX_RULES = 20  # maxPodFailurePolicyRules
_MAX_EXIT_CODES = 255  # maxPodFailurePolicyOnExitCodesValues
_MAX_CONDITIONS = 20  # maxPodFailurePolicyOnPodConditionsPatterns
_MAX_MANAGED_BY = 63  # maxManagedByLength
_MAX_SUCCEEDED_INDEXES = 64 * 1024  # maxJobSuccessPolicySucceededIndexesLimit
_MAX_SUCCESS_RULES = 20  # maxSuccessPolicyRule

_ACTIONS = ("Count", "FailIndex", "FailJob", "Ignore")  # sets.List: sorted
_OPERATORS = ("In", "NotIn")
_STATUSES = ("False", "True", "Unknown")
_REPLACEMENT = ("Failed", "TerminatingOrFailed")
_CONCURRENCY = ("Allow", "Forbid", "Replace")

# The labels generateSelector puts on a Job's pod template (batch.LegacyJobNameLabel, …).
_JOB_NAME_LABELS = ("job-name", "batch.kubernetes.io/job-name")
_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")
_GENERATED_KEYS = (*_JOB_NAME_LABELS, *_UID_LABELS)
# The UID the server gives a new Job: unknowable before it exists, and equal to no written value.
_UID = "00000000-0000-0000-0000-000000000000"


def _job_spec(spec: dict, path: str, completions_defaulted: bool) -> Errors:
    """validateJobSpec, but the pod template (the pod port's) and its restart policy values."""
    errors: Errors = []
    for key in (
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "backoffLimit",
        "ttlSecondsAfterFinished",
        "backoffLimitPerIndex",
        "maxFailedIndexes",
    ):
        if key in spec:
            errors += non_negative(spec, key, path)
    parallelism, completions = spec.get("parallelism"), spec.get("completions")
    if completions_defaulted and completions is None and parallelism is None:
        completions = 1  # SetDefaults_Job: a Job setting neither runs one Pod
    per_index, max_failed = spec.get("backoffLimitPerIndex"), spec.get("maxFailedIndexes")
    if max_failed is not None and per_index is None:
        errors.append(
            (f"{path}.backoffLimitPerIndex", required("when maxFailedIndexes is specified"))
        )
    managed_by = spec.get("managedBy")
    if isinstance(managed_by, str):
        errors += domain_prefixed_path(managed_by, f"{path}.managedBy")
        if len(managed_by) > _MAX_MANAGED_BY:
            errors.append((f"{path}.managedBy", too_long(_MAX_MANAGED_BY)))
    mode = spec.get("completionMode")
    indexed = mode == "Indexed"
    if isinstance(mode, str) and mode not in ("NonIndexed", "Indexed"):
        errors.append((f"{path}.completionMode", not_supported(mode, ("NonIndexed", "Indexed"))))
    if indexed:
        errors += _indexed(path, parallelism, completions, per_index, max_failed)
    elif mode in (None, "NonIndexed"):
        if is_int(per_index):
            errors.append(
                (
                    f"{path}.backoffLimitPerIndex",
                    invalid(per_index, "requires indexed completion mode"),
                )
            )
        if is_int(max_failed):
            errors.append(
                (
                    f"{path}.maxFailedIndexes",
                    invalid(max_failed, "requires indexed completion mode"),
                )
            )
    policy = spec.get("podFailurePolicy")
    if isinstance(policy, dict):
        errors += _pod_failure_policy(spec, policy, f"{path}.podFailurePolicy")
    success = spec.get("successPolicy")
    if isinstance(success, dict):
        if not indexed:
            shown = GoValue(f"batch.SuccessPolicy{{Rules:{_go_success_rules(success)}}}")
            errors.append(
                (f"{path}.successPolicy", invalid(shown, "requires indexed completion mode"))
            )
        elif is_int(completions):
            # validateSuccessPolicy dereferences completions: without them (already an error
            # above) kube-apiserver v1.32.13 panics on the request.
            errors += _success_policy(success, completions, f"{path}.successPolicy")
    replacement = spec.get("podReplacementPolicy")
    if isinstance(replacement, str):  # validatePodReplacementPolicy
        if policy is not None:
            if replacement != "Failed":
                errors.append(
                    (f"{path}.podReplacementPolicy", not_supported(replacement, ("Failed",)))
                )
        elif replacement not in _REPLACEMENT:
            errors.append(
                (f"{path}.podReplacementPolicy", not_supported(replacement, _REPLACEMENT))
            )
    if policy is not None:
        restart = _pod_spec(spec).get("restartPolicy")
        if restart == "OnFailure":  # Always and others are the pod port's messages
            errors.append(
                (
                    f"{path}.template.spec.restartPolicy",
                    invalid(
                        restart, 'only "Never" is supported when podFailurePolicy is specified'
                    ),
                )
            )
    return errors


def _indexed(
    path: str, parallelism: object, completions: object, per_index: object, max_failed: object
) -> Errors:
    """validateJobSpec's checks for completionMode Indexed."""
    errors: Errors = []
    if completions is None:
        errors.append((f"{path}.completions", required("when completion mode is Indexed")))
    if is_int(parallelism) and parallelism > _MAX_PARALLELISM_INDEXED:
        message = f"must be less than or equal to {_MAX_PARALLELISM_INDEXED} when completion mode is Indexed"
        errors.append((f"{path}.parallelism", invalid(parallelism, message)))
    if is_int(completions) and is_int(max_failed) and max_failed > completions:
        errors.append(
            (
                f"{path}.maxFailedIndexes",
                invalid(max_failed, "must be less than or equal to completions"),
            )
        )
    if is_int(max_failed) and max_failed > _MAX_FAILED_INDEXES:
        message = f"must be less than or equal to {_MAX_FAILED_INDEXES}"
        errors.append((f"{path}.maxFailedIndexes", invalid(max_failed, message)))
    if is_int(completions) and completions > _COMPLETIONS_SOFT_LIMIT and per_index is not None:
        high = f"when completions are above {_COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index"
        if max_failed is None:
            message = f"must be specified when completions is above {_COMPLETIONS_SOFT_LIMIT}"
            errors.append((f"{path}.maxFailedIndexes", required(message)))
        if is_int(parallelism) and parallelism > _PARALLELISM_HIGH_COMPLETIONS:
            message = f"must be less than or equal to {_PARALLELISM_HIGH_COMPLETIONS} {high}"
            errors.append((f"{path}.parallelism", invalid(parallelism, message)))
        if is_int(max_failed) and max_failed > _MAX_FAILED_HIGH_COMPLETIONS:
            message = f"must be less than or equal to {_MAX_FAILED_HIGH_COMPLETIONS} {high}"
            errors.append((f"{path}.maxFailedIndexes", invalid(max_failed, message)))
    return errors


def _pod_spec(spec: dict) -> dict:
    template = spec.get("template")
    pod = template.get("spec") if isinstance(template, dict) else None
    return pod if isinstance(pod, dict) else {}


def _container_names(spec: dict) -> set[str]:
    pod = _pod_spec(spec)
    found: set[str] = set()
    for key in ("containers", "initContainers"):
        containers = pod.get(key)
        for container in containers if isinstance(containers, list) else ():
            if isinstance(container, dict) and isinstance(name := container.get("name"), str):
                found.add(name)
    return found


def _pod_failure_policy(spec: dict, policy: dict, path: str) -> Errors:
    """validatePodFailurePolicy and validatePodFailurePolicyRule."""
    errors: Errors = []
    rules = policy.get("rules")
    if not isinstance(rules, list):
        return errors
    if len(rules) > _MAX_RULES:
        errors.append((f"{path}.rules", too_many(len(rules), _MAX_RULES)))
    containers: set[str] | None = None
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        where = f"{path}.rules[{index}]"
        action = rule.get("action")
        if action is None or action == "":
            errors.append((f"{where}.action", required(f"valid values: {_go_list(_ACTIONS)}")))
        elif action == "FailIndex":
            if spec.get("backoffLimitPerIndex") is None:
                message = "requires the backoffLimitPerIndex to be set"
                errors.append((f"{where}.action", invalid(action, message)))
        elif isinstance(action, str) and action not in _ACTIONS:
            errors.append((f"{where}.action", not_supported(action, _ACTIONS)))
        exit_codes, conditions = rule.get("onExitCodes"), rule.get("onPodConditions")
        has_conditions = isinstance(conditions, list) and len(conditions) > 0
        if isinstance(exit_codes, dict):
            if containers is None:
                containers = _container_names(spec)
            errors += _on_exit_codes(exit_codes, f"{where}.onExitCodes", containers)
        if has_conditions and isinstance(conditions, list):
            errors += _on_pod_conditions(conditions, f"{where}.onPodConditions")
        if exit_codes is not None and has_conditions:
            message = (
                "Invalid value: specifying both OnExitCodes and OnPodConditions is not supported"
            )
            errors.append((where, message))
        if exit_codes is None and not has_conditions:
            message = "Invalid value: specifying one of OnExitCodes and OnPodConditions is required"
            errors.append((where, message))
    return errors


def _go_list(values: tuple[str, ...]) -> str:
    """fmt's %q of a []string: ["a" "b"]."""
    return "[" + " ".join(go_quote(v) for v in values) + "]"


def _on_exit_codes(requirement: dict, path: str, containers: set[str]) -> Errors:
    """validatePodFailurePolicyRuleOnExitCodes."""
    errors: Errors = []
    operator = requirement.get("operator")
    if operator is None or operator == "":
        errors.append((f"{path}.operator", required(f"valid values: {_go_list(_OPERATORS)}")))
    elif isinstance(operator, str) and operator not in _OPERATORS:
        errors.append((f"{path}.operator", not_supported(operator, _OPERATORS)))
    container = requirement.get("containerName")
    if isinstance(container, str) and container not in containers:
        message = "must be one of the container or initContainer names in the pod template"
        errors.append((f"{path}.containerName", invalid(container, message)))
    values = requirement.get("values")
    values = [v for v in values if is_int(v)] if isinstance(values, list) else []
    if not values:
        shown = go_ints(
            requirement.get("values") if isinstance(requirement.get("values"), list) else None
        )
        errors.append((f"{path}.values", invalid(shown, "at least one value is required")))
    elif len(values) > _MAX_EXIT_CODES:
        errors.append((f"{path}.values", too_many(len(values), _MAX_EXIT_CODES)))
    seen: set[int] = set()
    ordered = True
    for index, value in enumerate(values):
        if operator == "In" and value == 0:
            errors.append(
                (f"{path}.values[{index}]", invalid(0, "must not be 0 for the In operator"))
            )
        if value in seen:
            errors.append((f"{path}.values[{index}]", f"Duplicate value: {value}"))
        seen.add(value)
        if index > 0 and values[index - 1] > value:
            ordered = False
    if not ordered:
        errors.append((f"{path}.values", invalid(go_ints(values), "must be ordered")))
    return errors


def _on_pod_conditions(conditions: list, path: str) -> Errors:
    """validatePodFailurePolicyRuleOnPodConditions (a missing status was defaulted to True)."""
    errors: Errors = []
    if len(conditions) > _MAX_CONDITIONS:
        errors.append((path, too_many(len(conditions), _MAX_CONDITIONS)))
    for index, pattern in enumerate(conditions):
        if not isinstance(pattern, dict):
            continue
        where = f"{path}[{index}]"
        kind = pattern.get("type")
        kind = kind if isinstance(kind, str) else ""
        errors += [(f"{where}.type", invalid(kind, m)) for m in names.qualified_name(kind)]
        status = pattern.get("status", "True")
        if status == "" or status is None:
            errors.append((f"{where}.status", required(f"valid values: {_go_list(_STATUSES)}")))
        elif isinstance(status, str) and status not in _STATUSES:
            errors.append((f"{where}.status", not_supported(status, _STATUSES)))
    return errors


def _go_success_rules(success: dict) -> str:
    rules = success.get("rules")
    if not isinstance(rules, list):
        return "[]batch.SuccessPolicyRule(nil)"
    shown = []
    for rule in rules:
        rule = rule if isinstance(rule, dict) else {}
        indexes = rule.get("succeededIndexes")
        count = rule.get("succeededCount")
        shown.append(
            "batch.SuccessPolicyRule{"
            f"SucceededIndexes:{'(*string)(nil)' if indexes is None else '(*string)(0xc000000000)'}, "
            f"SucceededCount:{'(*int32)(nil)' if count is None else '(*int32)(0xc000000000)'}}}"
        )
    return "[]batch.SuccessPolicyRule{" + ", ".join(shown) + "}"


def _success_policy(success: dict, completions: int, path: str) -> Errors:
    """validateSuccessPolicy and validateSuccessPolicyRule."""
    errors: Errors = []
    rules = success.get("rules")
    rules = rules if isinstance(rules, list) else []
    if not rules:
        message = "at least one rules must be specified when the successPolicy is specified"
        errors.append((f"{path}.rules", required(message)))
    if len(rules) > _MAX_SUCCESS_RULES:
        errors.append((f"{path}.rules", too_many(len(rules), _MAX_SUCCESS_RULES)))
    for index, rule in enumerate(rules):
        if not isinstance(rule, dict):
            continue
        where = f"{path}.rules[{index}]"
        indexes, count = rule.get("succeededIndexes"), rule.get("succeededCount")
        if indexes is None and count is None:
            message = "at least one of succeededCount or succeededIndexes must be specified"
            errors.append((where, required(message)))
        total = 0
        if isinstance(indexes, str):
            if len(indexes) > _MAX_SUCCEEDED_INDEXES:
                errors.append((f"{where}.succeededIndexes", too_long(_MAX_SUCCEEDED_INDEXES)))
            parsed = indexes_format(indexes, completions)
            if isinstance(parsed, str):
                message = f"error parsing succeededIndexes: {parsed}"
                errors.append((f"{where}.succeededIndexes", invalid(indexes, message)))
            else:
                total = parsed
        if is_int(count):
            at = f"{where}.succeededCount"
            if count < 0:
                errors.append((at, invalid(count, "must be greater than or equal to 0")))
            if count > completions:
                message = f"must be less than or equal to {completions} (the number of specified completions)"
                errors.append((at, invalid(count, message)))
            if indexes is not None and count > total:
                message = f"must be less than or equal to {total} (the number of indexes in the specified succeededIndexes field)"
                errors.append((at, invalid(count, message)))
    return errors


def indexes_format(text: str, completions: int) -> int | str:
    """validateIndexesFormat: the number of indexes, or parseIndexInterval's error."""
    if not text:
        return 0
    last: int | None = None
    total = 0
    for interval in text.split(","):
        limits = interval.split("-")
        if len(limits) > 2:
            return (
                f"the fragment {go_quote(interval)} violates the requirement that an index "
                "interval can have at most two parts separated by '-'"
            )
        bounds: list[int] = []
        for limit in limits:
            number = go_atoi(limit)
            if number is None:
                return f"cannot convert string to integer for index: {go_quote(limit)}"
            if number >= completions:
                return f"too large index: {go_quote(limit)}"
            bounds.append(number)
        low, high = bounds[0], bounds[-1]
        if len(bounds) == 2 and low >= high:
            return f"non-increasing order, previous: {low}, current: {high}"
        if last is not None and last >= low:
            return f"non-increasing order, previous: {last}, current: {low}"
        total += high - low + 1
        last = high
    return total


def _generated_labels(template_labels: dict, name: str) -> dict:
    """The pod template's labels after generateSelector (labels a user set are kept)."""
    labels = dict(template_labels)
    for key in _JOB_NAME_LABELS:
        labels.setdefault(key, name)
    for key in _UID_LABELS:
        labels.setdefault(key, _UID)
    return labels


def _name_of(metadata: dict) -> str | None:
    """The Job's name, or the one generateName makes (SimpleNameGenerator: at most 58
    characters of the prefix, then 5 random lowercase alphanumerics)."""
    name = metadata.get("name")
    if isinstance(name, str) and name:
        return name
    prefix = metadata.get("generateName")
    return f"{prefix[:58]}xxxxx" if isinstance(prefix, str) else None


def job(doc: dict) -> Errors:
    """batch ValidateJob (and ValidateJobSpec) for a Job as its strategy prepares it."""
    spec = doc.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    metadata = doc.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    return job_errors(spec, "spec", _name_of(metadata), check_name=True)


def job_errors(spec: dict, path: str, name: str | None, check_name: bool) -> Errors:
    """A Job's spec at `path`, as ValidateJob checks it once generateSelector ran for a Job called
    `name` (check_name: also the checks its name decides)."""
    errors = _job_spec(spec, path, completions_defaulted=True)
    template = spec.get("template")
    template = template if isinstance(template, dict) else {}
    template_meta = template.get("metadata")
    template_meta = template_meta if isinstance(template_meta, dict) else {}
    raw_labels = template_meta.get("labels")
    written = raw_labels if isinstance(raw_labels, dict) else {}
    selector = spec.get("selector")
    manual = spec.get("manualSelector") is True
    labels: dict | None = raw_labels if isinstance(raw_labels, dict) else None
    if (
        not manual
        and selector is None
        and not (check_name and name is not None and len(name) > names.LABEL_VALUE_MAX)
        and not any(key in written for key in _GENERATED_KEYS)
    ):
        pass  # the common case: the generated selector selects the generated labels
    elif not manual and name is not None:
        labels = _generated_labels(written, name)
        # the generated labels are validated with the template's (ValidatePodTemplateSpec)
        if (
            check_name
            and len(name) > names.LABEL_VALUE_MAX
            and not any(key in written for key in _JOB_NAME_LABELS)
        ):
            message = f"must be no more than {names.LABEL_VALUE_MAX} characters"
            errors.append((f"{path}.template.labels", invalid(name, message)))
        errors += _generated_selector(selector, labels, written, name, path)
        selector = dict(selector) if isinstance(selector, dict) else {}
        match_labels = selector.get("matchLabels")
        match_labels = dict(match_labels) if isinstance(match_labels, dict) else {}
        match_labels.setdefault(_UID_LABELS[1], _UID)
        selector["matchLabels"] = match_labels
    if selector is None:
        if manual:
            # ValidateJobSpec: required, and a nil selector (labels.Nothing) selects no labels
            errors.append((f"{path}.selector", required()))
            errors.append((f"{path}.template.metadata.labels", does_not_match(labels)))
    elif isinstance(selector, dict):
        selector_errors = validate_label_selector(selector, f"{path}.selector")
        errors += selector_errors
        if not selector_errors and not selector_matches(selector, labels or {}):
            errors.append((f"{path}.template.metadata.labels", does_not_match(labels)))
    if check_name and name is not None:
        completions = spec.get("completions")
        if spec.get("completionMode") == "Indexed" and is_int(completions) and completions > 0:
            hostname = f"{name}-{completions - 1}"
            if names.dns1123_label(hostname):
                message = f"will not able to create pod with invalid DNS label: {hostname}"
                errors.append(("metadata.name", invalid(name, message)))
    return errors


def _generated_selector(
    selector: object, labels: dict, written: dict, name: str, path: str
) -> Errors:
    """validateGeneratedSelector: the generated labels as generated, and a selector that selects
    them (a selector the user wrote without manualSelector rarely does)."""
    errors: Errors = []
    where = f"{path}.template.metadata"
    for key in ("controller-uid", "job-name", *_UID_LABELS[1:], *_JOB_NAME_LABELS[1:]):
        expected = name if key in _JOB_NAME_LABELS else _UID
        if key in written and written[key] != expected:
            errors.append(
                (f"{where}.labels[{key}]", invalid(go_map(labels), f"must be '{expected}'"))
            )
    if isinstance(selector, dict):
        expected_labels = {
            k: (name if k in _JOB_NAME_LABELS else _UID) for k in (*_UID_LABELS, *_JOB_NAME_LABELS)
        }
        generated = dict(selector)
        match_labels = generated.get("matchLabels")
        match_labels = dict(match_labels) if isinstance(match_labels, dict) else {}
        match_labels.setdefault(_UID_LABELS[1], _UID)
        generated["matchLabels"] = match_labels
        if not validate_label_selector(generated, path) and not selector_matches(
            generated, expected_labels
        ):
            shown = go_selector(generated)
            errors.append((f"{path}.selector", invalid(shown, "`selector` not auto-generated")))
    return errors


def cron_job(doc: dict) -> Errors:
    """batch ValidateCronJobCreate: the name's length, validateCronJobSpec and the jobTemplate
    (ValidateJobTemplateSpec: the job spec as written, without a selector)."""
    errors: Errors = []
    metadata = doc.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if isinstance(name, str) and len(name) > 52:  # DNS1035LabelMaxLength - 11
        errors.append(("metadata.name", invalid(name, "must be no more than 52 characters")))
    spec = doc.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    schedule = spec.get("schedule")
    if schedule is None or schedule == "":
        errors.append(("spec.schedule", required()))
    elif isinstance(schedule, str):
        if (reason := cron.schedule_error(schedule)) is not None:
            errors.append(("spec.schedule", invalid(schedule, reason)))
        if "TZ" in schedule:
            message = "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
            errors.append(("spec.schedule", invalid(schedule, message)))
    if "startingDeadlineSeconds" in spec:
        errors += non_negative(spec, "startingDeadlineSeconds", "spec")
    zone = spec.get("timeZone")
    if isinstance(zone, str):
        errors += _time_zone(zone)
    concurrency = spec.get("concurrencyPolicy")
    if isinstance(concurrency, str) and concurrency not in _CONCURRENCY and concurrency != "":
        errors.append(("spec.concurrencyPolicy", not_supported(concurrency, _CONCURRENCY)))
    template = spec.get("jobTemplate")
    job_spec = template.get("spec") if isinstance(template, dict) else None
    if isinstance(job_spec, dict):
        path = "spec.jobTemplate.spec"
        errors += _job_spec(job_spec, path, completions_defaulted=False)
        selector = job_spec.get("selector")
        if selector is not None:
            errors.append(
                (
                    f"{path}.selector",
                    invalid(go_selector(selector), "`selector` will be auto-generated"),
                )
            )
        if job_spec.get("manualSelector") is True:
            errors.append((f"{path}.manualSelector", not_supported(True, ("nil", "false"))))
    for key in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        if key in spec:
            errors += non_negative(spec, key, "spec")
    return errors


def _time_zone(zone: str) -> Errors:
    """batch validateTimeZone."""
    if not zone:
        return [("spec.timeZone", invalid(zone, "timeZone must be nil or non-empty string"))]
    for part in zone.split("/"):
        if part in (".", "..") or part.startswith("-") or not _ZONE_PART.fullmatch(part):
            return [("spec.timeZone", invalid(zone, f"unknown time zone {zone}"))]
    if zone.lower() == "local":
        message = (
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"
        )
        return [("spec.timeZone", invalid(zone, message))]
    reason = cron.location_error(zone)
    return [("spec.timeZone", invalid(zone, reason))] if reason else []


_ZONE_PART = re.compile(r"[A-Za-z.\-_0-9+]{1,14}")

# The JobSet controller names each Job <jobset>-<replicatedJob>-<index> and leaves selector
# generation to the Job strategy; names are held to DNS labels by JobSet's own webhook, so the
# checks a Job's name decides are left to it.
JOBSET_JOBS = "the Job the JobSet controller creates from this template is rejected: "


def jobset(doc: dict) -> Errors:
    """Each replicated Job template of a JobSet, validated as the Job the controller creates."""
    spec = doc.get("spec")
    jobs = spec.get("replicatedJobs") if isinstance(spec, dict) else None
    if not isinstance(jobs, list):
        return []
    metadata = doc.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    errors: Errors = []
    for index, replicated in enumerate(jobs):
        if not isinstance(replicated, dict):
            continue
        template = replicated.get("template")
        job_spec = template.get("spec") if isinstance(template, dict) else None
        if not isinstance(job_spec, dict):
            continue
        job_name = f"{name}-{replicated.get('name')}-0" if isinstance(name, str) else None
        path = f"spec.replicatedJobs[{index}].template.spec"
        errors += [
            (where, JOBSET_JOBS + message)
            for where, message in job_errors(job_spec, path, job_name, check_name=False)
        ]
    return errors
