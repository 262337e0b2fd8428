"""What a training script does that other pods can see: the files it names by its process id.

Read with Python's `ast`, never run. A name built from `os.getpid()` (in an f-string, `%` or `+`
formatting, or `str.format`) is unique only within one PID namespace: every pod has its own
(unless it shares the node's), and in each the container's entrypoint is pid 1 and its children
count up from there (only a pod that shares one namespace among its containers gives up pid 1:
https://kubernetes.io/docs/tasks/configure-pod-container/share-process-namespace/), so two pods
running the same script write the same name.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from trainops.model import bounded


@dataclass(frozen=True)
class PidName:
    line: int
    expression: str  # the source of the name-building expression


def _is_getpid(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    function = node.func
    return (isinstance(function, ast.Attribute) and function.attr == "getpid") or (
        isinstance(function, ast.Name) and function.id == "getpid"
    )


def _builds_text(node: ast.AST) -> bool:
    """An expression that makes a string out of parts: f-string, `%`, `+` or `.format()`."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add)):
        return any(
            isinstance(side, (ast.Constant, ast.JoinedStr))
            and (not isinstance(side, ast.Constant) or isinstance(side.value, str))
            for side in (node.left, node.right)
        )
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
    )


@lru_cache(maxsize=64)
def _scan(text: str) -> tuple[PidName, ...]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    found: dict[int, PidName] = {}
    for node in ast.walk(tree):
        if not _builds_text(node):
            continue
        if any(_is_getpid(inner) for inner in ast.walk(node)):
            line = getattr(node, "lineno", 0)
            outer = found.get(line)
            source = ast.get_source_segment(text, node) or "os.getpid()"
            if outer is None or len(source) > len(outer.expression):
                found[line] = PidName(line, source)
    return tuple(found[line] for line in sorted(found))


# A training script is kilobytes; `ast` holds some hundred bytes per byte of source.
MAX_SCRIPT_BYTES = 4 * 2**20


class UnreadableScript(Exception):
    """The script is missing, no regular file (a FIFO would block, /dev/zero never ends), too
    large or not UTF-8; the message is one short clause."""


def pid_named_files(path: Path) -> tuple[PidName, ...]:
    """Where the script builds a name from its process id; raises UnreadableScript."""
    try:
        text = bounded.read_regular(path, MAX_SCRIPT_BYTES).decode("utf-8")
    except FileNotFoundError:
        return ()  # an image whose script is not in the repository: nothing to read
    except OSError as error:
        raise UnreadableScript(error.strerror or str(error)) from None
    except UnicodeDecodeError as error:
        raise UnreadableScript(f"not UTF-8 text (byte {error.start})") from None
    return _scan(text)
