"""How paths are shown to people: relative to the working folder when inside it."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


def display(path: Path | str) -> str:
    return _display(str(path), os.getcwd())


@lru_cache(maxsize=1 << 16)  # a run shows the same files over and over (a corpus has 10,000)
def _display(path: str, cwd: str) -> str:
    real, real_cwd = _real_file(path), _real_folder(cwd)
    if real == real_cwd:
        return "."
    inside = real_cwd if real_cwd.endswith(os.sep) else real_cwd + os.sep
    return real[len(inside) :] if real.startswith(inside) else path


def _real_file(path: str) -> str:
    """Path(path).resolve(), with the folder resolved once for all its files: a file that is no
    link is where its folder really is (one system call instead of one per component)."""
    folder, name = os.path.split(os.path.abspath(path))
    if not name or os.path.islink(path):
        return str(Path(path).resolve())
    return os.path.join(_real_folder(folder), name)


@lru_cache(maxsize=4096)
def _real_folder(folder: str) -> str:
    return str(Path(folder).resolve())
