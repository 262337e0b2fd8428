"""A YAML document is not a Kubernetes object.

What it catches: a document that is a list or a scalar rather than a mapping, or a mapping
without `apiVersion`, `kind` or `metadata.name` (or `metadata.generateName`).

Why it matters: the API server rejects it, and no other check can say anything about it.

How to fix: give the document its `apiVersion`, `kind` and `metadata.name`, or remove it; a stray
`---` or a list at the top level are the usual causes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from trainops.model.findings import Finding, Severity, from_problems
from trainops.model.rendered import Cluster, Rendered

ID = "malformed-object"
SEVERITY = Severity.ERROR
SUMMARY = "a document is not a Kubernetes object"


# "metadata.labels is a number, …": the field a reason names, so the finding points at its line.
_NAMED_FIELD = re.compile(r"^(metadata(?:\.[A-Za-z]+)?) is ")


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    for finding in from_problems(ID, SEVERITY, rendered.root, rendered.malformed):
        named = _NAMED_FIELD.match(finding.message)
        yield replace(finding, path=named.group(1)) if named else finding
