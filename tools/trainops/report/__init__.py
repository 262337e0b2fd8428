"""Reporters turn findings into output; they never decide what is a finding."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from trainops.report import (
    github_report,
    json_report,
    junit_report,
    review_json,
    review_markdown,
    review_text,
    sarif_report,
    text_report,
)
from trainops.review import Review
from trainops.validate import Outcome

Reporter = Callable[[Outcome, TextIO], None]

REPORTERS: dict[str, Reporter] = {
    "text": text_report.write,
    "json": json_report.write,
    "junit": junit_report.write,
    "sarif": sarif_report.write,
    "github": github_report.write,
}

# For `trainops diff`: a review of a change, not findings.
REVIEW_REPORTERS: dict[str, Callable[[Review, TextIO], None]] = {
    "text": review_text.write,
    "markdown": review_markdown.write,
    "json": review_json.write,
}
