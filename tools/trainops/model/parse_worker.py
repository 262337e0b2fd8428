"""A parse worker: `python -m trainops.model.parse_worker`, started by trainops.model.parse_files.

It reads tasks from stdin and answers each on stdout, in order, until stdin closes. A message is
its length (8 bytes, big-endian) and then marshal's bytes: a task is (texts, cache key), the
answer the payload objects.parse_unit() keeps under that key (the worker keeps it too).
"""

from __future__ import annotations

import gc
import marshal
import signal
import sys
from typing import BinaryIO

from trainops.model import objects

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


def main() -> int:
    # The process that started this one answers Ctrl-C and SIGTERM (it kills its workers).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.disable()  # as the run's own process does (trainops/cli.py)
    while (task := read_message(sys.stdin.buffer)) is not None:
        texts, key = marshal.loads(task)
        write_message(sys.stdout.buffer, objects.parse_unit(texts, [""] * len(texts), key)[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
