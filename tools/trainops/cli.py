"""The `trainops` command line: parses argv, dispatches to one verb, maps errors to exit codes."""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import os
import sys

from trainops import __version__
from trainops.commands import (
    adopt,
    build,
    capacity,
    coverage,
    diff,
    drift,
    fix,
    pins,
    psa,
    rules,
    schemas,
    status,
    validate,
    verify,
    version,
)
from trainops.model import cache, processes
from trainops.model.errors import CannotRun
from trainops.report.visible import visible

EXIT_CANNOT_RUN = 2


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="trainops",
        description="Render the training platform's layers with kustomize and prove them correct "
        "before they reach a cluster.",
    )
    top.add_argument("--version", action="version", version=f"trainops {__version__}")
    verbs = top.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for verb in (
        build,
        validate,
        diff,
        verify,
        drift,
        status,
        psa,
        fix,
        schemas,
        pins,
        capacity,
        coverage,
        adopt,
        rules,
        version,
    ):
        verb.register(verbs)
    return top


EXIT_TERMINATED = 143  # 128 + SIGTERM, as a shell reports a process the signal ended


class _ReaderGone(io.TextIOBase):
    """stdout that, once its reader has gone (`trainops psa … | head`), sends the rest of the
    output nowhere instead of stopping: the command still runs to its verdict, so its exit code
    (what `set -o pipefail` sees) says whether the input passed, not 0 for a cut-short run."""

    def __init__(self, stream: io.TextIOBase) -> None:
        self._stream = stream

    def _discard_from_now(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())
        os.close(devnull)

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._discard_from_now()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._discard_from_now()
            self._stream.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._stream.encoding


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    processes.handle_sigterm()
    # A run builds millions of small objects that live to its end (parsed documents, schemas).
    # The cyclic collector would walk them again and again as they are made: 40% of a warm run
    # of 10,000 objects with the default thresholds, and still a tenth of it when collections
    # are rare. A run is short and leaves little in cycles (its peak memory is the same without
    # any collection), freed when the process ends: none runs.
    gc.disable()
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout = _ReaderGone(sys.stdout)
    try:
        if getattr(args, "uses_cache", True):  # version, rules and explain read no cache
            cache.prepare()
        return args.run(args)
    except CannotRun as error:
        print(f"trainops: error: {visible(error)}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    except KeyboardInterrupt:
        return 130
    except processes.Terminated:
        return EXIT_TERMINATED
    finally:
        for note in cache.take_notes():
            print(f"note: {visible(note)}", file=sys.stderr)
        cache.release()
        sys.stdout.flush()


def run() -> None:
    """The console entry point: main(), then exit at once. The interpreter's own exit frees every
    object of the run one by one (a third of a second after a large run) and nothing needs it:
    output is flushed here, and files and cache entries were written as the run went."""
    code = main()
    cache.record_ledgers()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
