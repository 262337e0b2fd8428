"""Kueue v0.18.6 pkg/webhooks/cohort_webhook.go: validateCohort."""

from __future__ import annotations

from trainops.knowledge.admission.kueue.webhooks.clusterqueue import validate_resource_groups
from trainops.knowledge.admission.kueue.webhooks.common import validate_fair_sharing
from trainops.knowledge.apivalidation.formats import Errors
from trainops.model.shape import mapping, sequence

UPSTREAM = "pkg/webhooks/cohort_webhook.go validateCohort, Kueue v0.18.6"


def validate_cohort(doc: dict) -> Errors:
    """A Cohort's fair-sharing weight and resource groups, as a ClusterQueue's, except that its
    lending limit may exceed its nominal quota and its limits need a parent Cohort."""
    spec = mapping(doc.get("spec"))
    errors = validate_fair_sharing(spec.get("fairSharing"), "spec.fairSharing")
    groups = sequence(spec.get("resourceGroups"))
    return errors + validate_resource_groups(
        groups, bool(spec.get("parentName")), False, "spec.resourceGroups", True
    )
