"""`trainops fix`: write or correct the CRD notes at the top of files holding custom resources."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from trainops import headers
from trainops.commands.options import add_mirror_option, default_roots, renderer_from
from trainops.config import DEFAULT_KUBERNETES_VERSIONS, load_config
from trainops.rules.crd_header import problems, source_files
from trainops.validate import Root, catalog_for, load_or_fail, roots_from_arguments


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "fix", help="write or correct the CRD notes of files holding custom resources",
        description="For every local file the roots render from (default: the roots in trainops.yaml) "
        "that holds custom resources, write the crd-header note, or correct it, in place. The rest of "
        "each file is kept byte for byte; running it twice changes nothing.",
    )
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    parser.add_argument("--config", type=Path, metavar="FILE")
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    roots = roots_from_arguments(args.paths) if args.paths else default_roots(config)
    crd_roots = [Root(p) for p in (config.crd_root_paths() if config else [])]
    renderer = renderer_from(args, config) if any(r.is_kustomization for r in roots + crd_roots) else None
    loaded = load_or_fail(roots + crd_roots, renderer)
    versions = config.kubernetes_versions if config else list(DEFAULT_KUBERNETES_VERSIONS)
    catalog = catalog_for(loaded, versions, crd_roots, config.folder if config else None)
    changed = 0
    files = dict.fromkeys(file for rendered in loaded[: len(roots)] for file in source_files(rendered))
    for file in files:
        text = Path(file).read_text()
        wanted, issues = problems(text, file, catalog)
        if not issues:
            continue
        updated = headers.rewrite(text, wanted) if wanted else text[headers.read(text)[1]:]
        temporary = Path(file).with_name(f".{Path(file).name}.{os.getpid()}.tmp")
        temporary.write_text(updated)
        os.replace(temporary, file)
        changed += 1
        print(f"{file}: {'; '.join(issues)} — note rewritten")
    print(f"{changed} file(s) changed")
    return 0
