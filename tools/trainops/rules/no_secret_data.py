"""No Secret in the repository carries data.

What it catches: a Secret with values under `data` or `stringData`, in any root (a
secretGenerator with literals or files renders as one too).

Why it matters: whatever is committed is readable by everyone who can read the repository, forever
(git history), and base64 is not encryption.

How to fix: use workload identity, or an external secret store (External Secrets, Sealed Secrets,
SOPS with Flux decryption) and commit only the reference. A Secret the cluster fills in at run time
(a webhook certificate) is committed with empty data, which passes.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping

ID = "no-secret-data"
SEVERITY = Severity.ERROR
SUMMARY = "no Secret carries data in the repository"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    for obj in rendered.objects:
        if obj.kind != "Secret" or obj.api_version != "v1":
            continue
        for field in ("data", "stringData"):
            values = mapping(obj.doc.get(field))
            if values:
                keys = ", ".join(sorted(values))
                yield Finding(
                    ID,
                    SEVERITY,
                    f"Secret {obj.name} commits {field} ({keys})",
                    rendered.root,
                    obj.file,
                    obj.line,
                    obj.ref,
                    field,
                    "use workload identity or an external secret store; commit no secret values",
                )
