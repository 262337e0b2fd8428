"""`trainops diff`: review a change as rendered objects, pins, CRD schema changes and findings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from trainops.commands.options import add_config_option, add_mirror_option, renderer_from
from trainops.model.config import load_config
from trainops.model.errors import CannotRun
from trainops.render.renderer import Renderer
from trainops.rules import RULES

# The reviewing modules are imported when `diff` runs: every other command starts without them.
FORMATS = ("json", "markdown", "text")  # trainops.report.reviews.REVIEW_REPORTERS


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "diff",
        help="render the roots at two revisions and report what changed (exit 1 if it adds findings)",
        description="Render every ROOT (default: the roots in trainops.yaml) at the base revision and at "
        "the head (a revision, or the working tree with its uncommitted changes) and report per object "
        "what was added, removed or changed (field paths, old → new; ordering and formatting are not "
        "changes), the pins and images that changed, CRD schema changes with the breaking ones flagged, "
        "and the findings the change introduces and fixes. Exit 0 when it introduces no error, 1 when "
        "it does, 2 when it cannot run.",
    )
    parser.add_argument(
        "roots",
        nargs="*",
        type=Path,
        metavar="ROOT",
        help="a root to compare (default: the roots in trainops.yaml at each revision)",
    )
    parser.add_argument(
        "--base",
        default="HEAD",
        metavar="REF",
        help="the revision to compare against (default: HEAD)",
    )
    head = parser.add_mutually_exclusive_group()
    head.add_argument(
        "--head", metavar="REF", help="the revision under review (default: the working tree)"
    )
    head.add_argument(
        "--worktree",
        action="store_true",
        help="review the working tree, uncommitted changes included (the default)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="output format (default: text)",
    )
    parser.add_argument(
        "--fail-on-breaking", action="store_true", help="also exit 1 when a CRD change is breaking"
    )
    add_config_option(parser)
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def _root_names(paths: list[Path], top: Path) -> list[str] | None:
    """ROOTs as paths relative to the repository's top, which name the same root at every revision."""
    if not paths:
        return None
    names = []
    for path in paths:
        resolved = path.resolve()
        if not resolved.is_relative_to(top):
            raise CannotRun(f"{path}: not inside the repository {top}")
        names.append(resolved.relative_to(top).as_posix() or ".")
    return names


def run(args: argparse.Namespace) -> int:
    from trainops.render import revisions
    from trainops.report.reviews import REVIEW_REPORTERS
    from trainops.review.compare import review

    top = revisions.repository_top(Path.cwd())
    config = load_config(args.config, RULES)
    config_folder = (
        config.folder.relative_to(top).as_posix()
        if config and config.folder.is_relative_to(top)
        else "."
    )
    configured = renderer_from(args, config)
    # Each revision is rendered from its own folder: the mirror must not depend on the working folder.
    renderer = Renderer(
        configured.kustomize, configured.mirror.resolve() if configured.mirror else None
    )
    base = revisions.resolve(top, args.base)
    head = (
        revisions.resolve(top, args.head)
        if args.head
        else revisions.Revision(revisions.WORKTREE, None)
    )
    names = _root_names(args.roots, top)
    result = review(top, config_folder, base, head, names, renderer)
    if names is not None:
        missing = [n for n in names if n not in {r.root for r in result.roots}]
        if missing:
            raise CannotRun(f"{missing[0]}: no such root at {base.describe()} or {head.describe()}")
    REVIEW_REPORTERS[args.format](result, sys.stdout)
    return 1 if result.introduces_errors or (args.fail_on_breaking and result.breaking) else 0
