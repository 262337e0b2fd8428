"""Kueue v0.18.6 pkg/webhooks/common.go: what the ClusterQueue and Cohort webhooks share."""

from __future__ import annotations

from fractions import Fraction

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import Errors, invalid, parse_quantity
from trainops.knowledge.apivalidation.go_quantity import Quantity

# apimachinery api/validation IsNegativeErrorMsg
IS_NEGATIVE = "must be greater than or equal to 0"


def validate_resource_name(name: object, path: str) -> Errors:
    """validateResourceName: a covered resource's name is a label key (content.IsLabelKey)."""
    text = name if isinstance(name, str) else ""
    return [(path, invalid(text, m)) for m in names.qualified_name(text)]


def quantity(value: object) -> Quantity | None:
    """A quantity the server has decoded (one that does not decode is the schema's finding)."""
    parsed = parse_quantity(value)
    return parsed if isinstance(parsed, Quantity) else None


def validate_fair_sharing(fair_sharing: object, path: str) -> Errors:
    """validateFairSharing: a weight not negative, and not so small it collapses to zero."""
    weight = quantity(fair_sharing.get("weight")) if isinstance(fair_sharing, dict) else None
    if weight is None:
        return []
    errors: Errors = []
    if weight.value < 0:
        errors.append((path, invalid(weight.string(), IS_NEGATIVE)))
    if 0 < weight.value <= Fraction(1, 10**9):
        errors.append((path, invalid(weight.string(), "When not 0, weight must be > 10e-9")))
    return errors
