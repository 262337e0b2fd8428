"""Offline rendering of remote *files* (kustomize fetches those over HTTP, not git).

Some upstreams ship a single manifest and no kustomization (Volcano's installer). A kustomization
can list it by a pinned raw URL, `https://raw.githubusercontent.com/<owner>/<repo>/<tag>/<path>`
(or `https://github.com/<owner>/<repo>/raw/<tag>/<path>`). With a mirror, kustomize cannot be
redirected for those, so the tool renders a temporary copy of the kustomization tree in which each
such entry names the same file read from the mirror at that tag.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from trainops import kustomization, mirror

_RAW_URLS = (
    re.compile(
        r"^https://raw\.githubusercontent\.com/(?P<repo>[^/]+/[^/]+)/(?P<ref>[^/]+)/(?P<path>.+)$"
    ),
    re.compile(r"^https://github\.com/(?P<repo>[^/]+/[^/]+)/raw/(?P<ref>[^/]+)/(?P<path>.+)$"),
)
_LOCAL_FOLDER = ".trainops-mirror"


@dataclass(frozen=True)
class RawFile:
    url: str
    repo: str
    ref: str
    path: str

    @property
    def local_name(self) -> str:
        return f"{self.repo.replace('/', '-')}-{self.ref}-{Path(self.path).name}"


def parse_raw_url(entry: str) -> RawFile | None:
    for pattern in _RAW_URLS:
        match = pattern.match(entry)
        if match:
            return RawFile(entry, match["repo"].removesuffix(".git"), match["ref"], match["path"])
    return None


def raw_files(root: Path) -> list[tuple[Path, RawFile]]:
    """(kustomization folder, raw file) for every raw-file resource reachable from `root`."""
    found = []
    for folder in kustomization.reachable(root):
        for entry in kustomization.read_kustomization(folder).get("resources") or []:
            raw = parse_raw_url(entry) if isinstance(entry, str) else None
            if raw:
                found.append((folder, raw))
    return found


def _refuse_remotes(root: Path, offline: bool) -> None:
    for folder in kustomization.reachable(root):
        for entry in kustomization.remote_entries(folder):
            refused = None if parse_raw_url(entry) else mirror.refused_remote(entry, offline)
            if refused:
                miss = mirror.MirrorMiss(refused)
                miss.folder, miss.entry = folder, entry
                raise miss


@contextmanager
def offline_tree(
    root: Path, mirror_dir: Path | None
) -> Iterator[tuple[Path, Callable[[str], str]]]:
    """The folder to render and a function mapping temporary paths in messages back to real ones.

    Raises mirror.MirrorMiss (with `.folder` and `.entry` set) when the mirror lacks a file, or
    a remote entry must not be fetched (a ref git would read as an option, another host offline).
    """
    _refuse_remotes(root, offline=mirror_dir is not None)
    entries = raw_files(root) if mirror_dir is not None else []
    if not entries:
        yield root, lambda text: text
        return
    folders = kustomization.reachable(root)
    top = Path(os.path.commonpath(folders))
    with tempfile.TemporaryDirectory(prefix="trainops-render-") as scratch:
        copy_top = Path(scratch) / "tree"
        for folder in folders:
            shutil.copytree(
                folder,
                copy_top / folder.relative_to(top),
                dirs_exist_ok=True,
                ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__"),
            )
        local_urls: dict[str, str] = {}
        for folder, raw in entries:
            assert mirror_dir is not None  # entries are only looked for with a mirror
            try:
                content = mirror.mirror_file(mirror_dir, raw.repo, raw.ref, raw.path)
            except mirror.MirrorMiss as miss:
                miss.folder, miss.entry = folder, raw.url
                raise
            copied = copy_top / folder.relative_to(top)
            (copied / _LOCAL_FOLDER).mkdir(exist_ok=True)
            (copied / _LOCAL_FOLDER / raw.local_name).write_bytes(content)
            kustomization_file = kustomization.kustomization_file(copied)
            assert kustomization_file is not None  # copied from a folder that has one
            text = kustomization_file.read_text()
            kustomization_file.write_text(
                text.replace(raw.url, f"{_LOCAL_FOLDER}/{raw.local_name}")
            )
            local_urls[str(copied / _LOCAL_FOLDER / raw.local_name)] = raw.url

        def restore(text: str) -> str:
            for local, url in local_urls.items():
                text = text.replace(local, url)
            return text.replace(str(copy_top), str(top))

        yield copy_top / root.resolve().relative_to(top), restore
