"""Errors that stop a command before it can judge anything (exit code 2)."""


class CannotRun(Exception):
    """The command could not run: bad input, a missing tool, a failed render in `build`.

    The message is one line that names the file and the cause; the CLI prints it
    without a traceback and exits 2.
    """
