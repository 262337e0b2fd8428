"""Bounds on what one YAML document may cost: how deep it nests and how far its aliases expand.

Every YAML text trainops reads, and every local file kustomize will read, is held to them before
anything builds it into objects. libyaml's composer recurses once per level of nesting and
overflows the C stack at some tens of thousands of levels, a segmentation fault rather than an
error; go-yaml, Kubernetes' parser, refuses aliases that expand a document far past its size
("excessive aliasing", yaml.v3 decode.go `allowedAliasRatio`), and so do we, for a few hundred
bytes of aliases stand for billions of nodes. Nothing here recurses.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import yaml

# An anchor (`&name`). yaml-rs reads an alias inside its own anchor's value as null, where go-yaml
# refuses the document; libyaml builds the structure that contains itself, which the walk below
# reports. Anchored documents are rare in manifests, so they all go through libyaml.
_ANCHOR = re.compile(r"(?:^|[ \t\[{,])&[^ \t\r\n\[\]{},&]", re.MULTILINE)


_BEFORE_ANCHOR = frozenset(" \t[{,\n")
_NOT_AN_ANCHOR_NAME = frozenset(" \t\r\n[]{},&")


def anchored(text: str) -> bool:
    """Whether `text` holds an anchor where _ANCHOR would find one. The ampersands are visited
    with str.find: a CRD's descriptions hold hundreds of `&&`, and the pattern, which must try
    every position for its line-start branch, scanned a rendered operator ten times slower."""
    at = text.find("&")
    while at != -1:
        if (at == 0 or text[at - 1] in _BEFORE_ANCHOR) and (
            at + 1 < len(text) and text[at + 1] not in _NOT_AN_ANCHOR_NAME
        ):
            return True
        at = text.find("&", at + 1)
    return False


# Bounds on what one document may cost the rules that walk it. Aliases let a few hundred bytes
# stand for billions of nodes; like go-yaml (Kubernetes' parser), which refuses a document with
# "excessive aliasing", a document whose aliases expand it far past its parsed size is refused.
# Nesting is bounded well below Python's recursion limit; real manifests nest a few dozen deep.
MAX_DEPTH = 200
TOO_DEEP = f"the document nests more than {MAX_DEPTH} levels deep"
_ALIAS_GROWTH = 10  # expanded nodes per parsed node that aliases may add
_ALIAS_FREE_NODES = 100_000  # below this, any amount of aliasing is cheap enough


def excessive(doc: object) -> str | None:
    """Why `doc` is too deep, contains itself or expands too far through aliases, or None
    (linear in its parsed size: each node shared through an alias is sized once)."""
    if not isinstance(doc, _CONTAINERS):
        return None
    sizes: dict[int, tuple[int, int]] = {}  # id -> (expanded nodes, depth), once finished
    open_nodes: set[int] = set()  # entered, not finished: meeting one again is a cycle
    pending: list[tuple[object, str, bool]] = [(doc, "", False)]
    unique = 0
    while pending:
        node, where, finished = pending.pop()
        if finished:
            nodes, depth = 1, 1
            children = node.values() if isinstance(node, dict) else node
            for child in children:  # type: ignore[union-attr] - only containers are pushed
                if isinstance(child, _CONTAINERS):
                    size, child_depth = sizes[id(child)]
                    nodes += size
                    depth = max(depth, child_depth + 1)
                else:
                    nodes += 1
                    unique += 1
            if depth > MAX_DEPTH:
                return TOO_DEEP
            open_nodes.discard(id(node))
            sizes[id(node)] = (nodes, depth)
            unique += 1
            continue
        if id(node) in sizes:
            continue
        if id(node) in open_nodes:
            return f"a YAML alias at {where or 'the top'} refers to a node that contains it"
        open_nodes.add(id(node))
        pending.append((node, where, True))
        items = node.items() if isinstance(node, dict) else enumerate(node)  # type: ignore[arg-type]
        for key, value in items:
            if isinstance(value, _CONTAINERS):
                pending.append((value, join_path(where, key), False))
    expanded = sizes.get(id(doc), (1, 0))[0]
    if expanded > _ALIAS_FREE_NODES and expanded > _ALIAS_GROWTH * unique:
        return f"YAML aliases expand the document to {expanded} nodes: excessive aliasing"
    return None


_CONTAINERS = (dict, list)


def join_path(where: str, key: object) -> str:
    return (
        f"{where}[{key}]"
        if isinstance(key, int) and not isinstance(key, bool)
        else (f"{where}.{key}" if where else str(key))
    )


# A document cannot nest deeper than its flow brackets plus the block levels one line can open
# (its indentation and `- `, `? `, `: ` indicators): below MAX_DEPTH by that count, it is safe
# without reading it; above, its events say exactly where it crosses.
# Each such prefix (`[ \t]*(?:[-?:][ \t]+)*`) is made of the characters below, so a text none of
# whose lines starts with more than `room` of them has no prefix longer than `room` either.
_PREFIX_CHARACTERS = "[ \t?:-]"
_FIRST_PREFIX = re.compile(f"{_PREFIX_CHARACTERS}*")


@functools.cache
def _longer_prefix(room: int) -> re.Pattern[str]:
    """A line (after the first) that starts with more than `room` prefix characters; searched
    for as a literal newline first, it scans a text about as fast as str.count."""
    return re.compile(f"\n{_PREFIX_CHARACTERS}{{{room + 1}}}")


def nesting_problem(text: str) -> tuple[int, str] | None:
    """(0-based line, reason) where `text` first nests deeper than MAX_DEPTH, or None (also when
    it is not YAML: the parse that follows says why). Linear, and never builds the document."""
    if not text:
        return None
    room = MAX_DEPTH - 1 - text.count("[") - text.count("{")
    if room >= 0 and (
        _FIRST_PREFIX.match(text).end() <= room  # type: ignore[union-attr] - `*` always matches
        and not _longer_prefix(room).search(text)
    ):
        return None
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.CSafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    line = event.start_mark.line if event.start_mark else 0
                    return line, TOO_DEEP
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None
    return None


def shallow_blocks(text: str) -> bool:
    """Whether no line of `text` opens more than MAX_DEPTH block levels: then yaml-rs may read it.
    yaml-rs refuses flow nesting past 255 levels itself (an error, as a parse error is), but block
    nesting it follows until the process crashes (50,000 `- ` levels: a segmentation fault); the
    documents' own depth is checked on the values it builds."""
    return _FIRST_PREFIX.match(text).end() <= MAX_DEPTH and not _longer_prefix(  # type: ignore[union-attr]
        MAX_DEPTH
    ).search(text)


