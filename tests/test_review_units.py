"""The two comparisons under `trainops diff`: object fields without noise, and CRD schemas with
breaking changes flagged."""

from __future__ import annotations

import copy

from trainops.review.crddiff import compare_crds
from trainops.review.objectdiff import ABSENT, diff


def _crd(versions: dict[str, dict], scope: str = "Namespaced") -> dict:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": scope,
            "versions": [
                {
                    "name": name,
                    "served": True,
                    "storage": index == 0,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}},
                }
                for index, (name, spec) in enumerate(versions.items())
            ],
        },
    }


SPEC = {
    "type": "object",
    "required": ["size"],
    "properties": {
        "size": {"type": "integer"},
        "mode": {"type": "string", "enum": ["fast", "safe"]},
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"id": {"type": "string"}}},
        },
    },
}


def _changes(old: dict, new: dict) -> set[tuple]:
    return {
        (c.version, c.path, c.message, c.breaking)
        for c in compare_crds("widgets.example.com", old, new)
    }


def test_breaking_changes_are_flagged():
    new = copy.deepcopy(SPEC)
    new["properties"]["mode"]["enum"] = ["fast"]  # narrower enum
    new["properties"]["size"]["type"] = "string"  # another type
    del new["properties"]["items"]["items"]["properties"]["id"]  # field removed, inside a list
    new["properties"]["owner"] = {"type": "string"}
    new["required"] = ["size", "owner"]  # a new required field
    new["properties"]["extra"] = {"type": "object"}  # unknown fields no longer kept
    changes = _changes(_crd({"v1": SPEC, "v1beta1": SPEC}), _crd({"v1": new}))
    assert changes == {
        ("v1beta1", "", "served version dropped", True),
        ("v1", "spec.mode", "enum narrowed: safe no longer allowed", True),
        ("v1", "spec.size", "type changed from integer to string", True),
        ("v1", "spec.items[].id", "field removed", True),
        ("v1", "spec.owner", "new required field", True),
        ("v1", "spec.extra", "no longer preserves unknown fields: fields it kept are pruned", True),
    }


def test_compatible_changes_are_not_breaking():
    new = copy.deepcopy(SPEC)
    new["properties"]["mode"]["enum"] = ["fast", "safe", "eco"]
    new["properties"]["size"]["type"] = "number"
    new["properties"]["note"] = {"type": "string"}
    new["properties"]["size"]["description"] = "how many"
    changes = _changes(_crd({"v1": SPEC}), _crd({"v1": new, "v2": new}))
    assert changes == {
        ("v2", "", "version now served", False),
        ("v1", "spec.mode", "enum widened: eco allowed", False),
        ("v1", "spec.size", "type changed from integer to number", False),
        ("v1", "spec.note", "field added", False),
    }


def test_removed_crd_and_scope_change_are_breaking():
    assert _changes(_crd({"v1": SPEC}), None) == {
        (None, "", "CRD removed: the API server deletes every object of it", True)
    }
    assert (None, "", "scope changed from Namespaced to Cluster", True) in _changes(
        _crd({"v1": SPEC}), _crd({"v1": SPEC}, "Cluster")
    )
    assert _changes(_crd({"v1": SPEC}), _crd({"v1": SPEC})) == set()


def test_ordering_of_named_and_unnamed_mappings_is_no_change():
    old = {
        "containers": [{"name": "a", "image": "x:1"}, {"name": "b", "image": "y:1"}],
        "tolerations": [
            {"key": "gpu", "operator": "Exists"},
            {"key": "spot", "operator": "Exists"},
        ],
    }
    new = {
        "tolerations": list(reversed(old["tolerations"])),
        "containers": list(reversed(old["containers"])),
    }
    assert diff(old, new) == []


def test_changes_are_reported_at_named_paths_and_order_of_scalars_counts():
    old = {"containers": [{"name": "a", "image": "x:1", "args": ["--a", "--b"]}]}
    new = {
        "containers": [
            {"name": "a", "image": "x:2", "args": ["--b", "--a"]},
            {"name": "c", "image": "z:1"},
        ]
    }
    found = [(c.path, c.old, c.new) for c in diff(old, new)]
    assert found == [
        ("containers[name=a].args[0]", "--a", "--b"),
        ("containers[name=a].args[1]", "--b", "--a"),
        ("containers[name=a].image", "x:1", "x:2"),
        ("containers[name=c]", ABSENT, {"name": "c", "image": "z:1"}),
    ]


def test_unnamed_items_added_and_removed():
    old = {"rules": [{"verbs": ["get"]}, {"verbs": ["list"]}]}
    new = {"rules": [{"verbs": ["list"]}, {"verbs": ["watch"]}, {"verbs": ["create"]}]}
    assert [(c.path, c.change) for c in diff(old, new)] == [
        ("rules[0]", "removed"),
        ("rules[1]", "added"),
        ("rules[2]", "added"),
    ]


def test_limits_patterns_and_rules():
    old = copy.deepcopy(SPEC)
    old["properties"]["items"]["maxItems"] = 10
    old["properties"]["mode"]["x-kubernetes-validations"] = [{"rule": "self != 'x'"}]
    new = copy.deepcopy(old)
    new["properties"]["items"]["maxItems"] = 18  # looser
    new["properties"]["items"]["minItems"] = 1  # a new lower limit
    new["properties"]["mode"]["pattern"] = "^[a-z]+$"
    new["properties"]["mode"]["x-kubernetes-validations"] = [{"rule": "size(self) < 8"}]
    new["properties"]["items"]["x-kubernetes-list-type"] = "atomic"
    new["properties"]["size"]["description"] = "not listed"
    new["properties"]["tags"] = {"type": "array", "items": {"type": "string"}}
    old["properties"]["tags"] = copy.deepcopy(new["properties"]["tags"])
    new["properties"]["tags"]["x-kubernetes-list-type"] = "set"
    assert _changes(_crd({"v1": old}), _crd({"v1": new})) == {
        ("v1", "spec.items", "maxItems loosened from 10 to 18", False),
        ("v1", "spec.items", "minItems 1 added", True),
        (
            "v1",
            "spec.items",
            "x-kubernetes-list-type changed from None to atomic (how server-side apply merges it)",
            False,
        ),
        ("v1", "spec.mode", "pattern added: ^[a-z]+$", True),
        (
            "v1",
            "spec.tags",
            "x-kubernetes-list-type changed from None to set (its items must now be unique)",
            True,
        ),
        ("v1", "spec.mode", "validation rule added: size(self) < 8", True),
        ("v1", "spec.mode", "validation rule removed: self != 'x'", False),
    }
