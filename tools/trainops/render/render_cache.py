"""Renders cached by everything kustomize reads, so an unchanged root is never rendered twice.

A render is a pure function of the local files its kustomizations read (by content), the remote
bases and files they name (by the commit their ref resolves to in the mirror), the kustomize
that renders it (backend and version) and the options. The key digests all of these; an edit to
one file changes the key of exactly the roots that read it. A root that names a remote the
mirror cannot pin to a commit (no mirror, an unknown ref, a non-GitHub URL) is not cached.

Local files are named relative to the root, as kustomize names them: kustomize's output depends on
where its files sit relative to each other, never on the folder they sit in. So a copy of the tree
elsewhere (a worktree of another revision for `trainops diff`, a clone, a CI checkout) reuses the
entry, and so does another root that reads the same files the same way (overlays/kind/operators and
overlays/cloud/operators here); the origins of a hit are moved from the root it was rendered at to
this one on the way out.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from trainops.model import cache, objects, processes
from trainops.model.errors import CannotRun
from trainops.render import crd_stubs, kustomization, mirror, raw_files, remote_bases

if TYPE_CHECKING:
    from trainops.render.kustomize import InProcessKustomize, Kustomize

FOLDER = "renders-v4"
# The modules that build the tree kustomize renders and read its output back.
_RENDERER = cache.source_digest(
    __file__, raw_files.__file__, remote_bases.__file__, kustomization.__file__, crd_stubs.__file__
)


def _remote_commit(entry: str, mirror_dir: Path | None) -> str | None:
    if mirror_dir is None:
        return None
    base = remote_bases.parse(entry)
    if base is not None:
        return remote_bases.commit_of(mirror_dir, base.owner_repo, base.ref)
    raw = raw_files.parse_raw_url(entry)
    if raw is not None:
        return remote_bases.commit_of(mirror_dir, raw.repo, raw.ref)
    return None


@dataclass(frozen=True)
class Inputs:
    """What a render reads: digestible parts naming local files relative to `root`."""

    root: Path
    parts: list[str]


def inputs(directory: Path, mirror_dir: Path | None, skeleton: bool = False) -> Inputs | None:
    """What a render of `directory` reads; None when it cannot be pinned. The `skeleton` names
    the files read only as patches without their content (kept_origins)."""
    parts: list[str] = []
    files: set[Path] = set()
    folders = kustomization.reachable(directory)
    patches = kustomization.patch_only_files(folders) if skeleton else set()
    for folder in folders:
        read = _folder_reads(folder)
        if read is None:
            return None
        files.update(read[0])
        parts.extend(sorted(read[2]))
        for value in read[1]:
            commit = _remote_commit(value, mirror_dir)
            if commit is None:
                return None
            assert mirror_dir is not None  # a commit is found only in a mirror
            parts.append(f"remote {value} {commit} {mirror.source_key(mirror_dir)}")
    root = directory.resolve()
    for name, path in sorted((os.path.relpath(path, root), path) for path in files):
        if path in patches:
            parts.append(f"patch {name}")
            continue
        digest = file_digest(path)
        if digest is None:
            return None
        parts.append(f"file {name} {digest}")
    return Inputs(root, parts)


# What each folder's kustomization reads, for the rest of the run (forget() at its start): every
# environment's roots read the operators' and platform's folders, and finding a folder's files
# costs a system call for each entry and each string of its kustomization.
_Reads = tuple[frozenset[Path], tuple[str, ...], frozenset[str]]
_reads: dict[tuple[Path, tuple[int, int, int] | None, int], _Reads] = {}


def forget() -> None:
    """Drop what this run found of folders (the next reads them anew)."""
    _reads.clear()


def _folder_reads(folder: Path) -> _Reads | None:
    """(the local files the kustomization in `folder` may read, the remote entries it names, what
    it names outside the folder); None when the folder cannot be listed. Kept by the folder's and
    its kustomization's identity: a file added, removed or edited there is found.

    A file outside the folder, named or reached through a symbolic link, is never read: kustomize
    refuses to load it (its load restrictions, root only), whatever it holds; only where it leads
    and whether something is there make the render's key."""
    try:
        listed = folder.stat().st_mtime_ns
    except OSError:
        return None
    found = kustomization.kustomization_file(folder)
    identity = objects.file_identity(found) if found is not None else None
    key = (folder, identity, listed)
    known = _reads.get(key)
    if known is not None:
        return known
    files: set[Path] = set()
    outside: set[str] = set()

    def add(path: Path, name: str) -> None:
        resolved = path.resolve()
        if resolved.is_relative_to(real):
            files.add(resolved)
        else:
            outside.add(f"outside {name} {resolved} {_kind(resolved)}")

    try:
        real = folder.resolve()
        for path in folder.iterdir():
            if path.is_symlink():
                if path.is_file():
                    add(path, path.name)
            elif path.is_file():
                files.add(real / path.name)
    except OSError:
        return None
    strings = list(kustomization.strings_in(kustomization.read_kustomization(folder)))
    remotes = [value for value in strings if kustomization.is_remote(value)]
    for candidate, path in kustomization.named_files(folder, strings):
        add(path, candidate)
    if len(_reads) > 4096:
        _reads.clear()
    _reads[key] = known = (frozenset(files), tuple(remotes), frozenset(outside))
    return known


