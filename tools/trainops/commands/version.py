"""`trainops version`: this tool's version and the kustomize it renders with."""

from __future__ import annotations

import argparse

from trainops import __version__
from trainops.render.kustomize import CONTROLLER_KUSTOMIZE, InProcessKustomize, find_kustomize


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("version", help="print the trainops and kustomize versions")
    parser.set_defaults(run=run, uses_cache=False)


def run(args: argparse.Namespace) -> int:
    kustomize = find_kustomize()
    print(f"trainops {__version__}")
    print(f"kustomize {kustomize.version()} ({kustomize.name}: {kustomize.executable})")
    if isinstance(kustomize, InProcessKustomize) and kustomize.fallback is not None:
        fallback = kustomize.fallback
        print(
            f"fallback for remotes the mirror cannot supply: kustomize {fallback.version()} "
            f"({fallback.name}: {fallback.executable})"
        )
    for controller, version in CONTROLLER_KUSTOMIZE.items():
        print(f"{controller} builds with kustomize {version}")
    return 0
