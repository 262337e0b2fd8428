"""Lists a CRD's schema declares as maps or sets (`x-kubernetes-list-type`), which the API server
keeps unique: a map by its `x-kubernetes-list-map-keys`, a set by the whole item
(apiextensions-apiserver's structural schema validation; "Duplicate value"). JSON Schema says
neither, so the converted schema keeps the two keywords and this walks an object alongside it.
"""

from __future__ import annotations

import json

from trainops.knowledge.schema.nodes import PerNode


def duplicates(doc: object, schema: dict) -> list[tuple[str, str]]:
    """(path, message) for every item that repeats an earlier one's key in a list-type map or set."""
    found: list[tuple[str, str]] = []
    pending: list[tuple[object, dict, str]] = [(doc, schema, "")]
    while pending:
        node, node_schema, path = pending.pop()
        if isinstance(node, dict):
            properties = node_schema.get("properties")
            extra = node_schema.get("additionalProperties")
            for key, value in node.items():
                child = properties.get(key) if isinstance(properties, dict) else None
                if child is None and isinstance(extra, dict):
                    child = extra
                if isinstance(child, dict) and _declares(child):
                    pending.append((value, child, f"{path}.{key}" if path else str(key)))
        elif isinstance(node, list):
            items = node_schema.get("items")
            kind = node_schema.get("x-kubernetes-list-type")
            keys = node_schema.get("x-kubernetes-list-map-keys")
            seen: set[str] = set()
            for index, item in enumerate(node):
                where = f"{path}[{index}]"
                identity = None
                if kind == "map" and isinstance(keys, list) and isinstance(item, dict):
                    identity = json.dumps(
                        {k: item.get(k) for k in keys if k in item}, sort_keys=True
                    )
                elif kind == "set":
                    identity = json.dumps(item, sort_keys=True)
                if identity is not None:
                    if identity in seen:
                        found.append((where, f"Duplicate value: {identity}"))
                    seen.add(identity)
                if isinstance(items, dict) and _declares(items):
                    pending.append((item, items, where))
    return sorted(found)


def _declares_below(schema: dict) -> bool:
    """Whether `schema` or a schema below it (properties, additionalProperties, items: where
    duplicates() walks) declares a map or a set: a pod template's is most of a training job's
    object, and only a few of its lists are either."""
    properties = schema.get("properties")
    below = [
        *(properties.values() if isinstance(properties, dict) else ()),
        schema.get("additionalProperties"),
        schema.get("items"),
    ]
    return schema.get("x-kubernetes-list-type") in ("map", "set") or any(
        isinstance(child, dict) and _declares(child) for child in below
    )


_declares = PerNode(_declares_below)
