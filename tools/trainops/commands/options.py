"""Options several verbs share."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from trainops.check.validate import Root
from trainops.model.config import Config
from trainops.model.errors import CannotRun
from trainops.render import kustomization, mirror
from trainops.render.kustomize import find_kustomize
from trainops.render.renderer import Renderer


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="config file (default: trainops.yaml in the working folder or the nearest above it)",
    )


def add_mirror_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mirror",
        type=Path,
        metavar="DIR",
        help="fetch https://github.com/ remote bases from DIR/github.com/<owner>/<repo>.git "
        "instead of the network (default: $TRAINOPS_MIRROR, else `mirror:` in trainops.yaml, else "
        "../shared/mirror beside the repository; none: fetch online)",
    )


def renderer_from(args: argparse.Namespace, config: Config | None = None) -> Renderer:
    repository = config.folder if config else Path.cwd()
    chosen = mirror.find_mirror(args.mirror, config.mirror if config else None, repository)
    if config is not None and chosen is not None and chosen == config.mirror:
        # The repository under review chose where its remote bases come from, not the user.
        print(
            f"trainops: remote bases are read from {chosen}, the mirror "
            f"{config.file or 'trainops.yaml'} names (`mirror:`); choose one yourself with "
            f"--mirror DIR or {mirror.MIRROR_ENV}=DIR",
            file=sys.stderr,
        )
    return Renderer(find_kustomize(), chosen)


def default_roots(config: Config | None) -> list[Root]:
    """The roots trainops.yaml lists, or else every kustomization no other one includes."""
    paths = (
        kustomization.configured_roots(config)
        if config
        else kustomization.discover_roots(Path.cwd())
    )
    if not paths:
        raise CannotRun(
            "nothing to do: no PATH given, no roots in trainops.yaml, no kustomization found"
        )
    return [Root(path) for path in paths]
