"""A YAML document does not parse.

What it catches: a syntax error in a plain manifest file given to `trainops validate` (the rest of
the file's documents are still read and checked).

Why it matters: kubectl, kustomize, Argo CD and Flux all refuse the whole file.

How to fix: the finding names the file and line of the error; a common cause is a tab for
indentation, an unclosed `[` or `{`, or a value with `: ` that needs quotes.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.model.findings import Finding, Severity, from_problems
from trainops.model.rendered import Cluster, Rendered

ID = "yaml-syntax"
SEVERITY = Severity.ERROR
SUMMARY = "a YAML document does not parse"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    return from_problems(ID, SEVERITY, rendered.root, rendered.syntax_errors)
