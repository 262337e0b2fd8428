"""Ignoring a finding is explicit and argued: an annotation on the object, or a config entry.

    metadata:
      annotations:
        trainops.dev/ignore: "pinned: the chart's own image, bumped with the chart; no-secret-data: test fixture"

An ignore without a reason, or naming an unknown rule, is itself a finding; an ignore that
matched no finding is a warning, so stale ones do not pile up.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from trainops.model.shape import mapping

ANNOTATION = "trainops.dev/ignore"


@dataclass
class Ignore:
    rule: str
    reason: str
    used: bool = False


def parse(value: str) -> tuple[list[Ignore], list[str]]:
    """The ignores in an annotation value, and what is wrong with it (one sentence each)."""
    ignores, problems = [], []
    for part in str(value).split(";"):
        if not part.strip():
            continue
        rule, colon, reason = part.partition(":")
        rule, reason = rule.strip(), reason.strip()
        if not colon or not reason:
            problems.append(
                f'ignore of {rule!r} gives no reason: write "{rule}: <why it is safe to ignore>"'
            )
            continue
        ignores.append(Ignore(rule, reason))
    return ignores, problems


def object_ignores(doc: dict) -> tuple[list[Ignore], list[str]]:
    value = (mapping((mapping(doc.get("metadata"))).get("annotations"))).get(ANNOTATION)
    return parse(value) if value is not None else ([], [])


def path_matches(pattern: str, file: str | None) -> bool:
    return file is not None and fnmatch.fnmatch(file, pattern)
