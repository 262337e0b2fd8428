"""`trainops validate [PATH…]`: render every root and report what the rules find."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from trainops import kustomization
from trainops.commands.options import add_mirror_option, renderer_from
from trainops.config import load_config
from trainops.errors import CannotRun
from trainops.report import REPORTERS
from trainops.validate import Root, roots_from_arguments, validate


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="render every root and check it (exit 0 clean, 1 findings, 2 could not run)",
        description="Render each PATH (a kustomization folder is rendered with kustomize; a YAML "
        "file or a folder without a kustomization is read as it is) and check the objects. "
        "With no PATH, check the roots listed in trainops.yaml, or else every kustomization "
        "that no other includes. Exit 0 when clean, 1 on findings, 2 when it could not run.",
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    parser.add_argument("--format", choices=sorted(REPORTERS), default="text", help="output format (default: text)")
    parser.add_argument("--config", type=Path, metavar="FILE", help="config file (default: ./trainops.yaml if present)")
    parser.add_argument("--jobs", "-j", type=int, metavar="N", help="renders at once (default: one per core)")
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def _default_roots(config_file: Path | None) -> list[Root]:
    config = load_config(config_file)
    paths = config.root_paths() if config else kustomization.discover_roots(Path.cwd())
    if not paths:
        raise CannotRun("nothing to validate: no PATH given, no roots in trainops.yaml, no kustomization found")
    return [Root(path) for path in paths]


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise CannotRun(f"--jobs must be at least 1, not {args.jobs}")
    roots = roots_from_arguments(args.paths) if args.paths else _default_roots(args.config)
    renderer = renderer_from(args) if any(root.is_kustomization for root in roots) else None
    outcome = validate(roots, renderer, args.jobs)
    REPORTERS[args.format](outcome, sys.stdout)
    return 1 if outcome.findings else 0
