"""kustomize's Go library (the pykustomize wheel) in one helper process per run.

Why not in this process: Go frees memory only when its collector runs, and that runs only when Go
allocates again. After the CRD roots render, the library keeps 100-200 MiB that nothing uses, and a
run that goes on to read thousands of plain files adds its own peak to that. The helper exits when
the renders are over (`Worker.release`) and returns all of it. It also keeps the library's two
process-wide side effects out of this process: deprecation warnings printed to file descriptor 2,
and the last error, which the library keeps in one global.

Protocol, over the helper's stdin and stdout: a request is a JSON line `{"id": N, "path": DIR}`;
an answer is a line `N CODE LENGTH` followed by LENGTH bytes of UTF-8, the rendered YAML when
CODE is 0, else kustomize's error. The first answer, id -1, says whether the library loaded.
The helper ends when its stdin closes.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from trainops.model import processes

_OPTIONS = json.dumps(
    {
        "load_restrictions": 0,  # root only, as kustomize's own default
        "reorder": "unspecified",
        "add_managedby_label": False,
        "enable_plugins": False,
        "enable_helm": False,
        "helm_command": "",
    }
).encode()
_READY = -1


# Go's collector target for the helper (unless the user sets GOGC): kustomize allocates about a
# thousand times the YAML it prints, nearly all of it garbage at once, and with Go's default (100)
# collecting it took a fifth of the helper's CPU, on cores the run's own threads need. At 400 an
# operator edit runs about 0.4 s sooner; the helper's peak grew from about 80 to 140 MiB, and the
# run's peak is elsewhere (parsing), unchanged in the bench. The Go runtime reads GOGC from the
# environment when it starts (https://pkg.go.dev/runtime, "Environment Variables"), which in the
# helper is when the library loads: hence the helper's environment, not a call.
GO_COLLECTOR_TARGET = "400"


def _helper_environment(environment: Mapping[str, str]) -> dict[str, str]:
    return {"GOGC": GO_COLLECTOR_TARGET, **environment}


class WorkerFailed(Exception):
    """The helper could not start, or stopped before it answered."""


@dataclass
class _Pending:
    done: threading.Event = field(default_factory=threading.Event)
    answer: tuple[int, str] | None = None  # None: the helper stopped first


class Worker:
    """The parent's side: starts the helper on first use; builds from many threads share it."""

    def __init__(self, command: list[str] | None = None) -> None:
        self._command = command or [sys.executable, "-m", "trainops.render.kustomize_worker"]
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._pending: dict[int, tuple[subprocess.Popen[bytes], _Pending]] = {}
        self._next = 0

    def build(self, path: str, timeout: float) -> tuple[int, str]:
        """(0, YAML) or (code, kustomize's error). A build the helper dropped because it stopped
        (another build timed out, or it crashed) is tried once more on a new helper."""
        for attempt in (1, 2):
            pending, process = self._send(path, timeout)
            if not pending.done.wait(timeout):
                self._stop(process, kill=True)
                return -1, f"kustomize (pykustomize) did not finish in {timeout:g} s"
            if pending.answer is not None:
                return pending.answer
            if attempt == 2:
                raise WorkerFailed(f"the pykustomize helper stopped: {self._last_words()}")
        raise AssertionError("unreachable")

    def warm(self, timeout: float) -> None:
        """Start the helper in the background, unless it runs: the first build waits for it
        (then starting it again, and saying why, if it could not start here)."""

        def start() -> None:
            with self._lock:
                if self._process is None:
                    # The run stopping (Terminated) or a helper that cannot start: the run
                    # says so where it waits for a build.
                    with contextlib.suppress(WorkerFailed, OSError, processes.Terminated):
                        self._start(timeout)

        threading.Thread(target=start, daemon=True).start()

    def release(self) -> None:
        """End the helper and return its memory; the next build starts another."""
        with self._lock:
            process = self._process
        if process is not None:
            self._stop(process, kill=False)

    def _send(self, path: str, timeout: float) -> tuple[_Pending, subprocess.Popen[bytes]]:
        with self._lock:
            process = self._process or self._start(timeout)
            self._next += 1
            pending = _Pending()
            self._pending[self._next] = (process, pending)
            assert process.stdin is not None
            try:
                process.stdin.write(json.dumps({"id": self._next, "path": path}).encode() + b"\n")
                process.stdin.flush()
            except OSError:
                pending.done.set()  # the reader empties the table when it sees the end
            return pending, process

    def _start(self, timeout: float) -> subprocess.Popen[bytes]:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - read when the helper fails
        process = subprocess.Popen(
            self._command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=_helper_environment(os.environ),
        )
        processes.adopt(process)  # SIGTERM stops it with the run
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], timeout)
        if not ready:
            process.kill()
            process.wait()
            raise WorkerFailed(f"the pykustomize helper did not start in {timeout:g} s")
        first = _read_answer(process.stdout)
        if first is None or first[0] != _READY or first[1] != 0:
            process.kill()
            process.wait()
            why = first[2] if first else self._last_words()
            raise WorkerFailed(f"pykustomize's library does not load here: {why}")
        self._process = process
        threading.Thread(target=self._read, args=(process,), daemon=True).start()
        return process

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        while (answer := _read_answer(process.stdout)) is not None:
            number, code, text = answer
            with self._lock:
                sent = self._pending.pop(number, None)
            if sent is not None:
                sent[1].answer = (code, text)
                sent[1].done.set()
        # The helper is gone, or talks nonsense and is stopped: what it was asked and did not
        # answer is dropped (and tried again by its callers); what a newer helper was asked stays.
        process.kill()
        process.wait()
        processes.disown(process)
        with self._lock:
            if self._process is process:
                self._process = None
            dropped = [n for n, (to, _) in self._pending.items() if to is process]
            unanswered = [self._pending.pop(n)[1] for n in dropped]
        for pending in unanswered:
            pending.done.set()

    def _stop(self, process: subprocess.Popen[bytes], kill: bool) -> None:
        with self._lock:
            if self._process is process:
                self._process = None
        if kill:
            process.kill()
        elif process.stdin is not None:
            process.stdin.close()
        process.wait()
        processes.disown(process)

    def _last_words(self) -> str:
        if self._stderr is None:
            return "no message"
        self._stderr.seek(0)
        lines = self._stderr.read().decode(errors="replace").strip().splitlines()
        # A Go runtime that dies prints its reason first, then every goroutine's stack.
        fatal = [line for line in lines if line.startswith(("fatal error:", "runtime: out of"))]
        if fatal:
            return f"{fatal[0]} (its address space is bounded by {ADDRESS_SPACE_ENV})"
        return lines[-1] if lines else "no message"


