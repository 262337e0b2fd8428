"""Every schema a run needs, and compiled validators for them (compiled once, on first use)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import jsonschema_rs

from trainops.knowledge.schema import cache, cel, core
from trainops.knowledge.schema.crd import Converted
from trainops.model.rendered import Cluster

_REF = re.compile(r'"\$ref":\s*"#/\$defs/([^"]+)"')


@dataclass(frozen=True)
class Target:
    """One schema an object must satisfy: its label says which (a Kubernetes version or a CRD)."""

    label: str
    validator: jsonschema_rs.Validator
    kubernetes_version: str | None = None  # a built-in kind's schema: of this version


@dataclass
class Lookup:
    targets: list[Target]
    # Kubernetes versions the apiVersion/kind does not exist in (while others have it).
    absent_in: list[str] = field(default_factory=list)


def _pruned(schema: dict) -> dict:
    """The schema with only the $defs it reaches: compiling all 600 definitions per kind is slow."""
    definitions = schema.pop("$defs", {})
    keep, pending = set(), _REF.findall(json.dumps(schema))
    while pending:
        name = pending.pop()
        if name in keep or name not in definitions:
            continue
        keep.add(name)
        pending.extend(_REF.findall(json.dumps(definitions[name])))
    if keep:
        schema["$defs"] = {name: definitions[name] for name in sorted(keep)}
    return schema


def cel_sources(crd: dict) -> dict[str, dict]:
    """Served version -> its openAPIV3Schema, for the versions whose schema has CEL rules."""
    found = {}
    for version in (crd.get("spec") or {}).get("versions") or []:
        source = (
            (version.get("schema") or {}).get("openAPIV3Schema")
            if isinstance(version, dict)
            else None
        )
        if version.get("served", True) and isinstance(source, dict) and cel.has_rules(source):
            found[str(version.get("name"))] = source
    return found


@dataclass(frozen=True)
class CrdSchemas:
    """What the catalog keeps of a CRD: its converted schemas, and the served versions' schemas
    with CEL rules (evaluated apart, on the original)."""

    converted: Converted
    cel: dict[str, dict]

    @classmethod
    def of(cls, crd: dict, notes: list[str], source: str | None = None) -> CrdSchemas:
        converted = cache.converted(crd, notes, source)
        return cls(converted, cel_sources(crd) if converted.cel_rules else {})


class Catalog:
    def __init__(
        self,
        kubernetes_versions: list[str],
        crds: list[dict],
        installers: dict[str, str] | None = None,
        converted: list[CrdSchemas] | None = None,
        sources: list[str | None] | None = None,
    ):
        """`crds` are converted here; `converted` (from a cache) come after them, and a CRD
        name already seen is skipped. `sources`: each of `crds`' K8sObject.source, if known."""
        self.kubernetes_versions = kubernetes_versions
        self.notes: list[str] = []
        self.crd_schemas: dict[tuple[str, str, str], dict] = {}
        self.crd_names: dict[tuple[str, str], str] = {}
        # CRD name -> the folder (a crdRoots entry) whose render installs it
        self.installers: dict[str, str] = dict(installers or {})
        # (group, version, kind) -> the served version's openAPIV3Schema, for CRDs with CEL rules
        self.cel_schemas: dict[tuple[str, str, str], dict] = {}
        # CRD name -> why it cannot be read (the schema rule reports it on the CRD)
        self.refused: dict[str, str] = {}
        entries = [
            CrdSchemas.of(crd, self.notes, source)
            for crd, source in zip(crds, sources or [None] * len(crds), strict=True)
        ]
        seen = {entry.converted.name for entry in entries}
        entries += [entry for entry in converted or [] if entry.converted.name not in seen]
        for entry in entries:
            result = entry.converted
            if result.problem is not None:
                self.refused[result.name] = result.problem
                continue
            for version, schema in result.versions.items():
                self.crd_schemas[(result.group, version, result.kind)] = schema
            self.crd_names[(result.group, result.kind)] = result.name
            if result.unschematized:
                self.notes.append(
                    f"CRD {result.name} serves {', '.join(result.unschematized)} without a schema: "
                    "objects of those versions are accepted unchecked"
                )
            for version, source in entry.cel.items():
                self.cel_schemas[(result.group, version, result.kind)] = source
        self._lookups: dict[tuple[str, str], Lookup | None] = {}

    def cel_schema(self, api_version: str, kind: str) -> dict | None:
        """The schema whose CEL rules an object of this apiVersion and kind must pass; None if it has none."""
        group, _, version = api_version.rpartition("/")
        return self.cel_schemas.get((group, version, kind))

    def crd_schema(self, api_version: str, kind: str) -> dict | None:
        """The converted schema of a custom resource's kind and version; None for core kinds."""
        group, _, version = api_version.rpartition("/")
        return self.crd_schemas.get((group, version, kind))

    def installer_of(self, api_version: str, kind: str) -> str | None:
        """The folder that installs the CRD behind a custom resource; None for core kinds."""
        group, _, version = api_version.rpartition("/")
        if (group, version, kind) not in self.crd_schemas:
            return None
        return self.installers.get(self.crd_names[(group, kind)], "?")

    @staticmethod
    def _compile(schema: dict) -> jsonschema_rs.Validator:
        # Once per apiVersion and kind (lookup keeps its answer): no key by content, which
        # costs a serialisation of the whole schema, a CRD's hundreds of kilobytes.
        return jsonschema_rs.validator_for(schema, validate_formats=False)

    def lookup(self, api_version: str, kind: str) -> Lookup | None:
        """What an object of this apiVersion and kind is validated against; None if nothing knows it."""
        key = (api_version, kind)
        if key not in self._lookups:
            self._lookups[key] = self._find(api_version, kind)
        return self._lookups[key]

    def _find(self, api_version: str, kind: str) -> Lookup | None:
        group, _, version = api_version.rpartition("/")
        crd_schema = self.crd_schemas.get((group, version, kind))
        if crd_schema is not None:
            name = self.crd_names[(group, kind)]
            try:
                return Lookup([Target(f"CRD {name}", self._compile(crd_schema))])
            except jsonschema_rs.ValidationError as error:  # the schema is no JSON Schema
                self.refused[name] = (
                    f"its schema for {version} is not a valid schema: {error.message}"
                )
                return None
        targets, absent = [], []
        for k8s_version in self.kubernetes_versions:
            schema = core.schema_for(k8s_version, api_version, kind)
            if schema is None:
                absent.append(k8s_version)
            else:
                targets.append(
                    Target(
                        f"Kubernetes {k8s_version}",
                        self._compile(_pruned(dict(schema))),
                        k8s_version,
                    )
                )
        return Lookup(targets, absent) if targets else None


def catalog_of(cluster: Cluster) -> Catalog | None:
    """The catalog of the run `cluster` belongs to (None in a run that loads no schemas)."""
    catalog = cluster.catalog
    return catalog if isinstance(catalog, Catalog) else None
