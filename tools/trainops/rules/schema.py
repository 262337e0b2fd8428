"""Objects must be valid against the schema of their apiVersion and kind.

What it catches: unknown fields (schemas are strict), wrong types, missing required fields, enum
violations — against the Kubernetes schemas of every version `trainops.yaml` declares
(`kubernetesVersions`) for core kinds, and against the CRDs the operators layer renders at the
pinned refs for custom resources. An apiVersion that one declared Kubernetes version has and
another has removed (batch/v1beta1 CronJob, say) is reported for the version that lacks it.

Why it matters: the API server rejects the object (or, for an unknown field in a custom resource,
silently drops it, which is worse); a pin bump that changes a CRD shows up here before a sync.

How to fix: the finding names the JSON path and the schema's complaint; `trainops schemas --out
DIR` exports the schemas for your editor.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.pod_templates import SHAPE_VERSION, known_well_shaped
from trainops.knowledge.schema import listtypes
from trainops.knowledge.schema.catalog import Catalog, catalog_of
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered

ID = "schema"
SEVERITY = Severity.ERROR
SUMMARY = "objects are valid against the schemas of the pinned versions"


def json_path(parts) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text.lstrip(".")


# Errors that mean a value is not of the type the schema gives it (a number for a mapping, a list
# for a string): the object has the wrong shape, and rules that read the field would misread it.
_SHAPE_ERRORS = {"Type", "AnyOf", "OneOfNotValid"}


def _failed_targets(obj: K8sObject, lookup) -> list:
    """The schemas `obj` fails, validated once for withhold_ill_shaped and this rule's check
    (the run's one catalog gives both the same targets, and nothing changes the object between)."""
    return obj.memo(
        "schema-failed-targets",
        lambda o: [t for t in lookup.targets if not t.validator.is_valid(o.doc)],
    )


def withhold_ill_shaped(rendered: Rendered, catalog: Catalog) -> None:
    """Move objects their schema finds a wrong-typed field in to `rendered.ill_shaped`: this rule
    reports them at the field's path, and every other rule sees only well-shaped objects."""
    kept = []
    for obj in rendered.objects:
        lookup = catalog.lookup(obj.api_version, obj.kind)
        ill_shaped = lookup is not None and any(
            type(error.kind).__name__ in _SHAPE_ERRORS
            for target in _failed_targets(obj, lookup)
            for error in target.validator.iter_errors(obj.doc)
        )
        if ill_shaped:
            rendered.ill_shaped.append(obj)
            continue
        kept.append(obj)
        if lookup is not None and any(
            t.kubernetes_version == SHAPE_VERSION for t in lookup.targets
        ):
            known_well_shaped(obj)  # its templates' shapes were just checked, by that schema
    rendered.objects = kept


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    catalog = catalog_of(cluster)
    if catalog is None:
        return
    for obj in rendered.objects + rendered.ill_shaped:
        refused = (
            catalog.refused.get(obj.name)
            if obj.kind == "CustomResourceDefinition" and obj.group == "apiextensions.k8s.io"
            else None
        )
        if refused is not None:
            yield Finding(
                ID,
                SEVERITY,
                f"the CustomResourceDefinition cannot be read: {refused}; the API server refuses "
                "it, and its custom resources are not checked",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                None,
                "give every schema node a mapping with a type (apiextensions.k8s.io/v1 JSONSchemaProps)",
            )
        lookup = catalog.lookup(obj.api_version, obj.kind)
        if lookup is None:
            continue  # schema-missing says so
        if lookup.absent_in:
            yield Finding(
                ID,
                SEVERITY,
                f"{obj.api_version} {obj.kind} does not exist in Kubernetes {', '.join(lookup.absent_in)}",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                "apiVersion",
                "use an apiVersion every declared Kubernetes version serves",
            )
        errors: dict[tuple[str, str], list[str]] = {}
        for target in _failed_targets(obj, lookup):
            for error in target.validator.iter_errors(obj.doc):
                errors.setdefault((json_path(error.instance_path), error.message), []).append(
                    target.label
                )
        crd_schema = catalog.crd_schema(obj.api_version, obj.kind)
        if crd_schema is not None and not errors:
            label = lookup.targets[0].label
            for path, message in listtypes.duplicates(obj.doc, crd_schema):
                errors[(path, message)] = [label]
        for (path, message), labels in errors.items():
            yield Finding(
                ID,
                SEVERITY,
                f"{message} ({', '.join(labels)})",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                path or None,
            )
