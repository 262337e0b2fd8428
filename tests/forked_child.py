"""How a child forked by a zygote (cli_zygote.py, train_zygote.py) ends: as the interpreter ends
a program, with the exit status it would give and its streams flushed."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import NoReturn


def exit_status(stop: SystemExit) -> int:
    """The interpreter's status for SystemExit(code): an int as it is, None 0, anything else
    printed to stderr and 1 (argparse's usage errors, sys.exit("message"))."""
    if stop.code is None or isinstance(stop.code, int):
        return stop.code or 0
    print(stop.code, file=sys.stderr)
    return 1


def end(code: int) -> NoReturn:
    """Flush the streams and leave, never returning into the zygote's loop."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
