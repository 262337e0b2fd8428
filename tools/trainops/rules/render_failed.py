"""kustomize could not render a root.

What it catches: a kustomization that kustomize rejects — a resource path that does not exist, a
remote base whose repository or ref cannot be fetched (online, or from the mirror), a patch that
matches nothing, YAML kustomize cannot read.

Why it matters: a root that does not render cannot be synced by Argo CD or Flux, and nothing in it
can be checked.

How to fix: the message names the kustomization file and line that caused the failure and
kustomize's own reason; render it alone with `trainops build DIR` while you fix it.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered

ID = "render-failed"
SEVERITY = Severity.ERROR
SUMMARY = "kustomize could not render the root"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    failure = rendered.failure
    if failure is not None:
        yield Finding(
            ID,
            SEVERITY,
            failure.message,
            rendered.root,
            file=failure.file,
            line=failure.line,
            hint=f"run `trainops build {rendered.root}` to reproduce",
        )
