"""CustomResourceDefinitions to JSON Schema, the way the API server reads their OpenAPI v3 schemas.

Strict: an object with declared properties rejects unknown ones, unless it (or an ancestor under
the same object) says `x-kubernetes-preserve-unknown-fields`. `x-kubernetes-int-or-string` accepts
either; `x-kubernetes-embedded-resource` objects may carry apiVersion, kind and metadata; `nullable`
admits null. Defaults are not applied and formats are not asserted (the API server asserts few).
CEL rules (`x-kubernetes-validations`) are evaluated apart, by knowledge/schema/cel.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_DROPPED = {"default", "format", "description", "example", "externalDocs"}
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
_KEPT = ("x-kubernetes-list-type", "x-kubernetes-list-map-keys")


@dataclass
class Converted:
    group: str
    kind: str
    versions: dict[str, dict] = field(default_factory=dict)  # served version -> JSON Schema
    cel_rules: bool = False
    name: str = ""
    unschematized: list[str] = field(default_factory=list)  # served versions without a schema
    problem: str | None = None  # why it cannot be read as a CRD: then it has no versions


# What apiextensions.k8s.io/v1 says each schema keyword holds (JSONSchemaProps): a conversion reads
# them, and the API server refuses a CRD whose schema holds anything else there.
_SCHEMA_KEYWORDS: dict[str, tuple[type, ...]] = {
    "properties": (dict,),
    "patternProperties": (dict,),
    "definitions": (dict,),
    "items": (dict, list),
    "additionalProperties": (dict, bool),
    "additionalItems": (dict, bool),
    "not": (dict,),
    "allOf": (list,),
    "anyOf": (list,),
    "oneOf": (list,),
    "required": (list,),
    "enum": (list,),
    "type": (str,),
    "x-kubernetes-validations": (list,),
    "x-kubernetes-list-map-keys": (list,),
}


def shape_problem(crd: dict) -> str | None:
    """Why `crd` is not a CustomResourceDefinition this module (or the API server) can read, at
    the field that says so, or None."""
    spec = crd.get("spec")
    if not isinstance(spec, dict):
        return "spec is not a mapping"
    if not isinstance(spec.get("group"), str) or not spec["group"]:
        return "spec.group is not a name"
    names = spec.get("names")
    if not isinstance(names, dict) or not isinstance(names.get("kind"), str) or not names["kind"]:
        return "spec.names.kind is not a name"
    versions = spec.get("versions")
    if not isinstance(versions, list) or not versions:
        return "spec.versions is not a list of versions"
    for index, version in enumerate(versions):
        where = f"spec.versions[{index}]"
        if not isinstance(version, dict):
            return f"{where} is not a mapping"
        if not isinstance(version.get("name"), str) or not version["name"]:
            return f"{where}.name is not a name"
        schema = version.get("schema")
        if schema is None:
            continue
        if not isinstance(schema, dict):
            return f"{where}.schema is not a mapping"
        source = schema.get("openAPIV3Schema")
        if source is not None:
            problem = _schema_problem(source, f"{where}.schema.openAPIV3Schema")
            if problem:
                return problem
    return None


_CHILD_MAPS = ("properties", "patternProperties", "definitions")
_CHILDREN = ("items", "additionalProperties", "additionalItems", "not")
# The keywords whose values hold schemas: a node with none of them (most are leaves: a type and a
# description) has nothing to walk into.
_WALKED = frozenset((*_CHILD_MAPS, *_CHILDREN, *_SUBSCHEMA_LISTS))


def _schema_problem(root: object, where: str) -> str | None:
    pending: list[tuple[object, str]] = [(root, where)]
    while pending:
        node, path = pending.pop()
        if not isinstance(node, dict):
            return f"{path} is not a schema (a mapping)"
        # Each of the node's own keys looked up once (a node holds a few of the keywords), not
        # each keyword looked up in the node: a cold run walks 50,000 nodes.
        walked = False
        for keyword, value in node.items():
            kinds = _SCHEMA_KEYWORDS.get(keyword)
            if kinds is not None and not isinstance(value, kinds):
                return _keyword_problem(node, path)
            walked = walked or keyword in _WALKED
        if walked:
            _walk_into(node, path, pending)
        if "required" in node and not all(isinstance(name, str) for name in node["required"]):
            return f"{path}.required is not a list of names"
    return None


def _keyword_problem(node: dict, path: str) -> str | None:
    """The first keyword, in _SCHEMA_KEYWORDS' order, whose value is not what it holds."""
    for keyword, kinds in _SCHEMA_KEYWORDS.items():
        if keyword in node and not isinstance(node[keyword], kinds):
            return f"{path}.{keyword} is not a {' or '.join(k.__name__ for k in kinds)}"
    return None