def _kind(path: Path) -> str:
    try:
        return "file" if path.is_file() else "other"
    except OSError:
        return "unreadable"


# Each file's digest by its identity: a run computes the keys of every root, and the operators'
# and platform's files are read by every environment's roots.
_digests: dict[tuple[str, int, int, int], str] = {}


def file_digest(path: Path) -> str | None:
    """The SHA-256 of a file's content (None when it cannot be read), once per file identity."""
    try:
        status = path.stat()
        identity = (str(path), status.st_ino, status.st_size, status.st_mtime_ns)
        known = _digests.get(identity)
        if known is None:
            known = _digests[identity] = hashlib.sha256(path.read_bytes()).hexdigest()
            if len(_digests) > 65536:
                _digests.clear()
    except OSError:
        return None
    return known


@dataclass(frozen=True)
class Key:
    digest: str
    root: Path  # origins of a hit are moved from the root it was rendered at to this one


def key(
    backend: Kustomize | InProcessKustomize,
    mirror: Path | None,
    directory: Path,
    origins: bool,
    variant: str = "",
) -> Key | None:
    """The key of `directory`'s render by `backend` (None when what it reads cannot be pinned);
    `variant` names a render that is not kustomize's text (CRD versions spliced in as values)."""
    return _key_of(FOLDER, backend, inputs(directory, mirror), str(origins), variant)


def _key_of(
    folder: str, backend: Kustomize | InProcessKustomize, read: Inputs | None, *options: str
) -> Key | None:
    if read is None:
        return None
    try:
        version = backend.version()
    except CannotRun:
        return None
    parts = (folder, _RENDERER, backend.name, version, *options, *read.parts)
    return Key(cache.key_of(*parts), read.root)


# Where each object of a root's render came from, by the render's skeleton: what it reads with
# the files read only as patches left out. kustomize's origin annotations cost more than the
# rest of a build (0.5 of 0.7 s for an operators layer, most on Kueue's base). An origin is the
# file of the resource an object was read from, or the kustomization of the generator that made
# it (kustomize api/resource/origin.go, Origin: Path, ConfiguredIn); a patch changes an object's
# fields, never which file it came from, so after an edit to a patch the objects keep the
# origins of the last build with them (check: the same objects, by identity).
KEPT_FOLDER = "origins-v1"
Identity = tuple[str, str, str, str]  # apiVersion, kind, namespace ("" for none), name
# ("remote", where it is shown, False), or ("local", path relative to the root, whether the
# origin names a file, not the kustomization of a generator)
KeptOrigin = tuple[str, str, bool]


def skeleton_key(
    backend: Kustomize | InProcessKustomize,
    mirror: Path | None,
    directory: Path,
    variant: str = "",
) -> Key | None:
    return _key_of(KEPT_FOLDER, backend, inputs(directory, mirror, skeleton=True), variant)


def load_kept(entry_key: Key) -> dict[Identity, KeptOrigin] | None:
    payload = cache.load(KEPT_FOLDER, entry_key.digest)
    if payload is None:
        return None
    return kept_from_json(payload)


def kept_from_json(payload: bytes | str | list) -> dict[Identity, KeptOrigin] | None:
    try:
        rows = json.loads(payload) if isinstance(payload, bytes | str) else payload
        if not isinstance(rows, list):
            return None
        kept = {
            (str(a), str(k), str(ns), str(n)): (str(where), str(value), bool(named))
            for a, k, ns, n, where, value, named in rows
        }
    except (ValueError, TypeError):
        return None
    if len(kept) != len(rows) or any(w not in ("remote", "local") for w, _, _ in kept.values()):
        return None
    return kept


def kept_rows(kept: dict[Identity, KeptOrigin]) -> list[list]:
    return [[*identity, *origin] for identity, origin in kept.items()]


