"""Converted CRD schemas cached on disk by the CRD's content hash, written atomically.

A pin bump changes the CRD, hence the hash, hence the cache entry: no manual step. An unreadable
entry is converted again (and said once), never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from trainops.mirror import cache_root
from trainops.schema.crd import Converted, convert


def _entry_path(crd: dict) -> Path:
    digest = hashlib.sha256(json.dumps(crd.get("spec"), sort_keys=True).encode()).hexdigest()
    return cache_root() / "schemas" / f"crd-{digest[:32]}.json"


def converted(crd: dict, notes: list[str]) -> Converted:
    path = _entry_path(crd)
    if path.is_file():
        try:
            data = json.loads(path.read_text())
            return Converted(
                data["group"],
                data["kind"],
                data["versions"],
                data["cel_rules"],
                data["name"],
                data["unschematized"],
            )
        except (OSError, ValueError, KeyError, TypeError) as error:
            notes.append(
                f"cache entry {path} is unreadable ({error.__class__.__name__}); converted the CRD again"
            )
    result = convert(crd)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(result.__dict__))
    os.replace(temporary, path)
    return result
