"""How the API server reads a null in a built-in kind: as the Go zero value of the field's type.

The API server decodes JSON into Go structs (sigs.k8s.io/json, which keeps encoding/json's
semantics): a null for a struct field, pointer, slice or map leaves the field unset; a null list
item becomes the item type's zero value (an empty object, "", 0, false), and so does a null map
value. Validation then sees those zero values: `volumeMounts: [null]` is a mount without a name or
a path, `policyTypes: [null]` an empty policy type. A kind's `spec`, and the pod and job templates
inside workloads, are structs rather than pointers (k8s.io/api: `Spec JobSpec`, `Template
PodTemplateSpec`): absent or null, they are validated as empty, so `spec: null` on a Job is a Job
without a template. The schemas core kinds are checked with allow null everywhere (each type is
["object", "null"]), so without this reading a null passed where the server rejects it.
"""

from __future__ import annotations

from trainops.knowledge.schema import core
from trainops.model.objects import K8sObject

_DEFS = "#/$defs/"

# Struct-valued (not pointer) fields below a kind's spec, by (definition, property): k8s.io/api
# v0.32 batch/v1, apps/v1 and core/v1 types.go. (ReplicationControllerSpec.Template is a pointer.)
_VALUE_STRUCTS = frozenset(
    [
        ("io.k8s.api.batch.v1.JobSpec", "template"),
        ("io.k8s.api.batch.v1.CronJobSpec", "jobTemplate"),
        ("io.k8s.api.batch.v1.JobTemplateSpec", "spec"),
        ("io.k8s.api.core.v1.PodTemplateSpec", "spec"),
        ("io.k8s.api.core.v1.PodTemplate", "template"),
        ("io.k8s.api.core.v1.PersistentVolumeClaim", "spec"),
        ("io.k8s.api.apps.v1.DeploymentSpec", "template"),
        ("io.k8s.api.apps.v1.StatefulSetSpec", "template"),
        ("io.k8s.api.apps.v1.DaemonSetSpec", "template"),
        ("io.k8s.api.apps.v1.ReplicaSetSpec", "template"),
    ]
)
_ZERO = {
    "object": dict,
    "array": list,
    "string": str,
    "integer": int,
    "number": int,
    "boolean": bool,
}


def read_as_server(obj: K8sObject, kubernetes_version: str) -> None:
    """Replace obj.doc with what the API server validates, for a built-in kind (others are left:
    a custom resource's nulls are its CRD schema's to judge), defaults its validation relies on
    included."""
    schema = core.schema_for(kubernetes_version, obj.api_version, obj.kind)
    if schema is None:
        return
    _default(obj)
    definitions = core.definitions(kubernetes_version)
    spec_schema = schema.get("properties", {}).get("spec")
    # An absent spec matters only where an empty one is invalid (a Job's, not a Namespace's).
    unset_spec = obj.doc.get("spec") is None and _empty_is_invalid(spec_schema, definitions)
    if not (obj.has_null or unset_spec):
        return
    doc = _decoded(obj.doc, schema, definitions, None)
    assert isinstance(doc, dict)
    if unset_spec and isinstance(spec_schema, dict):
        doc["spec"] = _decoded({}, spec_schema, definitions, None)
    obj.doc = doc
    obj.nulls = False


def _job_specs(obj: K8sObject) -> list[dict]:
    spec = obj.doc.get("spec")
    if not isinstance(spec, dict):
        return []
    if obj.kind == "Job" and obj.api_version == "batch/v1":
        return [spec]
    if obj.kind == "CronJob" and obj.api_version == "batch/v1":
        template = spec.get("jobTemplate")
        inner = template.get("spec") if isinstance(template, dict) else None
        return [inner] if isinstance(inner, dict) else []
    return []


def _default(obj: K8sObject) -> None:
    """The defaults validation depends on: a podFailurePolicy rule's onPodConditions[].status is
    required by the schema and defaulted to "True" by the server before validation (batch/v1
    SetDefaults_PodFailurePolicyOnPodConditionsPattern), so a rule without it is valid."""
    for spec in _job_specs(obj):
        policy = spec.get("podFailurePolicy")
        rules = policy.get("rules") if isinstance(policy, dict) else None
        for rule in rules if isinstance(rules, list) else []:
            conditions = rule.get("onPodConditions") if isinstance(rule, dict) else None
            for condition in conditions if isinstance(conditions, list) else []:
                if isinstance(condition, dict) and "status" not in condition:
                    condition["status"] = "True"


def _empty_is_invalid(schema: object, definitions: dict) -> bool:
    if not isinstance(schema, dict):
        return False
    resolved, name = _resolved(schema, definitions)
    return bool(resolved.get("required")) or any(
        (name, key) in _VALUE_STRUCTS for key in resolved.get("properties") or {}
    )


def _resolved(schema: dict, definitions: dict) -> tuple[dict, str | None]:
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith(_DEFS):
        name = reference.removeprefix(_DEFS)
        return definitions.get(name, {}), name
    return schema, None


def _zero(schema: dict, definitions: dict) -> object:
    resolved, _ = _resolved(schema, definitions)
    types = resolved.get("type")
    kinds = [types] if isinstance(types, str) else [t for t in types or [] if t != "null"]
    maker = _ZERO.get(kinds[0]) if kinds else None
    return maker() if maker else None


def _decoded(node: object, schema: dict, definitions: dict, name: str | None) -> object:
    """A copy of `node` read as its schema's Go type would be. Recursive: the parser has bounded
    the nesting (model.yaml_bounds) far below Python's recursion limit."""
    resolved, resolved_name = _resolved(schema, definitions)
    name = resolved_name or name
    if isinstance(node, dict):
        properties = resolved.get("properties") or {}
        extra = resolved.get("additionalProperties")
        result: dict = {}
        for key, value in node.items():
            child = properties.get(key) if key in properties else extra
            if value is None:
                if key in properties:
                    continue  # a null field is an unset field
                if isinstance(child, dict):
                    value = _zero(child, definitions)  # a null map value is the value's zero
                    if value is None:
                        continue
            result[key] = (
                _decoded(value, child, definitions, None) if isinstance(child, dict) else value
            )
        for key, child in properties.items():
            if key not in result and (name, key) in _VALUE_STRUCTS and isinstance(child, dict):
                result[key] = _decoded({}, child, definitions, None)
        return result
    if isinstance(node, list):
        items = resolved.get("items")
        if not isinstance(items, dict):
            return node
        decoded = []
        for item in node:
            if item is None:
                item = _zero(items, definitions)
            decoded.append(_decoded(item, items, definitions, None))
        return decoded
    return node
