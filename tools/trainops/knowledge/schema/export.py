"""Write the schema catalog where kubeconform's two conventional schema locations look.

kubeconform v0.7.0 fills a `-schema-location` template per object (pkg/registry/registry.go):
`.NormalizedKubernetesVersion` is "v" + `-kubernetes-version` (x.y.z), `.StrictSuffix` is
"-strict" under `-strict`, `.ResourceKind` the kind lowercased, `.KindSuffix` "-" + the group's
first label + "-" + the version, lowercased (`-v1` for the core group), `.Group` the whole group,
`.ResourceAPIVersion` the version. So:

- core kinds, per Kubernetes version, in its default layout (yannh/kubernetes-json-schema):
  `DIR/v1.32.0-standalone-strict/deployment-apps-v1.json`, kubernetes-validate's own names;
- custom resources, once, in the datreeio/CRDs-catalog layout, by their full group (a first
  label is ambiguous: `batch.volcano.sh` reads as core `batch`):
  `DIR/kubeflow.org/pytorchjob_v1.json`.

    kubeconform -strict -summary -kubernetes-version 1.32.0 \
      -schema-location 'DIR/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json' \
      -schema-location 'DIR/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json'

The CRD location comes first, as in `validate` a CRD's schema wins (a core kind never has a file
there: no CRD can serve a built-in kind). Every file stands alone (the definitions it reaches in
its own `$defs`), as the `-standalone` folders of kubernetes-json-schema do, and declares the
draft `validate` compiles it with (2020-12): kubeconform assumes draft 4 otherwise.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from trainops.knowledge.schema import core
from trainops.knowledge.schema.catalog import Catalog, _pruned

_ABSOLUTE_REF = '"/api/_definitions.json#/$defs/'
_DRAFT = "https://json-schema.org/draft/2020-12/schema"
# What the API server lets a CRD's group, version and kind be (apiextensions validation: a DNS
# subdomain with a dot, DNS labels): nothing else becomes a path under DIR.
_LABEL = r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?"
_GROUP = re.compile(rf"{_LABEL}(?:\.{_LABEL})+")
_NAME = re.compile(r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?")


def core_folder(version: str) -> str:
    """A `v1.N` version's folder: kubeconform's for `-strict -kubernetes-version 1.N.0`."""
    return f"{version}.0-standalone-strict"


def crd_file(group: str, version: str, kind: str) -> str | None:
    """Where the CRD template looks for a custom resource's schema; None for a name no CRD has."""
    if len(group) > 253 or not (
        _GROUP.fullmatch(group) and _NAME.fullmatch(version) and _NAME.fullmatch(kind.lower())
    ):
        return None
    return f"{group}/{kind.lower()}_{version}.json"


@dataclass
class Exported:
    core: dict[str, int] = field(default_factory=dict)  # folder -> core schemas written
    crds: int = 0
    refused: list[str] = field(default_factory=list)  # custom resources with no file name


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def export(catalog: Catalog, out: Path) -> Exported:
    exported = Exported()
    for version in catalog.kubernetes_versions:
        folder = out / core_folder(version)
        folder.mkdir(parents=True, exist_ok=True)
        definitions = core.definitions(version)
        count = 0
        for source in sorted(core.folder(version).glob("*.json")):
            if source.name in ("all.json", "_definitions.json"):
                continue
            schema = json.loads(source.read_text().replace(_ABSOLUTE_REF, '"#/$defs/'))
            # Its $id names kubernetes-validate's tree: the file's own path is its base instead.
            schema.pop("$id", None)
            schema["$defs"] = definitions
            _write(folder / source.name, json.dumps(_pruned(schema)))
            count += 1
        exported.core[folder.name] = count
    for (group, version, kind), schema in sorted(catalog.crd_schemas.items()):
        name = crd_file(group, version, kind)
        if name is None:
            exported.refused.append(f"{group}/{version} {kind}")
            continue
        (out / group).mkdir(parents=True, exist_ok=True)
        _write(out / name, json.dumps({"$schema": _DRAFT, **schema}, indent=1))
        exported.crds += 1
    return exported
