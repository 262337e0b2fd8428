"""Custom resources pass the CEL validation rules of their CRDs, as the API server evaluates them.

What it catches: a custom resource that breaks an `x-kubernetes-validations` rule of the CRD the
pinned operator installs, evaluated on create as the API server does (schema defaults applied
first; transition rules, which name `oldSelf`, run only on update and are skipped): a
ClusterQueue flavor listing fewer resources than `coveredResources`, `borrowingLimit` without a
cohort, `reclaimWithinCohort: Never` with borrowing preemption, ResourceFlavor tolerations
`operator: Exists` with a value, a JobSet with `startupPolicy: InOrder` and `dependsOn`, and so on.
The finding carries the rule's message (or its messageExpression's) and the path the API server
reports. A rule this evaluator cannot run is a note under `-v`.

Why it matters: `kubectl apply` (and every Argo CD or Flux sync) fails with the rule's message;
the schema alone does not show it.

How to fix: follow the message; the rule itself is in the CRD at the path named.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.schema import cel
from trainops.knowledge.schema.catalog import catalog_of
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered

ID = "cel-rules"
SEVERITY = Severity.ERROR
SUMMARY = "custom resources pass their CRDs' CEL validation rules (x-kubernetes-validations)"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    catalog = catalog_of(cluster)
    if catalog is None:
        return
    for obj in rendered.objects:
        schema = catalog.cel_schema(obj.api_version, obj.kind)
        if schema is None:
            continue
        outcome = cel.validate(schema, obj.doc, f"{obj.ref} ({obj.file})")
        for note in outcome.unevaluated:
            if note not in catalog.notes:
                catalog.notes.append(note)
        for failure in outcome.failures:
            yield Finding(
                ID,
                SEVERITY,
                failure.message,
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                failure.path or None,
                f"the CRD's rule: {failure.rule}",
            )
