"""A JSON list of findings, one mapping each, for other tools. When some object was not fully
judged as the API server judges it, the list ends with a note of rule `judged` saying how many
were (its `judgement` holds the counts); a list without one means every object was."""

from __future__ import annotations

import json
from typing import TextIO

from trainops.check.validate import Outcome
from trainops.model.findings import Severity


def write(outcome: Outcome, out: TextIO) -> None:
    listed = [finding.as_dict() for finding in outcome.findings]
    judgement = outcome.judgement
    if judgement is not None and not judgement.complete:
        listed.append(
            {
                "rule": "judged",
                "severity": Severity.NOTE.value,
                "message": judgement.summary(),
                "root": None,
                "roots": [r for r, counted in outcome.judged_in.items() if not counted.complete],
                "judgement": judgement.as_dict(),
            }
        )
    json.dump(listed, out, indent=2)
    out.write("\n")
