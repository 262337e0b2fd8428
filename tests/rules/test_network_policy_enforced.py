"""network-policy-enforced: the gke and eks profiles as the repository shipped them (no
networkPolicy), one saying nothing enforces, and one naming its engine."""

from __future__ import annotations

import pytest

from helpers import REPO, findings_by_object
from trainops.knowledge.profiles import profile_from
from trainops.model.config import load_config
from trainops.rules import RULES

RULE = "network-policy-enforced"


@pytest.fixture(scope="module")
def found() -> dict[tuple[str, str], list[tuple[str, str]]]:
    return findings_by_object(RULE)


@pytest.mark.parametrize(("env", "profile"), [("found-gke", "gke"), ("found-eks", "eks")])
def test_a_policy_in_an_environment_whose_profile_names_no_engine(found, env, profile):
    [(path, message)] = found[(env, "NetworkPolicy/default-deny")]
    assert path is None
    assert message.startswith(
        f"NetworkPolicy bookstore-ml/default-deny isolates nothing unless the cluster enforces "
        f"it, and profile {profile} (environment envs/{env}) declares no NetworkPolicy engine"
    )
    assert "without a plugin that implements it the policy has no effect" in message


def test_a_profile_saying_nothing_enforces(found):
    [(_, message)] = found[("none", "NetworkPolicy/default-deny")]
    assert "profile bare (environment envs/none) says nothing enforces NetworkPolicies" in message


def test_a_profile_naming_its_engine_is_clean(found):
    assert not [key for key in found if key[0] == "fixed"]
    assert {env for env, _ in found} == {"found-gke", "found-eks", "none"}


def test_every_shipped_profile_names_its_engine_and_cites_it():
    config = load_config(REPO / "trainops.yaml", set(RULES))
    assert config is not None
    for name, data in config.profiles.items():
        engine = profile_from(name, data).network_policy
        assert engine is not None and engine.enforces, name
        assert engine.source.startswith("https://"), name
