"""`trainops drift [ENV]`: whether the cluster still matches git, object by object."""

from __future__ import annotations

import argparse
import sys

from trainops.commands.cluster_options import (
    CONCURRENT_REQUESTS,
    add_cluster_options,
    connect_from,
    plan_from,
)
from trainops.commands.options import renderer_from
from trainops.model.config import load_config
from trainops.report.visible import visible
from trainops.rules import RULES

FORMATS = ("json", "markdown", "text")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "drift",
        help="compare the live cluster with git, object by object (exit 0 in sync, 1 drifted)",
        description="Render the environment's layers and compare each object with the cluster "
        "as `kubectl diff` does: the object a server-side apply of git would leave (asked as a dry "
        "run, field manager trainops) against the live one, so defaults, status, managed fields and "
        "what controllers own never show. The fields the Argo CD Applications' ignoreDifferences "
        "name are left out. Also lists objects git has that the cluster lacks, and objects the "
        "layer's Argo CD Application or Flux Kustomization owns that git no longer has. Reads "
        "only. Exit 0 when in sync, 1 when anything differs, 2 when the cluster could not be "
        "asked.",
    )
    add_cluster_options(parser)
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default: text)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from trainops.live.drift import drift
    from trainops.report import drift_json, drift_markdown, drift_text

    reporters = {
        "text": drift_text.write,
        "markdown": drift_markdown.write,
        "json": drift_json.write,
    }
    config = load_config(args.config, RULES)
    renderer = renderer_from(args, config)
    plan = plan_from(args, config, renderer)
    client = connect_from(args, "drift")
    result = drift(client, plan, renderer, CONCURRENT_REQUESTS)
    for note in result.notes:
        print(f"note: {visible(note)}", file=sys.stderr)
    reporters[args.format](result, sys.stdout, client.target.describe())
    return 1 if result.drifted else 0
