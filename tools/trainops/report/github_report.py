"""GitHub Actions workflow commands: each finding becomes an annotation on its file and line."""

from __future__ import annotations

from typing import TextIO

from trainops.check.validate import Outcome
from trainops.model.findings import Severity
from trainops.report.visible import visible

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _escape_data(text: str) -> str:
    # `%` first, so the escapes added after it are not escaped again; then what a runner reads.
    escaped = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return visible(escaped)


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def write(outcome: Outcome, out: TextIO) -> None:
    for finding in outcome.findings:
        command = _COMMAND[finding.severity]
        properties = [f"file={_escape_property(finding.file or finding.root)}"]
        if finding.line:
            properties.append(f"line={finding.line}")
        properties.append(f"title={_escape_property(f'trainops {finding.rule}')}")
        # Only the parts a finding has: one without an object (a render failure) has no subject.
        subject = " at ".join(str(part) for part in (finding.object, finding.path) if part)
        message = f"{subject}: {finding.message}" if subject else finding.message
        message += f" ({finding.where_found})"
        if finding.hint:
            message += f" (hint: {finding.hint})"
        out.write(f"::{command} {','.join(properties)}::{_escape_data(message)}\n")
    if outcome.judgement is None:
        return
    title = _escape_property("trainops judged")
    out.write(f"::notice title={title}::{_escape_data(outcome.judgement.summary())}\n")
