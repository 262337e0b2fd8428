"""Reporters of `trainops diff`: a Review as text, Markdown or JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from trainops.report import review_json, review_markdown, review_text
from trainops.review.compare import Review

REVIEW_REPORTERS: dict[str, Callable[[Review, TextIO], None]] = {
    "text": review_text.write,
    "markdown": review_markdown.write,
    "json": review_json.write,
}
