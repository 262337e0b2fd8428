"""`trainops verify [ENV | PATH…]`: the cluster's own verdict on every layer, before a sync."""

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
from trainops.model.findings import Severity
from trainops.report import REPORTERS
from trainops.report.visible import visible
from trainops.rules import RULES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "verify",
        help="ask the cluster to dry-run every layer (exit 0 accepted, 1 rejected, 2 could not ask)",
        description="Render the environment's layers and ask the cluster about every object, layer "
        "by layer in the order Argo CD and Flux apply them, with a server-side apply as a dry run "
        "(field manager trainops): the server's schemas, admission webhooks, Pod Security and "
        "validation judge it, and nothing is stored. Each rejection is a finding at the source "
        "file and line of the field the server names, with its message; warnings the server sends "
        "are warnings. A custom resource whose CRD an earlier layer installs (or an object whose "
        "Namespace one creates) is waiting for its layer: a note, not an error. Exit 0 when the "
        "cluster accepts everything, 1 when it rejects something, 2 when it could not be asked "
        "(unreachable, TLS, credentials, RBAC, timeout: one line on stderr).",
    )
    add_cluster_options(parser)
    parser.add_argument(
        "--format", choices=sorted(REPORTERS), default="text", help="output format (default: text)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from trainops.live.verify import outcome, summary, verify

    config = load_config(args.config, RULES)
    renderer = renderer_from(args, config)
    plan = plan_from(args, config, renderer)
    client = connect_from(args, "verify")
    verification = verify(client, plan, renderer, CONCURRENT_REQUESTS)
    result = outcome(verification)
    for note in result.notes:
        print(f"note: {visible(note)}", file=sys.stderr)
    REPORTERS[args.format](result, sys.stdout)
    print(
        f"verified by {visible(client.target.describe())}: {summary(verification)}",
        file=sys.stderr,
    )
    return 1 if any(f.severity is Severity.ERROR for f in result.findings) else 0
