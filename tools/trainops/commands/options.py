"""Options several verbs share."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from trainops.kustomize import find_kustomize
from trainops.render import Renderer


def add_mirror_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mirror",
        type=Path,
        default=os.environ.get("TRAINOPS_MIRROR") or None,
        metavar="DIR",
        help="fetch https://github.com/ remote bases from DIR/github.com/<owner>/<repo>.git "
        "instead of the network (default: $TRAINOPS_MIRROR; none: fetch online)",
    )


def renderer_from(args: argparse.Namespace) -> Renderer:
    return Renderer(find_kustomize(), args.mirror)
