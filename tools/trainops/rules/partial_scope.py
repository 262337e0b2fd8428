"""Say so when a check had too little in scope to apply, instead of passing in silence.

What it catches (as warnings): objects checked without the context some rules need —
- pods in a namespace no root checked together defines: `pod-security` cannot know the level the
  namespace enforces, and `network-reachability` cannot know its policies;
- a job labelled for a Kueue LocalQueue when no LocalQueue is in scope: `kueue-admission` cannot
  tell whether Kueue would admit it.
Roots are checked together when they are the layers of one environment (`overlays/<env>/*`).

Why it matters: validating one layer or one file (what a pre-commit hook does) would otherwise
report "clean" for a workload that its environment rejects.

How to fix: validate the environment's layers together (`trainops validate overlays/<env>/*`),
or run `trainops validate` with no path to check every environment.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.findings import Finding, Severity
from trainops.psa.pods import pod_templates
from trainops.rendered import Cluster, Rendered
from trainops.rules.kueue_admission import QUEUE_LABEL, framework
from trainops.shape import mapping

ID = "partial-scope"
SEVERITY = Severity.WARNING
SUMMARY = "checks that had too little in scope to apply say so"

_HINT = "validate the environment's layers together (trainops validate overlays/<env>/*), or run trainops validate with no path"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    in_scope = list(cluster.objects())
    has_local_queues = any(o.kind == "LocalQueue" for o in in_scope)
    warned: set[tuple[str, str]] = set()
    for obj in rendered.objects:
        namespace = obj.namespace if isinstance(obj.namespace, str) else None
        if (
            namespace
            and pod_templates(obj.doc)
            and cluster.namespace_labels(namespace) is None
            and ("namespace", namespace) not in warned
        ):
            warned.add(("namespace", namespace))
            yield Finding(
                ID,
                SEVERITY,
                f"namespace {namespace} is not defined in this scope, so pod-security and "
                "network-reachability could not check its pods (its Pod Security level and NetworkPolicies are unknown)",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                "metadata.namespace",
                _HINT,
            )
        labels = (
            (mapping(obj.doc.get("metadata"))).get("labels")
            if isinstance(obj.doc.get("metadata"), dict)
            else None
        )
        queue = labels.get(QUEUE_LABEL) if isinstance(labels, dict) else None
        if (
            isinstance(queue, str)
            and framework(obj)
            and not has_local_queues
            and ("queue", queue) not in warned
        ):
            warned.add(("queue", queue))
            yield Finding(
                ID,
                SEVERITY,
                f"no LocalQueue is in this scope, so kueue-admission could not check that LocalQueue "
                f"{queue} exists, points at a ClusterQueue and has quota for the job",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                f"metadata.labels.{QUEUE_LABEL}",
                _HINT,
            )
