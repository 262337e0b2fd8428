"""Two objects in one root share group, kind, namespace and name.

What it catches: the same object defined twice in a folder of manifests given to `trainops
validate` (kustomize itself refuses duplicates inside one kustomization, and its refusal is a
`render-failed` finding).

Why it matters: when applied, the second silently overwrites the first, so what the cluster runs
depends on file order.

How to fix: remove one of them, or rename it; the finding names both places.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered

ID = "duplicate-object"
SEVERITY = Severity.ERROR
SUMMARY = "two objects in one root share group, kind, namespace and name"


def _where(obj: K8sObject) -> str:
    return f"{obj.file}:{obj.line}" if obj.line else obj.file


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    first_seen: dict[tuple, K8sObject] = {}
    for obj in rendered.objects:
        if not obj.has_fixed_name:
            continue  # each create of a generateName object makes a new one
        key = (obj.group, obj.kind, obj.namespace or "", obj.name)
        earlier = first_seen.setdefault(key, obj)
        if earlier is not obj:
            yield Finding(
                ID,
                SEVERITY,
                f"{obj.ref} is defined again (first at {_where(earlier)})",
                rendered.root,
                file=obj.file,
                line=obj.line,
                object=obj.ref,
                hint="keep one definition; the one applied last would silently win",
            )
