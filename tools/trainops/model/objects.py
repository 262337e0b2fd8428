"""Kubernetes objects parsed from YAML, each with the file and line it came from."""

from __future__ import annotations

import dataclasses
import functools
import json
import marshal
import math
import os
import re
import struct
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import yaml
import yaml_rs

from trainops.model import bounded, cache, repository
from trainops.model.paths import display
from trainops.model.yaml_bounds import (
    MAX_DEPTH,
    MAX_DOCUMENT_BYTES,
    MAX_DOCUMENTS,
    TOO_DEEP,
    TOO_MANY,
    anchored,
    document_starts,
    excessive,
    join_path,
    nesting_problem,
    shallow_blocks,
    too_large,
)

T = TypeVar("T")


@dataclass(frozen=True)
class ObjectRef:
    api_version: str
    kind: str
    namespace: str | None
    name: str

    def __str__(self) -> str:
        scope = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{scope}{self.name}"


@dataclass
class K8sObject:
    doc: dict
    file: str
    line: int | None
    # Whether a value in it is null; None until asked (the parser knows: its walk sees each value).
    nulls: bool | None = None
    # "<digest of the text it was parsed from>:<its index there>": the same source, the same
    # object, for results kept across runs (None for an object not parsed from a text large
    # enough to keep its parse).
    source: str | None = None

    @property
    def has_null(self) -> bool:
        if self.nulls is None:
            self.nulls = _holds_null(self.doc)
        return self.nulls

    # Read once an object: the rules ask them of every object, millions of times in a run of tens
    # of thousands. What an object is never changes once it is parsed (read_as_server replaces
    # its doc with the same apiVersion and kind).
    @functools.cached_property
    def api_version(self) -> str:
        return self.doc["apiVersion"]

    @functools.cached_property
    def kind(self) -> str:
        return self.doc["kind"]

    @functools.cached_property
    def group(self) -> str:
        return _group_of(self.doc["apiVersion"])

    @property
    def name(self) -> str:
        """The name, or `generateName` for objects the API server names on create."""
        metadata = self.doc["metadata"]
        return metadata.get("name") or metadata.get("generateName") or ""

    @property
    def has_fixed_name(self) -> bool:
        name = self.doc["metadata"].get("name")
        return isinstance(name, str) and bool(name)

    @property
    def namespace(self) -> str | None:
        return self.doc["metadata"].get("namespace")

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef(self.api_version, self.kind, self.namespace, self.name)

    def memo(self, key: str, compute: Callable[[K8sObject], T]) -> T:
        """compute(self), once per object: for what several rules derive from the same object."""
        found = self.__dict__.setdefault("_memo", {})
        if key not in found:
            found[key] = compute(self)
        return found[key]


@functools.lru_cache(maxsize=1024)
def _group_of(api_version: str) -> str:
    # Asked tens of thousands of times a run, of a few dozen apiVersions.
    return api_version.rpartition("/")[0]


@dataclass(frozen=True)
class Problem:
    """A document that could not become an object: bad YAML, or not a Kubernetes object."""

    file: str
    line: int | None
    message: str
    # A malformed document kustomize rendered: its origin annotation, to find its source file.
    origin: dict | None = dataclasses.field(default=None, compare=False)


@dataclass
class Parsed:
    objects: list[K8sObject]
    syntax_errors: list[Problem]
    malformed: list[Problem]


def split_documents(text: str) -> list[tuple[int, str]]:
    """(first line, text) of each YAML document in a stream."""
    starts = document_starts(text)
    chunks, line, previous = [], 1, 0
    for begin, end in zip(starts, starts[1:] + [len(text)]):
        line += text.count("\n", previous, begin)
        previous = begin
        chunks.append((line, text[begin:end]))
    return chunks


# Plain scalars Kubernetes' go-yaml v2 may read differently from YAML 1.2 (yaml-rs): y/yes/on
# booleans, 0-prefixed octals (defaultMode: 0644), binary, underscores in numbers, timestamps and
# merge keys (and, to be safe, 1:20 and 1e3, which both read alike). A document holding any, as a
# whole key or value, goes through libyaml with go-yaml's scalar rules (_KubernetesLoader).
# Possessive quantifiers keep the scan linear.
_TOKEN = (
    r"(?:[yYnN]|[yY]es|YES|[nN]o|NO|[oO]n|ON|[oO]ff|OFF"
    r"|[-+]?0[0-7_]++|0o[0-7]++|[-+]?0b[01_]++|[-+]?[0-9][0-9_]*+(?::[0-5]?[0-9])++(?:\.[0-9_]*+)?"
    r"|[-+]?[0-9][0-9_]*+(?:\.[0-9_]*+)?[eE][-+]?[0-9]++|[-+]?[0-9]++_[0-9_]*+"
    # Timestamps: yaml-rs makes dates of them, but Kubernetes keeps the text (_KubernetesLoader);
    # yaml-rs's date would lose "10:00:00" to isoformat's "T".
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]++)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*+)?"
    r"(?:[ \t]*+(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?)"
)
_SCALAR_END = r"(?=[ \t]*(?:\n|#|[,}\]]))"
_CAN_DIVERGE = (
    r"(?=[yYnNoO0-9+-])"  # what such a token can start with: most scalars are ruled out at once
)
# Each branch starts with a literal character, so the regex engine skips to those characters
# instead of trying every branch at every position (twice as fast on large streams).
_DIVERGING_VALUE = _CAN_DIVERGE + _TOKEN + _SCALAR_END
_YAML11_ONLY = re.compile(
    r"\n[ \t]*+(?:-[ \t]++)*+"
    + _CAN_DIVERGE
    + _TOKEN
    + r"[ \t]*+:(?=[ \t\n])"  # a key
    + r"|:[ \t]++"
    + _DIVERGING_VALUE  # a block value
    + r"|-[ \t]++"
    + _DIVERGING_VALUE  # a sequence item
    + r"|\[[ \t]*+"
    + _DIVERGING_VALUE  # a flow item or value
    + r"|\{[ \t]*+"
    + _DIVERGING_VALUE
    + r"|,[ \t]*+"
    + _DIVERGING_VALUE
    + r"|<<[ \t]*+:"  # a merge key
)


