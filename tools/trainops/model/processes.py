"""Child processes (git, kubectl, kustomize): each with a time limit, all stopped on SIGTERM.

A validator run by CI is stopped with SIGTERM when a job is cancelled or times out. Python's
default is to die at once, leaving kubectl children running and temporary folders behind; here
SIGTERM stops every child this process started, refuses to start new ones, and unwinds through
the `with` blocks that own the temporary folders.
"""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Sequence
from types import FrameType

from trainops.model.errors import CannotRun

GIT_SECONDS = 60

_running: set[subprocess.Popen[str] | subprocess.Popen[bytes]] = set()
_lock = threading.RLock()  # re-entrant: the SIGTERM handler may interrupt a holder
_stopping = threading.Event()


class Terminated(BaseException):
    """SIGTERM arrived: unwind (a BaseException, so no `except Exception` swallows it)."""


def run(
    argv: Sequence[str],
    *,
    timeout: float,
    env: dict[str, str] | None = None,
    text: bool = True,
) -> subprocess.CompletedProcess:
    """Run `argv` to completion with captured output; CannotRun when it outlives `timeout`."""
    with _lock:
        if _stopping.is_set():
            raise Terminated
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=text,
        )
        _running.add(process)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise CannotRun(
            f"{' '.join(argv[:3])} … did not finish within {timeout:g}s and was stopped"
        ) from None
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        with _lock:
            _running.discard(process)
    if _stopping.is_set():
        raise Terminated
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def adopt(process: subprocess.Popen[bytes]) -> None:
    """A long-lived child started elsewhere (the kustomize helper): stopped with the rest."""
    with _lock:
        if _stopping.is_set():
            process.kill()
            raise Terminated
        _running.add(process)


def disown(process: subprocess.Popen[bytes]) -> None:
    with _lock:
        _running.discard(process)


def stopping() -> bool:
    """Whether SIGTERM arrived: handlers run in the main thread only, so a worker thread that
    waits in a loop asks here, and raises Terminated."""
    return _stopping.is_set()


def stop_children() -> None:
    """Kill every running child and refuse to start others."""
    with _lock:
        _stopping.set()
        for process in _running:
            process.kill()


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    stop_children()
    raise Terminated


def handle_sigterm() -> None:
    signal.signal(signal.SIGTERM, _on_sigterm)
