"""`trainops.dev/ignore` annotations must name known rules and say why.

What it catches: an ignore annotation entry without a reason (`pinned` alone, or `pinned:`), or
one naming a rule that does not exist. (An ignore that matches no finding is reported as a warning
under this rule id as well, after all rules ran.)

Why it matters: an unexplained ignore hides a problem from every later reader; one naming a
misspelt rule ignores nothing while looking as if it did.

How to fix: write `trainops.dev/ignore: "<rule-id>: <reason>"` (several separated by `;`), with a
rule id from `trainops rules`; delete ignores that no longer match anything.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.model import ignores
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered

ID = "ignore"
SEVERITY = Severity.ERROR
SUMMARY = "ignore annotations name known rules and give a reason"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    for obj in rendered.objects:
        found, problems = ignores.object_ignores(obj.doc)
        problems += [
            f"ignore names unknown rule {i.rule!r}; `trainops rules` lists them"
            for i in found
            if i.rule not in cluster.rule_ids
        ]
        for problem in problems:
            yield Finding(
                ID,
                SEVERITY,
                problem,
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                f"metadata.annotations.{ignores.ANNOTATION}",
            )