# How Kubernetes reads a plain (unquoted) scalar: sigs.k8s.io/yaml's fork of go-yaml v2,
# goyaml.v2/resolve.go `resolve`. Booleans include y/Y/n/N; there are no base-60 numbers (1:20
# stays text); an int is anything strconv.ParseInt(text without "_", 0, 64) takes (0644 is
# octal, 0o17, 0x1F, 0b101); a float is `yamlStyleFloat` (1e3 needs no dot) or starts with ".";
# a timestamp stays its text when decoded into an interface (go-yaml v2 decode.go, kept for
# backward compatibility), which is what the YAML-to-JSON conversion decodes into.
_GO_YAML_WORDS: dict[str, object] = {
    **dict.fromkeys(
        ["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"], True
    ),
    **dict.fromkeys(
        ["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"], False
    ),
    **dict.fromkeys(["", "~", "null", "Null", "NULL"], None),
    **dict.fromkeys([".nan", ".NaN", ".NAN"], math.nan),
    **dict.fromkeys([".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"], math.inf),
    **dict.fromkeys(["-.inf", "-.Inf", "-.INF"], -math.inf),
}
_GO_INT = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)")
_GO_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_GO_DOT_FLOAT = re.compile(r"\.[0-9]+(?:[eE][-+]?[0-9]+)?")
_TEXT = object()  # a scalar go-yaml keeps as a string


def _go_yaml_scalar(text: str) -> object:
    """The value go-yaml v2 gives a plain scalar (_TEXT when it stays a string)."""
    if text in _GO_YAML_WORDS:
        return _GO_YAML_WORDS[text]
    if text.startswith("."):
        return float(text) if _GO_DOT_FLOAT.fullmatch(text) else _TEXT
    if not text or text[0] not in "+-0123456789":
        return _TEXT
    plain = text.replace("_", "")
    if _GO_INT.fullmatch(plain):
        sign = -1 if plain.startswith("-") else 1
        digits = plain.lstrip("+-")
        if len(digits) > 1 and digits[0] == "0" and digits[1] in "0123456789oO":
            return sign * int(digits.lstrip("0oO") or "0", 8)
        return sign * int(digits, 0)
    if _GO_FLOAT.fullmatch(plain):
        return float(plain)
    return _TEXT


class _KubernetesLoader(yaml.CSafeLoader):
    """libyaml's parser with go-yaml v2's reading of plain scalars (see _go_yaml_scalar)."""

    def resolve(self, kind, value, implicit):  # type: ignore[override]
        if kind is yaml.ScalarNode and implicit[0]:
            if value == "<<":
                return "tag:yaml.org,2002:merge"
            return _GO_TAG if _go_yaml_scalar(value) is not _TEXT else "tag:yaml.org,2002:str"
        return super().resolve(kind, value, implicit)


_GO_TAG = "tag:trainops,2026:go-yaml-scalar"
_KubernetesLoader.add_constructor(_GO_TAG, lambda loader, node: _go_yaml_scalar(str(node.value)))


def _load_document(chunk: str) -> list:
    """The document(s) in one chunk, read as libyaml would, as fast as yaml-rs can. A mapping
    key given twice is a syntax error, as go-yaml, behind kubectl and kustomize, makes it
    ("mapping key ... already defined"); libyaml keeps the last, and yaml-rs refuses it."""
    has_anchor = anchored(chunk)
    refused = ""
    if not has_anchor:  # yaml-rs would expand aliases into copies: anchored text skips it
        try:
            loaded = yaml_rs.loads(chunk, parse_datetime=False)
        except Exception as error:  # noqa: BLE001 - any refusal: libyaml decides, and says where
            refused = str(error)
        else:
            if not _YAML11_ONLY.search(f"\n{chunk}\n"):
                return [loaded]
    documents = list(yaml.load_all(chunk, Loader=_KubernetesLoader))
    # Keys are compared node by node only where yaml-rs found a duplicate or could not look.
    if has_anchor or refused.startswith(_DUPLICATE_KEY):
        duplicate = duplicate_key(chunk)
        if duplicate is not None:
            raise yaml.MarkedYAMLError(problem=duplicate[1], problem_mark=duplicate[2])
    return documents


_DUPLICATE_KEY = "duplicate mapping key"  # how yaml-rs begins its refusal of one


def duplicate_key_in(text: str) -> tuple[int, str, yaml.Mark] | None:
    """duplicate_key(), asking yaml-rs first (fast, and it refuses a duplicate) where the text
    has no anchor for it to expand."""
    if not anchored(text):
        try:
            yaml_rs.loads(text, parse_datetime=False)
        except Exception as error:  # noqa: BLE001 - a refusal of any kind
            if not str(error).startswith(_DUPLICATE_KEY):
                return None
        else:
            return None
    return duplicate_key(text)


