"""What kustomize will read, checked before it reads it.

kustomize reads every file a kustomization names with no bound of its own: a FIFO (or socket or
device) blocks it forever, and a few hundred bytes of YAML aliases in a resource grew the
in-process kustomize past 20 GB before the kernel stopped it. So before a root renders, every
local file its kustomizations name is looked at: one that is not a regular file, or is larger
than objects.MAX_FILE_BYTES, is refused, and one kustomize parses as YAML (resources, patches,
CRDs, transformer and replacement configs; not generator sources, which it reads as data) is held
to the size, nesting and alias bounds of model.yaml_bounds. A refusal names the kustomization
entry's file, and the line where the problem shows.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from trainops.model import bounded
from trainops.model.objects import MAX_FILE_BYTES, Unreadable, duplicate_key_in, read_text
from trainops.model.yaml_bounds import bounds_problem
from trainops.render import kustomization

# Read as data, not parsed as YAML: kustomize puts their bytes into ConfigMaps and Secrets.
_DATA_SOURCES = ("configMapGenerator", "secretGenerator", "helmCharts", "helmGlobals")
_SPECIAL = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


@dataclass(frozen=True)
class Refusal:
    file: Path
    line: int | None
    message: str


def _references(folder: Path) -> Iterator[tuple[str, Path, bool]]:
    """(entry as written, the path it names, whether kustomize parses it as YAML) for every
    string of the folder's kustomization that names something in the folder's tree."""
    for field, value in kustomization.read_kustomization(folder).items():
        parsed = field not in _DATA_SOURCES
        for entry in kustomization.strings_in(value):
            if "\n" in entry or kustomization.is_remote(entry):
                continue  # an inline patch, or fetched
            for candidate in kustomization.candidates([entry]):  # generators: key=path
                yield entry, folder / candidate, parsed


def refusal(root: Path) -> Refusal | None:
    """Why kustomize must not be given `root`, or None."""
    for folder in kustomization.reachable(root):
        for entry, path, parsed in _references(folder):
            try:
                status = os.stat(path)
                mode = status.st_mode
            except (OSError, ValueError):
                continue  # missing or unnamable: kustomize says so, at the entry
            if stat.S_ISDIR(mode):
                continue  # a folder is read through its kustomization, itself checked
            if not stat.S_ISREG(mode):
                kind = _SPECIAL.get(stat.S_IFMT(mode), "not a regular file")
                return _at_entry(
                    folder, entry, f"{entry} is {kind}: kustomize would wait on it forever"
                )
            if status.st_size > MAX_FILE_BYTES:  # a generator's data too: kustomize holds it all
                return _at_entry(
                    folder,
                    entry,
                    f"{entry} is larger than {bounded.mebibytes(MAX_FILE_BYTES)}: kustomize is not "
                    "given it (the API server takes at most 3 MiB in one request)",
                )
            if not parsed or not Path(path).resolve().is_relative_to(folder.resolve()):
                continue  # outside the folder: kustomize refuses to load it, unread
            try:
                text = read_text(path)
            except Unreadable:
                continue  # kustomize reports a file it cannot read
            problem = bounds_problem(text)
            if problem is not None:
                line, reason = problem
                return Refusal(path, line + 1, f"{reason}; kustomize is not given it")
            duplicate = duplicate_key_in(text)
            if duplicate is not None:  # kustomize says so too, but names neither file nor line
                return Refusal(path, duplicate[0] + 1, f"YAML syntax error: {duplicate[1]}")
    return None


def _at_entry(folder: Path, entry: str, message: str) -> Refusal:
    where = kustomization.locate_entry(folder, entry)
    file, line = where if where else (folder, None)
    return Refusal(file, line, message)
