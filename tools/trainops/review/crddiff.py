"""What a CRD change does to the custom resources written against it.

A change is breaking when an object valid before may be rejected, or lose data, after it:

- a version that was served is no longer served (clients of it get `no matches for kind`);
- the CRD is removed (the API server deletes every object of it), or its scope changes;
- a field is removed from a schema that does not keep unknown fields (pruned or rejected);
- a field becomes required, including a new field that is required from the start;
- an enum loses values or appears where any value was allowed; a type changes, except widenings
  (integer to number, to int-or-string) that accept every value accepted before;
- `x-kubernetes-preserve-unknown-fields` is dropped (fields it kept are now pruned);
- a limit tightens or appears (maxItems, maxLength, maximum… lower; min… higher), a pattern
  appears or changes, or a CEL rule (`x-kubernetes-validations`) is added.

A new version or field, a wider enum, a looser limit, a removed rule and a changed list or map type
(how server-side apply merges) are listed as compatible changes; descriptions and defaults are not
listed. Schemas are compared per version served on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass

_INT_OR_STRING = "x-kubernetes-int-or-string"
_PRESERVE = "x-kubernetes-preserve-unknown-fields"
_VALIDATIONS = "x-kubernetes-validations"
_MERGE_KEYS = ("x-kubernetes-list-type", "x-kubernetes-list-map-keys", "x-kubernetes-map-type")
# Keyword -> whether it is an upper limit (else a lower one).
_LIMITS = {
    "maximum": True,
    "maxLength": True,
    "maxItems": True,
    "maxProperties": True,
    "minimum": False,
    "minLength": False,
    "minItems": False,
    "minProperties": False,
}


@dataclass(frozen=True)
class SchemaChange:
    crd: str  # metadata.name, e.g. workloads.kueue.x-k8s.io
    version: str | None  # the served version it concerns; None for the CRD as a whole
    path: str  # the field path inside the custom resource ("" for the CRD or version itself)
    message: str
    breaking: bool

    def as_dict(self) -> dict:
        return {
            "crd": self.crd,
            "version": self.version,
            "path": self.path,
            "message": self.message,
            "breaking": self.breaking,
        }


def _served(crd: dict | None) -> dict[str, dict]:
    versions = ((crd or {}).get("spec") or {}).get("versions") or []
    return {
        v["name"]: v
        for v in versions
        if isinstance(v, dict) and v.get("served", True) and "name" in v
    }


def _schema(version: dict) -> dict:
    return ((version.get("schema") or {}).get("openAPIV3Schema")) or {}


def _type_of(schema: dict) -> str | None:
    return "int-or-string" if schema.get(_INT_OR_STRING) else schema.get("type")


def _widens(old: str | None, new: str | None) -> bool:
    return (old, new) in {
        ("integer", "number"),
        ("integer", "int-or-string"),
        ("string", "int-or-string"),
    }


def _compare(crd: str, version: str, path: str, old: dict, new: dict) -> list[SchemaChange]:
    def change(message: str, breaking: bool, at: str = path) -> SchemaChange:
        return SchemaChange(crd, version, at, message, breaking)

    found: list[SchemaChange] = []
    old_type, new_type = _type_of(old), _type_of(new)
    if old_type != new_type:
        if old_type is None:  # any value was allowed
            found.append(change(f"type narrowed from any to {new_type}", True))
        elif new_type is None:
            found.append(change(f"type widened from {old_type} to any", False))
        else:
            found.append(
                change(
                    f"type changed from {old_type} to {new_type}", not _widens(old_type, new_type)
                )
            )
        return found  # below this the two schemas describe different things
    old_enum, new_enum = old.get("enum"), new.get("enum")
    if new_enum is not None and old_enum is None:
        found.append(change(f"enum added: only {_values(new_enum)} allowed", True))
    elif old_enum is not None and new_enum is None:
        found.append(change("enum removed: any value allowed", False))
    elif old_enum is not None and new_enum is not None:
        lost = [v for v in old_enum if v not in new_enum]
        gained = [v for v in new_enum if v not in old_enum]
        if lost:
            found.append(change(f"enum narrowed: {_values(lost)} no longer allowed", True))
        if gained:
            found.append(change(f"enum widened: {_values(gained)} allowed", False))
    if old.get(_PRESERVE) and not new.get(_PRESERVE):
        found.append(change("no longer preserves unknown fields: fields it kept are pruned", True))
    found += [change(message, breaking) for message, breaking in _bounds(old, new)]
    if old.get("pattern") != new.get("pattern") and new.get("pattern") is not None:
        found.append(
            change(
                f"pattern {'changed' if old.get('pattern') else 'added'}: {new['pattern']}", True
            )
        )
    old_rules = [r.get("rule") for r in old.get(_VALIDATIONS) or [] if isinstance(r, dict)]
    new_rules = [r.get("rule") for r in new.get(_VALIDATIONS) or [] if isinstance(r, dict)]
    found += [
        change(f"validation rule added: {rule}", True)
        for rule in new_rules
        if rule not in old_rules
    ]
    found += [
        change(f"validation rule removed: {rule}", False)
        for rule in old_rules
        if rule not in new_rules
    ]
    for key in _MERGE_KEYS:
        if old.get(key) != new.get(key):
            found.append(_merge_change(key, old, new, change))
    old_props, new_props = old.get("properties") or {}, new.get("properties") or {}
    old_required, new_required = set(old.get("required") or []), set(new.get("required") or [])
    for name in sorted(old_props.keys() | new_props.keys()):
        at = f"{path}.{name}" if path else name
        if name not in new_props:
            found.append(change("field removed", not new.get(_PRESERVE), at))
        elif name not in old_props:
            required = name in new_required
            found.append(change("new required field" if required else "field added", required, at))
        else:
            found += _compare(crd, version, at, old_props[name], new_props[name])
            if name in new_required and name not in old_required:
                found.append(change("field became required", True, at))
    for name in sorted(new_required - old_required - new_props.keys()):
        found.append(change("field became required", True, f"{path}.{name}" if path else name))
    for key, suffix in (("items", "[]"), ("additionalProperties", ".*")):
        if isinstance(old.get(key), dict) and isinstance(new.get(key), dict):
            found += _compare(crd, version, path + suffix, old[key], new[key])
    return found


def _merge_change(key: str, old: dict, new: dict, change):
    """A list becoming a `set` or a `map` (or a map changing its keys) is validated anew: the
    API server then rejects duplicate items or keys and, for a map, items missing a key field
    (apiextensions-apiserver pkg/apiserver/schema/listtype/validation.go), so stored objects and
    manifests that passed before can fail. `x-kubernetes-map-type` and a list becoming `atomic`
    change only how server-side apply merges."""
    before, after = old.get(key), new.get(key)
    if key == "x-kubernetes-list-type" and after in ("set", "map"):
        return change(
            f"{key} changed from {before} to {after} (its items must now be unique)", True
        )
    if key == "x-kubernetes-list-map-keys" and new.get("x-kubernetes-list-type") == "map":
        return change(
            f"{key} changed from {before} to {after} (items must be unique by, and carry, the new keys)",
            True,
        )
    return change(
        f"{key} changed from {before} to {after} (how server-side apply merges it)", False
    )


def _bounds(old: dict, new: dict) -> list[tuple[str, bool]]:
    """Limits that tighten (a lower maximum, a higher minimum, one that did not exist) reject
    values accepted before; limits that loosen do not."""
    found = []
    for key, upper in _LIMITS.items():
        before, after = old.get(key), new.get(key)
        if before == after or not all(
            isinstance(v, (int, float)) or v is None for v in (before, after)
        ):
            continue
        if after is None:
            found.append((f"{key} {before} removed", False))
        elif before is None:
            found.append((f"{key} {after} added", True))
        else:
            tighter = after < before if upper else after > before
            found.append(
                (
                    f"{key} {'tightened' if tighter else 'loosened'} from {before} to {after}",
                    tighter,
                )
            )
    return found


def _values(values: list) -> str:
    return ", ".join(map(str, values))


def compare_crds(name: str, old: dict | None, new: dict | None) -> list[SchemaChange]:
    """The schema changes from `old` to `new` (either may be None: a CRD added or removed)."""
    if new is None:
        return [
            SchemaChange(
                name, None, "", "CRD removed: the API server deletes every object of it", True
            )
        ]
    old_served, new_served = _served(old), _served(new)
    if old is None:
        return [
            SchemaChange(
                name, None, "", f"CRD added, serving {', '.join(new_served) or 'no version'}", False
            )
        ]
    found: list[SchemaChange] = []
    old_scope, new_scope = (
        (old.get("spec") or {}).get("scope"),
        (new.get("spec") or {}).get("scope"),
    )
    if old_scope != new_scope:
        found.append(
            SchemaChange(name, None, "", f"scope changed from {old_scope} to {new_scope}", True)
        )
    for version in old_served:
        if version not in new_served:
            found.append(SchemaChange(name, version, "", "served version dropped", True))
    for version in new_served:
        if version not in old_served:
            found.append(SchemaChange(name, version, "", "version now served", False))
    storage = [
        {
            str(v.get("name"))
            for v in ((crd.get("spec") or {}).get("versions") or [])
            if isinstance(v, dict) and v.get("storage")
        }
        for crd in (old, new)
    ]
    if storage[0] != storage[1]:
        found.append(
            SchemaChange(
                name,
                None,
                "",
                f"storage version changed from {_values(sorted(storage[0]))} to "
                f"{_values(sorted(storage[1]))}",
                False,
            )
        )
    for version in old_served:
        if version in new_served:
            found += _compare(
                name, version, "", _schema(old_served[version]), _schema(new_served[version])
            )
    return found
