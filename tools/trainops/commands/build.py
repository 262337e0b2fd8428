"""`trainops build DIR`: the rendered YAML of one kustomization, on stdout."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from trainops.commands.options import add_mirror_option, renderer_from
from trainops.model.config import load_config
from trainops.model.errors import CannotRun
from trainops.render.renderer import RenderFailure
from trainops.rules import RULES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "build",
        help="render one kustomization with kustomize (offline with --mirror)",
        description="Render the kustomization in DIR with the real kustomize (exec plugins and "
        "Helm off) and print the YAML. Exit 2 with one line naming the file and cause if it fails.",
    )
    parser.add_argument(
        "directory", type=Path, metavar="DIR", help="folder holding a kustomization.yaml"
    )
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.directory.is_file():
        raise CannotRun(f"{args.directory}: a file; `build` renders a kustomization's folder")
    if not args.directory.is_dir():
        raise CannotRun(f"{args.directory}: no such folder")
    try:
        os.listdir(args.directory)
    except OSError as error:
        raise CannotRun(f"{args.directory}: cannot be read: {error.strerror or error}") from None
    try:
        sys.stdout.write(renderer_from(args, load_config(None, RULES)).build(args.directory))
    except RenderFailure as failure:
        raise CannotRun(failure.one_line()) from None
    return 0
