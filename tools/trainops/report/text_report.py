"""Findings for people: grouped by file, colour only on a terminal, and a closing summary."""

from __future__ import annotations

from itertools import groupby
from typing import TextIO

from rich.console import Console
from rich.markup import escape

from trainops.check.validate import Outcome
from trainops.model.findings import Finding, Severity
from trainops.report.visible import visible

_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTE: "cyan"}


def _location(finding: Finding) -> str:
    return visible(finding.file or finding.root)


def write(outcome: Outcome, out: TextIO) -> None:
    console = Console(file=out, highlight=False, soft_wrap=True)
    ordered = sorted(outcome.findings, key=lambda f: (_location(f), f.line or 0, f.rule))
    for location, group in groupby(ordered, key=_location):
        console.print(f"[bold]{escape(location)}[/bold]")
        for finding in group:
            line = f":{finding.line}" if finding.line else ""
            severity = finding.severity
            subject = f" {visible(finding.object)}" if finding.object else ""
            path = f" at {visible(finding.path)}" if finding.path else ""
            console.print(
                f"  {escape(location)}{line}: [{_STYLE[severity]}]{severity.value}[/] "
                f"{escape(f'[{finding.rule}]')}{escape(subject)}{escape(path)}: {escape(visible(finding.message))}"
            )
            console.print(f"    [dim]{escape(visible(finding.where_found))}[/dim]")
            if finding.hint:
                console.print(f"    [dim]hint: {escape(visible(finding.hint))}[/dim]")
    objects = sum(len(r.objects) + len(r.ill_shaped) for r in outcome.rendered)
    errors = sum(f.severity is Severity.ERROR for f in outcome.findings)
    notes = sum(f.severity is Severity.NOTE for f in outcome.findings)
    warnings = len(outcome.findings) - errors - notes
    if errors or warnings:
        verdict = f"{errors} error(s), {warnings} warning(s)" + (
            f", {notes} note(s)" if notes else ""
        )
    else:
        # Clean of what it judged: how much that was is the next line, never left unsaid.
        verdict = "[green]clean[/green]" + (f", {notes} note(s)" if notes else "")
    console.print(
        f"{len(outcome.rendered)} root(s), {objects} object(s) checked in {outcome.seconds:.1f}s "
        f"(rendering {outcome.render_seconds:.1f}s, {outcome.renders_from_cache} of "
        f"{outcome.renders} render(s) from the cache, checking "
        f"{outcome.seconds - outcome.render_seconds:.1f}s): {verdict}"
    )
    if outcome.judgement is not None:
        console.print(escape(visible(outcome.judgement.summary())))
