"""The repository at a git revision, as a folder of files, without touching the repository.

A revision is checked out through a temporary index (`git read-tree` + `git checkout-index`)
into a temporary folder: the repository's index, working tree, branches and worktree list are
left alone, nothing needs pruning if the process is killed, and it works in a shallow CI clone.
The working tree itself (uncommitted changes included) is used in place.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from trainops.model import repository
from trainops.model.errors import CannotRun

WORKTREE = "working tree"


@dataclass(frozen=True)
class Revision:
    label: str  # the ref as given, or WORKTREE
    commit: str | None  # None for the working tree

    def describe(self) -> str:
        return self.label if self.commit is None else f"{self.label} ({self.commit[:12]})"


def _git(top: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(
            ["git", "-C", str(top), *args],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, **(env or {})},
        )
    except FileNotFoundError:
        raise CannotRun("git is not installed: trainops diff needs it to read revisions") from None


def repository_top(folder: Path) -> Path:
    done = _git(folder, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise CannotRun(
            f"{folder}: not inside a git repository; trainops diff compares git revisions"
        )
    return Path(done.stdout.strip())


def resolve(top: Path, ref: str) -> Revision:
    done = _git(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if done.returncode != 0 or not done.stdout.strip():
        if _git(top, "rev-parse", "--verify", "--quiet", "HEAD").returncode != 0:
            raise CannotRun(f"{top}: the repository has no commits yet; commit, then compare")
        raise CannotRun(
            f"{ref}: not a commit in {top} (a branch, tag or commit id, e.g. origin/main)"
        )
    return Revision(ref, done.stdout.strip())


@contextmanager
def checked_out(top: Path, revision: Revision) -> Iterator[Path]:
    """A folder holding the repository's files at `revision` (the repository itself for the
    working tree), removed afterwards."""
    if revision.commit is None:
        yield top
        return
    with tempfile.TemporaryDirectory(prefix=f"trainops-rev-{os.getpid()}-") as scratch:
        tree = Path(scratch) / "tree"
        index = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        for args in (
            ("read-tree", revision.commit),
            ("checkout-index", "--all", f"--prefix={tree}/"),
        ):
            done = _git(top, *args, env=index)
            if done.returncode != 0:
                cause = (done.stderr.strip().splitlines() or ["git failed"])[-1]
                raise CannotRun(f"cannot check out {revision.describe()}: {cause}")
        (tree / repository.REVISION_MARK).touch()  # the top of the repository as it was
        yield tree
