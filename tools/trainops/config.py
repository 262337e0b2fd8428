"""The repository's `trainops.yaml`: which roots `trainops validate` renders by default."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from trainops.errors import CannotRun

CONFIG_NAME = "trainops.yaml"
_KNOWN_KEYS = {"roots"}


@dataclass(frozen=True)
class Config:
    """`roots`: glob patterns, relative to the config file, of kustomizations or manifest folders."""

    folder: Path
    roots: list[str] = field(default_factory=list)
    file: Path | None = None

    def root_paths(self) -> list[Path]:
        paths: list[Path] = []
        for pattern in self.roots:
            matched = sorted(p for p in self.folder.glob(pattern) if p.is_dir() or p.is_file())
            if not matched:
                raise CannotRun(f"{self.file}: root pattern {pattern!r} matches nothing")
            paths.extend(matched)
        return paths


def load_config(path: Path | None) -> Config | None:
    """The config at `path`, or `trainops.yaml` in the working folder if there is one."""
    if path is None:
        path = Path(CONFIG_NAME)
        if not path.is_file():
            return None
    elif not path.is_file():
        raise CannotRun(f"{path}: config file does not exist")
    try:
        data = yaml.load(path.read_text(), Loader=yaml.CSafeLoader) or {}
    except yaml.MarkedYAMLError as error:
        line = error.problem_mark.line + 1 if error.problem_mark else "?"
        raise CannotRun(f"{path}:{line}: YAML syntax error: {error.problem}") from None
    if not isinstance(data, dict):
        raise CannotRun(f"{path}: the config must be a mapping with a `roots` list")
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise CannotRun(f"{path}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_KNOWN_KEYS))}")
    roots = data.get("roots", [])
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        raise CannotRun(f"{path}: `roots` must be a list of glob patterns (strings)")
    return Config(folder=path.parent.resolve(), roots=roots, file=path)
