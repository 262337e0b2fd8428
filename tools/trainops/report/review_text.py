"""The review for a terminal: what matters first (pins, images, breaking CRD changes, findings),
then each root's object changes, roots with identical changes merged; colour only on a terminal."""

from __future__ import annotations

import difflib
from typing import TextIO

from rich.console import Console
from rich.markup import escape as escape_markup

from trainops.model.findings import Finding
from trainops.report.review_common import (
    headline,
    multiline,
    schema_summary,
    shown_fields,
    value,
    versions,
)
from trainops.report.visible import visible
from trainops.review.compare import ObjectChange, Review
from trainops.review.crddiff import SchemaChange
from trainops.review.objectdiff import FieldChange

_MARK = {"added": ("+", "green"), "removed": ("-", "red"), "changed": ("~", "yellow")}
MAX_TEXT_LINES = 30
MAX_NAMED_FIELDS = 5


def _finding(finding: Finding) -> str:
    where = f"{finding.file or finding.root}" + (f":{finding.line}" if finding.line else "")
    subject = f" {finding.object}" if finding.object else ""
    path = f" at {finding.path}" if finding.path else ""
    return escape(
        f"{where}: {finding.severity.value} [{finding.rule}]{subject}{path}: {finding.message}"
    )


def escape(text: object) -> str:
    """Repository text shown in rich markup: control characters escaped, then markup."""
    return escape_markup(visible(text))


def field_line(console: Console, field: FieldChange) -> None:
    path = escape(field.path or "(whole object)")
    if multiline(field):
        console.print(f"      {path}:")
        lines = list(
            difflib.unified_diff(field.old.splitlines(), field.new.splitlines(), lineterm="", n=1)
        )[2:]
        for line in lines[:MAX_TEXT_LINES]:
            style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
            console.print(f"        [{style}]{escape(line)}[/]")
        if len(lines) > MAX_TEXT_LINES:
            console.print(f"        [dim]… {len(lines) - MAX_TEXT_LINES} more line(s)[/dim]")
    elif field.change == "added":
        console.print(f"      [green]+ {path}: {escape(value(field.new))}[/]")
    elif field.change == "removed":
        console.print(f"      [red]- {path}: {escape(value(field.old))}[/]")
    else:
        console.print(
            f"      {path}: [red]{escape(value(field.old))}[/] → [green]{escape(value(field.new))}[/]"
        )


def _object(console: Console, change: ObjectChange) -> None:
    mark, style = _MARK[change.change]
    console.print(f"  [{style}]{mark} {escape(change.title)}[/]")
    fields, hidden = shown_fields(change)
    for field in fields:
        field_line(console, field)
    summary = schema_summary(change)
    if summary:
        console.print(f"      [dim]{escape(summary)}[/dim]")
    if hidden:
        console.print(
            f"      [dim]… {hidden} more field change(s) (--format json lists every one)[/dim]"
        )


def _compatible(console: Console, changes: list[SchemaChange]) -> None:
    """Compatible changes, which a big bump has hundreds of: counted per CRD version and kind of
    change, with the fields named when there are few."""
    grouped: dict[tuple, list[str]] = {}
    for change in changes:
        grouped.setdefault((change.crd, change.version or "", change.message), []).append(
            change.path
        )
    for (crd, version, message), paths in grouped.items():
        named = (
            f": {', '.join(p for p in paths if p)}"
            if len(paths) <= MAX_NAMED_FIELDS and any(paths)
            else ""
        )
        count = f"{len(paths)} × " if len(paths) > 1 else ""
        console.print(
            f"  [dim]compatible[/] {escape(' '.join(p for p in (crd, version) if p))}: {count}{escape(message)}{escape(named)}"
        )


def _versions(console: Console, title: str, rows: list[tuple]) -> None:
    """Pins or images: what, old → new, and where the head sets it."""
    if rows:
        console.print(f"\n[bold]{title}[/bold]")
    for what, old, new, where in rows:
        place = f"  ({where})" if where else ""
        console.print(
            f"  {escape(what)}: [red]{escape(versions(old))}[/] → [green]{escape(versions(new))}[/]{escape(place)}"
        )


def write(review: Review, out: TextIO) -> None:
    console = Console(file=out, highlight=False, soft_wrap=True)
    console.print(
        f"[bold]trainops diff[/bold] {escape(review.base.describe())} → {escape(review.head.describe())}"
    )
    _versions(console, "Pins", [(f"{p.kind} {p.what}", p.old, p.new, p.where) for p in review.pins])
    _versions(console, "Images", [(i.name, i.old, i.new, i.where) for i in review.images])
    if review.schema_changes:
        breaking = review.breaking
        console.print(
            f"\n[bold]CRD schema changes[/bold]: {len(breaking)} breaking, "
            f"{len(review.schema_changes) - len(breaking)} compatible"
        )
        for change in breaking:
            where = " ".join(p for p in (change.crd, change.version, change.path) if p)
            console.print(f"  [bold red]breaking[/] {escape(where)}: {escape(change.message)}")
        _compatible(console, [c for c in review.schema_changes if not c.breaking])
    for title, findings, style in (
        ("Findings introduced", review.introduced, "bold red"),
        ("Findings fixed", review.fixed, "green"),
    ):
        if findings:
            console.print(f"\n[{style}]{title} ({len(findings)})[/]")
            for finding in findings:
                console.print(f"  {_finding(finding)}")
    for names, root in review.groups():
        console.print(
            f"\n[bold]{escape(', '.join(names))}[/bold]"
            + (f" [dim]({len(names)} roots, identical changes)[/dim]" if len(names) > 1 else "")
        )
        if root.failure:
            console.print(f"  [bold red]does not render:[/] {escape(root.failure)}")
        elif root.status in ("added", "removed"):
            console.print(f"  [dim]root {root.status}[/dim]")
        for change in root.objects:
            _object(console, change)
    console.print(f"\n{escape(headline(review))}")
