"""Reporters turn an outcome into output (text, JSON, JUnit, SARIF, GitHub annotations, and the
reviews of `trainops diff`, the capacity table of `trainops capacity`); they never decide what
is a finding. They may import `review`,
`check` and everything below. (`trainops diff`'s are in reviews.py: a run of `validate` need not
import them.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from trainops.check.validate import Outcome
from trainops.report import github_report, json_report, junit_report, sarif_report, text_report

Reporter = Callable[[Outcome, TextIO], None]

REPORTERS: dict[str, Reporter] = {
    "text": text_report.write,
    "json": json_report.write,
    "junit": junit_report.write,
    "sarif": sarif_report.write,
    "github": github_report.write,
}