def store_kept(entry_key: Key, kept: dict[Identity, KeptOrigin]) -> None:
    cache.store(KEPT_FOLDER, entry_key.digest, json.dumps(kept_rows(kept)).encode())


_STRIPES = 256
LOCK_WAIT_ENV = "TRAINOPS_LOCK_WAIT_SECONDS"
DEFAULT_LOCK_WAIT_SECONDS = 30.0
_LOCK_POLL_SECONDS = 0.05


def lock_wait_seconds() -> float:
    """How long a run waits for another that renders the same root (or one sharing its stripe)."""
    try:
        return max(float(os.environ.get(LOCK_WAIT_ENV, DEFAULT_LOCK_WAIT_SECONDS)), 0.0)
    except ValueError:
        return DEFAULT_LOCK_WAIT_SECONDS


class claimed:  # noqa: N801 - used as a function: `with claimed(key):`
    """Held while a root is looked up and rendered: processes that want the same render (test
    workers, two hooks at once) wait for the first and read its entry instead of rendering too.
    Locks are striped over a fixed set of files, so they never pile up. (A class, not a
    generator: the frozen RenderFailure must pass through untouched.)"""

    def __init__(self, entry_key: Key) -> None:
        stripe = int(entry_key.digest[:8], 16) % _STRIPES
        self.path = cache.folder(FOLDER) / "locks" / f"{stripe:03d}.lock"
        self.handle: BinaryIO | None = None

    def __enter__(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.handle = open(self.path, "a+b")  # noqa: SIM115 - closed in __exit__
        except OSError:
            return  # no lock without a writable cache: render anyway
        # Polled, not blocking: a run never waits longer than LOCK_WAIT_SECONDS on another (it
        # renders too, as if there were no lock), and SIGTERM is handled between tries. A lock
        # is never stale: flock's is the kernel's, dropped when its holder exits, however.
        deadline = time.monotonic() + lock_wait_seconds()
        while True:
            try:
                fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if processes.stopping():
                    self.handle.close()
                    self.handle = None
                    raise processes.Terminated from None
                if time.monotonic() >= deadline:
                    self.handle.close()
                    self.handle = None
                    return
                time.sleep(_LOCK_POLL_SECONDS)
            except OSError:
                self.handle.close()
                self.handle = None
                return

    def __exit__(self, *exc_info: object) -> None:
        if self.handle is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()
            self.handle = None


@dataclass(frozen=True)
class Hit:
    text: str
    wrapper: str
    paths: raw_files.PathMap
    moved: tuple[str, str] | None  # (root it was rendered at, this one) when they differ
    note: str | None = None  # what the render said under -v (a full build, and why)
    kept: dict[Identity, KeptOrigin] | None = None  # origins kept from an earlier build


def load(entry_key: Key) -> Hit | None:
    """The entry, or None on a miss or an entry of the wrong shape."""
    payload = cache.load(FOLDER, entry_key.digest)
    if payload is None:
        return None
    header, _, body = payload.partition(b"\n")
    try:
        data = json.loads(header)
        text, wrapper, rendered_at = body.decode(), data["wrapper"], data["root"]
        replacements = tuple((str(a), str(b)) for a, b in data["replacements"])
        trees = tuple((str(a), str(b), str(c)) for a, b, c in data["remote_trees"])
    except (ValueError, KeyError, TypeError):
        return None
    note = data.get("note")
    if not all(isinstance(value, str) for value in (wrapper, rendered_at)) or not isinstance(
        note, str | None
    ):
        return None
    kept = kept_from_json(data["kept"]) if data.get("kept") is not None else None
    if data.get("kept") is not None and kept is None:
        return None
    here = str(entry_key.root)
    moved = (rendered_at, here) if rendered_at != here else None
    return Hit(text, wrapper, raw_files.PathMap(replacements, trees), moved, note, kept)


def store(
    entry_key: Key,
    text: str,
    wrapper: str,
    paths: raw_files.PathMap,
    note: str | None = None,
    kept: dict[Identity, KeptOrigin] | None = None,
) -> None:
    # A line of JSON, then the render as it is: megabytes of YAML need no escaping.
    header = {
        "wrapper": wrapper,
        "root": str(entry_key.root),
        "replacements": paths.replacements,
        "remote_trees": paths.remote_trees,
        "note": note,
        "kept": kept_rows(kept) if kept is not None else None,
    }
    cache.store(FOLDER, entry_key.digest, json.dumps(header).encode() + b"\n" + text.encode())