def _walk_into(node: dict, path: str, pending: list[tuple[object, str]]) -> None:
    for keyword in _CHILD_MAPS:
        for name, child in (node.get(keyword) or {}).items():
            pending.append((child, f"{path}.{keyword}.{name}"))
    for keyword in _CHILDREN:
        child = node.get(keyword)
        if isinstance(child, dict):
            pending.append((child, f"{path}.{keyword}"))
        elif isinstance(child, list):
            pending.extend((c, f"{path}.{keyword}[{i}]") for i, c in enumerate(child))
    for keyword in _SUBSCHEMA_LISTS:
        pending.extend((c, f"{path}.{keyword}[{i}]") for i, c in enumerate(node.get(keyword) or []))


def _convert(node: dict, seen_cel: list[bool]) -> dict:
    if not isinstance(node, dict):
        return node
    if "x-kubernetes-validations" in node:
        seen_cel[0] = True
    out: dict = {}
    for key, value in node.items():
        if key in _KEPT:
            out[key] = value  # not JSON Schema: listtypes.py reads them
            continue
        if key in _DROPPED or key.startswith("x-kubernetes-"):
            continue
        if key == "properties":
            out[key] = {name: _convert(child, seen_cel) for name, child in value.items()}
        elif key in ("items", "not") or (key == "additionalProperties" and isinstance(value, dict)):
            out[key] = _convert(value, seen_cel)
        elif key in _SUBSCHEMA_LISTS:
            out[key] = [_convert(child, seen_cel) for child in value]
        else:
            out[key] = value
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = out.get("anyOf", []) + [{"type": "integer"}, {"type": "string"}]
    if node.get("x-kubernetes-embedded-resource"):
        properties = out.setdefault("properties", {})
        for name in ("apiVersion", "kind"):
            properties.setdefault(name, {"type": "string"})
        properties.setdefault("metadata", {"type": "object"})
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not node.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    if node.get("nullable") and "type" in out:
        out["type"] = (
            [out["type"], "null"] if isinstance(out["type"], str) else list(out["type"]) + ["null"]
        )
    out.pop("nullable", None)
    _drop_defaulted_from_required(node, out)
    return out


def _drop_defaulted_from_required(node: dict, schema: dict) -> None:
    """The API server applies a structural schema's defaults as it decodes a request, before it
    validates (apiextensions-apiserver pkg/apiserver/schema/defaulting): a required field that
    has a default is never missing. kube-apiserver v1.32.13 creates a RayCluster whose worker
    group leaves out minReplicas and maxReplicas, which the CRD requires and defaults."""
    required, properties = schema.get("required"), node.get("properties")  # defaults as written
    if not isinstance(required, list) or not isinstance(properties, dict):
        return
    defaulted = {
        name for name, child in properties.items() if isinstance(child, dict) and "default" in child
    }
    if defaulted & set(required):
        schema["required"] = [name for name in required if name not in defaulted]


def convert(crd: dict) -> Converted:
    """JSON Schemas for every served version of a CRD (apiextensions.k8s.io/v1)."""
    metadata = crd.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    name = name if isinstance(name, str) else ""
    problem = shape_problem(crd)
    if problem is not None:
        return Converted("", "", name=name, problem=problem)
    spec = crd["spec"]
    group, kind = spec["group"], spec["names"]["kind"]
    converted = Converted(group, kind, name=name)
    for version in spec.get("versions") or []:
        if not version.get("served", True):
            continue
        source = (version.get("schema") or {}).get("openAPIV3Schema")
        if not source:
            # Without a schema the API server accepts anything; so, knowingly, do we.
            converted.unschematized.append(version["name"])
            source = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
        seen_cel = [False]
        schema = _convert(source, seen_cel)
        converted.cel_rules |= seen_cel[0]
        properties = schema.setdefault("properties", {})
        properties["apiVersion"] = {"type": "string", "enum": [f"{group}/{version['name']}"]}
        properties["kind"] = {"type": "string", "enum": [kind]}
        # metadata is ObjectMeta, which CRD schemas do not spell out; the API server validates it.
        properties["metadata"] = {"type": "object"}
        schema.setdefault("required", [])
        schema["required"] = sorted(set(schema["required"]) | {"apiVersion", "kind", "metadata"})
        converted.versions[version["name"]] = schema
    return converted
