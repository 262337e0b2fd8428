"""A CustomResourceDefinition of any shape is read or refused, never a traceback: the conversion
to JSON Schema reads only what knowledge/schema/crd.py's shape contract let through. Each case was
an exception in `validate`, `fix --check` or `schemas` (a type-swapping sweep over real CRDs)."""

from __future__ import annotations

import pytest

from helpers import run_trainops, write_tree

VERSION = "- name: v1\n    served: true\n    storage: true\n    schema: {openAPIV3Schema: {schema}}"
BASE = {
    "group": "example.com",
    "scope": "Namespaced",
    "names": "{kind: Widget, plural: widgets}",
    "versions": "\n  " + VERSION.replace("{schema}", "{type: object}"),
}

CASES = {
    "null properties": {
        "versions": "\n  " + VERSION.replace("{schema}", "{type: object, properties: null}")
    },
    "null property schema": {
        "versions": "\n  " + VERSION.replace("{schema}", "{type: object, properties: {spec: null}}")
    },
    "openAPIV3Schema a string": {"versions": "\n  " + VERSION.replace("{schema}", "x")},
    "versions an int": {"versions": "7"},
    "versions a string": {"versions": "x"},
    "a version a string": {"versions": "[x]"},
    "a version without a name": {"versions": "[{x: y}]"},
    "a version's name a list": {
        "versions": "\n  "
        + VERSION.replace("name: v1", "name: [x]").replace("{schema}", "{type: object}")
    },
    "a version's schema a string": {
        "versions": "[{name: v1, served: true, storage: true, schema: x}]"
    },
    "group a list": {"group": "[x]"},
    "kind null": {"names": "{kind: null, plural: widgets}"},
    "type a number": {"versions": "\n  " + VERSION.replace("{schema}", "{type: 5}")},
}


def _crd(**fields: str) -> str:
    values = {**BASE, **fields}
    spec = "".join(f"  {key}: {value}\n" for key, value in values.items())
    return (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        f"metadata: {{name: widgets.example.com}}\nspec:\n{spec}"
    )


def _tree(tmp_path, crd: str):
    return write_tree(
        tmp_path,
        {
            "trainops.yaml": "roots: [env, crds]\ncrdRoots: [crds]\n",
            "crds/crd.yaml": crd,
            "env/w.yaml": "apiVersion: example.com/v1\nkind: Widget\n"
            "metadata: {name: w, namespace: default}\nspec: {size: 1}\n",
        },
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_malformed_crd_is_a_finding_in_every_command(tmp_path, case):
    _tree(tmp_path, _crd(**CASES[case]))
    done = run_trainops("validate", cwd=tmp_path)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stdout + done.stderr
    assert "crds/crd.yaml" in done.stdout
    for command in (("fix", "--check"), ("schemas", "--out", str(tmp_path / "out"))):
        other = run_trainops(*command, cwd=tmp_path)
        assert "Traceback" not in other.stderr, (command, other.stderr)
        assert other.returncode in (0, 1), (command, other.stderr)


def test_the_refusal_names_the_field(tmp_path):
    _tree(tmp_path, _crd(**CASES["null property schema"]))
    done = run_trainops("validate", "--select", "schema", cwd=tmp_path)
    assert (
        "the CustomResourceDefinition cannot be read: spec.versions[0].schema.openAPIV3Schema"
        ".properties.spec is not a schema (a mapping)"
    ) in done.stdout


def test_a_well_formed_crd_still_checks_its_resources(tmp_path):
    schema = (
        "{type: object, properties: {spec: {type: object, properties: {size: {type: string}}}}}"
    )
    _tree(tmp_path, _crd(versions="\n  " + VERSION.replace("{schema}", schema)))
    done = run_trainops("validate", "--select", "schema", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert (
        'env/w.yaml:4: error [schema] Widget/default/w at spec.size: 1 is not of type "string"'
        in done.stdout
    )


def _crd_with(schema: object) -> dict:
    return {
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget"},
            "versions": [{"name": "v1", "schema": {"openAPIV3Schema": schema}}],
        }
    }


ROOT = "spec.versions[0].schema.openAPIV3Schema"


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "object", "properties": {"a": {"type": "string"}}}, None),
        ({"properties": {"a": {"type": 1}}}, f"{ROOT}.properties.a.type is not a str"),
        # Two keywords wrong: the first in the keywords' order is named, whatever the node's order.
        ({"type": 1, "properties": []}, f"{ROOT}.properties is not a dict"),
        ({"items": [{"type": "string"}, {"not": 3}]}, f"{ROOT}.items[1].not is not a dict"),
        (
            {"anyOf": [{}, {"required": ["a", 1]}]},
            f"{ROOT}.anyOf[1].required is not a list of names",
        ),
        (
            {"additionalProperties": {"properties": {"b": "x"}}},
            f"{ROOT}.additionalProperties.properties.b is not a schema (a mapping)",
        ),
        ({"description": {"properties": 1}}, None),  # not a keyword that holds schemas
    ],
)
def test_the_shape_check_names_the_first_wrong_field(schema, problem):
    from trainops.knowledge.schema.crd import shape_problem

    assert shape_problem(_crd_with(schema)) == problem
