"""Reads that can neither block nor run on: a regular file of bounded size, or an error.

A path that should hold a file may hold anything: a FIFO blocks the reader until someone writes
(forever, and a blocked read() outlives SIGTERM's handler, which only sets a flag), `/dev/zero`
never ends, and a regular file may be larger than memory. So the file is opened without waiting
(O_NONBLOCK: a FIFO opens at once, and is then refused by its type), its type and size are taken
from the open descriptor (no window for a swap between a check and the read), and no more than
`limit` bytes are read, whatever the size said.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class NotRegular(OSError):
    """The path is a FIFO, socket, device or folder, not a regular file."""


class TooLarge(OSError):
    """The file holds more than the reader's bound."""


def mebibytes(size: int) -> str:
    return f"{size / 2**20:.0f} MiB" if size >= 2**20 else f"{size} bytes"


def read_regular(path: Path | str, limit: int, *, follow: bool = True) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; with `follow` False a
    symbolic link is refused too (the cache's own files are never links). Raises OSError:
    NotRegular, TooLarge, or what opening or reading raised."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    if not follow:
        flags |= os.O_NOFOLLOW
    descriptor = os.open(path, flags)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file", str(path))
        if status.st_size > limit:
            raise TooLarge(errno.EFBIG, f"larger than {mebibytes(limit)}", str(path))
        chunks, size = [], 0
        while True:  # the size may have changed since fstat: never more than the bound
            chunk = os.read(descriptor, min(max(status.st_size, 2**16), limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise TooLarge(errno.EFBIG, f"larger than {mebibytes(limit)}", str(path))
        return b"".join(chunks)
    finally:
        os.close(descriptor)
