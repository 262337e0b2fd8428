"""JobSet v0.12.0's own webhook unit-test table (tests/admission/jobset) judges its port in
trainops.knowledge.admission.jobset."""

from __future__ import annotations

import pytest

from admission.tables import cases, judge
from trainops.knowledge.admission.jobset.webhooks import jobset


@pytest.mark.parametrize(("table", "case"), cases("jobset"))
def test_upstream_case(table, case):
    gates = {**jobset.DEFAULTS, **case.get("gates", {})}
    judge(jobset.validate_create(case["object"], gates), table, case)
