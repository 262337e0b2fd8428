"""`trainops rules` lists the rules; `trainops explain RULE` prints one rule's documentation."""

from __future__ import annotations

import argparse
import inspect

from trainops.rules import RULES, get_rule


def register(subparsers: argparse._SubParsersAction) -> None:
    listing = subparsers.add_parser(
        "rules",
        help="list the rules validate runs",
        description="List every rule: id, default severity, summary.",
    )
    listing.set_defaults(run=run_list, uses_cache=False)
    explain = subparsers.add_parser(
        "explain",
        help="print one rule's documentation",
        description="Print what a rule catches, why it matters and how to fix it.",
    )
    explain.add_argument("rule", metavar="RULE", help="a rule id, as `trainops rules` lists them")
    explain.set_defaults(run=run_explain, uses_cache=False)


def run_list(args: argparse.Namespace) -> int:
    width = max(map(len, RULES))
    for rule_id, module in RULES.items():
        print(f"{rule_id:{width}}  {module.SEVERITY.value:7}  {module.SUMMARY}")
    return 0


def run_explain(args: argparse.Namespace) -> int:
    module = get_rule(args.rule)
    print(f"{module.ID} ({module.SEVERITY.value}): {module.SUMMARY}\n")
    print(inspect.cleandoc(module.__doc__ or ""))
    return 0
