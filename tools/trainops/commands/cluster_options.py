"""What `verify`, `drift` and `status` share: which cluster, and which environment or layers."""

from __future__ import annotations

import argparse
from pathlib import Path

from trainops.commands.options import add_config_option, add_mirror_option
from trainops.model.config import Config
from trainops.model.errors import CannotRun

CONCURRENT_REQUESTS = 8


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "targets",
        nargs="*",
        metavar="ENV | PATH",
        help="an environment of trainops.yaml (its layers, in the order its Argo CD and Flux "
        "entry points apply them), or layer folders and YAML files in the order they are applied "
        "(default: the only environment)",
    )
    parser.add_argument(
        "--kubeconfig",
        type=Path,
        metavar="FILE",
        help="kubeconfig to use (default: as kubectl: $KUBECONFIG, else ~/.kube/config, else the "
        "in-cluster configuration of a Pod)",
    )
    parser.add_argument(
        "--context", metavar="NAME", help="kubeconfig context (default: its current-context)"
    )
    parser.add_argument(
        "--request-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="give up on a request the server has not answered after SECONDS (default: 30)",
    )
    add_config_option(parser)
    add_mirror_option(parser)


def plan_from(args: argparse.Namespace, config: Config | None, renderer):
    """The layers to work on: an environment by name, PATHs, or the only environment."""
    from trainops.live.layers import plan_environment, plan_paths

    given: list[str] = list(args.targets or [])
    names = [Path(folder).name for folder in config.environments] if config else []
    if len(given) == 1 and given[0] in names and not Path(given[0]).exists():
        assert config is not None
        return plan_environment(given[0], config, renderer)
    if len(given) == 1 and not Path(given[0]).exists():
        raise CannotRun(
            f"{given[0]}: neither an environment of trainops.yaml "
            f"({', '.join(names) or 'none'}) nor a file or folder"
        )
    if given:
        return plan_paths([Path(p) for p in given], config, renderer)
    if config is None:
        raise CannotRun("no trainops.yaml here or above: name the layers to use as PATHs")
    if len(names) != 1:
        raise CannotRun(
            f"name the environment the cluster runs: one of {', '.join(names) or 'none'} "
            f"(trainops.yaml lists {len(names)})"
        )
    return plan_environment(names[0], config, renderer)


def connect_from(args: argparse.Namespace, command: str):
    from trainops.live.client import ReadOnlyClient
    from trainops.live.connection import connect

    if args.request_timeout <= 0:
        raise CannotRun(f"--request-timeout must be above 0, not {args.request_timeout:g}")
    api, target = connect(args.kubeconfig, args.context, CONCURRENT_REQUESTS)
    return ReadOnlyClient(api, target, args.request_timeout, command)
