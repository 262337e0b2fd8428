"""The parses of many files at once: kept in the cache in units, parsed on every core when cold.

A folder of manifests may be a few large files or ten thousand small ones. Small files are
grouped (consecutive in path order, up to GROUP_BYTES) so that a warm run reads one cache entry
per group rather than parsing each file again, and an edit parses only its group again; a large
file is a unit of its own, under the same key parse_stream() gives it. Units the cache lacks are
parsed by worker processes when there is enough to parse to pay for starting them: the parse
(YAML, the YAML 1.1 scan, the walk of every value) holds the interpreter's lock, so threads
would take turns on one core.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from trainops.model import cache, objects, processes
from trainops.model.objects import CACHED_FROM, PARSED_FOLDER, Parsed, Unreadable
from trainops.model.parse_worker import read_message, write_message
from trainops.model.paths import display

GROUP_BYTES = 256 * 1024
# Below this much to parse, starting interpreters (about 0.1 s of CPU each) costs more than the
# second core saves.
WORKERS_FROM = 2 * 2**20
WORKER = [sys.executable, "-m", "trainops.model.parse_worker"]
# A worker ends when its input closes, once its last unit's prechecks are done (what they find
# is kept in the cache, which the run reads next): it is given this long before it is killed.
_STOP_SECONDS = 30


@dataclass(frozen=True)
class Prechecks:
    """Workers of a stage above: `module` runs as the worker (parse_worker.serve with its own
    `after`), and `context` goes with every unit it parses."""

    module: str
    context: bytes


@dataclass
class _Unit:
    """Files parsed and kept together."""

    paths: list[Path] = field(default_factory=list)
    identities: list[tuple[int, int, int] | None] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    size: int = 0

    def add(self, path: Path, identity: tuple[int, int, int] | None, text: str) -> None:
        self.paths.append(path)
        self.identities.append(identity)
        self.texts.append(text)
        self.size += len(text)

    @property
    def names(self) -> list[str]:
        return [display(path) for path in self.paths]


@dataclass(frozen=True)
class Reading:
    """How parse_files() runs: units parsed in workers go to `prechecks` there too, and `seen`
    is told of the parses as they come (in the thread that reads)."""

    prechecks: Prechecks | None = None
    seen: Callable[[list[Parsed]], None] | None = None


def parse_files(files: list[Path], reading: Reading | None = None) -> list[Parsed | Unreadable]:
    """Each file's parse (as parse_file gives it, and remembered for it), or why it cannot be
    read, in the order of `files`. A unit the cache lacks goes to the workers as soon as it is
    read: they parse while the files after it are still being read."""
    reading = reading or Reading()
    seen = reading.seen or (lambda parsed: None)
    results: dict[Path, Parsed | Unreadable] = {}
    parsing = _Parsing(reading.prechecks)

    def settle(unit: _Unit, parsed: list[Parsed]) -> None:
        for path, identity, text, one in zip(unit.paths, unit.identities, unit.texts, parsed):
            results[path] = one
            objects.remember_parse(path, identity, text, one)
        seen(parsed)

    def complete(unit: _Unit) -> None:
        key = objects.unit_key(unit.texts)
        restored = objects.restore_unit(cache.load(PARSED_FOLDER, key), unit.names, key)
        if restored is None:
            parsing.add(unit, key)
        else:
            settle(unit, restored)
        for done in parsing.ready():
            settle(*done)

    alone: list[Parsed] = []  # known to this run already, or too small to keep
    small = _Unit()
    try:
        for path in files:
            identity = objects.file_identity(path)
            known = objects.known_parse(path, identity)
            if known is not None:
                results[path] = known
                alone.append(known)
                continue
            try:
                text = objects.read_text(path)
            except Unreadable as error:
                results[path] = error
                continue
            if len(text) >= CACHED_FROM:
                complete(_Unit([path], [identity], [text], len(text)))
                continue
            small.add(path, identity, text)
            if small.size >= GROUP_BYTES:
                complete(small)
                small = _Unit()
        if small.size >= CACHED_FROM:
            complete(small)
        else:  # too little to be worth an entry: parsed each run, as parse_stream does
            for path, identity, text in zip(small.paths, small.identities, small.texts):
                results[path] = parsed = objects.parse_stream(text, display(path))
                objects.remember_parse(path, identity, text, parsed)
                alone.append(parsed)
        seen(alone)
        for done in parsing.rest():
            settle(*done)
    except BaseException:
        parsing.abandon()
        raise
    return [results[path] for path in files]


class _Parsing:
    """The units the cache lacks: parsed by worker processes once there is enough to parse to pay
    for starting them (WORKERS_FROM), a worker a unit up to one a core, each taking the largest
    unit waiting; else parsed here at the end. What no worker gave back (one that could not
    start, or died) is parsed here too."""

    _DONE = (float("inf"), 0, None, "")  # after every unit: the worker that takes it ends

    def __init__(self, prechecks: Prechecks | None):
        self.prechecks = prechecks
        self.waiting: list[tuple[_Unit, str]] = []  # until there is enough for the workers
        self.size = 0
        self.workers = 0  # how many may start, once known
        self.tasks: queue.PriorityQueue[tuple[float, int, _Unit | None, str]] = (
            queue.PriorityQueue()
        )
        self.answers: queue.SimpleQueue[tuple[_Unit, str, bytes | None] | None] = (
            queue.SimpleQueue()
        )
        self.threads: list[threading.Thread] = []
        self.sent = 0
        self.finished = 0

    def add(self, unit: _Unit, key: str) -> None:
        self.waiting.append((unit, key))
        self.size += unit.size
        if self.workers < 2:
            self.workers = _workers(self.size)
            if self.workers < 2:
                return
        for waiting, waiting_key in self.waiting:
            self.sent += 1
            self.tasks.put((-waiting.size, self.sent, waiting, waiting_key))
            if len(self.threads) < min(self.workers, self.sent):
                thread = threading.Thread(
                    target=_serve, args=(self.tasks, self.answers, self.prechecks), daemon=True
                )
                thread.start()
                self.threads.append(thread)
        self.waiting.clear()

    def ready(self) -> Iterator[tuple[_Unit, list[Parsed]]]:
        """The parses given back so far, without waiting for more."""
        while True:
            try:
                answer = self.answers.get_nowait()
            except queue.Empty:
                return
            yield from self._taken(answer)

    def rest(self) -> Iterator[tuple[_Unit, list[Parsed]]]:
        """Every parse not given yet: the units kept back parsed here, the workers' waited for."""
        for unit, key in self.waiting:
            yield unit, objects.parse_unit(unit.texts, unit.names, key)[0]
        self.waiting.clear()
        for _ in self.threads:
            self.tasks.put(self._DONE)
        while self.finished < len(self.threads):
            yield from self._taken(self.answers.get())

    def abandon(self) -> None:
        """The run stops: no worker takes another unit."""
        with contextlib.suppress(queue.Empty):
            while True:
                self.tasks.get_nowait()
        for _ in self.threads:
            self.tasks.put(self._DONE)

    def _taken(
        self, answer: tuple[_Unit, str, bytes | None] | None
    ) -> Iterator[tuple[_Unit, list[Parsed]]]:
        if processes.stopping():
            raise processes.Terminated  # SIGTERM killed the workers: parse nothing more here
        if answer is None:
            self.finished += 1
            return
        unit, key, payload = answer
        restored = objects.restore_unit(payload, unit.names, key)
        yield unit, restored or objects.parse_unit(unit.texts, unit.names, key)[0]


