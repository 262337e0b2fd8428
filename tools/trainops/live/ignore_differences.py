"""Argo CD's `ignoreDifferences`: the fields of matching objects that a diff does not compare.

As argo-cd's util/argo/normalizers/diff_normalizer.go applies an Application's entries before
gitops-engine diffs: an entry matches an object when its `group` and `kind` match as globs and its
`name` and `namespace`, when set, are equal; then, on both the live and the desired object,
- each of `jsonPointers` (RFC 6901) is removed, a pointer to nothing being no error;
- each of `jqPathExpressions` is deleted (`del(<expression>)` in gojq); the path expressions a
  field is named by are supported here: `.a.b`, `."a"`, `.["a"]`, `[n]`, `[]`, the optional `?`,
  pipes, and `select(.path == <literal>)` (or `!=`); anything else is reported, not guessed;
- the fields `managedFieldsManagers` own in the live object's `managedFields` (FieldsV1) are
  removed, so what those managers set is never a difference.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase

from trainops.model.shape import mapping, mappings, strings


@dataclass(frozen=True)
class Entry:
    group: str
    kind: str
    name: str
    namespace: str
    pointers: tuple[str, ...]
    expressions: tuple[str, ...]
    managers: tuple[str, ...]

    def matches(self, doc: dict) -> bool:
        api_version = str(doc.get("apiVersion", ""))
        group = api_version.rpartition("/")[0]
        metadata = mapping(doc.get("metadata"))
        return (
            fnmatchcase(group, self.group)
            and fnmatchcase(str(doc.get("kind", "")), self.kind)
            and (not self.name or self.name == metadata.get("name"))
            and (not self.namespace or self.namespace == metadata.get("namespace"))
        )


def entries(ignore_differences: list[dict]) -> list[Entry]:
    return [
        Entry(
            str(item.get("group") or ""),
            str(item.get("kind") or ""),
            str(item.get("name") or ""),
            str(item.get("namespace") or ""),
            tuple(strings(item.get("jsonPointers"))),
            tuple(strings(item.get("jqPathExpressions"))),
            tuple(strings(item.get("managedFieldsManagers"))),
        )
        for item in ignore_differences
    ]


class Unsupported(ValueError):
    """A jq expression that is not a path expression this module can follow."""


def normalised(live: dict, desired: dict, rules: list[Entry]) -> tuple[dict, dict, list[str]]:
    """Copies of `live` and `desired` without the fields `rules` ignore, and notes on what could
    not be honoured."""
    live, desired = copy.deepcopy(live), copy.deepcopy(desired)
    notes: list[str] = []
    for rule in rules:
        if not rule.matches(desired):
            continue
        owned = [
            path
            for manager in rule.managers
            for entry in mappings(mapping(live.get("metadata")).get("managedFields"))
            if entry.get("manager") == manager
            for path in fields_v1_paths(mapping(entry.get("fieldsV1")), live)
        ]
        for doc in (live, desired):
            for pointer in rule.pointers:
                remove_pointer(doc, pointer)
            for expression in rule.expressions:
                try:
                    delete_paths(doc, list(jq_paths(doc, expression)))
                except Unsupported as why:
                    notes.append(f"ignoreDifferences jqPathExpression {expression!r}: {why}")
            delete_paths(doc, owned)
    return live, desired, list(dict.fromkeys(notes))


# --- JSON pointers --------------------------------------------------------------------------


def remove_pointer(doc: object, pointer: str) -> None:
    if not pointer.startswith("/"):
        return
    path: list = []
    for part in pointer[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        path.append(int(part) if isinstance(_at(doc, path), list) and part.isdigit() else part)
    delete_paths(doc, [tuple(path)])


def _at(doc: object, parts: list) -> object:
    node = doc
    for part in parts:
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return None
    return node


def _order(path: tuple) -> tuple:
    return tuple((0, key, "") if isinstance(key, int) else (1, 0, str(key)) for key in path)


def delete_paths(doc: object, paths: list[tuple]) -> None:
    """Remove each path (keys and list indexes): the last items of a list first, so the
    indexes of the others still hold."""
    for path in sorted(set(paths), key=_order, reverse=True):
        if not path:
            continue
        parent = _at(doc, list(path[:-1]))
        last = path[-1]
        if (
            isinstance(parent, dict)
            and last in parent
            or isinstance(parent, list)
            and isinstance(last, int)
            and 0 <= last < len(parent)
        ):
            del parent[last]


# --- jq path expressions --------------------------------------------------------------------

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<pipe>\|)
    | (?P<select>select\(\s*(?P<sel_path>(?:\.[A-Za-z_][\w-]*|\.\"[^\"]*\")+)\s*(?P<op>==|!=)\s*(?P<literal>"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)\s*\))
    | (?P<iterate>\[\]\??)
    | (?P<index>\[\s*-?\d+\s*\]\??)
    | (?P<bracket_key>\.?\[\s*"(?:[^"\\]|\\.)*"\s*\]\??)
    | (?P<quoted_key>\."(?:[^"\\]|\\.)*"\??)
    | (?P<key>\.[A-Za-z_][\w-]*\??)
    | (?P<dot>\.)
    )""",
    re.VERBOSE,
)


