"""Offline rendering of remote files and remote bases, from a temporary copy of the tree.

Remote bases are checked out once per commit in the cache (see remote_bases) and named by path.
Remote *files* kustomize fetches over HTTP, not git: some upstreams ship a single manifest and no kustomization (Volcano's installer). A kustomization
can list it by a pinned raw URL, `https://raw.githubusercontent.com/<owner>/<repo>/<tag>/<path>`
(or `https://github.com/<owner>/<repo>/raw/<tag>/<path>`). With a mirror, kustomize cannot be
redirected for those, so the tool renders a temporary copy of the kustomization tree in which each
such entry names the same file read from the mirror at that tag.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from trainops.model import cache
from trainops.render import kustomization, mirror, remote_bases
from trainops.render.crd_stubs import Composition, has_stub_tree
from trainops.render.remote_bases import RemoteBase

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
            base = remote_bases.parse(entry)
            refused = (None if parse_raw_url(entry) else mirror.refused_remote(entry, offline)) or (
                remote_bases.refused(base) if base else None
            )
            if refused:
                miss = mirror.MirrorMiss(refused)
                miss.folder, miss.entry = folder, entry
                raise miss


@dataclass(frozen=True)
class PathMap:
    """How paths of the temporary tree kustomize read map back to what the user wrote."""

    replacements: tuple[tuple[str, str], ...] = ()  # (temporary path, real path or URL), in order
    remote_trees: tuple[tuple[str, str, str], ...] = ()  # (checked-out folder, repo URL, ref)
    fetches: bool = False  # a remote entry is left for kustomize to fetch

    def restore(self, text: str) -> str:
        for temporary, real in self.replacements:
            text = text.replace(temporary, real)
        return text

    def remote_origin(self, local: str) -> str | None:
        """`repo//path?ref=` for a file of a remote base read from its checkout, as kustomize
        names it when it clones the base itself."""
        for folder, repo_url, ref in self.remote_trees:
            if local.startswith(folder + os.sep):
                return f"{repo_url}//{local[len(folder) + 1 :]}?ref={ref}"
        return None


def _remote_bases(
    root: Path, mirror_dir: Path, composition: Composition | None
) -> list[tuple[Path, RemoteBase, str, Path]]:
    """(kustomization folder, remote base, commit, its checkout) for each remote base the mirror
    holds. A checkout whose stubbed copy kustomize will read instead (values only) is not
    verified here: offline_tree verifies it if kustomize reads it after all."""
    found = []
    for folder in kustomization.reachable(root):
        for entry in kustomization.read_kustomization(folder).get("resources") or []:
            base = remote_bases.parse(entry) if isinstance(entry, str) else None
            if base is None:
                continue
            commit = remote_bases.commit_of(mirror_dir, base.owner_repo, base.ref)
            if commit is None:  # kustomize's own fetch fails, and says why
                continue
            read_elsewhere = (
                composition is not None
                and composition.values_only
                and has_stub_tree(remote_bases.held_as(mirror_dir, base.owner_repo), commit)
            )
            checkout = remote_bases.tree(
                mirror_dir, base.owner_repo, commit, verify=not read_elsewhere
            )
            escape = remote_bases.outside(checkout, base)
            if escape:
                miss = mirror.MirrorMiss(escape)
                miss.folder, miss.entry = folder, entry
                raise miss
            found.append((folder, base, commit, checkout))
    return found


def _localize(copied: Path, entry: str, local: str, copy_top: Path, top: Path) -> None:
    kustomization_file = kustomization.kustomization_file(copied)
    assert kustomization_file is not None
    if kustomization_file.is_symlink():  # written as a file of the copy, never through the link
        if not kustomization_file.resolve().is_relative_to(copy_top.resolve()):
            raise UnsafeFile(
                top / kustomization_file.relative_to(copy_top),
                "a kustomization file that is a symbolic link to a file outside the tree it "
                "renders: make it a regular file",
            )
        text = kustomization_file.read_text()
        kustomization_file.unlink()
    else:
        text = kustomization_file.read_text()
    kustomization_file.write_text(text.replace(entry, local))


@contextmanager
def offline_tree(
    root: Path, mirror_dir: Path | None, composition: Composition | None = None
) -> Iterator[tuple[Path, PathMap]]:
    """The folder to render and how to map its paths back to the user's.

    With a mirror, a temporary copy of the kustomization tree names each raw file and remote
    base by a local path: raw files read from the mirror, remote bases checked out in the cache.
    With a `composition`, the CRDs' versions of remote bases and files are placeholders
    (crd_stubs) where they can be.
    Raises mirror.MirrorMiss (with `.folder` and `.entry` set) when the mirror lacks a file, or
    a remote entry must not be fetched (a ref git would read as an option, another host offline).
    """
    _refuse_remotes(root, offline=mirror_dir is not None)
    files = raw_files(root) if mirror_dir is not None else []
    bases = _remote_bases(root, mirror_dir, composition) if mirror_dir is not None else []
    if not files and not bases:
        yield root, PathMap(fetches=_fetches(kustomization.reachable(root)))
        return
    assert mirror_dir is not None
    folders = kustomization.reachable(root)
    top = Path(os.path.commonpath(folders))
    with tempfile.TemporaryDirectory(prefix=f"trainops-render-{os.getpid()}-") as scratch:
        copy_top = Path(scratch) / "tree"
        _copy_tree(folders, top, copy_top)
        replacements: list[tuple[str, str]] = []
        rewritten: set[Path] = set()
        for folder, raw in files:
            try:
                content = mirror.mirror_file(mirror_dir, raw.repo, raw.ref, raw.path)
            except mirror.MirrorMiss as miss:
                miss.folder, miss.entry = folder, raw.url
                raise
            if composition is not None:
                content = composition.raw_file(content, raw.url)
            copied = copy_top / folder.relative_to(top)
            local = copied / _LOCAL_FOLDER
            if folder not in rewritten and (local.is_symlink() or local.exists()):
                # The name is the tool's: whatever the user's tree holds there (a link to a
                # folder outside, say) must not be written through.
                cache.discard(local)
            local.mkdir(exist_ok=True)
            (local / raw.local_name).write_bytes(content)
            _localize(copied, raw.url, f"{_LOCAL_FOLDER}/{raw.local_name}", copy_top, top)
            rewritten.add(folder)
            replacements.append((str(copied / _LOCAL_FOLDER / raw.local_name), raw.url))
        trees, base_folders = [], []
        for folder, base, commit, checkout in bases:
            copied = copy_top / folder.relative_to(top)
            read = (
                composition.folder_for(
                    checkout, remote_bases.held_as(mirror_dir, base.owner_repo), commit, base.path
                )
                if composition is not None
                else checkout
            )
            if read == checkout:  # verified, if it was not (kustomize reads it)
                remote_bases.tree(mirror_dir, base.owner_repo, commit)
            _localize(copied, base.entry, os.path.relpath(read / base.path, copied), copy_top, top)
            rewritten.add(folder)
            # The checkout's kustomizations, which its stubbed copy shares (crd_stubs stubs
            # only files of CRDs) and outside() has just read.
            base_folders.append(checkout / base.path)
            trees.append((str(read), base.repo_url, base.ref))
        replacements.append((str(copy_top), str(top)))
        # What the copy reads, without walking it (every file in it is new, so read anew): the
        # folders it copied as they were, those it rewrote, and the bases those now name.
        listed = [
            copy_top / folder.relative_to(top) if folder in rewritten else folder
            for folder in folders
        ]
        listed += [included for base in base_folders for included in kustomization.reachable(base)]
        yield (
            copy_top / root.resolve().relative_to(top),
            PathMap(tuple(replacements), tuple(trees), _fetches(listed)),
        )


class UnsafeFile(Exception):
    """A file of a kustomization's folder that the offline copy must not read: a device, a FIFO
    or a socket (reading one blocks, or never ends), or a kustomization file linked from outside."""

    def __init__(self, path: Path, why: str = "") -> None:
        super().__init__(
            why
            or "not a regular file, folder or symbolic link (a device, FIFO or socket), which "
            "kustomize cannot read: remove it from the kustomization's folder"
        )
        self.path = path


_NOT_COPIED = (".git", ".venv", "__pycache__")


def _copy_tree(folders: list[Path], top: Path, copy_top: Path) -> None:
    """Copy `folders` to where they sit under `copy_top` as under `top`, reading nothing through
    a symbolic link: kustomize then applies its load restrictions to the copy exactly as to the
    user's tree (a link to a file outside the kustomization's folder is refused, not read).

    A link is made again in the copy to where the user's link leads: into the copy where that was
    copied, else to the same place outside it. Devices, FIFOs and sockets are refused."""
    chosen = set(folders)
    links: list[Path] = []
    for folder in folders:
        if any(parent in chosen for parent in folder.parents):
            continue  # copied with the folder above it
        for parent, names, files in os.walk(folder):
            names[:] = [n for n in names if n not in _NOT_COPIED]
            for name in (*names, *files):
                path = Path(parent, name)
                mode = path.lstat().st_mode
                if stat.S_ISLNK(mode):
                    links.append(path)
                elif not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    raise UnsafeFile(path)
        shutil.copytree(
            folder,
            copy_top / folder.relative_to(top),
            symlinks=True,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(*_NOT_COPIED),
        )
    for link in links:
        copied = copy_top / link.relative_to(top)
        target = Path(os.path.realpath(link))
        inside = target.is_relative_to(top) and os.path.lexists(copy_top / target.relative_to(top))
        copied.unlink()
        copied.symlink_to(copy_top / target.relative_to(top) if inside else target)


def _fetches(folders: list[Path]) -> bool:
    """Whether a kustomization of `folders` lists a remote entry (kustomize fetches it)."""
    return any(kustomization.remote_entries(folder) for folder in folders)
