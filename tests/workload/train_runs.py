"""Running train.py as the launchers do, for the workload tests: processes whose output goes to a
file (a pipe nobody reads would fill and stall a rank), and waits on evidence, not on the clock."""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from helpers import REPO

TRAIN_DIR = REPO / "workloads" / "bookstore-ml" / "train"
TRAIN = TRAIN_DIR / "train.py"
# What a launcher sets: none may leak from the shell running the tests into a run.
LAUNCHER_PREFIXES = (
    "TRAIN_",
    "RANK",
    "WORLD_SIZE",
    "LOCAL_RANK",
    "MASTER_",
    "PET_",
    "TORCHELASTIC_",
    "OMPI_",
    "PMI_",
    "MPI_",
    "JOB_COMPLETION_INDEX",
)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(LAUNCHER_PREFIXES)}
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Run:
    """One process (train.py, torchrun, mpiexec), its stdout and stderr in one log file."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str]):
        self.log = log
        with open(log, "wb") as out:
            self.process = subprocess.Popen(
                args, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def lines(self, containing: str) -> list[str]:
        return [line for line in self.text().splitlines() if containing in line]

    def wait(self, timeout: float = 120) -> int:
        return self.process.wait(timeout=timeout)

    def stop(self) -> None:
        """At the end of a test: whatever is left of the run (its own session: an agent's workers
        too) is killed, never left behind."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


def python(*args: str) -> list[str]:
    return [sys.executable, *args]


def wait_until(
    done: Callable[[], object], what: str, runs: list[Run], timeout: float = 90
) -> object:
    """Poll `done` until it is true; fail, saying what was awaited, if a run exits first or the
    timeout passes."""
    deadline = time.monotonic() + timeout
    while True:
        result = done()
        if result:
            return result
        for run in runs:
            code = run.process.poll()
            assert code is None, f"waiting for {what}: {run.log.name} exited {code}:\n{run.text()}"
        assert time.monotonic() < deadline, f"no {what} within {timeout}s:\n" + "\n".join(
            f"--- {run.log.name}\n{run.text()}" for run in runs
        )
        time.sleep(0.02)
