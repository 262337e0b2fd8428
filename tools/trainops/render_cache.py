"""Renders cached by everything kustomize reads, so an unchanged root is never rendered twice.

A render is a pure function of the local files its kustomizations read (by content), the remote
bases and files they name (by the commit their ref resolves to in the mirror), the kustomize
that renders it (backend and version) and the options. The key digests all of these; an edit to
one file changes the key of exactly the roots that read it. A root that names a remote the
mirror cannot pin to a commit (no mirror, an unknown ref, a non-GitHub URL) is not cached.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from trainops import cache, kustomization, raw_files, remote_bases
from trainops.errors import CannotRun

if TYPE_CHECKING:
    from trainops.render import Renderer

FOLDER = "renders-v1"
_MAX_REFERENCE = 1024  # longer strings are inline patches, not file names


def _strings(node: object) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


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


def inputs(directory: Path, mirror_dir: Path | None) -> list[str] | None:
    """What a render of `directory` reads, as strings to digest; None when it cannot be pinned."""
    parts: list[str] = []
    files: set[Path] = set()
    for folder in kustomization.reachable(directory):
        try:
            files.update(path for path in folder.iterdir() if path.is_file())
        except OSError:
            return None
        for value in _strings(kustomization.read_kustomization(folder)):
            if kustomization.is_remote(value):
                commit = _remote_commit(value, mirror_dir)
                if commit is None:
                    return None
                parts.append(f"remote {value} {commit}")
                continue
            for candidate in {value, value.partition("=")[2]}:
                if candidate and "\n" not in candidate and len(candidate) < _MAX_REFERENCE:
                    path = folder / candidate
                    if path.is_file():
                        files.add(path.resolve())
    for path in sorted(files):
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            return None
        parts.append(f"file {path} {digest}")
    return parts


def key(renderer: Renderer, directory: Path, origins: bool) -> str | None:
    read = inputs(directory, renderer.mirror)
    if read is None:
        return None
    backend = renderer.kustomize
    try:
        version = backend.version()
    except CannotRun:
        return None
    return cache.key_of(
        FOLDER, backend.name, version, str(origins), str(directory.resolve()), *read
    )


_STRIPES = 256


class claimed:  # noqa: N801 - used as a function: `with claimed(key):`
    """Held while a root is looked up and rendered: processes that want the same render (test
    workers, two hooks at once) wait for the first and read its entry instead of rendering too.
    Locks are striped over a fixed set of files, so they never pile up. (A class, not a
    generator: the frozen RenderFailure must pass through untouched.)"""

    def __init__(self, entry_key: str) -> None:
        self.path = cache.folder(FOLDER) / "locks" / f"{int(entry_key[:8], 16) % _STRIPES:03d}.lock"
        self.handle: BinaryIO | None = None

    def __enter__(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.handle = open(self.path, "a+b")  # noqa: SIM115 - closed in __exit__
        except OSError:
            return  # no lock without a writable cache: render anyway
        fcntl.flock(self.handle, fcntl.LOCK_EX)

    def __exit__(self, *exc_info: object) -> None:
        if self.handle is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()
            self.handle = None


def load(entry_key: str) -> tuple[str, str, raw_files.PathMap] | None:
    """(rendered text, origin wrapper, path map), or None on a miss or an entry of the wrong shape."""
    payload = cache.load(FOLDER, entry_key)
    if payload is None:
        return None
    try:
        data = json.loads(payload)
        text, wrapper = data["text"], data["wrapper"]
        replacements = tuple((str(a), str(b)) for a, b in data["replacements"])
        trees = tuple((str(a), str(b), str(c)) for a, b, c in data["remote_trees"])
    except (ValueError, KeyError, TypeError):
        return None
    if not isinstance(text, str) or not isinstance(wrapper, str):
        return None
    return text, wrapper, raw_files.PathMap(replacements, trees)


def store(entry_key: str, text: str, wrapper: str, paths: raw_files.PathMap) -> None:
    payload = {
        "text": text,
        "wrapper": wrapper,
        "replacements": paths.replacements,
        "remote_trees": paths.remote_trees,
    }
    cache.store(FOLDER, entry_key, json.dumps(payload).encode())
