"""Rule tests run the validate pipeline on small good/bad fixtures next to them."""

from __future__ import annotations

import pytest

from helpers import RULE_FIXTURES as FIXTURES
from trainops.check.validate import Root, validate
from trainops.model.findings import Finding


@pytest.fixture
def findings_of(request):
    """findings_of(rule_id, fixture) -> the findings of that rule on tests/rules/fixtures/<rule>/<fixture>."""

    def run(rule: str, fixture: str) -> list[Finding]:
        renderer = (
            request.getfixturevalue("renderer") if (FIXTURES / rule / fixture).is_dir() else None
        )
        outcome = validate([Root(FIXTURES / rule / fixture)], renderer)
        return [f for f in outcome.findings if f.rule == rule]

    return run
