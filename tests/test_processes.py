"""Child processes' time limit: a child that outlives it is killed and the run says which."""

from __future__ import annotations

import sys

import pytest

from trainops.model import processes
from trainops.model.errors import CannotRun


def test_a_child_past_its_time_limit_is_stopped_and_named():
    argv = [sys.executable, "-c", "import time; time.sleep(30)"]
    with pytest.raises(CannotRun) as raised:
        processes.run(argv, timeout=0.3)
    assert (
        str(raised.value)
        == f"{sys.executable} -c import time; time.sleep(30) … did not finish within 0.3s and was stopped"
    )
    assert not [p for p in processes._running if p.args == argv]  # killed and reaped


def test_a_child_within_its_time_limit_gives_its_output_and_status():
    done = processes.run([sys.executable, "-c", "print('out'); raise SystemExit(3)"], timeout=30)
    assert (done.returncode, done.stdout) == (3, "out\n")
