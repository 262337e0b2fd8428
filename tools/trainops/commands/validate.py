"""`trainops validate [PATH…]`: render every root and report what the rules find."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from trainops.check.validate import roots_in_context, validate
from trainops.commands.options import (
    add_config_option,
    add_mirror_option,
    default_roots,
    renderer_from,
)
from trainops.model.config import load_config
from trainops.model.errors import CannotRun
from trainops.model.findings import Severity
from trainops.render.kustomize import version_warning
from trainops.report import REPORTERS
from trainops.report.visible import visible
from trainops.rules import RULES, get_rule


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
    parser.add_argument(
        "--format", choices=sorted(REPORTERS), default="text", help="output format (default: text)"
    )
    add_config_option(parser)
    parser.add_argument(
        "--jobs", "-j", type=int, metavar="N", help="renders at once (default: one per core)"
    )
    parser.add_argument(
        "--select",
        metavar="RULE[,RULE…]",
        help="run only these rules (default: all; `trainops rules` lists them)",
    )
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="also print notes (CEL rules not checked, cache repairs)",
    )
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def _selected(text: str | None) -> set[str] | None:
    if text is None:
        return None
    chosen = {part.strip() for part in text.split(",") if part.strip()}
    if not chosen:
        raise CannotRun("--select names no rule; `trainops rules` lists them")
    for rule_id in chosen:
        get_rule(rule_id)  # an unknown id is a usage error
    return chosen


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise CannotRun(f"--jobs must be at least 1, not {args.jobs}")
    selected = _selected(args.select)
    config = load_config(args.config, RULES)
    focus, skipped = None, []
    if args.paths:
        roots, focus, skipped = roots_in_context(args.paths, config)
    else:
        roots = default_roots(config)
    for note in skipped:
        print(f"note: {visible(note)}", file=sys.stderr)
    if not roots:
        return 0
    crd_roots = config.crd_root_paths() if config else []
    needs_kustomize = any(root.is_kustomization for root in roots) or bool(crd_roots)
    renderer = renderer_from(args, config) if needs_kustomize else None
    warning = version_warning(renderer.kustomize) if renderer is not None else None
    if warning:
        print(f"warning: {visible(warning)}", file=sys.stderr)
    outcome = validate(roots, renderer, args.jobs, config, selected, focus)
    for unchecked in outcome.warnings:
        print(f"warning: {visible(unchecked)}", file=sys.stderr)
    if args.verbose:
        for note in outcome.notes:
            print(f"note: {visible(note)}", file=sys.stderr)
    REPORTERS[args.format](outcome, sys.stdout)
    return 1 if any(f.severity is Severity.ERROR for f in outcome.findings) else 0
