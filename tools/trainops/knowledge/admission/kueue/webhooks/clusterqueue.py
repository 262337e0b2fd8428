"""Kueue v0.18.6 pkg/webhooks/clusterqueue_webhook.go: ValidateClusterQueue (create) and the
resource-group checks the Cohort webhook shares. The CRD's defaults (preemption policies,
flavorFungibility) are applied first, as the API server does before calling the webhook."""

from __future__ import annotations

from collections.abc import Mapping

from trainops.knowledge.admission.kueue.features import DEFAULTS
from trainops.knowledge.admission.kueue.webhooks.common import (
    IS_NEGATIVE,
    quantity,
    validate_fair_sharing,
    validate_resource_name,
)
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    duplicate,
    forbidden,
    go_quote,
    invalid,
    shown,
    validate_label_selector,
)
from trainops.model.shape import mapping, mappings, sequence

UPSTREAM = "pkg/webhooks/clusterqueue_webhook.go ValidateClusterQueue, Kueue v0.18.6"

_LIMIT_IS_EMPTY = "must be nil when {} is empty"
_LENDING_LIMIT = "must be less than or equal to the nominalQuota"
_TRY_NEXT = "TryNextFlavor"


def validate_cluster_queue(doc: dict, gates: Mapping[str, bool] = DEFAULTS) -> Errors:
    spec = mapping(doc.get("spec"))
    return _validate_spec(spec, gates) + _admission_check_on_flavors(spec)


def _validate_spec(spec: dict, gates: Mapping[str, bool]) -> Errors:
    groups = sequence(spec.get("resourceGroups"))
    has_parent = bool(spec.get("cohortName"))
    errors = validate_resource_groups(groups, has_parent, True, "spec.resourceGroups", False)
    errors += validate_label_selector(spec.get("namespaceSelector"), "spec.namespaceSelector")
    errors += _preemption(mapping(spec.get("preemption")))
    errors += _flavor_fungibility(mapping(spec.get("flavorFungibility")))
    errors += validate_fair_sharing(spec.get("fairSharing"), "spec.fairSharing")
    errors += _totals(groups)
    if gates["ConcurrentAdmission"] and isinstance(spec.get("concurrentAdmissionPolicy"), dict):
        errors += _concurrent_admission(spec, groups)
    return errors


def all_flavors(groups: list) -> list[str]:
    """utilqueue.AllFlavors: every flavor named in the resource groups, in order."""
    seen: list[str] = []
    for group in mappings(groups):
        for flavor in mappings(group.get("flavors")):
            name = flavor.get("name")
            if isinstance(name, str) and name not in seen:
                seen.append(name)
    return seen


def _admission_check_on_flavors(spec: dict) -> Errors:
    """validateAdmissionCheckOnFlavors: each onFlavors entry is a flavor of this queue."""
    strategy = spec.get("admissionChecksStrategy")
    if not isinstance(strategy, dict):
        return []
    valid = all_flavors(sequence(spec.get("resourceGroups")))
    errors: Errors = []
    for i, check in enumerate(sequence(strategy.get("admissionChecks"))):
        for j, flavor in enumerate(sequence(mapping(check).get("onFlavors"))):
            if flavor in valid:
                continue
            where = f"spec.admissionChecksStrategy.admissionChecks[{i}].onFlavors[{j}]"
            # field.NotSupported; upstream lists the allowed flavors in a set's (random) order.
            allowed = ", ".join(go_quote(f) for f in sorted(valid))
            text = f"Unsupported value: {shown(flavor)}"
            errors.append((where, f"{text}: supported values: {allowed}" if valid else text))
    return errors


def _totals(groups: list) -> Errors:
    """validateTotalFlavors, validateTotalCoveredResources, validateFlavorResourceCombinations."""
    errors: Errors = []
    groups = mappings(groups)
    flavors = sum(len(sequence(g.get("flavors"))) for g in groups)
    if flavors > 256:
        detail = f"total number of flavors across all resourceGroups must be ≤ 256, got {flavors}"
        errors.append(("spec.resourceGroups", invalid(flavors, detail)))
    covered = sum(len(sequence(g.get("coveredResources"))) for g in groups)
    if covered > 256:
        detail = (
            "total number of covered resources across all resourceGroups must be ≤ 256, "
            f"got {covered}"
        )
        errors.append(("spec.resourceGroups", invalid(covered, detail)))
    for i, group in enumerate(groups):
        total = sum(len(sequence(f.get("resources"))) for f in mappings(group.get("flavors")))
        if total > 512:
            detail = (
                "number of flavor-resource combinations in a resourceGroup must be ≤ 512, "
                f"got {total}"
            )
            errors.append((f"spec.resourceGroups[{i}]", invalid(total, detail)))
    return errors


