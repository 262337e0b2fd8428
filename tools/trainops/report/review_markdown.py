"""The review as a pull-request comment. What needs a decision is open (pins, images, breaking
CRD changes, findings introduced); the rest is folded: one `<details>` per root, roots with
identical changes merged, each a `diff` block GitHub colours. A comment holds 65536 characters,
so roots that do not fit are named, not dropped silently. Every value from the repository is
quoted so that it cannot change the comment around it (markdown.py)."""

from __future__ import annotations

import difflib
from typing import TextIO

from trainops.model.findings import Finding
from trainops.report.markdown import code, fence, html_code, prose
from trainops.report.review_common import (
    headline,
    multiline,
    schema_summary,
    shown_fields,
    value,
    versions,
)
from trainops.report.visible import visible_lines
from trainops.review.compare import ObjectChange, Review, RootDiff
from trainops.review.crddiff import SchemaChange
from trainops.review.objectdiff import FieldChange

COMMENT_LIMIT = 60000  # below GitHub's 65536, leaving room for the closing lines
MAX_SCHEMA_ROWS = 150
_MARK = {"added": "+", "removed": "-", "changed": "!"}


def _finding(finding: Finding) -> str:
    where = f"{finding.file or finding.root}" + (f":{finding.line}" if finding.line else "")
    subject = f" {prose(finding.object)}" if finding.object else ""
    path = f" at {code(finding.path)}" if finding.path else ""
    return (
        f"- **{finding.severity.value}** {code(finding.rule)} {code(where)}{subject}{path}: "
        f"{prose(finding.message)}"
    )


def field_lines(field: FieldChange) -> list[str]:
    path = field.path or "(whole object)"
    if multiline(field):
        body = list(
            difflib.unified_diff(field.old.splitlines(), field.new.splitlines(), lineterm="", n=1)
        )[2:]
        return [f"  {path}:"] + [
            f"{line[0]}       {line[1:]}" if line[:1] in "+-" else f"        {line}"
            for line in body
        ]
    if field.change == "added":
        return [f"+   {path}: {value(field.new)}"]
    if field.change == "removed":
        return [f"-   {path}: {value(field.old)}"]
    return [f"  {path}:", f"-     {value(field.old)}", f"+     {value(field.new)}"]


def _object_lines(change: ObjectChange) -> list[str]:
    lines = [f"{_MARK[change.change]} {change.title}"]
    fields, hidden = shown_fields(change)
    for field in fields:
        lines += field_lines(field)
    summary = schema_summary(change)
    if summary:
        lines.append(f"  {summary}")
    if hidden:
        lines.append(f"  … {hidden} more field change(s) (--format json lists every one)")
    return lines


def _root_section(names: list[str], root: RootDiff) -> str:
    counts = root.counts()
    # <summary> is HTML: GitHub does not render backticks in it.
    label = ", ".join(html_code(n) for n in names[:3]) + (
        f" and {len(names) - 3} more" if len(names) > 3 else ""
    )
    same = " (identical changes)" if len(names) > 1 else ""
    if root.failure:
        failure = fence(root.failure)
        return f"<details open><summary>{label}: does not render</summary>\n\n{failure}\n\n</details>\n"
    summary = f"{label}{same}: +{counts['added']} −{counts['removed']} ~{counts['changed']}" + (
        f" (root {root.status})" if root.status in ("added", "removed") else ""
    )
    body = [line for change in root.objects for line in _object_lines(change)]
    diff = fence("\n".join(body), "diff")
    return f"<details><summary>{summary}</summary>\n\n{diff}\n\n</details>\n"


def _schema_table(changes: list[SchemaChange]) -> str:
    rows = [
        f"| {prose(c.crd)} | {prose(c.version or '')} | {prose(c.path)} | {prose(c.message)} |"
        for c in changes[:MAX_SCHEMA_ROWS]
    ]
    if len(changes) > MAX_SCHEMA_ROWS:
        rows.append(
            f"| … {len(changes) - MAX_SCHEMA_ROWS} more (the JSON report lists every one) | | | |"
        )
    return "| CRD | version | field | change |\n|---|---|---|---|\n" + "\n".join(rows)


def render(review: Review) -> str:
    parts = [
        f"### trainops diff: {code(review.base.describe())} → {code(review.head.describe())}\n",
        f"{headline(review)}\n",
    ]
    if review.introduced:
        parts.append(
            f"> [!CAUTION]\n> This change introduces {len(review.introduced)} finding(s).\n"
        )
    if review.pins:
        parts.append("#### Pins\n\n| kind | what | base | head | set at |\n|---|---|---|---|---|")
        parts += [
            f"| {p.kind} | {prose(p.what)} | {prose(versions(p.old))} | {prose(versions(p.new))} | {prose(p.where or '')} |"
            for p in review.pins
        ]
        parts.append("")
    if review.images:
        parts.append("#### Images\n\n| image | base | head | set at |\n|---|---|---|---|")
        parts += [
            f"| {prose(i.name)} | {prose(versions(i.old))} | {prose(versions(i.new))} | {prose(i.where or '')} |"
            for i in review.images
        ]
        parts.append("")
    breaking = review.breaking
    compatible = [c for c in review.schema_changes if not c.breaking]
    if breaking:
        parts.append(f"#### Breaking CRD changes ({len(breaking)})\n\n{_schema_table(breaking)}\n")
    if compatible:
        parts.append(
            f"<details><summary>Compatible CRD changes ({len(compatible)})</summary>\n\n"
            f"{_schema_table(compatible)}\n\n</details>\n"
        )
    if review.introduced:
        parts.append(
            f"#### Findings introduced ({len(review.introduced)})\n\n"
            + "\n".join(map(_finding, review.introduced))
            + "\n"
        )
    if review.fixed:
        parts.append(
            f"<details><summary>Findings fixed ({len(review.fixed)})</summary>\n\n"
            + "\n".join(map(_finding, review.fixed))
            + "\n\n</details>\n"
        )
    groups = review.groups()
    if groups:
        parts.append("#### Rendered objects\n")
    used = sum(len(p) + 1 for p in parts)
    for index, (names, root) in enumerate(groups):
        section = _root_section(names, root)
        if used + len(section) > COMMENT_LIMIT:
            left = [n for names_left, _ in groups[index:] for n in names_left]
            parts.append(
                f"… {len(left)} more root(s) do not fit in a comment: {', '.join(map(code, left))}; "
                "run `trainops diff` locally or read the JSON report.\n"
            )
            break
        parts.append(section)
        used += len(section) + 1
    return "\n".join(parts)


def write(review: Review, out: TextIO) -> None:
    out.write(visible_lines(render(review)))
