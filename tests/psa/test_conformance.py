"""Every upstream Pod Security conformance fixture agrees with trainops' evaluation.

The fixtures are kubernetes/pod-security-admission's test/testdata at the v1.37 policy, beside the
repository in ../shared/conformance: `<level>/v1.<minor>/{pass,fail}/<case>.yaml`, a Pod that
admission allows (pass) or denies (fail) at that level and version.
"""

from __future__ import annotations

import pytest

from helpers import REPO
from trainops.knowledge.psa.evaluate import evaluate_object
from trainops.model.objects import parse_stream

FIXTURES = REPO.parent / "shared" / "conformance" / "pod-security-admission"
CASES = sorted(FIXTURES.glob("*/v1.*/*/*.yaml")) if FIXTURES.is_dir() else []


def _verdicts() -> list[tuple[str, str]]:
    disagreements = []
    for case in CASES:
        verdict, version, level = (
            case.parent.name,
            case.parent.parent.name,
            case.parent.parent.parent.name,
        )
        [pod] = parse_stream(case.read_text(), str(case)).objects
        violations = evaluate_object(level, int(version.split(".")[1]), pod)
        allowed = not violations
        if allowed != (verdict == "pass"):
            shown = "; ".join(f"{v.check}: {v.detail}" for v in violations or []) or "no violation"
            disagreements.append((str(case.relative_to(FIXTURES)), shown))
    return disagreements


def test_every_conformance_fixture_agrees():
    if not CASES:
        pytest.fail(
            f"no conformance fixtures at {FIXTURES}: the shared folder must sit beside the repository"
        )
    assert len(CASES) == 4537
    assert _verdicts() == []
