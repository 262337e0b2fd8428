"""No Secret value in any finding: a report, and the pull-request comment or SARIF upload made of
it, must never carry one (Argo CD and Flux mask them in their diffs the same way).

A rule may quote a value it finds wrong (a schema error on a `data` entry that is not base64, say).
Every value under a v1 Secret's `data` and `stringData` in the run is replaced in every finding's
message and hint by `(hidden)`; the key and the path still say which entry it is.
"""

from __future__ import annotations

from dataclasses import replace

from trainops.model.findings import Finding
from trainops.model.rendered import Rendered

HIDDEN = "(hidden)"
_SECRET_FIELDS = ("data", "stringData")
# Shorter values are masked only where quoted: a bare "1" or "ab" would mangle every message.
_SHORTEST_BARE = 4


def secret_values(rendered: list[Rendered]) -> set[str]:
    found: set[str] = set()
    for result in rendered:
        for obj in [*result.objects, *result.ill_shaped]:
            doc = obj.doc
            if doc.get("kind") != "Secret" or doc.get("apiVersion") != "v1":
                continue
            for field in _SECRET_FIELDS:
                values = doc.get(field)
                if isinstance(values, dict):
                    found.update(str(v) for v in values.values() if v is not None and str(v))
    return found


def without_secrets(findings: list[Finding], values: set[str]) -> list[Finding]:
    if not values:
        return findings
    longest_first = sorted(values, key=len, reverse=True)
    return [_masked(finding, longest_first) for finding in findings]


def _masked(finding: Finding, values: list[str]) -> Finding:
    message, hint = _mask(finding.message, values), _mask(finding.hint, values)
    if message == finding.message and hint == finding.hint:
        return finding
    return replace(finding, message=message or "", hint=hint)


def _mask(text: str | None, values: list[str]) -> str | None:
    if not text:
        return text
    for value in values:
        if len(value) >= _SHORTEST_BARE:
            text = text.replace(value, HIDDEN)
        else:
            for quote in ('"', "'"):
                text = text.replace(f"{quote}{value}{quote}", f"{quote}{HIDDEN}{quote}")
    return text
