"""`trainops drift` for a terminal: per layer, each object that differs from git, its fields as
`trainops diff` shows them (live → git), and what is missing from the cluster or no longer in git."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console

from trainops.live.drift import CHANGED, EXTRA, MISSING, Drift, ObjectDrift
from trainops.report.review_common import schema_summary, shown_fields
from trainops.report.review_text import (
    escape,
    field_line,  # a field change as `diff` prints it
)

_MARK = {
    CHANGED: ("~", "yellow", "differs from git"),
    MISSING: ("+", "green", "missing from the cluster"),
    EXTRA: ("-", "red", "in the cluster, not in git"),
}


def _object(console: Console, item: ObjectDrift) -> None:
    mark, style, label = _MARK[item.drift]
    why = f"; {item.why}" if item.why else ""
    console.print(
        f"  [{style}]{mark} {escape(item.change.title)}[/] [dim]({escape(label + why)})[/dim]"
    )
    fields, hidden = shown_fields(item.change)
    for change in fields:
        field_line(console, change)
    summary = schema_summary(item.change)
    if summary:
        console.print(f"      [dim]{escape(summary)}[/dim]")
    if hidden:
        console.print(
            f"      [dim]… {hidden} more field change(s) (--format json lists every one)[/dim]"
        )


def headline(drift: Drift) -> str:
    drifted = sum(not layer.in_sync for layer in drift.layers)
    unappliable = sum(len(layer.unappliable) for layer in drift.layers)
    return (
        f"{drifted} of {len(drift.layers)} layer(s) drifted: {drift.count(CHANGED)} object(s) "
        f"differ from git, {drift.count(MISSING)} missing from the cluster, {drift.count(EXTRA)} "
        f"not in git, {unappliable} git's version of which the server rejects ({drift.seconds:.1f}s)"
    )


def write(drift: Drift, out: TextIO, target: str) -> None:
    console = Console(file=out, highlight=False, soft_wrap=True)
    name = f" {drift.environment}" if drift.environment else ""
    console.print(f"[bold]trainops drift{escape(name)}[/bold]: {escape(target)} → git")
    for layer in drift.layers:
        owners = f" [dim]({escape(', '.join(layer.owners))})[/dim]" if layer.owners else ""
        state = " [green]in sync[/green]" if layer.in_sync else ""
        console.print(f"\n[bold]{escape(layer.layer)}[/bold]{owners}{state}")
        for item in layer.objects:
            _object(console, item)
        for title, message in layer.unappliable:
            console.print(
                f"  [bold red]! {escape(title)}[/] git's version is rejected: {escape(message)}"
            )
    console.print(f"\n{escape(headline(drift))}")
