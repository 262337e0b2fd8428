"""A root renders to no objects at all.

What it catches: a kustomization whose resources are all filtered out or missing, or a folder of
manifests with no YAML documents.

Why it matters: Argo CD and Flux sync an empty root without complaint, and with pruning on they
delete everything the root used to create.

How to fix: check the root's `resources` list, or remove the root from `trainops.yaml`.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.findings import Finding, Severity
from trainops.rendered import Cluster, Rendered

ID = "empty-render"
SEVERITY = Severity.ERROR
SUMMARY = "a root renders to no objects"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    if rendered.loaded and not rendered.objects and not rendered.ill_shaped:
        yield Finding(
            ID,
            SEVERITY,
            "renders to no objects",
            rendered.root,
            file=rendered.root,
            hint="list resources in the kustomization, or stop declaring it a root",
        )
