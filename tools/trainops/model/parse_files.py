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
    read, in the order of `files`."""
    reading = reading or Reading()
    seen = reading.seen or (lambda parsed: None)
    results: dict[Path, Parsed | Unreadable] = {}
    units: list[_Unit] = []
    small = _Unit()
    for path in files:
        identity = objects.file_identity(path)
        known = objects.known_parse(path, identity)
        if known is not None:
            results[path] = known
            continue
        try:
            text = objects.read_text(path)
        except Unreadable as error:
            results[path] = error
            continue
        if len(text) >= CACHED_FROM:
            units.append(_Unit([path], [identity], [text], len(text)))
            continue
        small.add(path, identity, text)
        if small.size >= GROUP_BYTES:
            units.append(small)
            small = _Unit()
    if small.size >= CACHED_FROM:
        units.append(small)
    else:  # too little to be worth an entry: parsed each run, as parse_stream does
        for path, identity, text in zip(small.paths, small.identities, small.texts):
            results[path] = parsed = objects.parse_stream(text, display(path))
            objects.remember_parse(path, identity, text, parsed)
    seen([one for one in results.values() if isinstance(one, Parsed)])
    for unit, parsed in _parse_units(units, reading.prechecks):
        for path, identity, text, one in zip(unit.paths, unit.identities, unit.texts, parsed):
            results[path] = one
            objects.remember_parse(path, identity, text, one)
        seen(parsed)
    return [results[path] for path in files]


def _parse_units(
    units: list[_Unit], prechecks: Prechecks | None
) -> Iterator[tuple[_Unit, list[Parsed]]]:
    keys = [objects.unit_key(unit.texts) for unit in units]
    missing = []
    for unit, key in zip(units, keys):
        restored = objects.restore_unit(cache.load(PARSED_FOLDER, key), unit.names, key)
        if restored is None:
            missing.append((unit, key))
        else:
            yield unit, restored
    workers = _workers(sum(unit.size for unit, _ in missing))
    if workers < 2:
        for unit, key in missing:
            yield unit, objects.parse_unit(unit.texts, unit.names, key)[0]
        return
    yield from _in_workers(missing, workers, prechecks)


def _workers(size: int) -> int:
    if size < WORKERS_FROM:
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _in_workers(
    missing: list[tuple[_Unit, str]], workers: int, prechecks: Prechecks | None = None
) -> Iterator[tuple[_Unit, list[Parsed]]]:
    """Parse the units in up to `workers` processes, largest first, each worker taking the next
    unit when it is done; what no worker gave back (one that could not start, or died) is
    parsed here."""
    tasks: queue.SimpleQueue[tuple[_Unit, str]] = queue.SimpleQueue()
    for pair in sorted(missing, key=lambda pair: -pair[0].size):
        tasks.put(pair)
    answers: queue.SimpleQueue[tuple[_Unit, str, bytes | None] | None] = queue.SimpleQueue()
    threads = [
        threading.Thread(target=_serve, args=(tasks, answers, prechecks), daemon=True)
        for _ in range(min(workers, len(missing)))
    ]
    for thread in threads:
        thread.start()
    finished = 0
    while finished < len(threads):
        answer = answers.get()
        if processes.stopping():
            raise processes.Terminated  # SIGTERM killed the workers: parse nothing more here
        if answer is None:
            finished += 1
            continue
        unit, key, payload = answer
        restored = objects.restore_unit(payload, unit.names, key)
        yield unit, restored or objects.parse_unit(unit.texts, unit.names, key)[0]


def _serve(
    tasks: queue.SimpleQueue[tuple[_Unit, str]],
    answers: queue.SimpleQueue[tuple[_Unit, str, bytes | None] | None],
    prechecks: Prechecks | None,
) -> None:
    """Feed one worker process units until none is left; a unit it fails is answered with None
    (parsed by the caller), and so is every unit after a worker that could not start or died."""
    command = WORKER if prechecks is None else [sys.executable, "-m", prechecks.module]
    context = None if prechecks is None else prechecks.context
    worker = _start_worker(command)
    try:
        while True:
            try:
                unit, key = tasks.get_nowait()
            except queue.Empty:
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
