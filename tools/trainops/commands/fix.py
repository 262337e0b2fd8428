"""`trainops fix`: write or correct the CRD notes at the top of files holding custom resources."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from trainops.check.validate import (
    Root,
    catalog_for,
    load_or_fail,
    load_with_crd_roots,
    roots_in_context,
)
from trainops.commands import rewrite
from trainops.commands.options import (
    add_config_option,
    add_mirror_option,
    default_roots,
    renderer_from,
)
from trainops.commands.rewrite import Original
from trainops.model import headers
from trainops.model.config import DEFAULT_KUBERNETES_VERSIONS, load_config
from trainops.model.errors import CannotRun
from trainops.report.visible import visible
from trainops.rules import RULES
from trainops.rules.crd_header import problems, source_files


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "fix",
        help="write or correct the CRD notes of files holding custom resources",
        description="For every local file the roots render from (default: the roots in trainops.yaml) "
        "that holds custom resources, write the crd-header note, or correct it, in place. The rest of "
        "each file is kept byte for byte; running it twice changes nothing. A FILE is fixed as the roots "
        "that render it see it. With --check or --diff nothing is written, and the exit code is 1 when "
        "a file would change. Exit 2 when it cannot run, or would have to write a file outside the "
        "repository or a read-only one: then it writes none.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="a root, or a file of the repository (fixed as the roots that render it see it)",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; list the files that would change"
    )
    parser.add_argument(
        "--diff", action="store_true", help="write nothing; print the changes as a unified diff"
    )
    add_config_option(parser)
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def _refusal(original: Original, top: Path) -> str | None:
    return rewrite.refusal(original, top, "fix", "rewrite its note")


def _write(original: Original, text: str) -> None:
    rewrite.write(original, text, "fix")


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config, RULES)
    focus = None
    if args.paths:
        roots, focus, skipped = roots_in_context(args.paths, config)
        for note in skipped:
            print(f"note: {visible(note)}", file=sys.stderr)
    else:
        roots = default_roots(config)
    crd_roots = [Root(p) for p in (config.crd_root_paths() if config else [])]
    renderer = (
        renderer_from(args, config) if any(r.is_kustomization for r in roots + crd_roots) else None
    )
    together = load_with_crd_roots(
        roots, crd_roots, renderer, lambda some: load_or_fail(some, renderer)
    )
    versions = config.kubernetes_versions if config else list(DEFAULT_KUBERNETES_VERSIONS)
    catalog = catalog_for(
        together.roots + together.crd_roots,
        versions,
        crd_roots,
        config.folder if config else None,
        together.schemas,
    )
    dry = args.check or args.diff
    changed = 0
    files = dict.fromkeys(
        file
        for rendered in together.roots
        for file in source_files(rendered)
        if focus is None
        or rendered.root in focus.whole_roots
        or Path(file).resolve() in focus.files
    )
    top = config.folder if config else Path.cwd().resolve()
    # (the file, its text with the right note, what was wrong, why fix must not write it)
    changes: list[tuple[Original, str, list[str], str | None]] = []
    for file in files:
        original = Original.read(file)
        text = original.text
        wanted, issues = problems(text, file, catalog)
        if not issues:
            continue
        updated = headers.rewrite(text, wanted) if wanted else text[headers.read(text)[1] :]
        changes.append((original, updated, issues, _refusal(original, top)))
    if not dry:
        # Every file is checked before any is written: a refusal leaves the repository as it was.
        for original, _, _, refusal in changes:
            if refusal:
                raise CannotRun(f"{original.path}: {refusal}")
    for original, updated, issues, refusal in changes:
        file, text = str(original.path), original.text
        changed += 1
        if args.diff:
            sys.stdout.writelines(
                difflib.unified_diff(
                    text.splitlines(keepends=True),
                    updated.splitlines(keepends=True),
                    visible(f"a/{file}"),
                    visible(f"b/{file}"),
                )
            )
        if args.check:
            outcome = (
                f"`trainops fix` would refuse it: {refusal}"
                if refusal
                else "`trainops fix` would rewrite the note"
            )
            print(visible(f"{file}: {'; '.join(issues)} — {outcome}"))
        elif args.diff and refusal:
            print(visible(f"note: {file}: {refusal}"), file=sys.stderr)
        if not dry:
            _write(original, updated)
            print(visible(f"{file}: {'; '.join(issues)} — note rewritten"))
    verb = "would change" if dry else "changed"
    print(
        f"{changed} file(s) {verb}", file=sys.stderr if args.diff and not args.check else sys.stdout
    )
    return 1 if dry and changed else 0
