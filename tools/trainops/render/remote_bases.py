"""Remote bases read from the cache: each repository fetched from the mirror once per commit.

kustomize clones a remote base (`https://github.com/<owner>/<repo>.git//<path>?ref=<tag>`) into a
temporary folder on every build, so a run that renders ten roots clones the same repository ten
times. With a mirror, the tool resolves the ref to its commit, checks that commit out once into
`<cache>/remotes/<owner>/<repo>/<commit>/` (a commit's tree never changes, so the folder is valid
for good) and has kustomize read the base from there, as a local folder. Nothing then runs git
during a build, which also lets the in-process kustomize render remote bases.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs

from trainops.model import bounded, cache, processes
from trainops.model.errors import CannotRun
from trainops.render import kustomization, mirror

GIT_TIMEOUT_SECONDS = processes.GIT_SECONDS * 2  # a checkout writes a whole tree
_COMPLETE = ".trainops-complete"
_INDEX = ".trainops-index"
_lock = threading.Lock()
_commits: dict[tuple[Path, str, str], str | None] = {}
_verified: set[Path] = set()


@dataclass(frozen=True)
class RemoteBase:
    entry: str  # as written in the kustomization
    repo_url: str  # what kustomize records as the origin's repo
    owner_repo: str
    path: str
    ref: str


def parse(entry: str) -> RemoteBase | None:
    """A GitHub remote base pinned by `?ref=`, or None for anything else (left to kustomize)."""
    scheme = "https://" if entry.startswith("https://") else ""
    rest = entry.removeprefix(scheme)
    if not rest.startswith("github.com/"):
        return None
    repo, separator, path_and_query = rest.partition("//")
    if not separator:
        return None
    path, _, query = path_and_query.partition("?")
    parameters = parse_qs(query)
    refs = parameters.pop("ref", None) or parameters.pop("version", None)
    if not refs or parameters or repo.count("/") != 2:
        return None  # unpinned, or options (timeout, submodules) kustomize must see
    owner_repo = repo.removeprefix("github.com/").removesuffix(".git")
    return RemoteBase(entry, scheme + repo, owner_repo, path.strip("/"), refs[0])


def refused(base: RemoteBase) -> str | None:
    """Why `base` must not be checked out or read: an owner, repository or path that is not a
    plain name inside the repository (`..` would climb out of the mirror or the checkout)."""
    if not _plain_repository(base.owner_repo):
        return f"repository {base.owner_repo!r} is not a plain <owner>/<repo> name"
    if base.path and mirror.unsafe_path(base.path):
        return mirror.unsafe_path(base.path)
    return None


def _plain_repository(owner_repo: str) -> bool:
    return owner_repo.count("/") == 1 and mirror.unsafe_path(owner_repo) is None


def outside(checkout: Path, base: RemoteBase) -> str | None:
    """Why the base's folder, or a folder its kustomizations include, lies outside the checkout
    (through `..` or a symbolic link), or None: kustomize must read nothing else of this machine."""
    return _outside(str(checkout), base.path, base.owner_repo)


# A checkout is a commit's tree, never changed once made: each base of it is walked once a run
# (every root that includes an operator asks again).
@functools.lru_cache(maxsize=256)
def _outside(checkout_folder: str, path: str, owner_repo: str) -> str | None:
    checkout = Path(checkout_folder)
    top = checkout.resolve()
    start = (checkout / path).resolve()
    for folder in [start, *kustomization.reachable(start)]:
        if folder != top and top not in folder.parents:
            where = "its path" if folder == start else f"a folder it includes ({folder.name})"
            return f"{where} leads outside the repository {owner_repo}"
    return None


def _git(
    argv: list[str], index: Path | None = None, text: bool = False
) -> subprocess.CompletedProcess:
    # Through processes.run: a time limit, and stopped with the rest on SIGTERM. Git reads no
    # configuration the mirror or the user's files chose (mirror.locked_environment).
    env = mirror.locked_environment()
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return processes.run(["git", *argv], timeout=GIT_TIMEOUT_SECONDS, env=env, text=text)


def held_as(mirror_dir: Path, owner_repo: str) -> str:
    """`owner_repo` as the mirror holds it: what the cache keeps its commits' files under."""
    return f"{mirror.source_key(mirror_dir)}/{owner_repo}"


def commit_of(mirror_dir: Path, owner_repo: str, ref: str) -> str | None:
    """The commit `ref` names in the mirror's `owner_repo`, or None when the mirror lacks it."""
    key = (mirror_dir, owner_repo, ref)
    with _lock:
        if key in _commits:
            return _commits[key]
    repository = mirror.shadow_mirror(mirror_dir) / "github.com" / f"{owner_repo}.git"
    commit = None
    if _plain_repository(owner_repo) and repository.is_dir() and not ref.startswith("-"):
        refs = _refs(repository)
        kept_under = cache.key_of(_COMMITS_FOLDER, owner_repo, ref, *refs) if refs else None
        kept = cache.load(_COMMITS_FOLDER, kept_under) if kept_under else None
        if kept is not None and _COMMIT.fullmatch(kept):
            commit = kept.decode()
        else:
            done = _git(
                [
                    *("--git-dir", str(repository), "rev-parse", "--verify", "--quiet"),
                    f"{ref}^{{commit}}",
                ],
                text=True,
            )
            commit = done.stdout.strip() if done.returncode == 0 else None
            if kept_under and commit and _COMMIT.fullmatch(commit.encode()):
                cache.store(_COMMITS_FOLDER, kept_under, commit.encode())
    with _lock:
        _commits[key] = commit
    return commit


