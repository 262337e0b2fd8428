"""A JSON list of findings, one mapping each, for other tools."""

from __future__ import annotations

import json
from typing import TextIO

from trainops.check.validate import Outcome


def write(outcome: Outcome, out: TextIO) -> None:
    json.dump([finding.as_dict() for finding in outcome.findings], out, indent=2)
    out.write("\n")
