"""cel-rules against the upstream CRDs themselves (../shared/upstream): Kueue v0.18.6 and JobSet v0.12.0."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from helpers import REPO, RULE_FIXTURES
from trainops.check.validate import Root, load_root
from trainops.knowledge.schema import cel
from trainops.knowledge.schema.catalog import Catalog
from trainops.model.rendered import Cluster
from trainops.rules import cel_rules

UPSTREAM = REPO.parent / "shared" / "upstream"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    files = sorted((UPSTREAM / "kueue" / "v0.18.6" / "crds").glob("*.yaml")) + sorted(
        (UPSTREAM / "jobset" / "v0.12.0" / "crds").glob("*.yaml")
    )
    assert files, f"no upstream CRDs under {UPSTREAM}"
    return Catalog(["v1.32"], [yaml.load(f.read_text(), Loader=yaml.CSafeLoader) for f in files])


def findings(catalog, fixture: str):
    rendered = load_root(Root(RULE_FIXTURES / "cel-rules" / fixture), None, None)
    return list(cel_rules.check(rendered, Cluster([rendered], catalog=catalog)))


def test_good(catalog):
    assert findings(catalog, "good.yaml") == []


def test_bad(catalog):
    found = findings(catalog, "bad.yaml")
    assert {(f.rule, f.file) for f in found} == {
        ("cel-rules", "tests/rules/fixtures/cel-rules/bad.yaml")
    }
    assert [f.line for f in found] == [2, 15, 28, 40, 48]
    assert {(f.object.name, f.path): f.message for f in found} == {
        (
            "short-flavor",
            "spec.resourceGroups[0]",
        ): 'Invalid value: "object": flavors must have the same number of resources as the coveredResources',
        (
            "lonely-borrower",
            "spec",
        ): 'Invalid value: "object": borrowingLimit must be nil when cohort is empty',
        (
            "never-reclaims",
            "spec.preemption",
        ): 'Invalid value: "object": reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never',
        (
            "spot",
            "spec.tolerations",
        ): "Invalid value: \"array\": a value must be empty when 'operator' is 'Exists'",
        (
            "ordered",
            "spec",
        ): 'Invalid value: "object": StartupPolicy and DependsOn APIs are mutually exclusive',
    }


def test_defaults_apply_before_rules():
    """flavorFungibility's whenCanBorrow/whenCanPreempt default to Borrow and TryNextFlavor: with a
    preference set and nothing else, the rule sees the defaults and fails."""
    schema = {
        "type": "object",
        "properties": {
            "f": {
                "type": "object",
                "properties": {
                    "preference": {"type": "string"},
                    "whenCanBorrow": {"type": "string", "default": "Borrow"},
                },
                "x-kubernetes-validations": [
                    {
                        "rule": "!has(self.preference) || self.whenCanBorrow == 'TryNextFlavor'",
                        "message": "m",
                    }
                ],
            }
        },
    }
    assert [f.path for f in cel.validate(schema, {"f": {"preference": "x"}}, "t").failures] == ["f"]
    assert (
        cel.validate(
            schema, {"f": {"preference": "x", "whenCanBorrow": "TryNextFlavor"}}, "t"
        ).failures
        == []
    )


def test_transition_rules_are_skipped_unknown_functions_are_notes_and_runtime_errors_reject():
    schema = {
        "type": "object",
        "x-kubernetes-validations": [
            {"rule": "self == oldSelf", "message": "immutable"},
            {"rule": "quantity(self.q).isGreaterThan(quantity('1'))"},
            {"rule": "self.missing == 1"},
            {
                "rule": "size(self.q) > 5",
                "messageExpression": "'q is only ' + string(size(self.q)) + ' long'",
                "fieldPath": ".q",
                "reason": "FieldValueForbidden",
            },
        ],
        "properties": {"q": {"type": "string"}, "missing": {"type": "integer"}},
    }
    outcome = cel.validate(schema, {"q": "2"}, "Thing/x (x.yaml)")
    # A rule that reads an absent field without has() fails to evaluate, and the API server
    # rejects the object for it (kube-apiserver v1.32.13 on a Kueue ResourceFlavor: `Invalid
    # value: "object": no such key: nodeLabels evaluating rule: at least one nodeLabel is
    # required when topology is set`).
    assert [(f.path, f.message) for f in outcome.failures] == [
        ("", 'Invalid value: "object": no such key: missing evaluating rule: self.missing == 1'),
        ("q", "Forbidden: q is only 1 long"),
    ]
    [unknown] = outcome.unevaluated
    assert "uses isGreaterThan, quantity, which this evaluator does not implement: not checked" in (
        unknown
    )


def test_nested_defaults_are_applied_before_any_rule_runs():
    schema = {
        "type": "object",
        "x-kubernetes-validations": [{"rule": "self.inner.policy == 'Never'", "message": "m"}],
        "properties": {
            "inner": {
                "type": "object",
                "default": {},
                "properties": {"policy": {"type": "string", "default": "Never"}},
            }
        },
    }
    assert cel.validate(schema, {}, "Thing/x (x.yaml)").failures == []


def test_root_rules_see_only_the_name_fields_of_metadata():
    schema = {
        "type": "object",
        "x-kubernetes-validations": [
            {"rule": "!has(self.metadata.labels)", "message": "no labels"}
        ],
    }
    assert (
        cel.validate(schema, {"metadata": {"name": "a", "labels": {"x": "y"}}}, "t").failures == []
    )


def test_the_evaluator_loads_without_the_packages_cli_and_a_later_import_shares_it():
    """The compiled module is loaded alone (the package's __init__ would pull in typer and
    prompt_toolkit); importing the package afterwards must reuse it, since a PyO3 extension
    refuses a second initialisation."""
    script = (
        "import sys\n"
        "from trainops.knowledge.schema import cel as ours\n"
        "assert ours._Compiled().get('self.x > 1') is not None\n"
        "assert 'typer' not in sys.modules and 'prompt_toolkit' not in sys.modules, 'CLI loaded'\n"
        "import cel\n"
        "assert cel.compile is ours._extension().compile\n"
        "print(cel.compile('1 + 2').execute())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=60
    )
    assert (done.returncode, done.stdout.strip()) == (0, "3"), done.stderr


def test_a_rule_below_ruleless_levels_sees_its_defaults_and_nothing_else_is_walked():
    # Only subtrees holding rules are visited: a rule two levels below a rule-free root still
    # runs on a value its own defaults filled in (the property was absent), in list items too,
    # and a rule-free sibling holding anything at all costs nothing and reports nothing.
    rule = {"rule": "self.size == 'large'", "message": "too small"}
    ruled = {
        "type": "object",
        "default": {},
        "x-kubernetes-validations": [rule],
        "properties": {"size": {"type": "string", "default": "small"}},
    }
    schema = {
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "box": ruled,
                    "boxes": {"type": "array", "items": ruled},
                    "template": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                },
            }
        },
    }
    doc = {"spec": {"boxes": [{}, {"size": "large"}], "template": {"deep": [[{"x": 1}]] * 50}}}
    failures = cel.validate(schema, doc, "Thing/x (x.yaml)").failures
    assert [(f.path, f.message) for f in failures] == [
        ("spec.boxes[0]", 'Invalid value: "object": too small'),
        ("spec.box", 'Invalid value: "object": too small'),
    ]
