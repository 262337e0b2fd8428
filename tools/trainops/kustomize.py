"""Find and run the real kustomize: a standalone `kustomize`, or the one built into `kubectl`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from trainops.errors import CannotRun


@dataclass(frozen=True)
class Kustomize:
    executable: str
    standalone: bool

    @property
    def name(self) -> str:
        return "kustomize" if self.standalone else "kubectl kustomize"

    def build_command(self, directory: Path) -> list[str]:
        # Exec/alpha plugins and Helm inflation are off unless asked for; we never ask.
        verb = ["build"] if self.standalone else ["kustomize"]
        return [self.executable, *verb, str(directory)]

    def version(self) -> str:
        if self.standalone:
            out = self._run([self.executable, "version"]).strip()
            return out.removeprefix("{Version:kustomize/").split(" ")[0]
        out = self._run([self.executable, "version", "--client", "--output=json"])
        return json.loads(out).get("kustomizeVersion", "unknown")

    def _run(self, argv: list[str]) -> str:
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise CannotRun(f"{' '.join(argv)} failed: {last}")
        return done.stdout


def find_kustomize() -> Kustomize:
    """TRAINOPS_KUSTOMIZE if set, else `kustomize` on PATH, else `kubectl` on PATH."""
    chosen = os.environ.get("TRAINOPS_KUSTOMIZE")
    if chosen:
        found = shutil.which(chosen)
        if not found:
            raise CannotRun(f"TRAINOPS_KUSTOMIZE={chosen}: no such executable")
        return Kustomize(found, standalone=Path(found).name != "kubectl")
    for name, standalone in (("kustomize", True), ("kubectl", False)):
        found = shutil.which(name)
        if found:
            return Kustomize(found, standalone)
    raise CannotRun(
        "neither kustomize nor kubectl is on PATH: install kubectl >= 1.27 "
        "(it has kustomize built in) or kustomize >= 5, or set TRAINOPS_KUSTOMIZE"
    )
