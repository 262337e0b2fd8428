"""`trainops fix`: write or correct the CRD notes at the top of files holding custom resources."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from pathlib import Path

from trainops import headers
from trainops.commands.options import add_mirror_option, default_roots, renderer_from
from trainops.config import DEFAULT_KUBERNETES_VERSIONS, load_config
from trainops.rules.crd_header import problems, source_files
from trainops.validate import Root, catalog_for, load_or_fail, roots_in_context


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "fix",
        help="write or correct the CRD notes of files holding custom resources",
        description="For every local file the roots render from (default: the roots in trainops.yaml) "
        "that holds custom resources, write the crd-header note, or correct it, in place. The rest of "
        "each file is kept byte for byte; running it twice changes nothing. A FILE is fixed as the roots "
        "that render it see it. With --check or --diff nothing is written, and the exit code is 1 when "
        "a file would change.",
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; list the files that would change"
    )
    parser.add_argument(
        "--diff", action="store_true", help="write nothing; print the changes as a unified diff"
    )
    parser.add_argument("--config", type=Path, metavar="FILE")
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def _write(file: str, text: str) -> None:
    temporary = Path(file).with_name(f".{Path(file).name}.{os.getpid()}.tmp")
    temporary.write_text(text)
    os.replace(temporary, file)


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    focus = None
    if args.paths:
        roots, focus, skipped = roots_in_context(args.paths, config)
        for note in skipped:
            print(f"note: {note}", file=sys.stderr)
    else:
        roots = default_roots(config)
    crd_roots = [Root(p) for p in (config.crd_root_paths() if config else [])]
    renderer = (
        renderer_from(args, config) if any(r.is_kustomization for r in roots + crd_roots) else None
    )
    loaded = load_or_fail(roots + crd_roots, renderer)
    versions = config.kubernetes_versions if config else list(DEFAULT_KUBERNETES_VERSIONS)
    catalog = catalog_for(loaded, versions, crd_roots, config.folder if config else None)
    dry = args.check or args.diff
    changed = 0
    files = dict.fromkeys(
        file
        for rendered in loaded[: len(roots)]
        for file in source_files(rendered)
        if focus is None
        or rendered.root in focus.whole_roots
        or Path(file).resolve() in focus.files
    )
    for file in files:
        text = Path(file).read_text()
        wanted, issues = problems(text, file, catalog)
        if not issues:
            continue
        updated = headers.rewrite(text, wanted) if wanted else text[headers.read(text)[1] :]
        changed += 1
        if args.diff:
            sys.stdout.writelines(
                difflib.unified_diff(
                    text.splitlines(keepends=True),
                    updated.splitlines(keepends=True),
                    f"a/{file}",
                    f"b/{file}",
                )
            )
        if args.check:
            print(f"{file}: {'; '.join(issues)} — `trainops fix` would rewrite the note")
        if not dry:
            _write(file, updated)
            print(f"{file}: {'; '.join(issues)} — note rewritten")
    verb = "would change" if dry else "changed"
    print(
        f"{changed} file(s) {verb}", file=sys.stderr if args.diff and not args.check else sys.stdout
    )
    return 1 if dry and changed else 0
