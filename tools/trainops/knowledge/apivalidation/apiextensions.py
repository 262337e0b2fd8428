"""apiextensions.k8s.io CustomResourceDefinitions: what kube-apiserver v1.32.13 checks of a CRD's
spec beside its schema (apiextensions-apiserver pkg/apis/apiextensions/validation)."""

from __future__ import annotations

from trainops.knowledge.apivalidation.formats import (
    Errors,
    not_supported,
)
from trainops.model.shape import mapping, mappings


def custom_resource_definition(doc: dict) -> Errors:
    """apiextensions ValidateCustomResourceDefinitionSpec: a scope, and in v1 a schema for every
    version whose root is an object."""
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    scope = spec.get("scope")
    if isinstance(scope, str) and scope not in ("Cluster", "Namespaced"):
        errors.append(("spec.scope", not_supported(scope, ("Cluster", "Namespaced"))))
    for index, version in enumerate(mappings(spec.get("versions"))):
        where = f"spec.versions[{index}].schema.openAPIV3Schema"
        schema = mapping(version.get("schema")).get("openAPIV3Schema")
        if not isinstance(schema, dict) or not schema:
            errors.append((where, "Required value: schemas are required"))
        elif schema.get("type") != "object":
            errors.append((f"{where}.type", "Invalid value: must be object at the root"))
    return errors