def _read_answer(stream: IO[bytes]) -> tuple[int, int, str] | None:
    header = stream.readline().split()
    try:
        number, code, length = map(int, header)
    except ValueError:  # not a frame: the helper is treated as gone
        return None
    body = stream.read(length)
    return (number, code, body.decode(errors="replace")) if len(body) == length else None


def _serve(stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """The helper's side: one thread per build, answers written whole, in any order."""
    writing = threading.Lock()

    def answer(number: int, code: int, text: str) -> None:
        body = text.encode(errors="replace")
        with writing:
            stdout.write(b"%d %d %d\n" % (number, code, len(body)) + body)
            stdout.flush()

    try:
        from pykustomize import _ffi

        library = _ffi.get_library()
    except Exception as error:  # noqa: BLE001 - missing or built for another platform: say why
        answer(_READY, 1, str(error))
        return
    answer(_READY, 0, "")
    turns = _Turns()
    threads = []
    for line in stdin:
        request = json.loads(line)
        thread = threading.Thread(
            target=lambda r=request: answer(r["id"], *_build(_ffi, library, turns, r["path"]))
        )
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()


def _build(ffi_module: Any, library: Any, turns: _Turns, path: str) -> tuple[int, str]:
    # Builds run side by side. The library keeps its last error in one global, so a build that
    # fails runs again alone, for its own message. Every request is answered: one left without
    # an answer would hold its caller until the render timeout.
    try:
        code, text = _call(ffi_module, library, turns, path, alone=False)
        if code == 0:
            return 0, text
        return _call(ffi_module, library, turns, path, alone=True)
    except Exception as error:  # noqa: BLE001 - said as the render's error
        return -1, f"pykustomize could not render {path!r}: {error}"


def _call(ffi_module: Any, library: Any, turns: _Turns, path: str, alone: bool) -> tuple[int, str]:
    ffi = ffi_module.ffi
    with turns.take(alone):
        result = ffi.new("char**")
        code = library.pykustomize_build(
            ffi.new("char[]", os.fsencode(path)), ffi.new("char[]", _OPTIONS), result
        )
        if code == 0:
            return 0, ffi_module.string_from_c(result[0])
        if not alone:
            return code, ""
        error = library.pykustomize_last_error()
        message = ffi.string(error).decode() if error != ffi.NULL else "unknown"
        return code, message.removeprefix("kustomize build failed: ")


class _Turns:
    """Builds share the library; one that must read the library's last error runs alone."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._running = 0
        self._alone = False

    @contextlib.contextmanager
    def take(self, alone: bool) -> Iterator[None]:
        with self._changed:
            self._changed.wait_for(lambda: not self._alone and (not alone or self._running == 0))
            self._running += 1
            self._alone = alone
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                self._alone = False
                self._changed.notify_all()


# The helper's address space is bounded, so that whatever slips past model.yaml_bounds cannot grow
# kustomize without end: past the bound Go's allocator fails ("out of memory") and the helper
# stops, which its parent reports. Rendering the repository's largest layers reserves about
# 2.4 GiB of address space (Go reserves arenas and thread stacks well ahead of use).
ADDRESS_SPACE_ENV = "TRAINOPS_HELPER_ADDRESS_SPACE_MB"
DEFAULT_ADDRESS_SPACE_MB = 4096


def _bound_address_space() -> None:
    try:
        megabytes = int(os.environ.get(ADDRESS_SPACE_ENV, DEFAULT_ADDRESS_SPACE_MB))
    except ValueError:
        megabytes = DEFAULT_ADDRESS_SPACE_MB
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = megabytes * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))


def main() -> None:
    _bound_address_space()
    # Answers go to a copy of stdout; whatever the library prints lands on stderr instead.
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    _serve(sys.stdin.buffer, answers)


if __name__ == "__main__":
    main()
