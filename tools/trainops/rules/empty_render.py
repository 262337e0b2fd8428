"""A root renders to no objects at all.

What it catches: a kustomization whose resources are all filtered out or missing, or a folder of
manifests with no YAML documents.

Why it matters: Argo CD and Flux sync an empty root without complaint, and with pruning on they
delete everything the root used to create.

How to fix: check the root's `resources` list, or remove the root from `trainops.yaml`.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered
from trainops.render.kustomization import kustomization_file

ID = "empty-render"
SEVERITY = Severity.ERROR
SUMMARY = "a root renders to no objects"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    if not rendered.loaded or rendered.objects or rendered.ill_shaped:
        return
    path = rendered.path
    if path is not None and (path.is_file() or kustomization_file(path) is None):
        message, hint = "holds no Kubernetes objects", "add manifests, or stop checking it"
    else:
        message = "renders to no objects"
        hint = "list resources in the kustomization, or stop declaring it a root"
    yield Finding(ID, SEVERITY, message, rendered.root, file=rendered.root, hint=hint)
