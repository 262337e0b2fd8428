"""Helpers the tests share: the repository, the offline mirror, and the real CLI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
RULE_FIXTURES = Path(__file__).resolve().parent / "rules" / "fixtures"


def _mirror() -> Path | None:
    configured = os.environ.get("TRAINOPS_MIRROR")
    candidate = Path(configured) if configured else REPO.parent / "shared" / "mirror"
    return candidate.resolve() if (candidate / "github.com").is_dir() else None


MIRROR = _mirror()


def run_trainops(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess, as a user runs it."""
    full_env = dict(os.environ)
    if MIRROR is not None:
        full_env["TRAINOPS_MIRROR"] = str(MIRROR)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "trainops", *args], cwd=cwd, env=full_env, capture_output=True, text=True
    )


def load_docs(text: str) -> list[dict]:
    return [doc for doc in yaml.load_all(text, Loader=yaml.CSafeLoader) if doc]


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    return root
