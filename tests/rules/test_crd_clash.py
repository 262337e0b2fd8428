"""crd-clash: two operator roots of one environment installing a CRD of the same name, inside one
layer (kustomize refuses it) and across layers (both render, the last applied wins)."""

from __future__ import annotations

from helpers import REPO, RULE_FIXTURES, rendered_docs
from trainops.check.validate import Root, validate
from trainops.model.config import load_config
from trainops.render import kustomization
from trainops.rules import RULES

RULE = "crd-clash"
FIXTURE = RULE_FIXTURES / RULE
OPERATORS = "tests/rules/fixtures/crd-clash/operators"


def _findings(renderer):
    config = load_config(FIXTURE / "trainops.yaml", RULES)
    assert config is not None
    roots = [Root(p) for p in kustomization.configured_roots(config)]
    outcome = validate(roots, renderer, config=config, selected={RULE, "render-failed"})
    return outcome.findings


def test_one_layer_including_both_operator_roots(renderer):
    found = _findings(renderer)
    [clash] = [f for f in found if f.rule == RULE and f.root.endswith("envs/bad/operators")]
    assert clash.message == (
        f"two operator roots of this layer install CRD widgets.example.com: {OPERATORS}/widgets-v2 "
        f"and {OPERATORS}/legacy; kustomize refuses the second, and a cluster holds one CRD of a "
        "name"
    )
    # On the entry kustomize refused, where render-failed reports the refusal itself.
    [failed] = [f for f in found if f.rule == "render-failed" and f.root == clash.root]
    assert (clash.file, clash.line) == (failed.file, failed.line)
    assert "$patch: delete" in (clash.hint or "")


def test_two_layers_of_one_environment(renderer):
    found = [f for f in _findings(renderer) if f.rule == RULE and "envs/split" in f.root]
    [clash] = found
    assert clash.root.endswith("envs/split/platform")
    assert clash.object is not None and clash.object.name == "widgets.example.com"
    assert f"({OPERATORS}/widgets-v1/crd.yaml:1)" in clash.message
    assert "the one applied last replaces the other's versions and schema" in clash.message


def test_an_operator_root_dropping_its_copy_is_clean(renderer):
    assert not [f for f in _findings(renderer) if "envs/good" in f.root]


def test_the_repository_drops_the_training_operators_mpijob_crd(renderer):
    """The Training Operator v1.8.1 and the MPI Operator v0.8.0 both ship mpijobs.kubeflow.org:
    the Training Operator's root drops its v1 CRD and starts no MPIJob controller."""
    names = {
        d["metadata"]["name"]
        for d in rendered_docs(renderer, REPO / "operators" / "training-operator")
        if d.get("kind") == "CustomResourceDefinition"
    }
    assert "mpijobs.kubeflow.org" not in names and "pytorchjobs.kubeflow.org" in names
