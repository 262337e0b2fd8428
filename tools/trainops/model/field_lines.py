"""The line of a field in its source file: where a finding's path points, not where its object starts.

A rendered object knows its source file and the line its document starts at (kustomize's origin
annotation, then the file itself). The field is found by composing that document (PyYAML's node
marks give each key's line) and walking the finding's path through it. Keys may hold dots
(`metadata.annotations.argocd.argoproj.io/sync-options`), so a mapping is matched by its longest
key the path continues with; `[2]` indexes a list, `[main]` picks the item of that name, or a
map's key. Where the path leaves the source (a field a patch or an operator adds), the deepest
key that is there is the line.
"""

from __future__ import annotations

import bisect
import re
import threading
from functools import lru_cache
from pathlib import Path

import yaml

from trainops.model.objects import split_documents
from trainops.model.yaml_bounds import bounds_problem

_BRACKET = re.compile(r"\[([^\]]*)\]")
_lock = threading.Lock()
_unfiled: dict[str, str] = {}  # sources that are no file: standard input, by the name findings give


def remember(name: str, text: str) -> None:
    """Find fields in `text` for findings filed under `name` (standard input has no file)."""
    with _lock:
        _unfiled[name] = text
        _chunks_of.cache_clear()
        _document_at.cache_clear()


def field_line(file: str, object_line: int, path: str) -> int | None:
    """The 1-based line of `path` in the object whose document starts at `object_line` in
    `file`; None when the file or the object cannot be read there."""
    with _lock:
        stamp = _stamp(file)
        if _on_its_line(file, stamp, object_line):
            return object_line
        found = _document_at(file, stamp, object_line)
    if found is None:
        return None
    document, offset = found
    line = _walk(document, _normalised(path))
    return line + offset + 1 if line is not None else None


def _normalised(path: str) -> str:
    if path.startswith("/"):  # a JSON pointer: /spec/containers/0/image
        parts = [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
        return "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in parts).lstrip(".")
    return path


def _walk(node: yaml.Node, path: str) -> int | None:
    """The 0-based line of the deepest key of `path` present under `node` (None if none is)."""
    line = None
    while path:
        if path.startswith("["):
            match = _BRACKET.match(path)
            if match is None:
                break
            child, key_line = _step(node, match.group(1))
            path = path[match.end() :].removeprefix(".")
        else:
            child, key_line, path = _key_step(node, path)
        if child is None:
            break
        node, line = child, key_line
    return line


def _step(node: yaml.Node, selector: str) -> tuple[yaml.Node | None, int | None]:
    if isinstance(node, yaml.SequenceNode):
        if selector.isdigit():
            index = int(selector)
            if index < len(node.value):
                item = node.value[index]
                return item, item.start_mark.line
            return None, None
        for item in node.value:  # [name]: the item of that name (a container, a port)
            if isinstance(item, yaml.MappingNode):
                for key, value in item.value:
                    if key.value == "name" and getattr(value, "value", None) == selector:
                        return item, item.start_mark.line
        return None, None
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if key.value == selector:
                return value, key.start_mark.line
    return None, None


def _key_step(node: yaml.Node, path: str) -> tuple[yaml.Node | None, int | None, str]:
    if not isinstance(node, yaml.MappingNode):
        return None, None, path
    best = None
    for key, value in node.value:
        name = key.value
        if not isinstance(name, str):
            continue
        continues = path == name or (path.startswith(name) and path[len(name)] in ".[")
        if continues and (best is None or len(name) > len(best[0].value)):
            best = (key, value)
    if best is None:
        return None, None, path
    key, value = best
    rest = path[len(key.value) :].removeprefix(".")
    return value, key.start_mark.line, rest


def _stamp(file: str) -> tuple[int, int]:
    if file in _unfiled:
        return (-1, hash(_unfiled[file]))
    try:
        status = Path(file).stat()
    except OSError:
        return (0, 0)
    return (status.st_mtime_ns, status.st_size)


# A run's findings point into a few files, many times each, and into a few objects of each: only
# the object's own document is composed (a file's whole node tree is hundreds of times its size).
@lru_cache(maxsize=8)
def _chunks_of(file: str, stamp: tuple[int, int]) -> list[tuple[int, str]]:
    if stamp == (0, 0):
        return []
    try:
        text = _unfiled.get(file)
        if text is None:
            text = Path(file).read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError):
        return []
    return split_documents(text)


class _MarksOnly(yaml.CSafeLoader):
    """libyaml's composer without PyYAML's implicit resolver (a dozen patterns tried on every
    scalar, in Python): a field is found by its keys' text and marks, never by its type."""

    def resolve(self, kind, value, implicit):
        return ""


def _chunk_at(file: str, stamp: tuple[int, int], object_line: int) -> tuple[int, str] | None:
    chunks = _chunks_of(file, stamp)
    index = bisect.bisect_right([first for first, _ in chunks], object_line) - 1
    return chunks[index] if index >= 0 else None


def _on_its_line(file: str, stamp: tuple[int, int], object_line: int) -> bool:
    """Whether the document is one mapping all on `object_line` (JSON, one object a line, as
    `jq -c` and generators write it): each of its fields is there, and composing it for each
    finding took most of the time of a run with many such findings."""
    found = _chunk_at(file, stamp, object_line)
    if found is None:
        return False
    first_line, chunk = found
    lines = [
        (first_line + number, line.strip())
        for number, line in enumerate(chunk.split("\n"))
        if line.strip() not in ("", "---", "...") and not line.lstrip().startswith("#")
    ]
    if len(lines) != 1:
        return False
    [(line, text)] = lines
    return line == object_line and text.startswith("{") and text.endswith("}")


# Findings are asked for in the order of their files and objects (check/validate.py): a few
# documents at a time are enough.
@lru_cache(maxsize=32)
def _document_at(
    file: str, stamp: tuple[int, int], object_line: int
) -> tuple[yaml.Node, int] | None:
    """The mapping node of the document whose first key is at `object_line`, and the lines
    before its text in the file; None when no document starts there."""
    found = _chunk_at(file, stamp, object_line)
    if found is None:
        return None
    first_line, chunk = found
    try:
        if bounds_problem(chunk) is not None:  # too deep or too aliased to compose safely
            return None
        nodes = list(yaml.compose_all(chunk, Loader=_MarksOnly))
    except (yaml.YAMLError, RecursionError):
        return None
    for node in nodes:
        if isinstance(node, yaml.MappingNode) and node.start_mark.line + first_line == object_line:
            return node, first_line - 1
    return None