class Excessive(yaml.YAMLError):
    """A YAML text beyond the bounds; `line` is 0-based, as PyYAML's marks are."""

    def __init__(self, line: int, reason: str):
        super().__init__(reason)
        self.line = line
        self.reason = reason


# How large one document, and so any scalar in it, may be. The API server takes at most 3 MiB
# in one request (k8s.io/apiserver pkg/server/config.go, NewConfig: MaxRequestBodyBytes
# 3 * 1024 * 1024), so no object over that can be applied; the
# bound leaves room above it and keeps a parser's copies of a scalar far from a memory limit
# (a 500 MiB scalar aborted yaml-rs under 4 GB: exit 134, no report). Counted before any parser.
MAX_DOCUMENT_BYTES = 16 * 2**20
# How many documents one stream may hold: each costs its objects, and their findings, a few
# kilobytes (a million tiny documents took 1.2 GB and 88 s). Real streams hold hundreds.
MAX_DOCUMENTS = 50_000


def too_large(size: int) -> str:
    return (
        f"the document is {size / 2**20:.0f} MiB, over the {MAX_DOCUMENT_BYTES // 2**20} MiB "
        "bound: not read (the API server takes at most 3 MiB in one request)"
    )


TOO_MANY = (
    f"the stream holds more than {MAX_DOCUMENTS} documents: those from here on are not read "
    "(split it into several files)"
)


def document_starts(text: str) -> list[int]:
    """0 and where each later document starts: a line that is `---` or begins `---` and a blank
    (the expression `^---(?=[ \t\r\n]|$)`, multi-line), found with str.find in a tenth of the
    expression's time on megabytes of rendered CRDs (its `^` is tried at every position). A
    marker at column 0 starts a new document even inside a block scalar, so splitting on it is
    exact, and one bad document leaves the others readable."""
    starts = [0]
    find, end = text.find, len(text)
    at = find("\n---")
    while at != -1:
        after = at + 4
        if after == end or text[after] in " \t\r\n":
            starts.append(at + 1)
        at = find("\n---", at + 1)
    return starts


def size_problem(text: str) -> tuple[int, str] | None:
    """(0-based line, reason) where the stream crosses MAX_DOCUMENTS, or of its first document
    over MAX_DOCUMENT_BYTES, or None; linear, without a parser (documents split as
    objects.split_documents splits them: at a line starting `---`)."""
    if len(text) <= MAX_DOCUMENT_BYTES and text.count("\n---") < MAX_DOCUMENTS:
        return None
    starts = document_starts(text)
    for index, (begin, end) in enumerate(zip(starts, starts[1:] + [len(text)])):
        if index == MAX_DOCUMENTS:
            return text.count("\n", 0, begin), TOO_MANY
        if end - begin > MAX_DOCUMENT_BYTES:
            return text.count("\n", 0, begin), too_large(end - begin)
    return None


def bounds_problem(text: str) -> tuple[int, str] | None:
    """(0-based line, reason) of the first document of a stream that is too large, nests too
    deep or whose aliases expand too far, or None (also for a stream of too many documents).
    A document that is not YAML is not this function's to report."""
    sized = size_problem(text)
    if sized is not None:
        return sized
    deep = nesting_problem(text)
    if deep is not None:
        return deep
    if not anchored(text):
        return None  # no anchor, no alias: nothing can expand
    line = 0
    try:
        for document in yaml.compose_all(text, Loader=yaml.CSafeLoader):
            if document is None:
                continue
            line = document.start_mark.line if document.start_mark else 0
            reason = excessive(yaml.CSafeLoader("").construct_document(document))
            if reason is not None:
                return line, reason
    except yaml.YAMLError:
        return None
    return None


def load_bounded(text: str) -> Any:
    """The one YAML document in `text`, as libyaml reads it; raises yaml.YAMLError for what is
    not YAML and Excessive for what is too large, nests too deep or expands too far."""
    deep = size_problem(text) or nesting_problem(text)
    if deep is not None:
        raise Excessive(*deep)
    loaded = yaml.load(text, Loader=yaml.CSafeLoader)
    reason = excessive(loaded)
    if reason is not None:
        raise Excessive(0, reason)
    return loaded
