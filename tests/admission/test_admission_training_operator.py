"""The Training Operator v1.8.1's own webhook unit-test tables (tests/admission/training_operator)
judge its ports in trainops.knowledge.admission.training_operator."""

from __future__ import annotations

import pytest

from admission.tables import cases, judge
from trainops.knowledge.admission.training_operator.webhooks import pytorch

PORTS = {"pytorch": pytorch.validate_pytorch_job}


@pytest.mark.parametrize(("table", "case"), cases("training_operator"))
def test_upstream_case(table, case):
    judge(PORTS[table["port"]](case["object"]), table, case)
