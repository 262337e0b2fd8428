"""Fixtures of the training script's tests."""

from __future__ import annotations

import pytest
from train_runs import Run


@pytest.fixture
def runs():
    """Runs a test starts: each stopped (its process group killed) when the test ends."""
    started: list[Run] = []
    yield started
    for run in started:
        run.stop()
