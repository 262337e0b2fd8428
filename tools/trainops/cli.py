"""The `trainops` command line: parses argv, dispatches to one verb, maps errors to exit codes."""

from __future__ import annotations

import argparse
import sys

from trainops import __version__
from trainops.commands import build, diff, fix, pins, psa, rules, schemas, validate, version
from trainops.errors import CannotRun

EXIT_CANNOT_RUN = 2


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="trainops",
        description="Render the training platform's layers with kustomize and prove them correct "
        "before they reach a cluster.",
    )
    top.add_argument("--version", action="version", version=f"trainops {__version__}")
    verbs = top.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for verb in (build, validate, diff, psa, fix, schemas, pins, rules, version):
        verb.register(verbs)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except CannotRun as error:
        print(f"trainops: error: {error}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head` and the like: not an error of ours.
        sys.stderr.close()
        return 0
