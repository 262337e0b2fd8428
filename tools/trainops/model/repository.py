"""The repository a path lies in: where what trainops reads for it must stay.

A repository under review may name a folder or link to a file anywhere on the reviewer's machine
(`resources: [../../../other-team/app]`, `root-app.yaml -> ~/.kube/config`); kustomize itself
renders a base wherever it lies. What is outside the repository is not the repository's to
show, so trainops reads nothing there.
"""

from __future__ import annotations

import os
from pathlib import Path

# Written at the top of a tree a revision is checked out to (render/revisions.py), which holds
# no `.git`: the top of that tree is the top of the repository as it was.
REVISION_MARK = ".trainops-revision"


def repository_of(path: Path) -> Path | None:
    """The top of the repository `path` lies in: the nearest folder at or above it that holds
    `.git` (a clone, a worktree, a submodule) or a revision's mark; None outside any."""
    try:
        start = path.resolve()
    except (OSError, RuntimeError):  # a symbolic link loop
        return None
    for folder in (start, *start.parents):
        # os.path.exists: a folder that cannot be searched holds no mark we can see (Path.exists
        # raises there).
        if os.path.exists(folder / ".git") or os.path.exists(folder / REVISION_MARK):
            return folder
    return None


def leaves(path: Path, repository: Path | None) -> bool:
    """Whether `path`, its links followed, lies outside `repository` (never, without one)."""
    if repository is None:
        return False
    try:
        return not path.resolve().is_relative_to(repository)
    except (OSError, RuntimeError):
        return True
