"""SARIF 2.1.0, with rule metadata from each rule's docs, for GitHub code scanning and other viewers."""

from __future__ import annotations

import json
from typing import TextIO

from trainops import __version__
from trainops.check.validate import Outcome
from trainops.model.findings import Severity
from trainops.report.visible import visible
from trainops.rules import RULES

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def _rule(rule_id: str, module) -> dict:
    return {
        "id": rule_id,
        "name": "".join(part.capitalize() for part in rule_id.split("-")),
        "shortDescription": {"text": module.SUMMARY},
        "fullDescription": {"text": (module.__doc__ or module.SUMMARY).strip()},
        "defaultConfiguration": {"level": _LEVEL[module.SEVERITY]},
        "helpUri": f"https://trainops.dev/rules/{rule_id}",
    }


def _location(finding) -> dict:
    uri = visible(finding.file or finding.root)
    physical: dict = {"artifactLocation": {"uri": uri}}
    if finding.line:
        physical["region"] = {"startLine": finding.line}
    location: dict = {"physicalLocation": physical}
    logical = []
    if finding.object is not None:
        logical.append(
            {
                "fullyQualifiedName": visible(
                    f"{finding.object}{'.' + finding.path if finding.path else ''}"
                ),
                "kind": "object",
            }
        )
    if logical:
        location["logicalLocations"] = logical
    return location


def write(outcome: Outcome, out: TextIO) -> None:
    rule_ids = list(RULES)
    results = []
    for finding in outcome.findings:
        message = finding.message + (f" (at {finding.path})" if finding.path else "")
        message += f"; {finding.where_found}"
        if finding.hint:
            message += f". Fix: {finding.hint}"
        results.append(
            {
                "ruleId": finding.rule,
                "ruleIndex": rule_ids.index(finding.rule) if finding.rule in rule_ids else -1,
                "level": _LEVEL[finding.severity],
                "message": {"text": visible(message)},
                "locations": [_location(finding)],
                "properties": {
                    "roots": [visible(root) for root in finding.roots or (finding.root,)],
                    "environments": list(finding.environments),
                },
            }
        )
    for result in results:
        if result["ruleIndex"] < 0:
            del result["ruleIndex"]
    run: dict = {}
    if outcome.judgement is not None:
        # How much of what was checked was judged as the API server judges it.
        notification = {
            "level": "note",
            "message": {"text": visible(outcome.judgement.summary())},
            "descriptor": {"id": "judged"},
        }
        run["invocations"] = [
            {"executionSuccessful": True, "toolExecutionNotifications": [notification]}
        ]
        run["properties"] = {"judgement": outcome.judgement.as_dict()}
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "trainops",
                        "version": __version__,
                        "informationUri": "https://trainops.dev",
                        "rules": [_rule(rule_id, module) for rule_id, module in RULES.items()],
                    }
                },
                "results": results,
                **run,
            }
        ],
    }
    json.dump(log, out, indent=2)
    out.write("\n")
