"""The note a file holding custom resources starts with, read and written byte for byte.

    # Custom resources in this file, and the folder that installs each one's CRD
    # (apply that layer first; until then `kubectl apply --dry-run=client` fails as shown):
    #   PyTorchJob kubeflow.org/v1 (operators/training-operator):
    #     no matches for kind "PyTorchJob" in version "kubeflow.org/v1"

A reader (or an Argo CD sync error) sees at once why applying the file before its operator fails,
and which folder to apply first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TITLE = "# Custom resources in this file, and the folder that installs each one's CRD"
SECOND = "# (apply that layer first; until then `kubectl apply --dry-run=client` fails as shown):"
_ENTRY = re.compile(r"^#   (\S+) (\S+) \(([^)]+)\):$")
_MESSAGE = re.compile(r'^#     no matches for kind "([^"]+)" in version "([^"]+)"$')


@dataclass(frozen=True)
class Entry:
    kind: str
    api_version: str
    folder: str


def render(entries: list[Entry]) -> str:
    lines = [TITLE, SECOND]
    for entry in entries:
        lines.append(f"#   {entry.kind} {entry.api_version} ({entry.folder}):")
        lines.append(f'#     no matches for kind "{entry.kind}" in version "{entry.api_version}"')
    return "\n".join(lines) + "\n"


def read(text: str) -> tuple[list[Entry] | None, int, list[str]]:
    """(entries, characters the note spans, problems in its form); entries None when there is no note."""
    if not text.startswith(TITLE):
        return None, 0, []
    lines = text.split("\n")
    if lines[0] != TITLE:
        return None, 0, []
    problems, entries, index = [], [], 1
    if len(lines) > 1 and lines[1] == SECOND:
        index = 2
    else:
        problems.append("the note's second line is missing or changed")
    while index < len(lines):
        entry = _ENTRY.match(lines[index])
        if not entry:
            break
        message = _MESSAGE.match(lines[index + 1]) if index + 1 < len(lines) else None
        kind, api_version, folder = entry.groups()
        if not message or message.groups() != (kind, api_version):
            problems.append(
                f"the note's error line for {kind} {api_version} is missing or does not match it"
            )
            index += 1
        else:
            index += 2
        entries.append(Entry(kind, api_version, folder))
    span = len("\n".join(lines[:index])) + (1 if index < len(lines) else 0)
    return entries, span, problems


def rewrite(text: str, entries: list[Entry]) -> str:
    """The text with its note replaced by (or prefixed with) the right one; the rest unchanged."""
    _, span, _ = read(text)
    return render(entries) + text[span:]