def _workers(size: int) -> int:
    """How many worker processes to parse `size` bytes (1: none, parse here)."""
    if size < WORKERS_FROM:
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _serve(
    tasks: queue.PriorityQueue[tuple[float, int, _Unit | None, str]],
    answers: queue.SimpleQueue[tuple[_Unit, str, bytes | None] | None],
    prechecks: Prechecks | None,
) -> None:
    """Feed one worker process units until it is told it is done; a unit it fails is answered
    with None (parsed by the caller), and so is every unit after a worker that could not start
    or died."""
    command = WORKER if prechecks is None else [sys.executable, "-m", prechecks.module]
    context = None if prechecks is None else prechecks.context
    worker = _start_worker(command)
    try:
        while True:
            _, _, unit, key = tasks.get()
            if unit is None:
                return
            payload = None
            if worker is not None:
                try:
                    write_message(worker.stdin, marshal.dumps((unit.texts, key, context)))  # type: ignore[arg-type]
                    payload = read_message(worker.stdout)  # type: ignore[arg-type]
                except OSError:
                    payload = None
                if payload is None:
                    _stop_worker(worker)
                    worker = None
            answers.put((unit, key, payload))
    finally:
        if worker is not None:
            _stop_worker(worker)
        answers.put(None)


def _start_worker(command: list[str]) -> subprocess.Popen[bytes] | None:
    try:
        worker = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None
    try:
        processes.adopt(worker)
    except processes.Terminated:
        return None
    return worker


def _stop_worker(worker: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        worker.stdin.close()  # type: ignore[union-attr]
    try:
        worker.wait(timeout=_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()
    processes.disown(worker)
