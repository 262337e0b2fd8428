"""`trainops pins`: every pin in the repository (what, where, version), as a table or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from trainops.check.validate import Root, clusters, load_or_fail, roots_from_arguments
from trainops.commands.options import (
    add_config_option,
    add_mirror_option,
    default_roots,
    renderer_from,
)
from trainops.knowledge import pins
from trainops.model.config import load_config
from trainops.report.visible import visible
from trainops.rules import RULES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "pins",
        help="list every pin: remote bases and files, images, Helm charts",
        description="Render the roots (default: those in trainops.yaml) and list each remote base, "
        "remote file, image and Helm chart with where it is pinned (for an image an overlay sets, its "
        "`images:` entry) and to what. Exit 1 when a pin has a problem.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="a kustomization folder to render, or a YAML file or folder to read as it is",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    add_config_option(parser)
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def collect(roots: list[Root], renderer) -> list[pins.Pin]:
    found: dict[tuple, pins.Pin] = {}
    loaded = load_or_fail(roots, renderer)
    cluster_of = clusters(loaded)
    for rendered in loaded:
        kustomization_root = (
            rendered.path if rendered.path is not None and rendered.path.is_dir() else None
        )
        # An image an overlay sets with `images:` is pinned there, not in the (upstream) file
        # that names it: that entry is where a user changes the version.
        entries = (
            {e.what: e for e in pins.image_entries(kustomization_root)}
            if kustomization_root is not None
            else {}
        )
        candidates = []
        for pin in pins.image_pins(rendered):
            entry = entries.get(pin.what)
            if entry is not None and entry.version == pin.version:
                pin = replace(pin, file=entry.file, line=entry.line)
            candidates.append(pin)
        candidates += pins.injected_pins(rendered, cluster_of[id(rendered)])
        if kustomization_root is not None:
            candidates += pins.kustomization_pins(kustomization_root)
        for pin in candidates:
            found.setdefault((pin.kind, pin.what, pin.version), pin)
    return sorted(found.values(), key=lambda p: (p.kind, p.what, str(p.version)))


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config, RULES)
    roots = roots_from_arguments(args.paths) if args.paths else default_roots(config)
    renderer = renderer_from(args, config) if any(r.is_kustomization for r in roots) else None
    found = collect(roots, renderer)
    problems = [pins.problem(p) for p in found]
    if args.format == "json":
        json.dump(
            [{**p.as_dict(), "problem": problem} for p, problem in zip(found, problems)],
            sys.stdout,
            indent=2,
        )
        sys.stdout.write("\n")
    else:
        table = Table("kind", "what", "version", "where", "problem", show_lines=False)
        for pin, problem in zip(found, problems):
            where = f"{pin.file}:{pin.line}" if pin.line else pin.file
            cells = (pin.kind, pin.what, str(pin.version or "-"), where, problem or "")
            table.add_row(*(Text(visible(cell)) for cell in cells))
        # In a pipe or a file nothing truncates: a reader or grep needs whole URLs and paths.
        width = None if sys.stdout.isatty() else 100_000
        Console(soft_wrap=True, width=width).print(table)
    return 1 if any(problems) else 0
