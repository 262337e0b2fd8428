"""`trainops pins`: every pin in the repository (what, where, version), as a table or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from trainops import pins
from trainops.commands.options import add_mirror_option, default_roots, renderer_from
from trainops.config import load_config
from trainops.validate import Root, load_or_fail, roots_from_arguments


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "pins", help="list every pin: remote bases and files, images, Helm charts",
        description="Render the roots (default: those in trainops.yaml) and list each remote base, "
        "remote file, image and Helm chart with where it is pinned and to what.",
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--config", type=Path, metavar="FILE")
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def collect(roots: list[Root], renderer) -> list[pins.Pin]:
    found: dict[tuple, pins.Pin] = {}
    for rendered in load_or_fail(roots, renderer):
        candidates = pins.image_pins(rendered)
        if rendered.path is not None and rendered.path.is_dir():
            candidates += pins.kustomization_pins(rendered.path)
        for pin in candidates:
            found.setdefault((pin.kind, pin.what, pin.version), pin)
    return sorted(found.values(), key=lambda p: (p.kind, p.what, str(p.version)))


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    roots = roots_from_arguments(args.paths) if args.paths else default_roots(config)
    renderer = renderer_from(args, config) if any(r.is_kustomization for r in roots) else None
    found = collect(roots, renderer)
    if args.format == "json":
        json.dump([{**p.as_dict(), "problem": pins.problem(p)} for p in found], sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    table = Table("kind", "what", "version", "where", "problem", show_lines=False)
    for pin in found:
        where = f"{pin.file}:{pin.line}" if pin.line else pin.file
        table.add_row(pin.kind, pin.what, str(pin.version or "-"), where, pins.problem(pin) or "")
    Console(soft_wrap=True).print(table)
    return 0
