"""The schemas of CRD roots no checked root includes, cached by what renders those roots.

`trainops validate FILE` in a repository checks custom resources against the CRDs of every
crdRoots entry: megabytes of CRDs that a run would read back from the render cache and parse, to
use a few kinds. When none of those roots changed (each one's render-cache key: the files
kustomize reads, the remote bases' pinned commits, the kustomize version), their CRDs' converted
schemas come from one entry instead, and the roots are neither read nor parsed. The entry is
written only after every one of them rendered and parsed cleanly, so a hit stands for a clean load.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from trainops.knowledge.schema import cache as schema_cache
from trainops.knowledge.schema import crd as converter
from trainops.knowledge.schema.catalog import CrdSchemas
from trainops.model import cache
from trainops.model.rendered import Rendered
from trainops.render import kustomization, render_cache
from trainops.render.renderer import Renderer

FOLDER = "crd-roots-v1"
_CODE = cache.source_digest(__file__, converter.__file__)


@dataclass(frozen=True)
class CrdFrom:
    """A CRD's schemas, and where it came from: the file (or remote origin) and the root that
    rendered it, from which the catalog names the folder that installs it."""

    file: str
    root: str
    schemas: CrdSchemas


def key(renderer: Renderer | None, roots: Iterable[tuple[str, Path]]) -> str | None:
    """The entry's key for these (name, path) roots; None when there are none or one of them
    cannot be keyed (no cache, not a kustomization, inputs trainops cannot read), and then the
    roots load as any other."""
    roots = list(roots)
    if not roots or renderer is None or not renderer.use_cache:
        return None
    # Files and roots are named relative to where the command runs, as findings name them.
    parts = [FOLDER, _CODE, os.getcwd()]
    for name, path in roots:
        if not path.is_dir() or kustomization.kustomization_file(path) is None:
            return None
        render_key = render_cache.key(renderer.kustomize, renderer.mirror, path, origins=True)
        if render_key is None:
            return None
        parts += [name, render_key.digest]
    return cache.key_of(*parts)


def load(entry_key: str, notes: list[str]) -> list[CrdFrom] | None:
    payload = cache.load(FOLDER, entry_key, notes)
    if payload is None:
        return None
    try:
        return [
            CrdFrom(
                str(item["file"]),
                str(item["root"]),
                CrdSchemas(schema_cache.from_data(item["converted"]), dict(item["cel"])),
            )
            for item in json.loads(payload)
        ]
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        notes.append(
            f"cache entry {cache.entry_path(FOLDER, entry_key)} is unreadable "
            f"({error.__class__.__name__}); read the CRD roots again"
        )
        return None


def of(loaded: list[Rendered], notes: list[str]) -> list[CrdFrom]:
    """The CRDs of rendered roots, first of each name, in order."""
    found: dict[str, CrdFrom] = {}
    for result in loaded:
        for obj in result.objects:
            if (
                obj.kind == "CustomResourceDefinition"
                and obj.api_version == "apiextensions.k8s.io/v1"
                and obj.name not in found
            ):
                found[obj.name] = CrdFrom(
                    obj.file, result.root, CrdSchemas.of(obj.doc, notes, obj.source)
                )
    return list(found.values())


def store(entry_key: str, crds: list[CrdFrom]) -> None:
    payload = [
        {
            "file": crd.file,
            "root": crd.root,
            "converted": crd.schemas.converted.__dict__,
            "cel": crd.schemas.cel,
        }
        for crd in crds
    ]
    cache.store(FOLDER, entry_key, json.dumps(payload).encode())
