"""A process that has imported trainops and forks a child for each CLI run a test asks for.

Most of a short `python -m trainops …` is the interpreter importing trainops and its libraries
(a third of a second, over a hundred runs in the suite). A child forked from this process runs
the same entry point (`trainops.cli.run`: parse, run, flush, exit) in its own process, with its
own working folder, environment, standard streams and exit status, and skips only the imports.
This process runs nothing itself, so no child inherits state from an earlier run.

Protocol, one JSON request per line on stdin ({args, cwd, env, stdout, stderr, stdin}: the last
three are files the child writes its streams to and reads its input from); for each, "pid N" then
"exit CODE" on stdout. A bound on the address space is the zygote's own, set before its imports.
"""

from __future__ import annotations

import io
import json
import locale
import os
import sys
import traceback

import trainops.cli
from forked_child import end, exit_status


def _child(request: dict, replies: int) -> None:
    try:
        os.close(replies)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for fd, path, flags in (
            (0, request.get("stdin", os.devnull), os.O_RDONLY),
            (1, request["stdout"], os.O_WRONLY),
            (2, request["stderr"], os.O_WRONLY),
        ):
            opened = os.open(path, flags)
            os.dup2(opened, fd)
            os.close(opened)
        encoding = locale.getpreferredencoding(False)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding=encoding)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding=encoding)
        sys.stderr = io.TextIOWrapper(
            io.FileIO(2, "w", closefd=False),
            encoding=encoding,
            errors="backslashreplace",
            line_buffering=True,
        )
        sys.argv = [str(trainops.cli.__file__), *request["args"]]
        sys.path[0] = request["cwd"]  # as `python -m` puts the working folder first
        trainops.cli.run()  # exits
        code = 0
    except SystemExit as stop:  # argparse's usage errors, --help: as the interpreter ends them
        code = exit_status(stop)
    except BaseException:  # noqa: BLE001 - a child never returns into the server loop
        traceback.print_exc()
        code = 1
    end(code)


def serve() -> None:
    replies = os.dup(1)
    with os.fdopen(replies, "w", closefd=False) as out:
        for line in sys.stdin:
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:
                _child(request, replies)
            out.write(f"pid {pid}\n")
            out.flush()
            _, status = os.waitpid(pid, 0)
            out.write(f"exit {os.waitstatus_to_exitcode(status)}\n")
            out.flush()


if __name__ == "__main__":
    serve()
