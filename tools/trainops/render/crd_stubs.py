"""Remote bases composed with the local layers without kustomize re-reading their CRD schemas.

Most of what an operator's remote base renders is the `spec.versions` of its
CustomResourceDefinitions: megabytes of OpenAPI schema that no layer of ours transforms, yet
kustomize parses and prints them again for every root that includes the base, so editing one
local patch of an operator root cost a render of every environment's operators layer (14-45 s).

So a remote base is rendered once per pinned commit (and kustomize version), and what kustomize
printed for each CRD's `spec.versions` is kept. The roots then render a copy of the base's checkout
in which each CRD's `versions` is a one-line placeholder (`trainops-slot-<id>`); the local layers
transform the small remainder as kustomize always would (names, labels, namespaces, patches,
generators: the base is still a kustomization, not flattened output), and each placeholder is
replaced by the kept text. kustomize prints a subtree the same way wherever it sits at the same
depth, so the result is the full build byte for byte; tests/test_crd_stubs.py shows it on every
root of this repository and on composed-operator fixtures.

A document is stubbed only when the stub is proven to parse as the document with nothing but its
`spec.versions` replaced. Where the result cannot be shown equal, the full build is run instead
and `-v` says why: a placeholder
that a layer moved, copied or replaced (a patch or replacement that touches `spec.versions`); a
CRD of the base printed with real versions; a placeholder with no kept text; a failed build (so
that its error is kustomize's on the real files).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import orjson
import yaml_rs

from trainops.model import bounded, cache
from trainops.model.objects import reads_alike_in_yaml_1_1, split_documents

FOLDER = "crd-stubs-v1"
_COMPLETE = ".trainops-stubbed"
_SLOTS = ".trainops-slots.json"
# {placeholder: the versions as a line of JSON}, in marshal's format: read for every operators
# layer a run renders, and json took a tenth of a second to read back megabytes of escaped JSON.
_VALUES = ".trainops-values.marshal"
_VALUES_BYTES = 256 * 2**20  # an operator's CRDs' versions are megabytes; never read past this
_PREFIX = "trainops-slot-"
SLOT = re.compile(_PREFIX + r"[0-9a-f]{24}")
_SLOT_LINE = re.compile(r"^  versions: (" + _PREFIX + r"[0-9a-f]{24})$", re.MULTILINE)
_VERSIONS_KEY = re.compile(r"^( +)versions:[ \t]*$", re.MULTILINE)
_DOCUMENT_START = re.compile(r"^---[ \t]*\n", re.MULTILINE)
_CRD = re.compile(r"^kind: CustomResourceDefinition[ \t]*$", re.MULTILINE)
_YAML_SUFFIXES = (".yaml", ".yml")
_lock = threading.Lock()
_base_locks: dict[str, threading.Lock] = {}
_values_read: dict[tuple[str, int, int, int], dict[str, str]] = {}  # Stubbed.values, by file


def slot_of(file_key: str, replaced: str) -> str:
    """The placeholder of the text `replaced` in the file `file_key`."""
    digest = hashlib.sha256(f"{file_key}\0{replaced}".encode()).hexdigest()
    return _PREFIX + digest[:24]


class StubbedText(NamedTuple):
    text: str
    slots: dict[str, str]  # placeholder: the CRD's name
    # placeholder: its versions as one line of JSON, the values Kubernetes reads (where the
    # text's scalars read alike in YAML 1.1 and 1.2, and JSON holds them as they are)
    values: dict[str, str]


def stub_text(text: str, file_key: str) -> StubbedText:
    """`text` with each CRD's `spec.versions` replaced by a placeholder. Documents that cannot
    be stubbed exactly are left as they are."""
    if "CustomResourceDefinition" not in text:
        return StubbedText(text, {}, {})
    pieces, slots, values = [], {}, {}
    for _, chunk in split_documents(text):
        stubbed = _stub_document(chunk, file_key)
        if stubbed is None:
            pieces.append(chunk)
            continue
        text_of, slot, name, value = stubbed
        pieces.append(text_of)
        slots[slot] = name
        if value is not None:
            values[slot] = value
    return StubbedText("".join(pieces), slots, values)


def _stub_document(chunk: str, file_key: str) -> tuple[str, str, str, str | None] | None:
    """(the document with its versions replaced, the placeholder, the CRD's name, its versions
    as JSON or None), or None.

    The lines of `versions:` under a top-level `spec:` are found by their indentation, then the
    result is proven: parsed, it must be the document parsed with only `spec.versions` replaced
    by the placeholder (so a cut one line short or long, an anchor cut from its alias, a
    `versions:` inside a block scalar, all leave the document as it is)."""
    if "CustomResourceDefinition" not in chunk:
        return None
    region = _versions_lines(chunk)
    if region is None:
        return None
    start, end, indent = region
    slot = slot_of(file_key, chunk[start:end])
    stubbed = f"{chunk[:start]}{' ' * indent}versions: {slot}\n{chunk[end:]}"
    try:
        original = yaml_rs.loads(chunk, parse_datetime=False)
        replaced = yaml_rs.loads(stubbed, parse_datetime=False)
    except Exception:  # noqa: BLE001 - kustomize reports it on the real file, or it is ours: left
        return None
    if not isinstance(original, dict) or original.get("kind") != "CustomResourceDefinition":
        return None
    spec, metadata = original.get("spec"), original.get("metadata")
    if not isinstance(spec, dict) or "versions" not in spec or not isinstance(metadata, dict):
        return None
    name = metadata.get("name")
    if not isinstance(name, str) or replaced != {**original, "spec": {**spec, "versions": slot}}:
        return None
    return stubbed, slot, name, _as_json(spec["versions"], chunk[start:end])


# Characters a YAML 1.1 reader folds or refuses inside a double-quoted scalar, which JSON keeps.
_UNSAFE_IN_YAML = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


# A scalar YAML reads as a float that is no number: orjson writes NaN and the infinities as null
# instead of refusing them (its README, "float").
_NOT_A_NUMBER = re.compile(r"\.(?:nan|NaN|NAN|inf|Inf|INF)\b")


def _as_json(versions: object, text: str) -> str | None:
    """`versions` as a line of JSON (valid YAML flow) that reads back as these values, or None.
    orjson refuses what JSON cannot hold as it is (a key that is no string, an integer past 64
    bits, a lone surrogate: JSONEncodeError, a TypeError); a NaN or an infinity it would write
    as null is refused first."""
    if not reads_alike_in_yaml_1_1(text) or _NOT_A_NUMBER.search(text):
        return None
    try:
        line = orjson.dumps(versions).decode()
    except TypeError:
        return None
    return None if _UNSAFE_IN_YAML.search(line) else line


def _versions_lines(chunk: str) -> tuple[int, int, int] | None:
    """(start, end, indentation) of the lines of the first `versions:` key whose parent is a
    top-level `spec:`: the key's line and every line after it that is blank, more indented, or
    an item of a sequence at its indentation; blank lines at the end are left out."""
    for match in _VERSIONS_KEY.finditer(chunk):
        indent = len(match.group(1))
        if _parent_line(chunk, match.start(), indent) != "spec:":
            continue
        first = match.end() + 1
        stop = _block_end(chunk, first, indent)
        content = chunk[first:stop].rstrip(" \n")
        if not content:
            return match.start(), first, indent
        line_end = chunk.find("\n", first + len(content))
        return match.start(), len(chunk) if line_end < 0 else line_end + 1, indent
    return None


_LINE_AT_MOST: dict[int, re.Pattern[str]] = {}


def _block_end(chunk: str, first: int, indent: int) -> int:
    """Where the block of lines from `first` (a line's start) under a key indented `indent`
    ends: the first line with content indented no more than the key, other than an item of a
    sequence (`- `, or `-` alone) at its indentation; the end of `chunk` when none does. Found
    by an expression starting at a newline: a CRD's versions are tens of thousands of lines."""
    pattern = _LINE_AT_MOST.get(indent)
    if pattern is None:
        pattern = _LINE_AT_MOST[indent] = re.compile(rf"\n( {{0,{indent}}})(?=[^ \n])")
    position = first - 1
    while (found := pattern.search(chunk, position)) is not None:
        start, depth = found.start() + 1, len(found.group(1))
        lead = chunk[start + depth : start + depth + 2]
        if depth == indent and (lead == "- " or lead in ("-", "-\n")):
            position = found.end()
            continue
        return start
    return len(chunk)


def _parent_line(chunk: str, position: int, indent: int) -> str | None:
    """The nearest line above `position` indented less than `indent`, stripped of its end."""
    while position > 0:
        start = chunk.rfind("\n", 0, position - 1) + 1
        line = chunk[start : position - 1]
        content = line.lstrip(" ")
        if content and not content.startswith("#") and len(line) - len(content) < indent:
            return line.rstrip()
        position = start
    return None


@dataclass(frozen=True)
class Stubbed:
    """A checkout's copy with its CRDs' versions replaced, each placeholder's CRD name, and the
    versions as JSON where they can be (StubbedText.values)."""

    folder: Path
    slots: dict[str, str]
    values_file: Path

    def values(self) -> dict[str, str]:
        """{placeholder: the versions as a line of JSON}; read once a run (every root that
        includes the base asks, and the file holds megabytes of JSON strings)."""
        try:
            status = self.values_file.stat()
        except OSError:
            return {}
        identity = (str(self.values_file), status.st_ino, status.st_size, status.st_mtime_ns)
        known = _values_read.get(identity)
        if known is None:
            try:
                values = cache.unmarshal(bounded.read_regular(self.values_file, _VALUES_BYTES))
            except (OSError, ValueError):
                return {}
            plain: dict[str, str] = (
                values
                if isinstance(values, dict)
                and all(type(slot) is str and type(text) is str for slot, text in values.items())
                else {}
            )
            known = _values_read[identity] = plain
        return known


def _tree_folder(owner_repo: str, commit: str) -> Path:
    # By this module's digest too: another trainops may stub differently.
    return cache.folder(FOLDER) / "trees" / _SOURCE[:16] / owner_repo / commit


def has_stub_tree(owner_repo: str, commit: str) -> bool:
    """Whether the stubbed copy of the commit is made, and intact: what stub_tree() then reads
    of the checkout is nothing."""
    target = _tree_folder(owner_repo, commit)
    return (target / _COMPLETE).is_file() and _intact(target)


# Every file of a stubbed copy as it was made (path: inode, size, modification time): its files
# are the checkout's own (hard links) or its stubbed texts, and kustomize reads them in the
# checkout's place, so a file cut short or changed in either (a disk fault, a stray edit) changed
# the verdict, unseen. A copy that differs is made again, from a checkout verified again.
_FILES = ".trainops-files.json"
_intact_trees: set[Path] = set()


def _identities(tree: Path) -> dict[str, list[int]]:
    found = {}
    for path in tree.rglob("*"):
        if path.name in (_COMPLETE, _FILES) and path.parent == tree:
            continue
        status = path.lstat()
        if not stat.S_ISDIR(status.st_mode):
            found[str(path.relative_to(tree))] = [
                status.st_ino,
                status.st_size,
                status.st_mtime_ns,
                stat.S_IFMT(status.st_mode),
            ]
    return found


def _intact(target: Path) -> bool:
    """Whether the stubbed copy's files are the ones it was made with (once a run)."""
    if target in _intact_trees:
        return True
    try:
        made = json.loads(bounded.read_regular(target / _FILES, 2**24, follow=False))
        intact = made == _identities(target)
    except (OSError, ValueError):
        intact = False
    if intact:
        _intact_trees.add(target)
    return intact


def stub_tree(checkout: Path, owner_repo: str, commit: str) -> Stubbed | None:
    """The stubbed copy of `checkout` (a commit's files never change, so it is made once: by
    one thread of a run, the others that need it meanwhile waiting for it)."""
    with _making_lock:
        making = _making.setdefault((owner_repo, commit), threading.Lock())
    with making:
        return _stub_tree(checkout, owner_repo, commit)


_making: dict[tuple[str, str], threading.Lock] = {}
_making_lock = threading.Lock()


def _stub_tree(checkout: Path, owner_repo: str, commit: str) -> Stubbed | None:
    target = _tree_folder(owner_repo, commit)
    slots = _read_slots(target) if _intact(target) else None
    if slots is not None:
        return Stubbed(target, slots, target / _VALUES)
    try:
        cache.sweep(target.parent, f".{commit[:12]}-")  # what runs killed meanwhile left
        scratch = cache.scratch(target.parent, f".{commit[:12]}-")
    except OSError:
        return None
    try:
        work = scratch / "tree"
        shutil.copytree(
            checkout,
            work,
            # A link stays a link (kustomize refuses one that leads outside, as it would in the
            # checkout); followed, a link to a file outside would be copied in, and read.
            symlinks=True,
            ignore=shutil.ignore_patterns(".trainops-*"),
            copy_function=_link_or_copy,
        )
        slots, values = {}, {}
        for path in sorted(work.rglob("*")):
            if path.suffix not in _YAML_SUFFIXES or not path.is_file() or path.is_symlink():
                continue
            text = path.read_text(encoding="utf-8", errors="surrogateescape")
            stubbed = stub_text(text, str(path.relative_to(work)))
            if stubbed.slots:
                path.unlink()  # a link to the checkout's file: the stubbed text is a new file
                path.write_text(stubbed.text, encoding="utf-8", errors="surrogateescape")
                slots.update(stubbed.slots)
                values.update(stubbed.values)
        (work / _VALUES).write_bytes(marshal.dumps(values))
        (work / _SLOTS).write_text(json.dumps(slots, sort_keys=True))
        (work / _FILES).write_text(json.dumps(_identities(work)))
        (work / _COMPLETE).write_text(commit + "\n")
        if target.exists():
            os.rename(target, scratch / "stale")
        try:
            os.rename(work, target)
        except OSError:
            if _read_slots(target) is None:  # another process did not win the race either
                return None
    except (OSError, UnicodeError):
        return None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return Stubbed(target, slots, target / _VALUES)


def _link_or_copy(source: str, target: str) -> None:
    """The checkout's file in the stubbed copy: a hard link where one can be made (the files of
    a commit never change, and a stubbed one replaces its link), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _read_slots(target: Path) -> dict[str, str] | None:
    try:
        if not (target / _COMPLETE).is_file():
            return None
        slots = json.loads((target / _SLOTS).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(slots, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in slots.items()
    ):
        return None
    return slots


def _documents(text: str) -> list[str]:
    return _DOCUMENT_START.split(text)


def _spec_lines(document: str) -> tuple[int, int] | None:
    """(first, end) line numbers of the top-level `spec:` section of a printed document."""
    lines = document.split("\n")
    for number, line in enumerate(lines):
        if line == "spec:":
            end = number + 1
            while end < len(lines) and (not lines[end] or lines[end][0] in " -"):
                end += 1
            return number + 1, end
    return None


def _crd_name(document: str) -> str | None:
    match = re.search(r"^metadata:\n(?:(?:  .*|)\n)*?  name: (\S+)$", document, re.MULTILINE)
    return match.group(1) if match else None


def printed_versions(text: str) -> dict[str, str]:
    """{CRD name: the `  versions:` block kustomize printed for it} from a build's output."""
    blocks: dict[str, str] = {}
    for document in _documents(text):
        if not _CRD.search(document):
            continue
        name, section = _crd_name(document), _spec_lines(document)
        if name is None or section is None:
            continue
        lines = document.split("\n")
        first, end = section
        starts = [n for n in range(first, end) if lines[n] == "  versions:"]
        if len(starts) != 1:
            continue
        stop = starts[0] + 1
        while stop < end and (
            not lines[stop] or lines[stop].startswith("   ") or lines[stop].startswith("  - ")
        ):
            stop += 1
        while not lines[stop - 1]:
            stop -= 1
        blocks[name] = "\n".join(lines[starts[0] : stop])
    return blocks


def splice(text: str, blocks: dict[str, str], names: set[str]) -> tuple[str | None, str]:
    """The build's output with each placeholder replaced by its kept text; (None, why) when the
    result could differ from a full build. `names`: the CRDs the stubbed bases hold."""
    if SLOT.search(text) is None and not names:
        return text, ""
    pieces: list[str] = []
    for document in _documents(text):
        if _CRD.search(document) is None:
            if SLOT.search(document):
                return None, "a placeholder was moved out of its CRD"
            pieces.append(document)
            continue
        placed = _SLOT_LINE.findall(document)
        if len(placed) != len(SLOT.findall(document)) or len(placed) > 1:
            return None, "a CRD's placeholder was moved or copied"
        if not placed:
            if _crd_name(document) in names:
                return None, f"CRD {_crd_name(document)} was printed with its versions"
            pieces.append(document)
            continue
        block = blocks.get(placed[0])
        section = _spec_lines(document)
        line = document[: document.find(f"  versions: {placed[0]}")].count("\n")
        if block is None or section is None or not section[0] <= line < section[1]:
            return None, f"no kept versions for CRD {_crd_name(document)}"
        pieces.append(document.replace(f"  versions: {placed[0]}", block, 1))
    return "---\n".join(pieces), ""


def _stubbed_file(content: bytes, digest: str, url: str) -> StubbedText:
    """stub_text of a remote file, kept in the cache by its content (and the file's name, which
    its placeholders are made of)."""
    key = cache.key_of(FOLDER, _SOURCE, "stubbed file", url, digest)
    payload = cache.load(FOLDER, key)
    if payload is not None:
        try:
            text, slots, values = json.loads(payload)
            if isinstance(text, str) and isinstance(slots, dict) and isinstance(values, dict):
                return StubbedText(text, slots, values)
        except ValueError:
            pass
    try:
        text = content.decode()
    except UnicodeDecodeError:
        return StubbedText("", {}, {})
    stubbed = stub_text(text, url)
    cache.store(FOLDER, key, json.dumps([stubbed.text, stubbed.slots, stubbed.values]).encode())
    return stubbed


@dataclass
class Composition:
    """The stubbed bases one render uses, and what replaces each placeholder: the versions as a
    full build printed them, or (`values_only`) as one line of JSON holding the same values,
    which needs no full build but is not the text kustomize prints (for CRD roots read only for
    their schemas)."""

    build: Callable[[Path], str | None]  # the full build of a folder's kustomization, or None
    identity: str  # what the kept text depends on besides the base: kustomize's name, version
    values_only: bool = False
    blocks: dict[str, str] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)

    def folder_for(self, checkout: Path, owner_repo: str, commit: str, path: str) -> Path:
        """Where kustomize should read the base: its stubbed copy, or `checkout` itself when the
        base's versions could not be kept."""
        stubbed = stub_tree(checkout, owner_repo, commit)
        if stubbed is None or not stubbed.slots:
            return checkout
        if self.values_only:
            kept = _as_blocks(stubbed.slots, stubbed.values())
        else:
            key = cache.key_of(FOLDER, _SOURCE, self.identity, owner_repo, commit, path)
            kept = self._kept(key, lambda: self.build(checkout / path))
        if kept is None:
            return checkout
        self._use(stubbed.slots, kept)
        return stubbed.folder

    def raw_file(self, content: bytes, url: str) -> bytes:
        """A remote file (one manifest, no kustomization) with its CRDs' versions stubbed, or as
        it is when they could not be kept."""
        digest = hashlib.sha256(content).hexdigest()
        stubbed = _stubbed_file(content, digest, url)
        if not stubbed.slots:
            return content
        key = cache.key_of(FOLDER, _SOURCE, self.identity, "file", digest)

        def full_build() -> str | None:
            with tempfile.TemporaryDirectory(prefix=f"trainops-file-{os.getpid()}-") as scratch:
                (Path(scratch) / "file.yaml").write_bytes(content)
                (Path(scratch) / "kustomization.yaml").write_text("resources: [file.yaml]\n")
                return self.build(Path(scratch))

        kept = (
            _as_blocks(stubbed.slots, stubbed.values)
            if self.values_only
            else self._kept(key, full_build)
        )
        if kept is None:
            return content
        self._use(stubbed.slots, kept)
        return stubbed.text.encode()

    def _use(self, slots: dict[str, str], kept: dict[str, str]) -> None:
        """`kept`: by CRD name (a full build's) or by placeholder (values)."""
        for slot, name in slots.items():
            block = kept.get(slot, kept.get(name))
            if block is not None:
                self.blocks[slot] = block
                self.names.add(name)

    def _kept(self, key: str, full_build: Callable[[], str | None]) -> dict[str, str] | None:
        """{CRD name: printed versions} of a full build, made once and kept in the cache."""
        with _lock:
            base_lock = _base_locks.setdefault(key, threading.Lock())
        with base_lock:  # roots rendered at once that share a base render it once
            payload = cache.load(FOLDER, key)
            if payload is not None:
                try:
                    kept = json.loads(payload)
                    return kept if isinstance(kept, dict) and kept else None
                except ValueError:
                    pass
            output = full_build()
            kept = printed_versions(output) if output is not None else {}
            cache.store(FOLDER, key, json.dumps(kept).encode())
            return kept or None


def _as_blocks(slots: dict[str, str], values: dict[str, str]) -> dict[str, str] | None:
    """{placeholder: its versions as a line of JSON} for the placeholders that have values."""
    blocks = {slot: f"  versions: {values[slot]}" for slot in slots if slot in values}
    return blocks or None


_SOURCE = cache.source_digest(__file__)