def duplicate_key(text: str) -> tuple[int, str, yaml.Mark] | None:
    """(0-based line, message, mark) of the first mapping key `text` gives twice, or None (also
    when it is not YAML). Scalar keys compare by their text (go-yaml compares decoded values, so
    `1` and `"1"` differ there: rare enough in a manifest to read alike here)."""
    try:
        documents = list(yaml.compose_all(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        return None
    pending: list[yaml.Node] = [d for d in documents if d is not None]
    seen_nodes: set[int] = set()
    while pending:
        node = pending.pop()
        if id(node) in seen_nodes:
            continue  # an alias: the same node again
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            first: dict[str, int] = {}
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                    line = key.start_mark.line
                    if key.value in first:
                        message = (
                            f'mapping key "{key.value}" already defined at line '
                            f"{first[key.value] + 1}"
                        )
                        return line, message, key.start_mark
                    first[key.value] = line
                pending.append(value)
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
    return None


def document_problem(
    doc: object, anchored: bool = True, nulls: list[bool] | None = None
) -> str | None:
    """excessive(), or where `doc` holds a value JSON has no type for (binary, a set); keys that
    are not strings become the strings Kubernetes makes of them, in place.

    `anchored=False` says the text has no anchor: without one there is no alias, so no node is
    shared and none contains itself, and one walk of a plain tree does it all. An anchored
    document is first bounded by excessive(), so the tree walk after it visits a bounded number
    of nodes, shared ones included. `nulls` gets an item when a value is null."""
    if not isinstance(doc, _CONTAINERS):
        return None  # a scalar document: nothing to walk (what it should be is said elsewhere)
    return (excessive(doc) if anchored else None) or _walk_tree(doc, [] if nulls is None else nulls)


_JSON_SCALARS = (str, int, float, bool, type(None))
_CONTAINERS = (dict, list)


def _key_text(key: int | float | bool) -> str:
    """A mapping key as Kubernetes' YAML-to-JSON conversion writes it (sigs.k8s.io/yaml,
    convertToJSONableObject): an int in decimal, a bool as true/false, a float as Go's
    strconv.FormatFloat(key, 'g', -1, 32) with .inf, -.inf and .nan spelled as YAML does."""
    if isinstance(key, bool):  # before int: True == 1, and would be spelled "1"
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    if math.isnan(key):
        return ".nan"
    if math.isinf(key):
        return ".inf" if key > 0 else "-.inf"
    return _go_shortest_float32(key)


def _go_shortest_float32(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32): the fewest digits that read back as the same
    float32, in exponent form when the exponent is below -4 or at least 6 (strconv/ftoa.go,
    formatDigits: "if precision was the shortest possible, use precision 6")."""
    single = struct.unpack("f", struct.pack("f", value))[0]
    if math.isinf(single):  # beyond float32: Go's conversion makes an infinity, printed so
        return "+Inf" if single > 0 else "-Inf"
    text = f"{single:.8e}"  # nine digits always read back as the same float32
    for digits in range(1, 9):
        shorter = f"{single:.{digits - 1}e}"
        if struct.unpack("f", struct.pack("f", float(shorter)))[0] == single:
            text = shorter
            break
    mantissa, _, exponent_text = text.partition("e")
    exponent = int(exponent_text)
    significant = mantissa.replace("-", "").replace(".", "").rstrip("0") or "0"
    if exponent < -4 or exponent >= 6:
        sign = "-" if single < 0 else ""
        fraction = f".{significant[1:]}" if len(significant) > 1 else ""
        return f"{sign}{significant[0]}{fraction}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    return f"{single:.{max(len(significant) - exponent - 1, 0)}f}"


def _stringify_keys(node: dict) -> str | None:
    """Make the mapping's number and boolean keys the strings Kubernetes makes of them, in
    place; what a key Kubernetes refuses is (null, or no scalar at all), else None."""
    for key in [k for k in node if type(k) is not str]:
        if key is None:
            return "null, which Kubernetes cannot use as a key"
        if not isinstance(key, int | float):
            return f"a YAML {type(key).__name__}"
        node[_key_text(key)] = node.pop(key)
    return None


_JSON_TYPES = frozenset(_JSON_SCALARS)


def _walk_tree(doc: object, nulls: list[bool]) -> str | None:
    """document_problem() of a document in which no node is shared. Appends to `nulls` when a
    value is null (the API server reads it as Go's zero value: knowledge.decoding).

    Every mapping is rebuilt with shared keys: one string object per distinct key, as json.loads
    shares them, where the parser makes one per occurrence (a third of a large corpus's memory).
    The top mapping is refilled in place; the others replace themselves in their parent."""
    try:
        if _walk_plain(doc) and not nulls:
            nulls.append(True)
        return None
    except _NotPlain:
        return _walk_exact(doc, nulls)


class _NotPlain(Exception):
    """A document _walk_plain leaves to _walk_exact, which says where and what."""


class _Keys(dict):
    """Every key string met so far, by itself; a key that is no string is _NotPlain. Looking up
    a key seen before stays in C (a third of the walk's time, where a loop asked each key's type)."""

    def __missing__(self, key: object) -> str:
        if type(key) is not str:
            raise _NotPlain
        return self.setdefault(key, key)  # one atomic step: threads may share it


_KEYS = _Keys()


def _walk_plain(doc: object) -> bool:
    """The walk of a document whose every key is a string, every value JSON's and whose depth is
    in bounds (any real manifest): shares its keys and says whether it holds a null, and raises
    _NotPlain at anything else (the mappings rebuilt so far are equal to what they were)."""
    keys = _KEYS
    scalars = _JSON_TYPES
    holds_null = False
    if type(doc) is dict:
        shared = {keys[key]: value for key, value in doc.items()}
        doc.clear()
        doc.update(shared)
    pending: list[tuple[object, int]] = [(doc, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise _NotPlain
        items = node.items() if type(node) is dict else enumerate(node)  # type: ignore[arg-type]
        for key, value in items:
            kind = type(value)
            if kind is dict:
                node[key] = value = {keys[k]: v for k, v in value.items()}  # type: ignore[index]
                pending.append((value, depth + 1))
            elif kind is list:
                pending.append((value, depth + 1))
            elif value is None:
                holds_null = True
            elif kind not in scalars:
                raise _NotPlain
    return holds_null


def _walk_exact(doc: object, nulls: list[bool]) -> str | None:
    """_walk_tree() of any document, spelling out where it goes wrong. Paths are kept as
    (parent, key) links and spelled out only for the message."""
    if isinstance(doc, dict):
        wrong_key = _stringify_keys(doc)
        if wrong_key:
            return f"a key at the top is {wrong_key}"
        shared = _with_shared_keys(doc)
        doc.clear()
        doc.update(shared)
    pending: list[tuple[object, tuple | None, int]] = [(doc, None, 1)]
    while pending:
        node, link, depth = pending.pop()
        if depth > MAX_DEPTH:
            return TOO_DEEP
        items = node.items() if type(node) is dict else enumerate(node)  # type: ignore[arg-type]
        for key, value in items:
            kind = type(value)
            if kind is dict:
                wrong_key = _stringify_keys(value)
                if wrong_key:
                    return f"a key at {_spelled((link, key))} is {wrong_key}"
                value = node[key] = _with_shared_keys(value)  # type: ignore[index]
                pending.append((value, (link, key), depth + 1))
            elif kind is list:
                pending.append((value, (link, key), depth + 1))
            elif value is None:
                if not nulls:
                    nulls.append(True)
            elif kind not in _JSON_TYPES and not isinstance(value, _JSON_SCALARS):
                return (
                    f"the value at {_spelled((link, key))} is a YAML {kind.__name__}, "
                    "which JSON has no type for"
                )
    return None


def _with_shared_keys(node: dict) -> dict:
    keys = _KEYS
    return {keys.setdefault(key, key): value for key, value in node.items()}


def _holds_null(doc: object) -> bool:
    pending = [doc]
    while pending:
        node = pending.pop()
        values = node.values() if isinstance(node, dict) else node
        for value in values:  # type: ignore[union-attr] - only containers are pushed
            if value is None:
                return True
            if isinstance(value, dict | list):
                pending.append(value)
    return False


def _spelled(link: tuple | None) -> str:
    keys = []
    while link is not None:
        link, key = link
        keys.append(key)
    where = ""
    for key in reversed(keys):
        where = join_path(where, key)
    return where


def type_name(value: object) -> str:
    """How a YAML reader would name the type of `value`: a number, a list, a mapping…"""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return {dict: "a mapping", list: "a list", type(None): "null"}.get(type(value), "a string")


def _metadata_reason(metadata: dict) -> str | None:
    """What is wrong with the ObjectMeta every kind shares, that every rule reads."""
    for field in ("name", "generateName", "namespace"):
        if field in metadata and not isinstance(metadata[field], str | None):
            return f"metadata.{field} is {type_name(metadata[field])}, not a string"
    for field in ("labels", "annotations"):
        values = metadata.get(field)
        if values is None:
            continue
        if not isinstance(values, dict):
            return f"metadata.{field} is {type_name(values)}, not a mapping of strings"
        for key, value in values.items():
            if value is None:  # the API server reads a null map value as "" (Go's zero value)
                values[key] = ""
        wrong = next((k for k, v in values.items() if not isinstance(v, str)), None)
        if wrong is not None:
            return f"metadata.{field}.{wrong} is {type_name(values[wrong])}, not a string: quote it"
    return None


def _malformed_reason(doc: object, anchored: bool, nulls: list[bool]) -> str | None:
    return document_problem(doc, anchored, nulls) or _object_reason(doc)


def _object_reason(doc: object) -> str | None:
    """What keeps a well-formed JSON value from being an object the rules can read."""
    if not isinstance(doc, dict):
        kind = (
            type_name(doc)
            if isinstance(doc, (*_JSON_SCALARS, list))
            else f"a YAML {type(doc).__name__}"
        )
        return f"document is {kind}, not a mapping: a Kubernetes object is a mapping"
    missing = [field for field in ("apiVersion", "kind") if not isinstance(doc.get(field), str)]
    metadata = doc.get("metadata")
    # An empty name is no name: the API server asks for name or generateName when the name's
    # length is 0 (k8s.io/apimachinery pkg/api/validation/objectmeta.go,
    # ValidateObjectMetaAccessor; the recorded case meta-02-no-name).
    named = isinstance(metadata, dict) and bool(
        (isinstance(metadata.get("name"), str) and metadata["name"]) or metadata.get("generateName")
    )
    if not named:
        missing.append("metadata.name")
    if missing:
        return f"object has no {', '.join(missing)}"
    return _metadata_reason(metadata)  # type: ignore[arg-type]


def reads_alike_in_yaml_1_1(text: str) -> bool:
    """No scalar of `text` may read differently by Kubernetes' YAML 1.1 rules than by YAML 1.2's,
    and no anchor: yaml-rs' values of it are the ones Kubernetes reads."""
    return not (_YAML11_ONLY.search(f"\n{text}\n") or anchored(text))


def _fast_whole(text: str, chunks: list[tuple[int, str]]) -> list[list] | None:
    """Each chunk's documents from one yaml-rs call over the whole stream, when that is safe."""
    if _YAML11_ONLY.search(f"\n{text}\n") or anchored(text) or not shallow_blocks(text):
        return None
    try:
        loaded = yaml_rs.loads(text, parse_datetime=False)
    except Exception:  # noqa: BLE001 - let the per-document path find and place the error
        return None
    if len(chunks) == 1:
        return [[loaded]]
    if isinstance(loaded, list) and len(loaded) == len(chunks):
        return [[doc] for doc in loaded]
    return None  # documents and chunks do not line up (a leading comment, say): go one by one


# A stream this large is parsed once and kept in the cache, by its content, in marshal's format:
# it writes 28 MB of parsed manifests in a twentieth of a second and reads them back faster than
# YAML parses, keeping the parser's interned keys shared (one string per distinct key, not one per
# occurrence). Its format is the interpreter's, hence the version in the key; the entry's hash is
# verified before marshal reads it (trainops/model/cache.py), so it reads only what this parser wrote.
PARSED_FOLDER = "parsed-v3"
CACHED_FROM = 32 * 1024
_PARSER = cache.source_digest(__file__)  # this module is the parser
_FORMAT = f"marshal {marshal.version} {sys.version}"


def parse_stream(text: str, file: str, *, lines: bool = True) -> Parsed:
    """Parse a multi-document YAML stream; `lines=False` skips line bookkeeping (rendered output)."""
    if len(text) < CACHED_FROM:
        # Small: parsed again each run, and its objects' results computed again too (an entry
        # per small file would cost more to keep than it saves).
        return _parse_stream(text, file, lines)
    if not lines:
        chunks = split_documents(text)
        if any(len(chunk) >= CACHED_FROM for _, chunk in chunks):
            return _parse_in_pieces(chunks, file)
    return _kept(text, file, lines)


def _kept(text: str, file: str, lines: bool) -> Parsed:
    [parsed] = kept_unit([text], [file], unit_key([text], lines), lines)
    return parsed


def unit_key(texts: list[str], lines: bool = True) -> str:
    """The cache key of the parse of `texts` together (one large file, or a group of small ones,
    or a rendered document when `lines` is False)."""
    return cache.key_of(PARSED_FOLDER, _PARSER, _FORMAT, "files" if lines else "rendered", *texts)


# Units this run has read, by key, while its renders last: an operator layer's CRDs are in the renders
# of five roots (an edit renders three of them again), each restoring them anew, a tenth of a
# second a run. A unit read again gives objects of its own that share the first's documents.
# Only documents the run leaves as they are go here: nothing is taken from one (take_origin has
# nothing to take or remove); what the run does to others (decoding's defaults) it does alike to
# each, whoever reads them first.
_units: dict[tuple[str, str], list[tuple[list, list, list]]] = {}  # by cache folder and key
_units_lock = threading.Lock()


def kept_unit(texts: list[str], files: list[str], key: str, lines: bool = True) -> list[Parsed]:
    """The parses of `texts` (named `files`), read back from the cache under `key` or parsed
    and kept there. Their objects are stamped with the key (K8sObject.source)."""
    unit = (str(cache.cache_root()), key)
    with _units_lock:
        known = _units.get(unit)
    if known is not None and len(known) == len(files):
        rebuilt = _rebuilt(known, files)
        return [_stamped(one, key, first) for one, first in zip(rebuilt, _firsts(rebuilt))]
    parsed = restore_unit(cache.load(PARSED_FOLDER, key), files, key)
    if parsed is None:
        parsed, _ = parse_unit(texts, files, key, lines)
    if all(_left_alone(obj.doc) for one in parsed for obj in one.objects):
        kept = [
            (
                [(obj.doc, obj.line, obj.nulls) for obj in one.objects],
                [(p.line, p.message) for p in one.syntax_errors],
                [(p.line, p.message) for p in one.malformed],
            )
            for one in parsed
        ]
        with _units_lock:
            _units[unit] = kept
    return parsed


def _rebuilt(kept: list[tuple[list, list, list]], files: list[str]) -> list[Parsed]:
    return [
        Parsed(
            [K8sObject(doc, file, line, nulls) for doc, line, nulls in kept_objects],
            [Problem(file, line, message) for line, message in kept_syntax_errors],
            [Problem(file, line, message) for line, message in kept_malformed],
        )
        for file, (kept_objects, kept_syntax_errors, kept_malformed) in zip(files, kept)
    ]


def parse_unit(
    texts: list[str], files: list[str], key: str, lines: bool = True
) -> tuple[list[Parsed], bytes]:
    """Parse `texts` and keep the result under `key`; the parses, and the entry's payload."""
    parsed = [_parse_stream(text, file, lines) for text, file in zip(texts, files)]
    payload = _to_payload(parsed)
    cache.store(PARSED_FOLDER, key, payload)
    return [_stamped(one, key, first) for one, first in zip(parsed, _firsts(parsed))], payload


def restore_unit(payload: bytes | None, files: list[str], key: str) -> list[Parsed] | None:
    """The parses a payload of parse_unit() holds, named `files`, or None when there is none
    or it is not what parse_unit writes."""
    if payload is None:
        return None
    parsed = _from_payload(payload, files)
    if parsed is None:
        return None
    return [_stamped(one, key, first) for one, first in zip(parsed, _firsts(parsed))]


def _firsts(parsed: list[Parsed]) -> list[int]:
    """The index of each parse's first object among the unit's."""
    firsts, count = [], 0
    for one in parsed:
        firsts.append(count)
        count += len(one.objects)
    return firsts


def _stamped(parsed: Parsed, key: str, first: int = 0) -> Parsed:
    for index, obj in enumerate(parsed.objects, first):
        obj.source = f"{key[:32]}:{index}"
    return parsed


def _parse_in_pieces(chunks: list[tuple[int, str]], file: str) -> Parsed:
    """A rendered stream, each large document kept by its own content: the CRDs of an operator's
    remote base print alike in every root that includes it, so a root rendered again after an
    edit (or another environment's) parses only the documents between them."""
    parsed = Parsed([], [], [])
    small: list[tuple[int, str]] = []

    def absorb(piece: Parsed, first_line: int) -> None:
        parsed.objects.extend(piece.objects)
        for problems, into in (
            (piece.syntax_errors, parsed.syntax_errors),
            (piece.malformed, parsed.malformed),
        ):
            into.extend(
                dataclasses.replace(p, line=None if p.line is None else p.line + first_line - 1)
                for p in problems
            )

    def flush() -> None:
        if small:
            text = "".join(chunk for _, chunk in small)
            absorb(parse_stream(text, file, lines=False), small[0][0])
            small.clear()

    for first_line, chunk in chunks:
        if len(chunk) < CACHED_FROM:
            small.append((first_line, chunk))
            continue
        flush()
        piece = _kept(chunk, file, False)
        if _ORIGIN_HINT in chunk:
            _keep_without_origin(chunk, piece)
        absorb(piece, first_line)
    flush()
    return parsed


# A build with origin annotations (the first of a root with remote bases) prints each object as
# the next build without them does, but for its origin entry: the first edit after a cold run
# read every CRD of the operators' layers as new text and parsed it again (a third of a second).
# So a large document printed with its origin is also kept as it reads without: the parse with
# the entry taken out, under the key of the text with its lines taken out, where those lines are
# exactly the entry: a literal block at the annotations' indent, whose value the parse holds,
# ending where a line is indented no deeper than its key. That is how kustomize prints it (its
# buildMetadata documentation, originAnnotations); stripped so, an annotated build of
# overlays/cloud/operators reads as the plain build, all 124 documents. Anything else is left.
_ORIGIN_HINT = "\n    config.kubernetes.io/origin: |\n"
_ORIGIN_ENTRY = re.compile(
    r"^(?P<parent>  annotations:\n)?    config\.kubernetes\.io/origin: \|\n"
    r"(?P<block>(?:      [^ \n][^\n]*\n)+)(?=(?P<next> {0,4}[^ \n]|\Z))",
    re.MULTILINE,
)


_ENTRY_LINE = _ORIGIN_HINT[1:]
_PARENT_LINE = "  annotations:\n"


def _origin_entries(chunk: str) -> list[re.Match[str]]:
    """_ORIGIN_ENTRY's matches in `chunk`, as finditer() finds them, tried only where an entry's
    first line is: finditer() tries every offset of a CRD's hundreds of kilobytes (a `^` of a
    multiline expression is not searched for), 9 ms a document, 0.2 s of a run restoring builds
    with origins (tests/test_objects.py compares the two)."""
    found: list[re.Match[str]] = []
    end = 0
    for at in _entry_lines(chunk):
        parent = at - len(_PARENT_LINE)
        after_parent = (
            parent >= end
            and chunk.startswith(_PARENT_LINE, parent)
            and (parent == 0 or chunk[parent - 1] == "\n")
        )
        start = parent if after_parent else at
        match = _ORIGIN_ENTRY.match(chunk, start) if start >= end else None
        if match is not None:
            found.append(match)
            end = match.end()
    return found


def _entry_lines(chunk: str) -> Iterator[int]:
    """Where each line that reads as an origin entry's first starts."""
    if chunk.startswith(_ENTRY_LINE):
        yield 0
    at = chunk.find(_ORIGIN_HINT)
    while at >= 0:
        yield at + 1
        at = chunk.find(_ORIGIN_HINT, at + 1)


def _keep_without_origin(chunk: str, parsed: Parsed) -> None:
    """Keep the parse of `chunk` (a document printed with an origin annotation, `parsed` from
    it, before any origin was taken) under the text the same build prints without it; nothing
    when that is not sure."""
    entries = _origin_entries(chunk)
    if len(entries) != 1 or parsed.syntax_errors or parsed.malformed or len(parsed.objects) != 1:
        return
    entry = entries[0]
    last = entry.group("parent") is not None and not entry.group("next").startswith("    ")
    without = chunk[: entry.start()] + ("" if last else entry.group("parent") or "")
    key = unit_key([without + chunk[entry.end() :]], False)
    if cache.entry_path(PARSED_FOLDER, key).exists():
        return
    [obj] = parsed.objects
    metadata = obj.doc.get("metadata")
    if not isinstance(metadata, dict) or not isinstance(metadata.get("annotations"), dict):
        return
    annotations = metadata["annotations"]
    block = "".join(text[6:] for text in entry.group("block").splitlines(keepends=True))
    if annotations.get(ORIGIN_ANNOTATION) != block:
        return
    left = {name: value for name, value in annotations.items() if name != ORIGIN_ANNOTATION}
    if bool(left) == last:
        return  # the text and the parse would not agree on the annotations left
    # Copies along the path to the entry, in the parse's key order; the rest is shared, and
    # written out at once.
    kept_metadata = {
        name: left if name == "annotations" else value
        for name, value in metadata.items()
        if name != "annotations" or left
    }
    doc = {name: kept_metadata if name == "metadata" else value for name, value in obj.doc.items()}
    cache.store(PARSED_FOLDER, key, marshal.dumps([([(doc, obj.line, obj.has_null)], [], [])]))


def _to_payload(parsed: list[Parsed]) -> bytes:
    return marshal.dumps(
        [
            (
                [(obj.doc, obj.line, obj.has_null) for obj in one.objects],
                [(p.line, p.message) for p in one.syntax_errors],
                [(p.line, p.message) for p in one.malformed],
            )
            for one in parsed
        ]
    )


def _from_payload(payload: bytes, files: list[str]) -> list[Parsed] | None:
    try:
        kept = cache.unmarshal(payload)
        if not isinstance(kept, list) or len(kept) != len(files):
            return None
        parsed = _rebuilt(kept, files)
    except (ValueError, EOFError, TypeError):
        return None
    # Every object passed the parse's walk before it was kept; what is checked again here (the
    # object's own shape, cheap) catches an entry of another shape under a colliding key.
    for one in parsed:
        if any(
            _object_reason(obj.doc) or not _is_line(obj.line) or not isinstance(obj.nulls, bool)
            for obj in one.objects
        ) or not all(
            _is_line(p.line) and isinstance(p.message, str)
            for p in one.syntax_errors + one.malformed
        ):
            return None  # not what this parser writes: parse again
    return parsed


def _is_line(line: object) -> bool:
    return line is None or (isinstance(line, int) and not isinstance(line, bool))


def _parse_stream(text: str, file: str, lines: bool) -> Parsed:
    if not lines:
        reduced = _json_lines_out(text)
        if reduced is not None:
            parsed = _parse_text(reduced[0], file, lines, reduced[1])
            if parsed is not None:
                return parsed
    parsed = _parse_text(text, file, lines)
    assert parsed is not None
    return parsed


# A rendered root holds each CRD's versions as one line of JSON (crd_stubs splices them in: the
# megabytes of a render), which YAML 1.2 reads as JSON does, at a tenth of the speed. Such a line,
# `<indent><key>: <JSON array or object>`, is read with json, where json and YAML are sure to read
# it alike: no key given twice (YAML refuses it), none over YAML's 1,024 characters for an
# implicit key, no NaN or Infinity (json's, YAML's text), no character YAML holds unprintable, no
# tab. The rest of the document is read as before, with a token in the line's place, which must
# then be found once, as the key's value.
_JSON_LINE = re.compile(r"\n( *+[A-Za-z_][-A-Za-z0-9_./]*+: )(?=[\[{])")
_JSON_LINE_FROM = 4096  # characters: shorter lines are not worth it
_NOT_YAML_PRINTABLE = re.compile("[\t\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")
_TOKEN_PREFIX = "trainops-json-line-"


def _unprintable_in_yaml(line: str) -> bool:
    if line.isascii():
        # Of ASCII, the class holds the tab and DEL alone: found at memory-search speed, where
        # the class's search takes milliseconds on a CRD's line.
        return "\t" in line or "\x7f" in line
    return _NOT_YAML_PRINTABLE.search(line) is not None


class _NotAlike(ValueError):
    """JSON that YAML might read otherwise."""


def _object_of(pairs: list[tuple[str, object]]) -> dict:
    found = dict(pairs)
    if len(found) != len(pairs) or (found and max(map(len, found)) > 1000):
        raise _NotAlike
    return found


def _not_a_constant(text: str) -> object:
    raise _NotAlike  # NaN, Infinity: no JSON, and not YAML's spelling


_DECODER = json.JSONDecoder(object_pairs_hook=_object_of, parse_constant=_not_a_constant)


def _json_lines_out(text: str) -> tuple[str, dict[str, object]] | None:
    """`text` with each long JSON line's value replaced by a token, and the values by token;
    None when there is none."""
    if _TOKEN_PREFIX in text:
        return None
    pieces: list[str] = []
    values: dict[str, object] = {}
    done = 0
    for match in _JSON_LINE.finditer(text):
        start = match.end()
        end = text.find("\n", start)
        end = len(text) if end == -1 else end
        if end - start < _JSON_LINE_FROM:
            continue
        line = text[start:end]
        if _unprintable_in_yaml(line):
            continue
        try:
            value = _DECODER.decode(line)
        except (ValueError, RecursionError):
            continue
        token = f"{_TOKEN_PREFIX}{len(values)}"
        values[token] = value
        pieces += [text[done:start], token]
        done = end
    if not values:
        return None
    pieces.append(text[done:])
    return "".join(pieces), values


def _put_back(doc: object, values: dict[str, object], found: list[str]) -> None:
    """Replace each token that is a value in the document by its JSON value (`found` says which
    were; a token follows a key, so the document itself is none)."""
    pending = [doc] if isinstance(doc, dict | list) else []
    while pending:
        node = pending.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)  # type: ignore[union-attr]
        for key, value in items:
            if type(value) is str:
                if value in values:
                    found.append(value)
                    node[key] = values[value]  # type: ignore[index]
            elif isinstance(value, dict | list):
                pending.append(value)


def _parse_text(
    text: str, file: str, lines: bool, values: dict[str, object] | None = None
) -> Parsed | None:
    """The parse of a stream; with `values` (tokens in it stand for them), None when a token is
    not found exactly once, as a value, or the stream has a problem: then read it as it was."""
    parsed = Parsed([], [], [])
    found: list[str] = []
    chunks = split_documents(text)
    if len(chunks) > MAX_DOCUMENTS:
        parsed.malformed.append(Problem(file, chunks[MAX_DOCUMENTS][0], TOO_MANY))
        del chunks[MAX_DOCUMENTS:]
    # No parser sees a document over the bound (yaml-rs aborts the process on one), nor a
    # stream cut short: then each document is read on its own.
    whole = (
        _fast_whole(text, chunks)
        if not parsed.malformed and all(len(chunk) <= MAX_DOCUMENT_BYTES for _, chunk in chunks)
        else None
    )
    for index, (first_line, chunk) in enumerate(chunks):
        if len(chunk) > MAX_DOCUMENT_BYTES:
            parsed.malformed.append(Problem(file, first_line, too_large(len(chunk))))
            continue
        # Too deep for libyaml (its composer recurses per level): a finding at its line. yaml-rs
        # read only shallow blocks; a document it built too deep is found by the walk below.
        deep = nesting_problem(chunk) if whole is None else None
        if deep is not None:
            parsed.malformed.append(Problem(file, first_line + deep[0], deep[1]))
            continue
        try:
            docs = whole[index] if whole is not None else _load_document(chunk)
        except yaml.MarkedYAMLError as error:
            mark = error.problem_mark or error.context_mark
            # An error found at the end of the stream is marked one line past the last one.
            last_line = first_line + max(chunk.rstrip("\n").count("\n"), 0)
            line = min(first_line + mark.line, last_line) if mark else first_line
            detail = " ".join(str(part) for part in (error.context, error.problem) if part)
            parsed.syntax_errors.append(Problem(file, line, f"YAML syntax error: {detail}"))
            continue
        except yaml.YAMLError as error:
            parsed.syntax_errors.append(Problem(file, first_line, f"YAML syntax error: {error}"))
            continue
        line = _first_content_line(chunk, first_line) if lines else None
        has_anchor = anchored(chunk)
        # Only the documents a token went into are looked through.
        tokens = values if values is not None and _TOKEN_PREFIX in chunk else None
        for doc in docs:
            if tokens is not None:
                _put_back(doc, tokens, found)
            if doc is None:
                continue
            nulls: list[bool] = []
            reason = _malformed_reason(doc, has_anchor, nulls)
            if reason == TOO_DEEP and (deep := nesting_problem(chunk)) is not None:
                parsed.malformed.append(Problem(file, first_line + deep[0], deep[1]))
            elif reason:
                origin = take_origin(doc) if isinstance(doc, dict) and not lines else None
                parsed.malformed.append(Problem(file, line, reason, origin))
            else:
                parsed.objects.append(K8sObject(doc, file, line, bool(nulls)))
    if values is not None and (
        sorted(found) != sorted(values) or parsed.syntax_errors or parsed.malformed
    ):
        return None
    return parsed


_LEADING_NON_CONTENT = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n|---[ \t]*(?:#[^\n]*)?\n)*")


def _first_content_line(chunk: str, first_line: int) -> int:
    """The line of a document's first key, past its `---` marker, blank lines and comments."""
    skipped = _LEADING_NON_CONTENT.match(chunk)
    return first_line + chunk.count("\n", 0, skipped.end()) if skipped else first_line


ORIGIN_ANNOTATION = "config.kubernetes.io/origin"


def _left_alone(doc: dict) -> bool:
    """Whether take_origin() leaves `doc` as it is (it has no origin, nor annotations that
    taking one would remove): what it tests, in the same order."""
    metadata = doc.get("metadata") or {}
    if not isinstance(metadata, dict) or not isinstance(
        annotations := metadata.get("annotations") or {}, dict
    ):
        return True
    return ORIGIN_ANNOTATION not in annotations and (
        "annotations" not in metadata or bool(annotations)
    )


def take_origin(doc: dict) -> dict | None:
    """Remove kustomize's origin annotation from an object and return it, parsed (None when
    there is none, or the object is too malformed to hold one)."""
    metadata = doc.get("metadata") or {}
    if not isinstance(metadata, dict) or not isinstance(
        annotations := metadata.get("annotations") or {}, dict
    ):
        return None
    raw = annotations.pop(ORIGIN_ANNOTATION, None)
    if "annotations" in metadata and not annotations:
        del metadata["annotations"]
    if not isinstance(raw, str):
        return None
    try:
        # kustomize writes a few `key: value` lines, read by yaml-rs in microseconds; libyaml
        # decides whenever a value is not plainly a string (a ref of 1.10 would lose its 0).
        origin = yaml_rs.loads(raw, parse_datetime=False)
        if not isinstance(origin, dict) or not all(
            isinstance(v, str | dict) for v in origin.values()
        ):
            origin = yaml.load(raw, Loader=yaml.CSafeLoader)
    except Exception:  # noqa: BLE001 - any refusal by yaml-rs: libyaml reads it
        try:
            origin = yaml.load(raw, Loader=yaml.CSafeLoader)
        except yaml.YAMLError:
            return None
    return origin if isinstance(origin, dict) else None


# Each file is parsed once per run, whoever asks: the loader, the CRD-note rule, the line finder.
_parsed: dict[str, tuple[tuple[int, int, int] | None, str, Parsed]] = {}  # identity, text, parse
# Each parse's lines by object, by id() of the Parsed, with the Parsed itself: an id is reused
# once its object is gone, and a parse can be dropped from _parsed while a caller still holds it
# (two threads parsing one file at once, each storing its own), so an entry is taken only when
# it is of this very parse. As found: a finding now and then lost its line in some roots of a
# run and not in others, and was reported twice (line null in one, the line in the other).
_lines: dict[int, tuple[Parsed, dict[tuple[str, str], int | None]]] = {}
_parsed_lock = threading.Lock()


def file_identity(path: Path) -> tuple[int, int, int] | None:
    """What tells an unchanged file from an edited one (inode, size, modification time)."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


def _memo_key(path: Path) -> str:
    # Absolute without resolving links: no system call per lookup (a link and its target are
    # two entries, each checked against the file it reaches).
    return os.path.abspath(path)


def _unchanged(path: Path, identity: tuple[int, int, int] | None) -> tuple[str, Parsed] | None:
    """The text and parse this run made of the file, when it has not changed since."""
    with _parsed_lock:
        known = _parsed.get(_memo_key(path))
    if known is None or identity is None or known[0] != identity:
        return None
    return known[1], known[2]


def read_parsed(path: Path) -> tuple[str, Parsed]:
    """The file's text and its parse, as this run read them when it has not changed since.

    Raises Unreadable when the file cannot be read as text (or is no regular file)."""
    known = _unchanged(path, file_identity(path))
    if known is not None:
        return known
    text = read_text(path)
    return text, parse_file(path, text)


def known_parse(path: Path, identity: tuple[int, int, int] | None) -> Parsed | None:
    """The parse this run made of the file, when it has not changed since."""
    known = _unchanged(path, identity)
    return known[1] if known is not None else None


def remember_parse(
    path: Path, identity: tuple[int, int, int] | None, text: str, parsed: Parsed
) -> None:
    """Keep a parse made elsewhere (trainops.model.parse_files) for parse_file to answer with."""
    with _parsed_lock:
        _parsed[_memo_key(path)] = (identity, text, parsed)


def parse_file(path: Path, text: str | None = None) -> Parsed:
    """The file's objects (named as `display` names the file), parsed once for the same content.
    Asked again for an unchanged file (same inode, size and modification time: every object's
    line lookup asks), it answers without reading the file again.

    Raises Unreadable when the file cannot be read as text (or is no regular file).
    """
    identity = file_identity(path) if text is None else None
    unchanged = _unchanged(path, identity)
    if unchanged is not None:
        return unchanged[1]
    key = _memo_key(path)
    with _parsed_lock:
        known = _parsed.get(key)
    if text is None:
        text = read_text(path)
    if known is not None and known[1] == text:
        return known[2]
    parsed = parse_stream(text, display(path))
    with _parsed_lock:
        if known is not None:
            _lines.pop(id(known[2]), None)
        _parsed[key] = (identity, text, parsed)  # identity: None for text the caller gave
    return parsed


def forget_parsed() -> None:
    """Drop what parse_file remembers (at the start of a run, so memory is one run's)."""
    with _parsed_lock:
        _parsed.clear()
        _lines.clear()
        _KEYS.clear()
    forget_units()


def forget_units() -> None:
    """Drop the units kept for reading again (when the renders that share them are over: the
    CRD roots' documents, read for their schemas alone, are then given back)."""
    with _units_lock:
        _units.clear()


def source_line(path: str, kind: str, name: str) -> int | None:
    """The line where an object starts in its source file (None if it cannot be found there)."""
    try:
        parsed = parse_file(Path(path))
    except (OSError, Unreadable):
        return None
    with _parsed_lock:
        known = _lines.get(id(parsed))
    if known is not None and known[0] is parsed:
        lines = known[1]
    else:
        lines = {}
        for obj in parsed.objects:
            lines.setdefault((obj.kind, obj.name), obj.line)
        with _parsed_lock:
            _lines[id(parsed)] = (parsed, lines)
    return lines.get((kind, name))


class Unreadable(Exception):
    """A file that cannot be read as text; the message is one short clause."""


class TooLarge(Unreadable):
    """A file over MAX_FILE_BYTES: refused, never read."""


# A manifest is kilobytes, an operator's bundle of CRDs a few megabytes; GitHub refuses a file
# over 100 MB. Read whole, a file costs its size twice over (bytes, then text), and the parse more.
MAX_FILE_BYTES = 64 * 2**20


def read_text(path: Path) -> str:
    """A regular file's UTF-8 text. A FIFO or device named `.yaml` would block or never end.
    A byte-order mark opening the file is no content: YAML 1.2 (5.2) allows one, and go-yaml,
    behind kubectl and kustomize, reads past it (readerc.go, yaml_parser_determine_encoding);
    so does every reader here (the CRD note first)."""
    try:
        return bounded.read_regular(path, MAX_FILE_BYTES).decode("utf-8").removeprefix("\ufeff")
    except bounded.NotRegular:
        raise Unreadable("not a regular file") from None
    except bounded.TooLarge:
        raise TooLarge(
            f"larger than {bounded.mebibytes(MAX_FILE_BYTES)}: not read (the API server takes "
            "at most 3 MiB in one request)"
        ) from None
    except OSError as error:
        raise Unreadable(f"cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise Unreadable(f"not UTF-8 text (byte {error.start} cannot be decoded)") from None


def yaml_files(folder: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The YAML files under `folder` (symlinked folders not followed), and each folder under it
    that cannot be listed, or link that leads out of the repository, with why: what it holds is
    unknown, which is not the same as nothing."""
    refused: list[tuple[Path, str]] = []

    def on_error(error: OSError) -> None:
        refused.append((Path(error.filename or folder), error.strerror or str(error)))

    found = [
        Path(parent) / name
        for parent, _, names in os.walk(folder, onerror=on_error)
        for name in names
        if name.endswith((".yaml", ".yml"))
    ]
    top = repository.repository_of(folder)
    files = []
    for path in found:
        try:
            if path.is_symlink() and repository.leaves(path, top):
                refused.append((path, OUTSIDE))
            elif path.is_file():
                files.append(path)
        except OSError as error:  # listed, but its folder cannot be searched
            refused.append((path, error.strerror or str(error)))
    return sorted(files), sorted(refused)


OUTSIDE = "a symbolic link to a file outside the repository, not read"
