"""Write the schema catalog in kubeconform's layout, one folder per Kubernetes version.

Core kinds keep kubernetes-validate's names (`deployment-apps-v1.json`: kind, the group's first
label, version) with their `$ref`s pointing at the `_definitions.json` beside them; custom
resources are named with their full group (`pytorchjob-kubeflow.org-v1.json`). With kubeconform:

    -schema-location 'DIR/v1.32/{{.ResourceKind}}{{.KindSuffix}}.json'
    -schema-location 'DIR/v1.32/{{.ResourceKind}}-{{.Group}}-{{.ResourceAPIVersion}}.json'
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from trainops.knowledge.schema import core
from trainops.knowledge.schema.catalog import Catalog

_ABSOLUTE_REF = '"/api/_definitions.json#'


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def export(catalog: Catalog, out: Path) -> dict[str, int]:
    """Files written per Kubernetes version folder."""
    written = {}
    for version in catalog.kubernetes_versions:
        folder = out / version
        folder.mkdir(parents=True, exist_ok=True)
        count = 0
        for source in sorted(core.folder(version).glob("*.json")):
            if source.name == "all.json":
                continue
            schema = json.loads(source.read_text().replace(_ABSOLUTE_REF, '"_definitions.json#'))
            # Without $id, a validator resolves _definitions.json beside the file, not on the web.
            schema.pop("$id", None)
            _write(folder / source.name, json.dumps(schema))
            count += 1
        for (group, api_version, kind), schema in sorted(catalog.crd_schemas.items()):
            _write(
                folder / f"{kind.lower()}-{group}-{api_version}.json", json.dumps(schema, indent=1)
            )
            count += 1
        written[version] = count
    return written