def _concurrent_admission(spec: dict, groups: list) -> Errors:
    """validateConcurrentAdmissionPolicy (behind the ConcurrentAdmission gate)."""
    errors: Errors = []
    if len(groups) != 1:
        detail = "must have exactly one ResourceGroup when ConcurrentAdmissionPolicy is defined"
        errors.append(("spec.resourceGroups", invalid(len(groups), detail)))
    if len(groups) == 1 and len(flavors := sequence(mapping(groups[0]).get("flavors"))) > 16:
        detail = (
            "cannot have more than 16 resource flavors in the ResourceGroup when "
            "ConcurrentAdmissionPolicy is defined"
        )
        errors.append(("spec.resourceGroups[0].flavors", invalid(len(flavors), detail)))
    migration = mapping(mapping(spec.get("concurrentAdmissionPolicy")).get("migration"))
    constraints = migration.get("constraints")
    if isinstance(constraints, dict):
        mode = migration.get("mode") or ""
        where = "spec.concurrentAdmissionPolicy.migration.constraints"
        if mode not in ("", "TryPreferredFlavors"):
            detail = f'may only be set when migration.mode is "TryPreferredFlavors" (got {go_quote(str(mode))})'
            errors.append((where, forbidden(detail)))
        elif (last := constraints.get("lastAcceptableFlavorName")) is not None:
            valid = all_flavors(groups)
            if last not in valid:
                detail = (
                    f"must be one of the flavors defined in the ClusterQueue: [{' '.join(valid)}]"
                )
                errors.append((f"{where}.lastAcceptableFlavorName", invalid(last, detail)))
    if spec.get("queueingStrategy") == "StrictFIFO":
        detail = (
            "StrictFIFO queueing strategy cannot be used when ConcurrentAdmissionPolicy is defined"
        )
        errors.append(("spec.queueingStrategy", invalid("StrictFIFO", detail)))
    return errors


def _preemption(preemption: dict) -> Errors:
    """validatePreemption, after the CRD defaults reclaimWithinCohort and
    borrowWithinCohort.policy to Never."""
    reclaim = preemption.get("reclaimWithinCohort", "Never")
    borrow = preemption.get("borrowWithinCohort")
    if reclaim == "Never" and isinstance(borrow, dict) and borrow.get("policy", "Never") != "Never":
        value = GoValue(
            f"v1beta2.ClusterQueuePreemption{{ReclaimWithinCohort:{go_quote(reclaim)}, …}}"
        )
        detail = "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"
        return [("spec.preemption", invalid(value, detail))]
    return []


def _flavor_fungibility(fungibility: dict) -> Errors:
    """validateFlavorFungibility, after the CRD defaults whenCanBorrow to MayStopSearch and
    whenCanPreempt to TryNextFlavor."""
    preference = fungibility.get("preference")
    if preference is None:
        return []
    borrow = fungibility.get("whenCanBorrow", "MayStopSearch")
    preempt = fungibility.get("whenCanPreempt", _TRY_NEXT)
    if borrow != _TRY_NEXT or preempt != _TRY_NEXT:
        detail = (
            f"preference {go_quote(str(preference))} requires both whenCanBorrow and "
            "whenCanPreempt to be TryNextFlavor"
        )
        return [("spec.flavorFungibility.preference", invalid(preference, detail))]
    return []


def validate_resource_groups(
    groups: list, has_parent: bool, enforce_lending: bool, path: str, is_cohort: bool
) -> Errors:
    """validateResourceGroups: covered resources named as label keys and covered once; each
    flavor once; each flavor's quotas in coveredResources' order, not negative, limits only
    where there is a parent to borrow from or lend to."""
    errors: Errors = []
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    for i, group in enumerate(groups):
        group = mapping(group)
        covered = sequence(group.get("coveredResources"))
        for j, name in enumerate(covered):
            where = f"{path}[{i}].coveredResources[{j}]"
            errors += validate_resource_name(name, where)
            if name in seen_resources:
                errors.append((where, duplicate(name)))
            elif isinstance(name, str):
                seen_resources.add(name)
        for j, flavor in enumerate(sequence(group.get("flavors"))):
            flavor = mapping(flavor)
            where = f"{path}[{i}].flavors[{j}]"
            errors += _flavor_quotas(flavor, covered, has_parent, enforce_lending, where, is_cohort)
            name = flavor.get("name")
            if name in seen_flavors:
                errors.append((f"{where}.name", duplicate(name)))
            elif isinstance(name, str):
                seen_flavors.add(name)
    return errors


def _flavor_quotas(
    flavor: dict, covered: list, has_parent: bool, enforce_lending: bool, path: str, is_cohort: bool
) -> Errors:
    """validateFlavorQuotas."""
    errors: Errors = []
    limit_message = _LIMIT_IS_EMPTY.format("parent" if is_cohort else "cohort")
    for i, quota in enumerate(sequence(flavor.get("resources"))):
        if i >= len(covered):
            break
        quota = mapping(quota)
        where = f"{path}.resources[{i}]"
        if quota.get("name") != covered[i]:
            detail = "must match the name in coveredResources"
            errors.append((f"{where}.name", invalid(quota.get("name"), detail)))
        nominal = quantity(quota.get("nominalQuota", "0"))
        if nominal is not None and nominal.value < 0:
            errors.append((f"{where}.nominalQuota", invalid(nominal.string(), IS_NEGATIVE)))
        borrowing = quantity(quota.get("borrowingLimit"))
        if borrowing is not None:
            if not has_parent:
                errors.append(
                    (f"{where}.borrowingLimit", invalid(borrowing.string(), limit_message))
                )
            if borrowing.value < 0:
                errors.append((f"{where}.borrowingLimit", invalid(borrowing.string(), IS_NEGATIVE)))
        lending = quantity(quota.get("lendingLimit"))
        if lending is not None:
            if lending.value < 0:
                errors.append((f"{where}.lendingLimit", invalid(lending.string(), IS_NEGATIVE)))
            if not has_parent:
                errors.append((f"{where}.lendingLimit", invalid(lending.string(), limit_message)))
            if enforce_lending and nominal is not None and lending.value > nominal.value:
                errors.append((f"{where}.lendingLimit", invalid(lending.string(), _LENDING_LIMIT)))
    return errors
