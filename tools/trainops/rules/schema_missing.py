"""Every kind must have a schema, or be skipped on purpose.

What it catches: an object whose apiVersion and kind no declared Kubernetes version serves and no
rendered CRD defines — a typo in apiVersion, a CRD that is not installed by any operator folder,
or a kind from a CRD root missing from `crdRoots` in `trainops.yaml`.

Why it matters: nothing checks such an object, and the cluster rejects it with `no matches for
kind` unless something installs its CRD first.

How to fix: correct the apiVersion/kind, add the operator that installs the CRD to the operators
layer (and `crdRoots`), or skip the kind in `trainops.yaml` with a reason:
`skipKinds: [{apiVersion: example.com/v1, kind: Widget, reason: "installed by the platform team"}]`.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.schema.catalog import catalog_of
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered

ID = "schema-missing"
SEVERITY = Severity.ERROR
SUMMARY = "every kind has a schema, or is skipped with a reason"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    catalog = catalog_of(cluster)
    if catalog is None:
        return
    for obj in rendered.objects:
        if catalog.lookup(obj.api_version, obj.kind) is not None:
            continue
        if cluster.config is not None and cluster.config.skipped(obj.api_version, obj.kind):
            continue
        yield Finding(
            ID,
            SEVERITY,
            f"no schema for {obj.api_version} {obj.kind}: no declared Kubernetes version "
            f"({', '.join(catalog.kubernetes_versions)}) serves it and no rendered CRD defines it",
            rendered.root,
            obj.file,
            obj.line,
            obj.ref,
            "apiVersion",
            "fix the apiVersion/kind, render the CRD from a crdRoots entry, or add it to skipKinds with a reason",
        )
