"""The field-level difference of two rendered objects, without ordering or formatting noise.

Both sides are parsed YAML, so quoting, indentation, comments and key order are already gone.
What remains is list order: a list whose items are all mappings with distinct `name`s
(containers, env, volumes, ports, CRD versions…) is compared by name, as the API server merges
it, so reordering it is no change and a change inside one item is shown at `[name=…]`, not at a
shifted index. Other lists of mappings (RBAC rules, tolerations) are compared as collections.
Lists of scalars (args, commands) keep their order, which means something.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ABSENT = object()  # a field that one side does not have (distinct from an explicit null)


@dataclass(frozen=True)
class FieldChange:
    path: str
    old: Any  # ABSENT when the field was added
    new: Any  # ABSENT when the field was removed

    @property
    def change(self) -> str:
        return "added" if self.old is ABSENT else "removed" if self.new is ABSENT else "changed"


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _named(items: list) -> dict[str, Any] | None:
    """A list of uniquely named mappings as {name: item}, or None when it is not one."""
    if not items or not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    named = {item["name"]: item for item in items}
    return named if len(named) == len(items) else None


def diff(old: Any, new: Any, path: str = "") -> list[FieldChange]:
    """Every leaf-most difference between `old` and `new`, in a stable order."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        changes: list[FieldChange] = []
        for key in sorted(old.keys() | new.keys(), key=str):
            changes += diff(old.get(key, ABSENT), new.get(key, ABSENT), _child(path, str(key)))
        return changes
    if isinstance(old, list) and isinstance(new, list):
        old_named, new_named = _named(old), _named(new)
        if old_named is not None and new_named is not None:
            changes = []
            # Old order first, then names only the new side has, in its order.
            for name in list(old_named) + [n for n in new_named if n not in old_named]:
                changes += diff(
                    old_named.get(name, ABSENT), new_named.get(name, ABSENT), f"{path}[name={name}]"
                )
            return changes
        if all(isinstance(i, dict) for i in old + new):
            return _unnamed(old, new, path)
        if len(old) == len(new):
            changes = []
            for index, (before, after) in enumerate(zip(old, new)):
                changes += diff(before, after, f"{path}[{index}]")
            return changes
    return [FieldChange(path, old, new)]


def _unnamed(old: list[dict], new: list[dict], path: str) -> list[FieldChange]:
    """Mappings without names (RBAC rules, tolerations): an item on both sides is no change
    wherever it moved; what is left is paired in order when both sides have as many, else each
    is an item removed or added (at its index on its own side)."""
    unmatched_new = list(range(len(new)))
    unmatched_old = []
    for index, item in enumerate(old):
        match = next((j for j in unmatched_new if new[j] == item), None)
        if match is None:
            unmatched_old.append(index)
        else:
            unmatched_new.remove(match)
    if len(unmatched_old) == len(unmatched_new):
        changes = []
        for i, j in zip(unmatched_old, unmatched_new):
            changes += diff(old[i], new[j], f"{path}[{j}]")
        return changes
    return [FieldChange(f"{path}[{i}]", old[i], ABSENT) for i in unmatched_old] + [
        FieldChange(f"{path}[{j}]", ABSENT, new[j]) for j in unmatched_new
    ]
