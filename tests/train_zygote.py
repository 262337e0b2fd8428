"""A process that has imported what the training script's ranks import (torch.distributed, numpy,
scipy, joblib) and forks a child for each run of it a workload test starts (workload/train_runs.py).

Importing torch is 2.5 s of CPU, nearly all of a small rank's, and a suite starts dozens of
ranks. A child forked here runs the script (or a module, `-m`) as the interpreter would run it, as `__main__`, in a session of its own, with its own working folder,
environment, arguments and output files, and ends as the interpreter ends (atexit handlers, then
the streams flushed). It skips only the imports; nothing has run in this process that a child
could inherit: no torch operation (its thread pools start on the first), no signal handler.

Protocol, one JSON request per line on stdin ({id, argv, cwd, env, stdout, stderr}: argv is what
follows the interpreter, the last two files the child's streams go to); replies on stdout:
"ready" once, then "pid ID PID" for each request, and "exit PID CODE" (negative: the signal) as
each child ends, in the order they end.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import locale
import os
import runpy
import select
import signal
import sys
import threading
import traceback

import joblib  # noqa: F401
import numpy  # noqa: F401
import scipy.sparse  # noqa: F401
import torch.distributed  # noqa: F401

from forked_child import end, exit_status


def _streams(request: dict) -> None:
    for fd, path, flags in (
        (0, os.devnull, os.O_RDONLY),
        (1, request["stdout"], os.O_WRONLY | os.O_APPEND),
        (2, request["stderr"], os.O_WRONLY | os.O_APPEND),
    ):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    encoding = locale.getpreferredencoding(False)
    unbuffered = bool(request["env"].get("PYTHONUNBUFFERED"))  # as the interpreter reads it
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding=encoding)
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
        encoding=encoding,
        write_through=unbuffered,
    )
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False),
        encoding=encoding,
        errors="backslashreplace",
        line_buffering=True,
        write_through=True,
    )


def _child(request: dict) -> None:
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        _streams(request)
        argv = request["argv"]
        if argv[0] == "-m":  # as `python -m MODULE …`: the working folder first on the path
            sys.argv = [argv[1], *argv[2:]]
            sys.path[0] = request["cwd"]
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:  # as `python SCRIPT …`: the script's folder first on the path
            sys.argv = list(argv)
            sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
            runpy.run_path(argv[0], run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = exit_status(stop)
    except BaseException:  # noqa: BLE001 - a child never returns into the server loop
        traceback.print_exc()
    # As the interpreter ends: threads joined, then atexit's handlers.
    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    end(code)


def serve() -> None:
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    replies = sys.stdout.buffer
    requests = sys.stdin.fileno()

    def reply(line: str) -> None:
        replies.write(line.encode() + b"\n")
        replies.flush()

    reply("ready")
    pending = b""
    while True:
        ready = select.select([requests, wake_read], [], [])[0]
        if wake_read in ready:
            os.read(wake_read, 4096)
            while True:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
                reply(f"exit {pid} {os.waitstatus_to_exitcode(status)}")
        if requests in ready:
            data = os.read(requests, 65536)
            if not data:
                return
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                request = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    os.close(wake_read)
                    os.close(wake_write)
                    _child(request)
                reply(f"pid {request['id']} {pid}")


if __name__ == "__main__":
    serve()
