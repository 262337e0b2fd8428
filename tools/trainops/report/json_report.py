"""A JSON list of findings, one mapping each, for other tools (how many objects were fully judged
is said on standard error, as `validate` says its other notes)."""

from __future__ import annotations

import json
from typing import TextIO

from trainops.check.validate import Outcome


def write(outcome: Outcome, out: TextIO) -> None:
    listed = [finding.as_dict() for finding in outcome.findings]
    json.dump(listed, out, indent=2)
    out.write("\n")
