"""storage: claims against the environment's profile; each defect as the repository had it
(envs/*-before) and as fixed (envs/*-after)."""

from __future__ import annotations

import pytest

from helpers import RULE_FIXTURES, configured_findings

RULE = "storage"


@pytest.fixture(scope="module")
def found() -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(environment, object) -> [(path, message)]."""
    result: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for env, obj, path, message in configured_findings(
        RULE, RULE_FIXTURES / RULE / "trainops.yaml"
    ):
        result.setdefault((env, obj), []).append((path, message))
    return result


def test_a_class_the_cloud_does_not_have_is_named_with_those_it_has(found):
    assert found[("gke-before", "PersistentVolumeClaim/recommender-model")] == [
        (
            "spec.storageClassName",
            "storage class rwx-checkpoints does not exist in the gke cluster (its classes: "
            "standard-rwo, standard-rwx): the claim stays Pending",
        )
    ]


def test_an_access_mode_the_class_cannot_give(found):
    assert found[("gke-before", "PersistentVolumeClaim/shared-on-disk")] == [
        (
            "spec.accessModes",
            "asks for ReadWriteMany, which storage class standard-rwo (pd.csi.storage.gke.io) "
            "does not support (it supports ReadWriteOnce)",
        )
    ]


def test_different_users_on_a_volume_that_ignores_fsgroup(found):
    assert found[("kind-before", "PersistentVolumeClaim/recommender-model")] == [
        (
            "metadata.name",
            "is shared by pods of different users (1000:100 (RayJob recommender-train-ray), "
            "65532:65532 (Job recommender-train)) on storage class standard, whose volumes "
            "ignore fsGroup: whichever job creates a folder first owns it and the others fail "
            "with PermissionError",
        )
    ]


def test_different_fsgroups_on_one_volume(found):
    [(path, message)] = found[("gke-before", "PersistentVolumeClaim/two-groups")]
    assert path == "metadata.name"
    assert message.startswith("is shared by pods with different fsGroups (100 (Job writer-b), ")


def test_no_class_and_no_default(found):
    [(path, message)] = found[("bare", "PersistentVolumeClaim/unnamed-class")]
    assert path == "spec.storageClassName"
    assert "the bare cluster has no default storage class" in message


def test_fixed_environments_are_clean(found):
    assert sorted(found) == [
        ("bare", "PersistentVolumeClaim/unnamed-class"),
        ("gke-before", "PersistentVolumeClaim/recommender-model"),
        ("gke-before", "PersistentVolumeClaim/shared-on-disk"),
        ("gke-before", "PersistentVolumeClaim/two-groups"),
        ("kind-before", "PersistentVolumeClaim/recommender-model"),
    ]
