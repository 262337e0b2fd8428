"""How paths are shown to people: relative to the working folder when inside it."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


def display(path: Path | str) -> str:
    return _display(str(path), os.getcwd())


@lru_cache(maxsize=4096)  # a run shows the same few hundred files over and over
def _display(path: str, cwd: str) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path(cwd).resolve())) or "."
    except ValueError:
        return path