def _steps(expression: str) -> list[tuple[str, object]]:
    try:
        return _parsed_steps(expression)
    except ValueError as error:  # a quoted key or literal that is not valid JSON text
        if isinstance(error, Unsupported):
            raise
        raise Unsupported(f"cannot read it: {error}") from None


def _parsed_steps(expression: str) -> list[tuple[str, object]]:
    steps: list[tuple[str, object]] = []
    position = 0
    text = expression.strip()
    if re.search(r'\.\.(?=[^"]*(?:"[^"]*"[^"]*)*$)', text):
        raise Unsupported("recursive descent (..) names no fixed path; it is not supported")
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise Unsupported(
                "only path expressions (.a, [n], [], select(.a == value), |) are supported, "
                f"not {text[position:].strip()!r}"
            )
        position = match.end()
        kind = match.lastgroup
        token = match.group(kind or 0).strip().rstrip("?")
        if kind == "key":
            steps.append(("key", token[1:]))
        elif kind == "quoted_key":
            steps.append(("key", json.loads(token[1:])))
        elif kind == "bracket_key":
            steps.append(("key", json.loads(token.lstrip(".")[1:-1].strip())))
        elif kind == "index":
            steps.append(("index", int(token[1:-1])))
        elif kind == "iterate":
            steps.append(("iterate", None))
        elif kind == "select":
            path = re.findall(r'\.(?:"([^"]*)"|([A-Za-z_][\w-]*))', match.group("sel_path"))
            keys = [quoted or plain for quoted, plain in path]
            steps.append(("select", (keys, match.group("op"), json.loads(match.group("literal")))))
        # `|` and a bare `.` change nothing on a path
    return steps


def jq_paths(doc: object, expression: str) -> Iterator[tuple]:
    """The concrete paths of `doc` that the path expression names."""
    current: list[tuple[tuple, object]] = [((), doc)]
    for step, argument in _steps(expression):
        following: list[tuple[tuple, object]] = []
        for path, node in current:
            if step == "key" and isinstance(node, dict) and argument in node:
                following.append((path + (argument,), node[argument]))
            elif step == "index" and isinstance(node, list) and isinstance(argument, int):
                index = argument if argument >= 0 else len(node) + argument
                if 0 <= index < len(node):
                    following.append((path + (index,), node[index]))
            elif step == "iterate":
                if isinstance(node, list):
                    following += [(path + (i,), item) for i, item in enumerate(node)]
                elif isinstance(node, dict):
                    following += [(path + (k,), item) for k, item in node.items()]
            elif step == "select":
                assert isinstance(argument, tuple)
                keys, operator, literal = argument
                value = _at(node, keys)
                if (value == literal) == (operator == "=="):
                    following.append((path, node))
        current = following
    for path, _ in current:
        yield path


# --- managedFields (FieldsV1) -----------------------------------------------------------------


def fields_v1_paths(fields: dict, doc: object, path: tuple = ()) -> Iterator[tuple]:
    """The leaf paths of `doc` a FieldsV1 set names (structured-merge-diff's `f:` field, `k:`
    associative-list key, `v:` set value; `.` the node itself)."""
    for key, child in fields.items():
        if key == ".":
            continue
        node = _at(doc, list(path))
        target: tuple | None = None
        if key.startswith("f:") and isinstance(node, dict):
            target = path + (key[2:],) if key[2:] in node else None
        elif key.startswith("k:") and isinstance(node, list):
            wanted = _json(key[2:])
            target = next(
                (
                    path + (i,)
                    for i, item in enumerate(node)
                    if isinstance(item, dict)
                    and isinstance(wanted, dict)
                    and all(item.get(k) == v for k, v in wanted.items())
                ),
                None,
            )
        elif key.startswith("v:") and isinstance(node, list):
            value = _json(key[2:])
            target = next((path + (i,) for i, item in enumerate(node) if item == value), None)
        if target is None:
            continue
        if isinstance(child, dict) and any(k != "." for k in child):
            yield from fields_v1_paths(child, doc, target)
        else:
            yield target


_UNREADABLE = object()


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return _UNREADABLE  # matches nothing
