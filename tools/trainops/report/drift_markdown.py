"""`trainops drift` as Markdown (an issue or a pull-request comment): one folded section per
layer that drifted, each a `diff` block of its objects' field changes, as `trainops diff` writes
them (live → git)."""

from __future__ import annotations

from typing import TextIO

from trainops.live.drift import CHANGED, EXTRA, MISSING, Drift, LayerDrift
from trainops.report.drift_text import headline
from trainops.report.markdown import code, fence, html_code, html_text, prose
from trainops.report.review_common import schema_summary, shown_fields
from trainops.report.review_markdown import field_lines  # as `diff` writes them
from trainops.report.visible import visible_lines

_MARK = {
    CHANGED: ("!", "differs from git"),
    MISSING: ("+", "missing from the cluster"),
    EXTRA: ("-", "in the cluster, not in git"),
}


def _section(layer: LayerDrift) -> str:
    owners = ", ".join(layer.owners)
    if layer.in_sync:  # a list item: Markdown, where `<code>` would not stop `**` or `[…](…)`
        return f"- {code(layer.layer)}{f' ({prose(owners)})' if owners else ''}: in sync\n"
    label = f"{html_code(layer.layer)}{f' ({html_text(owners)})' if owners else ''}"
    lines = []
    for item in layer.objects:
        mark, what = _MARK[item.drift]
        why = f"; {item.why}" if item.why else ""
        lines.append(f"{mark} {item.change.title}  ({what}{why})")
        fields, hidden = shown_fields(item.change)
        for change in fields:
            lines += field_lines(change)
        summary = schema_summary(item.change)
        if summary:
            lines.append(f"  {summary}")
        if hidden:
            lines.append(f"  … {hidden} more field change(s) (--format json lists every one)")
    for title, message in layer.unappliable:
        lines.append(f"! {title}  (git's version is rejected: {message})")
    body = fence("\n".join(lines), "diff")
    return (
        f"<details open><summary>{label}: {len(layer.objects) + len(layer.unappliable)} "
        f"object(s)</summary>\n\n{body}\n\n</details>\n"
    )


def render(drift: Drift, target: str) -> str:
    name = f" {code(drift.environment)}" if drift.environment else ""
    parts = [f"### trainops drift{name}: {code(target)} → git\n", f"{headline(drift)}\n"]
    parts += [_section(layer) for layer in drift.layers]
    return "\n".join(parts)


def write(drift: Drift, out: TextIO, target: str) -> None:
    out.write(visible_lines(render(drift, target)))
