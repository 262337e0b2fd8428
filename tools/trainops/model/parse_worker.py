"""A parse worker: `python -m trainops.model.parse_worker`, started by trainops.model.parse_files.

It reads tasks from stdin and answers each on stdout, in order, until stdin closes. A message is
its length (8 bytes, big-endian) and then marshal's bytes: a task is (texts, cache key, context),
the answer the payload objects.parse_unit() keeps under that key (the worker keeps it too). A
worker of a stage above (trainops.check.unit_worker) serves with `after`: what it does with the
unit's parses, given the context the run sent, once the answer is on its way.
"""

from __future__ import annotations

import gc
import marshal
import signal
import sys
from collections.abc import Callable
from typing import BinaryIO

from trainops.model import objects
from trainops.model.objects import Parsed

_LENGTH = 8


def read_message(stream: BinaryIO) -> bytes | None:
    """The next message, or None at the end of the stream (or in the middle of a message)."""
    header = stream.read(_LENGTH)
    if len(header) < _LENGTH:
        return None
    size = int.from_bytes(header, "big")
    body = stream.read(size)
    return body if len(body) == size else None


def write_message(stream: BinaryIO, body: bytes) -> None:
    stream.write(len(body).to_bytes(_LENGTH, "big"))
    stream.write(body)
    stream.flush()


def serve(after: Callable[[list[Parsed], str, bytes], None] | None = None) -> int:
    # The process that started this one answers Ctrl-C and SIGTERM (it kills its workers).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.disable()  # as the run's own process does (trainops/cli.py)
    while (task := read_message(sys.stdin.buffer)) is not None:
        texts, key, context = marshal.loads(task)
        parsed, payload = objects.parse_unit(texts, [""] * len(texts), key)
        write_message(sys.stdout.buffer, payload)
        if after is not None and context is not None:
            after(parsed, key, context)
    return 0


def main() -> int:
    return serve()


if __name__ == "__main__":
    sys.exit(main())
