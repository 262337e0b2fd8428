"""How paths are shown to people: relative to the working folder when inside it."""

from __future__ import annotations

from pathlib import Path


def display(path: Path | str) -> str:
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve())) or "."
    except ValueError:
        return str(path)
