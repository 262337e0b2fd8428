"""What the text and markdown diff reports share: how values, versions and counts read."""

from __future__ import annotations

import json
from typing import Any

from trainops.review.compare import CRD_KIND, ObjectChange, Review
from trainops.review.objectdiff import ABSENT, FieldChange

MAX_VALUE = 120  # characters of one value on a line; the JSON report has them whole
MAX_FIELDS = 40  # field changes shown per object


def value(item: Any) -> str:
    if item is ABSENT:
        return "(absent)"
    text = item if isinstance(item, str) else json.dumps(item, sort_keys=True, default=str)
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def multiline(field: FieldChange) -> bool:
    """A block of text on both sides (a config file in a ConfigMap): shown as a line diff."""
    return (
        isinstance(field.old, str)
        and isinstance(field.new, str)
        and ("\n" in field.old or "\n" in field.new)
    )


def versions(items: tuple[str, ...] | str | None) -> str:
    if items is None:
        return "(none)"
    if isinstance(items, str):
        return items
    return ", ".join(i or "(untagged)" for i in items) or "(none)"


def shown_fields(change: ObjectChange) -> tuple[list[FieldChange], int]:
    """The fields to list for an object, and how many are left out. A CRD's schema edits are
    summarised by the schema comparison instead of listed one by one."""
    fields = change.fields
    if change.key.kind == CRD_KIND:
        fields = [f for f in fields if not f.path.startswith("spec.versions")]
    return fields[:MAX_FIELDS], len(fields) - len(fields[:MAX_FIELDS])


def schema_summary(change: ObjectChange) -> str | None:
    """One line for a CRD's schema edits, which the schema comparison lists."""
    edits = sum(f.path.startswith("spec.versions") for f in change.fields)
    if change.key.kind != CRD_KIND or not edits:
        return None
    breaking = sum(s.breaking for s in change.schema)
    return (
        f"schema: {edits} field change(s) in spec.versions; {len(change.schema)} listed under CRD schema "
        f"changes ({breaking} breaking), the rest descriptions and the like (--format json lists every one)"
    )


def totals(review: Review) -> dict[str, int]:
    counts = {"added": 0, "removed": 0, "changed": 0}
    for root in review.roots:
        for change, number in root.counts().items():
            counts[change] += number
    return counts


def headline(review: Review) -> str:
    counts = totals(review)
    return (
        f"{len(review.changed_roots)} of {len(review.roots)} root(s) changed: {counts['added']} object(s) added, "
        f"{counts['removed']} removed, {counts['changed']} changed; {len(review.pins)} pin and "
        f"{len(review.images)} image change(s); {len(review.breaking)} breaking CRD change(s); "
        f"findings: {len(review.introduced)} introduced, {len(review.fixed)} fixed"
    )
