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

import re
import threading
from functools import lru_cache
from pathlib import Path

import yaml

from trainops.model.yaml_bounds import bounds_problem

_BRACKET = re.compile(r"\[([^\]]*)\]")
_lock = threading.Lock()
_unfiled: dict[str, str] = {}  # sources that are no file: standard input, by the name findings give


def remember(name: str, text: str) -> None:
    """Find fields in `text` for findings filed under `name` (standard input has no file)."""
    with _lock:
        _unfiled[name] = text
        _documents_of.cache_clear()


def field_line(file: str, object_line: int, path: str) -> int | None:
    """The 1-based line of `path` in the object whose document starts at `object_line` in
    `file`; None when the file or the object cannot be read there."""
    document = _documents(file).get(object_line)
    if document is None:
        return None
    found = _walk(document, _normalised(path))
    return found + 1 if found is not None else None


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


def _documents(file: str) -> dict[int, yaml.Node]:
    """The file's documents by the 1-based line of their first key."""
    with _lock:
        return _documents_of(file, _stamp(file))


def _stamp(file: str) -> tuple[int, int]:
    if file in _unfiled:
        return (-1, hash(_unfiled[file]))
    try:
        status = Path(file).stat()
    except OSError:
        return (0, 0)
    return (status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=256)  # a run's findings point into a few files, many times each
def _documents_of(file: str, stamp: tuple[int, int]) -> dict[int, yaml.Node]:
    if stamp == (0, 0):
        return {}
    try:
        text = _unfiled.get(file)
        if text is None:
            text = Path(file).read_text(encoding="utf-8").removeprefix("\ufeff")
        if bounds_problem(text) is not None:  # too deep or too aliased to compose safely
            return {}
        nodes = list(yaml.compose_all(text, Loader=yaml.CSafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return {}
    return {node.start_mark.line + 1: node for node in nodes if isinstance(node, yaml.MappingNode)}