# The commit a ref names, kept by everything git reads to resolve it in a shadow repository: its
# HEAD, config and packed refs (mirror.py copies them; it writes no loose ref). Resolving it
# costs a git process per remote base, every run. A shadow holding a loose ref is asked each run.
_COMMITS_FOLDER = "commits-v1"
_COMMIT = re.compile(rb"[0-9a-f]{40}")


def _refs(repository: Path) -> list[bytes] | None:
    try:
        if any((repository / "refs").iterdir()):
            return None
        # The shadow's own copies: never a FIFO or link unless something else put it there.
        return [
            bounded.read_regular(repository / name, mirror.FILE_BYTES, follow=False)
            for name in ("HEAD", "config", "packed-refs")
        ]
    except OSError:
        return None


def tree(mirror_dir: Path, owner_repo: str, commit: str, verify: bool = True) -> Path:
    """The checked-out files of `owner_repo` at `commit`, checked out on first use and verified
    against the commit (git compares them with the index kept beside them) once per run; not
    verified with `verify` False, for a caller that reads no file of it but its layout
    (kustomize reads the stubbed copy of the commit instead: raw_files.offline_tree)."""
    if not _plain_repository(owner_repo):
        raise CannotRun(f"repository {owner_repo!r} is not a plain <owner>/<repo> name")
    target = cache.cache_root() / "remotes" / held_as(mirror_dir, owner_repo) / commit
    with _lock:
        if target in _verified:
            return target
        checking = _checking.setdefault(target, threading.Lock())
    with checking:  # one thread checks it out or verifies it; the others wait and take it
        try:
            return _tree(mirror_dir, owner_repo, commit, target, verify)
        except (OSError, CannotRun) as error:
            # A cache that filled up (or went read-only) since the run began: the checkout
            # is made in the run's temporary cache instead, if that is why it failed.
            refused = _write_failure(error)
            if refused is None or cache.temporary(target):
                raise
    moved = cache.fall_back(refused) / "remotes" / held_as(mirror_dir, owner_repo) / commit
    return _tree(mirror_dir, owner_repo, commit, moved, verify)


_WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG}


# What git says when it cannot write a checkout's files ("unable to write file", "unable to
# create file") or its index (csum-file.c flush(): "sha1 file '…' write error", with ". Out of
# diskspace" when write() wrote nothing): the cause is the disk's, or the folder's mode.
_GIT_WRITE_FAILURES = ("unable to write", "unable to create", "write error")


def _write_failure(error: OSError | CannotRun) -> OSError | None:
    """The write error a failed checkout comes down to, or None when it failed otherwise."""
    if isinstance(error, OSError):
        return error if error.errno in _WRITE_ERRORS else None
    if any(said in str(error) for said in _GIT_WRITE_FAILURES):
        return OSError(errno.ENOSPC, "a checkout could not be written there")
    return None


_checking: dict[Path, threading.Lock] = {}


def _tree(mirror_dir: Path, owner_repo: str, commit: str, target: Path, verify: bool) -> Path:
    with _lock:
        if target in _verified:
            return target
    complete = (target / _COMPLETE).is_file()
    if complete and not verify:
        return target
    repository = mirror.shadow_mirror(mirror_dir) / "github.com" / f"{owner_repo}.git"
    if complete and _unchanged(repository, target):
        with _lock:
            _verified.add(target)
        return target
    cache.sweep(target.parent, f".{commit[:12]}-")  # what runs killed meanwhile left
    scratch = cache.scratch(target.parent, f".{commit[:12]}-")
    try:
        work = scratch / "tree"
        work.mkdir()
        for argv in (["read-tree", commit], ["checkout-index", "--all", "--force"]):
            done = _git(
                ["--git-dir", str(repository), "--work-tree", str(work), *argv],
                index=work / _INDEX,
                text=True,
            )
            if done.returncode != 0:
                raise CannotRun(
                    f"cannot check out {owner_repo} at {commit} from the mirror: {done.stderr.strip()}"
                )
        (work / _COMPLETE).write_text(commit + "\n")
        if target.exists():  # incomplete, or changed since it was checked out: set aside
            with contextlib.suppress(OSError):
                os.rename(target, scratch / "stale")
        try:
            os.rename(work, target)
        except OSError:
            if not (target / _COMPLETE).is_file():  # another process won the race: use its copy
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    with _lock:
        _verified.add(target)
    return target


def _unchanged(repository: Path, target: Path) -> bool:
    """No file of the checkout was changed, removed or added since it was checked out."""
    index = target / _INDEX
    base = ["--git-dir", str(repository), "--work-tree", str(target)]
    if _git([*base, "diff-files", "--quiet"], index=index).returncode != 0:
        # A file whose status changed and not its content (a link to it made, as the stubbed
        # copy of a commit makes: crd_stubs) is compared by content, and its status kept.
        _git([*base, "update-index", "-q", "--refresh"], index=index)
        if _git([*base, "diff-files", "--quiet"], index=index).returncode != 0:
            return False
    added = _git(
        [*base, "ls-files", "--others", f"--exclude={_COMPLETE}", f"--exclude={_INDEX}"],
        index=index,
        text=True,
    )
    return added.returncode == 0 and not added.stdout.strip()
