"""Running train.py as the launchers do, for the workload tests: processes whose output goes to a
file (a pipe nobody reads would fill and stall a rank), and waits on evidence, not on the clock."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

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


def needs(module: str) -> None:
    """Skip unless `module`'s package is installed: found, not imported (torch is 2.5 s of CPU
    to import, and the ranks that use it import it in processes of their own)."""
    if importlib.util.find_spec(module.partition(".")[0]) is None:
        pytest.skip(f"{module} is not installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Forked:
    """A run forked by the zygote (tests/train_zygote.py): what the tests use of a Popen."""

    def __init__(self, zygote: _Zygote, pid: int):
        self.zygote, self.pid = zygote, pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.zygote.exit_of(self.pid, 0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.returncode = self.zygote.exit_of(self.pid, timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout or 0)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            os.kill(self.pid, sig)


class _Zygote:
    def __init__(self) -> None:
        # As train.py sets it before its first import of torch, which reads it.
        env = {"TORCH_CPP_LOG_LEVEL": "FATAL", **os.environ}
        self.process = subprocess.Popen(
            [sys.executable, str(REPO / "tests" / "train_zygote.py")],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
        )
        self.pending = b""
        self.pids: dict[int, int] = {}
        self.exits: dict[int, int] = {}
        self.requests = 0
        assert self._line(None) == "ready"

    def _line(self, deadline: float | None) -> str | None:
        """The next reply, or None if none comes by the deadline."""
        assert self.process.stdout is not None
        while b"\n" not in self.pending:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self.process.stdout], [], [], wait)[0]:
                return None
            data = os.read(self.process.stdout.fileno(), 65536)
            assert data, "the training zygote ended"
            self.pending += data
        line, _, self.pending = self.pending.partition(b"\n")
        return line.decode()

    def _take(self, deadline: float | None) -> bool:
        line = self._line(deadline)
        if line is None:
            return False
        kind, first, second = line.split()
        if kind == "pid":
            self.pids[int(first)] = int(second)
        else:
            self.exits[int(first)] = int(second)
        return True

    def start(self, argv: list[str], env: dict[str, str], stdout: Path, stderr: Path) -> Forked:
        assert self.process.stdin is not None
        self.requests += 1
        ask = self.requests
        request = {
            "id": ask,
            "argv": argv,
            "cwd": os.getcwd(),
            "env": env,
            "stdout": str(stdout),
            "stderr": str(stderr),
        }
        self.process.stdin.write(json.dumps(request).encode() + b"\n")
        while ask not in self.pids:
            self._take(None)
        return Forked(self, self.pids.pop(ask))

    def exit_of(self, pid: int, timeout: float | None) -> int | None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while pid not in self.exits:
            if not self._take(deadline):
                return None
        return self.exits.pop(pid)


_zygotes: list[_Zygote] = []


def _forkable(args: list[str], env: dict[str, str]) -> bool:
    """Whether a run is the interpreter running train.py, with what the interpreter and torch read
    as they start (PYTHON…, TORCH_…) as the zygote had it. (torchrun is not: train.py sets
    TORCH_CPP_LOG_LEVEL before it imports torch, and so does the zygote; torchrun does not.)"""
    same_start = all(
        env.get(name) == os.environ.get(name)
        for name in {*env, *os.environ}
        if name.startswith(("PYTHON", "TORCH_"))
    )
    return args[:2] == [sys.executable, str(TRAIN)] and same_start


def spawn(args: list[str], env: dict[str, str], stdout: Path, stderr: Path):
    """A process running `args`, its streams written to the files (the same file for both if
    they are one): forked from the zygote where it can run them, else started."""
    for path in {stdout, stderr}:
        path.write_bytes(b"")
    if _forkable(args, env):
        if not _zygotes or _zygotes[0].process.poll() is not None:  # none yet, or it ended
            _zygotes[:] = [_Zygote()]
        return _zygotes[0].start(args[1:], env, stdout, stderr)
    with open(stdout, "ab") as out, open(stderr, "ab") as err:
        return subprocess.Popen(args, env=env, stdout=out, stderr=err, start_new_session=True)


def run_python(
    args: list[str], env: dict[str, str], timeout: float | None = None
) -> subprocess.CompletedProcess:
    """subprocess.run(args, capture_output=True, text=True, timeout=…), forked where it can be."""
    with tempfile.TemporaryDirectory(prefix="train-run-") as folder:
        out, err = Path(folder) / "stdout", Path(folder) / "stderr"
        process = spawn(args, env, out, err)
        try:
            code = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            raise
        return subprocess.CompletedProcess(
            args, code, out.read_text(errors="replace"), err.read_text(errors="replace")
        )


class Run:
    """One process (train.py, torchrun, mpiexec), its stdout and stderr in one log file, or its
    stderr in a file of its own when `stderr` names one."""

    def __init__(self, args: list[str], log: Path, env: dict[str, str], stderr: Path | None = None):
        self.log = log
        self.process = spawn(args, env, log, stderr or log)

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
