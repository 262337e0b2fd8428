"""`trainops coverage` as a table for people, Markdown for a page, or JSON for other tools."""

from __future__ import annotations

import json
from collections import Counter
from typing import TextIO

from trainops.knowledge.coverage import JUDGED, NONE, NOT_JUDGED, PARTLY, KindCoverage
from trainops.report.markdown import prose
from trainops.report.visible import visible

COLUMNS = ("schema", "API server", "defaulting", "webhook", "controller", "CEL")


def _cells(row: KindCoverage):
    return (row.schema, row.api_validation, row.defaulting, row.webhook, row.controller, row.cel)


def _name(row: KindCoverage) -> str:
    return f"{row.kind}.{row.group}" if row.group else row.kind


def _totals(rows: list[KindCoverage]) -> str:
    counted = Counter(row.judgement for row in rows)
    return (
        f"{len(rows)} kind(s): {counted[JUDGED]} judged, {counted[PARTLY]} partly judged, "
        f"{counted[NOT_JUDGED]} not judged by what the API server decides "
        "(schema, API-server validation, defaulting, CEL)"
    )


_EVERY_KIND = (
    "Every kind: ObjectMeta (names, generateName, namespace, labels, annotations, finalizers) "
    "as apimachinery validates it; every pod template of any kind: ValidatePodSpec and the Pod "
    "Security level of its namespace."
)


def write_text(rows: list[KindCoverage], out: TextIO, details: bool) -> None:
    names = [visible(_name(row)) for row in rows]
    width = max([len("KIND"), *map(len, names)])
    widths = [max(len(c), len(NOT_JUDGED)) for c in COLUMNS]
    header = ["KIND".ljust(width)] + [c.upper().ljust(w) for c, w in zip(COLUMNS, widths)]
    out.write("  ".join(header).rstrip() + "\n")
    for name, row in zip(names, rows):
        cells = [cell.status.ljust(w) for cell, w in zip(_cells(row), widths)]
        out.write("  ".join([name.ljust(width), *cells]).rstrip() + "\n")
        if details:
            for column, cell in zip(COLUMNS, _cells(row)):
                if cell.status in (PARTLY, NOT_JUDGED) and cell.detail:
                    out.write(f"    {column}: {visible(cell.detail)}\n")
    out.write(f"\n{_EVERY_KIND}\n{_totals(rows)}\n")


def write_markdown(rows: list[KindCoverage], out: TextIO, details: bool) -> None:
    out.write("| kind | " + " | ".join(COLUMNS) + " |\n")
    out.write("|---" * (len(COLUMNS) + 1) + "|\n")
    for row in rows:
        shown = []
        for cell in _cells(row):
            text = cell.status if cell.status != NONE else "–"
            if details and cell.status == PARTLY and cell.detail:
                text += f": {prose(cell.detail)}"
            shown.append(text)
        out.write(f"| {prose(_name(row))} | " + " | ".join(shown) + " |\n")
    out.write(f"\n{prose(_EVERY_KIND)}\n\n{prose(_totals(rows))}\n")


def write_json(rows: list[KindCoverage], out: TextIO) -> None:
    json.dump([row.as_dict() for row in rows], out, indent=2)
    out.write("\n")
