"""`trainops status [ENV]`: each layer's health, and why a training job is not running."""

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

FORMATS = ("json", "text")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "status",
        help="each layer's health and each training job's state (exit 0 fine or waiting, 1 failing)",
        description="Read the environment's objects from the cluster and report each layer's "
        "health as Argo CD (the repository's Lua health checks) and Flux (its healthCheckExprs) "
        "judge it, from one definition that agrees with both; then, for each training job, its "
        "Kueue Workload (QuotaReserved, Admitted, PodsReady, Evicted, Finished, with reasons), its "
        "pods' phases and scheduling failures, recent Warning events, and a diagnosis: waiting for "
        "quota, gang partly placed, unschedulable, image pull failing, rejected by Pod Security, "
        "webhook unavailable, evicted. Reads only. Exit 0 when everything is healthy or on its way "
        "(a queued job is healthy), 1 when an object is degraded or missing or a job has a "
        "problem, 2 when the cluster could not be asked.",
    )
    add_cluster_options(parser)
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default: text)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from trainops.live.status import status
    from trainops.report import status_json, status_text

    reporters = {"text": status_text.write, "json": status_json.write}
    config = load_config(args.config, RULES)
    renderer = renderer_from(args, config)
    plan = plan_from(args, config, renderer)
    client = connect_from(args, "status")
    result = status(client, plan, renderer, CONCURRENT_REQUESTS)
    for note in result.notes:
        print(f"note: {visible(note)}", file=sys.stderr)
    reporters[args.format](result, sys.stdout, client.target.describe())
    return 1 if result.failing else 0
