"""Everything the repository pulls in is pinned.

What it catches: a remote base or remote file without a ref, or with a ref that is neither a
release tag nor a full 40-hex commit (a branch, `HEAD`); an image without a tag or with a floating
one (`latest`, `nightly`, `main`, `master`), or from a staging registry; a Helm chart whose version
is not exact. Digests (`image@sha256:…`) are accepted, and preferred. Init-container templates an
operator reads (the Training Operator's init-pytorch) are checked like any pod.

Why it matters: an unpinned base or image changes under you with no commit: a sync that worked
yesterday installs something else today, and a review never saw it.

How to fix: pin by tag (`?ref=v1.2.3`, `image:1.2.3`) or digest; `trainops pins` lists every pin.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge import pins
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered

ID = "pinned"
SEVERITY = Severity.ERROR
SUMMARY = "remote bases, images and charts are pinned to releases"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    found = pins.image_pins(rendered, failing_only=True) + [
        pin for pin in pins.injected_pins(rendered, cluster) if pins.problem(pin)
    ]
    if rendered.path is not None and rendered.path.is_dir():
        found += pins.kustomization_pins(rendered.path)
    for pin in found:
        reason = pins.problem(pin)
        if reason:
            yield Finding(
                ID,
                SEVERITY,
                reason,
                rendered.root,
                pin.file,
                pin.line,
                pin.object_ref,
                pin.path,
                "pin a release tag or a digest",
            )
