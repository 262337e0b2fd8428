"""A YAML document is not a Kubernetes object.

What it catches: a document that is a list or a scalar rather than a mapping, or a mapping
without `apiVersion`, `kind` or `metadata.name` (or `metadata.generateName`).

Why it matters: the API server rejects it, and no other check can say anything about it.

How to fix: give the document its `apiVersion`, `kind` and `metadata.name`, or remove it; a stray
`---` or a list at the top level are the usual causes.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.model.findings import Finding, Severity, from_problems
from trainops.model.rendered import Cluster, Rendered

ID = "malformed-object"
SEVERITY = Severity.ERROR
SUMMARY = "a document is not a Kubernetes object"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    return from_problems(ID, SEVERITY, rendered.root, rendered.malformed)
