"""storage: claims against the environment's profile; each defect as the repository had it
(envs/*-before) and as fixed (envs/*-after)."""

from __future__ import annotations

import pytest

from helpers import findings_by_object, run_trainops, write_tree

RULE = "storage"


@pytest.fixture(scope="module")
def found() -> dict[tuple[str, str], list[tuple[str, str]]]:
    return findings_by_object(RULE)


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


def test_an_environment_naming_an_undefined_profile_is_exit_2(tmp_path):
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "environments:\n  overlays/kind: kind\nprofiles: {}\n",
            "manifests/pvc.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\n",
        },
    )
    done = run_trainops("validate", "manifests", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert (
        "trainops.yaml at environments.overlays/kind: profile 'kind' is not defined under "
        "profiles (defined: none)"
    ) in done.stderr
    assert "Traceback" not in done.stderr


def test_a_profile_without_allocatable_is_exit_2_with_the_place(tmp_path):
    profile = (
        "profiles:\n  kind:\n    cloud: kind\n    storageClasses: {}\n"
        "    nodePools:\n      - name: node\n"
    )
    write_tree(tmp_path, {"trainops.yaml": profile, "manifests/empty.yaml": ""})
    done = run_trainops("validate", "manifests", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "trainops.yaml at profiles.kind.nodePools[0]:" in done.stderr
    assert "allocatable" in done.stderr and "Traceback" not in done.stderr
