"""controller-interplay: the cloud and GPU environments as the repository had them (envs/found:
the RayJob's TTL, cleanPodPolicy None, images at registry.example.com, two NCCL ranks per GPU pod
with the runtime's /dev/shm and one rank's limits), as fixed (envs/fixed), and a cloud
environment that declares no registry (envs/unregistered)."""

from __future__ import annotations

import pytest

from helpers import findings_by_object, run_trainops, write_tree
from trainops.rules.controller_interplay import reserved

RULE = "controller-interplay"
WORKER = "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0]"


@pytest.fixture(scope="module")
def found() -> dict[tuple[str, str], list[tuple[str, str]]]:
    return findings_by_object(RULE)


def test_a_ray_cluster_kept_after_kueue_released_its_quota(found):
    assert found[("found", "RayJob/recommender-train-ray")] == [
        (
            "spec.ttlSecondsAfterFinished",
            "Kueue releases the RayJob's quota when it finishes, but KubeRay deletes its "
            "RayCluster only 300s later (ttlSecondsAfterFinished): for 300s the head and workers "
            "(cpu 2, memory 4Gi) run outside any quota",
        )
    ]


def test_training_pods_kept_running_after_the_job_finished(found):
    messages = dict(found[("found", "PyTorchJob/recommender-train-pt")])
    assert messages["spec.runPolicy.cleanPodPolicy"].startswith(
        "PyTorchJob recommender-train-pt has cleanPodPolicy None: once it has Succeeded or Failed"
    )
    # Outside Kueue nothing holds quota for the pods: no finding for the unqueued job.
    assert not [
        m for p, m in found[("unregistered", "PyTorchJob/unqueued")] if "cleanPodPolicy" in p
    ]


def test_images_at_a_reserved_name(found):
    assert found[("found", "Job/recommender-train")] == [
        (
            "spec.template.spec.containers[0].image",
            "image registry.example.com/bookstore/recommender-train is at registry.example.com, "
            "a name reserved so that it never resolves: the pods sit in ImagePullBackOff while "
            "Kueue holds their quota",
        )
    ]
    assert (
        f"{WORKER}.image",
        "image registry.example.com/bookstore/recommender-train-cuda is at registry.example.com, "
        "a name reserved so that it never resolves: the pods sit in ImagePullBackOff while Kueue "
        "holds their quota",
    ) in found[("found", "PyTorchJob/recommender-train-pt")]


def test_nccl_ranks_without_shared_memory_and_with_one_ranks_limits(found):
    messages = dict(found[("found", "PyTorchJob/recommender-train-pt")])
    assert messages[f"{WORKER}.volumeMounts"] == (
        "runs 2 NCCL ranks on its GPUs with no memory-backed /dev/shm: NCCL keeps its buffers "
        "between the ranks there, and the runtime's is 64 MiB"
    )
    assert messages[f"{WORKER}.resources.limits.cpu"] == (
        "its cpu limit 1 is less than its 2 ranks need (2 x 1 per rank as trainops.yaml "
        "declares for bookstore/recommender-train-cuda: 2)"
    )
    assert messages[f"{WORKER}.resources.limits.memory"] == (
        "its memory limit 2Gi is less than its 2 ranks need (2 x 2Gi per rank as trainops.yaml "
        "declares for bookstore/recommender-train-cuda plus /dev/shm 1Gi: 5Gi)"
    )


def test_a_cloud_environment_without_a_registry_and_a_small_shm(found):
    messages = dict(found[("unregistered", "PyTorchJob/unqueued")])
    assert messages[f"{WORKER}.image"] == (
        "image bookstore/recommender-train-cuda names no registry, so the eks cluster pulls it "
        "from Docker Hub, and trainops.yaml declares none for this environment"
    )
    assert messages[f"{WORKER}.volumeMounts"] == (
        "runs 4 NCCL ranks with a /dev/shm of 0.25Gi, less than the 1 GiB NCCL's guide gives "
        "containers"
    )


def test_fixed_environment_is_clean(found):
    assert not [key for key in found if key[0] == "fixed"]


@pytest.mark.parametrize(
    ("host", "is_reserved"),
    [
        ("registry.example.com", True),
        ("example.org", True),
        ("images.example", True),
        ("registry.test", True),
        ("mirror.invalid", True),
        ("localhost", True),
        ("registry.localhost", True),
        ("ghcr.io", False),
        ("example.company.com", False),
        ("123456789012.dkr.ecr.us-east-1.amazonaws.com", False),
    ],
)
def test_reserved_names(host, is_reserved):
    assert reserved(host) is is_reserved


def test_an_own_image_from_another_registry_and_a_reserved_declared_one(tmp_path):
    """The image at a reserved name is this rule's; an own image from another registry, and the
    reserved name as a placeholder owner, the provenance rule's."""
    job = (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: train, namespace: ns}}\nspec:\n"
        "  template:\n    spec:\n      restartPolicy: Never\n"
        "      containers: [{{name: train, image: '{image}'}}]\n"
    )
    profile = (
        "profiles:\n  gke:\n    cloud: gke\n    storageClasses: {}\n"
        "    nodePools: [{name: p, allocatable: {cpu: '4', memory: 8Gi}}]\n"
        "images:\n  bookstore/train: {}\n"
    )
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "roots: [envs/*/*.yaml]\nenvironments:\n"
            "  envs/other: {profile: gke, registry: ghcr.io/team}\n"
            "  envs/declared: {profile: gke, registry: registry.example.com/team}\n" + profile,
            "envs/other/w.yaml": job.format(image="docker.io/someone/bookstore/train:1"),
            "envs/declared/w.yaml": job.format(image="registry.example.com/team/bookstore/train:1"),
        },
    )
    done = run_trainops("validate", "--select", f"{RULE},provenance", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert (
        "[provenance] Job/ns/train at spec.template.spec.containers[0].image: "
        "image docker.io/someone/bookstore/train is one of the repository's own "
        "(bookstore/train), yet not from ghcr.io/team, the registry trainops.yaml declares for "
        "this environment"
    ) in done.stdout
    assert "is at registry.example.com, a name reserved so that it never resolves" in done.stdout
    assert (
        "names a placeholder owner in 1 place (image registry.example.com/team/bookstore/train "
        "(Job train)): registry.example.com is a name reserved so that it never resolves"
    ) in done.stdout
