"""`trainops validate [PATH…]`: render every root and report what the rules find."""

from __future__ import annotations

import argparse
import io
import sys
from dataclasses import replace
from pathlib import Path

from trainops.check.validate import (
    ALWAYS,
    STDIN,
    Focus,
    Root,
    environments_of,
    roots_in_context,
    validate,
)
from trainops.commands.options import (
    add_config_option,
    add_mirror_option,
    default_roots,
    renderer_from,
)
from trainops.model.config import CONFIG_NAME, Config, load_config
from trainops.model.errors import CannotRun
from trainops.model.findings import Severity
from trainops.model.paths import display
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
    parser.add_argument(
        "paths", nargs="*", type=Path, metavar="PATH", help="`-` reads YAML from standard input"
    )
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
    parser.add_argument(
        "--ignore",
        action="append",
        metavar="RULE[,RULE…]",
        help="run every rule but these (repeatable); trainops.yaml `rules:` turns rules off for good",
    )
    parser.add_argument(
        "--output",
        "-o",
        type=Path,
        metavar="FILE",
        help="write the report to FILE instead of standard output (notes stay on standard error)",
    )
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def _rule_ids(text: str, option: str) -> set[str]:
    chosen = {part.strip() for part in text.split(",") if part.strip()}
    if not chosen:
        raise CannotRun(f"{option} names no rule; `trainops rules` lists them")
    for rule_id in chosen:
        get_rule(rule_id)  # an unknown id is a usage error
    return chosen


def _selected(select: str | None, ignore: list[str] | None) -> set[str] | None:
    chosen = _rule_ids(select, "--select") if select is not None else None
    if not ignore:
        return chosen
    ignored = set().union(*(_rule_ids(text, "--ignore") for text in ignore))
    if vital := sorted(ignored & ALWAYS):
        raise CannotRun(
            f"--ignore {','.join(vital)}: cannot be ignored, without it nothing else is checked "
            "(an object it reports is one no other rule can read)"
        )
    return (chosen if chosen is not None else set(RULES)) - ignored


def _stdin_read(roots: list[Root]) -> list[Root]:
    if not any(root.path == STDIN for root in roots):
        return roots
    try:
        text = sys.stdin.buffer.read().decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        raise CannotRun(
            f"standard input: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    return [replace(root, text=text) if root.path == STDIN else root for root in roots]


def run(args: argparse.Namespace) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise CannotRun(f"--jobs must be at least 1, not {args.jobs}")
    selected = _selected(args.select, args.ignore)
    config = load_config(args.config, RULES)
    skipped: list[str] = []
    if args.paths:
        roots, focus, skipped = roots_in_context(args.paths, config)
        if focus is not None and config is not None:
            # A file of the repository (what pre-commit passes) can break objects in other files
            # and roots (a NetworkPolicy its pods need, a sync option a GitOps root reads): it is
            # checked as the whole repository is, and every finding counts, so the hook fails
            # exactly when `validate` with no PATH would.
            roots = list(dict.fromkeys(roots + default_roots(config)))
            print(f"note: {visible(_scope(focus, roots, config))}", file=sys.stderr)
    else:
        roots = default_roots(config)
    for note in skipped:
        print(f"note: {visible(note)}", file=sys.stderr)
    if not roots:
        return 0
    roots = _stdin_read(list(dict.fromkeys(roots)))
    crd_roots = config.crd_root_paths() if config else []
    needs_kustomize = any(root.is_kustomization for root in roots) or bool(crd_roots)
    renderer = renderer_from(args, config) if needs_kustomize else None
    warning = version_warning(renderer.kustomize) if renderer is not None else None
    if warning:
        print(f"warning: {visible(warning)}", file=sys.stderr)
    outcome = validate(roots, renderer, args.jobs, config, selected)
    for unchecked in outcome.warnings:
        print(f"warning: {visible(unchecked)}", file=sys.stderr)
    if args.verbose:
        for note in outcome.notes:
            print(f"note: {visible(note)}", file=sys.stderr)
    _report(args, outcome)
    if args.format != "text" and outcome.judgement is not None and not outcome.judgement.complete:
        # The text report closes with it; the others carry it in their own places (SARIF's
        # notifications, JUnit's properties, a GitHub notice), and a JSON list of findings has
        # none: what was not fully judged is said here, whatever the format (a run judging every
        # object keeps standard error quiet for tools reading it).
        print(f"note: {visible(outcome.judgement.summary())}", file=sys.stderr)
    return 1 if any(f.severity is Severity.ERROR for f in outcome.findings) else 0


def _scope(focus: Focus, roots: list[Root], config: Config) -> str:
    """One line: what a run for some files checks, and why more than those files."""
    files = sorted(display(file) for file in focus.files)
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    environments = environments_of(config, [root.path for root in roots])
    named = f" (environments {', '.join(environments)})" if environments else ""
    return (
        f"{shown}: checked in every root of {display(config.file or CONFIG_NAME)}, "
        f"{len(roots)} root(s){named}, "
        "since a change to one file can break objects filed in others"
    )


def _report(args: argparse.Namespace, outcome) -> None:
    if args.output is None:
        REPORTERS[args.format](outcome, sys.stdout)
        return
    report = io.StringIO()
    REPORTERS[args.format](outcome, report)
    try:
        args.output.write_text(report.getvalue(), encoding="utf-8")
    except OSError as error:
        raise CannotRun(f"{args.output}: cannot write the report: {error.strerror}") from None
