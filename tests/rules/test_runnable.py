"""runnable: GPUs, NCCL, elastic bounds and Ray workers against what the images declare; each
defect as the repository had it (envs/before) and as fixed (envs/after)."""

from __future__ import annotations

import pytest

from helpers import RULE_FIXTURES, findings_by_object, validate_fixture
from trainops.model.findings import Severity

RULE = "runnable"
CONTAINER = "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0]"


@pytest.fixture(scope="module")
def found() -> dict[tuple[str, str], list[tuple[str, str]]]:
    return findings_by_object(RULE)


def test_gpus_on_a_cpu_only_image_and_nccl_settings_that_do_nothing(found):
    assert sorted(found[("before", "PyTorchJob/on-cpu-torch")]) == [
        (
            "spec.elasticPolicy.maxReplicas",
            "elasticPolicy.maxReplicas 4 can never be reached with 2 Worker replicas: Kueue admits "
            "and holds quota for the replicas as written",
        ),
        (
            f"{CONTAINER}.env",
            "sets NCCL_DEBUG, but the script in registry.example.com/bookstore/train-torch:0.1.0 "
            "never uses NCCL: they do nothing",
        ),
        (
            f"{CONTAINER}.resources",
            "requests 2 nvidia.com/gpu but its image "
            "registry.example.com/bookstore/train-torch:0.1.0 is declared CPU-only (cuda: false): "
            "the GPUs idle while the quota counts them",
        ),
    ]


def test_a_gloo_only_script_on_gpus_and_an_undeclared_image(found):
    [(path, message)] = found[("before", "PyTorchJob/gloo-on-gpus")]
    assert path == f"{CONTAINER}.resources" and "uses only gloo" in message
    [(path, message)] = found[("before", "Job/undeclared")]
    assert "example.com/other/image@sha256:0123 is not declared in trainops.yaml images" in message
    assert message.endswith("so runnable cannot tell whether it can use the GPUs: not judged")


def test_an_undeclared_image_is_a_note_not_an_error():
    """What trainops.yaml does not declare is not judged: a note saying what to declare."""
    findings = validate_fixture(RULE, RULE_FIXTURES / RULE / "trainops.yaml")
    undeclared = [f for f in findings if f.object and f.object.name == "undeclared"]
    assert [f.severity for f in undeclared] == [Severity.NOTE]


def test_an_elastic_bound_without_metrics_and_idle_ray_workers(found):
    [(_, message)] = found[("before", "PyTorchJob/no-metrics")]
    assert "the kind cluster has no metrics-server" in message
    assert found[("before", "RayJob/idle-workers")] == [
        (
            "spec.rayClusterSpec.workerGroupSpecs",
            "asks for 1 Ray worker(s), but the head's image bookstore/train-torch:0.1.0 is not "
            "declared to spread work over Ray tasks (ray: true): the workers idle",
        )
    ]


def test_elastic_and_ray_findings_are_warnings():
    findings = {
        f.path: f.severity for f in validate_fixture(RULE, RULE_FIXTURES / RULE / "trainops.yaml")
    }
    assert findings["spec.elasticPolicy.maxReplicas"] is Severity.WARNING
    assert findings["spec.rayClusterSpec.workerGroupSpecs"] is Severity.WARNING
    assert findings[f"{CONTAINER}.resources"] is Severity.ERROR


def test_fixed_environment_is_clean(found):
    assert not [key for key in found if key[0] == "after"]


def test_gpu_sharing_resources_count_as_gpus(found):
    """MIG instances and time-sliced replicas are GPUs to the rule, as whole GPUs are."""
    assert found[("before", "Job/mig-on-cpu-image")] == [
        (
            "spec.template.spec.containers[0].resources",
            "requests 1 nvidia.com/mig-1g.10gb but its image bookstore/train:0.1.0 is declared "
            "CPU-only (cuda: false): the GPUs idle while the quota counts them",
        )
    ]


def test_more_than_one_mig_instance_or_time_sliced_replica(found):
    assert found[("before", "Job/two-mig-instances")] == [
        (
            "spec.template.spec.containers[0].resources",
            "requests 2 nvidia.com/mig-1g.10gb: a CUDA process enumerates one MIG instance "
            "only, so the others idle",
        )
    ]
    [(_, message)] = found[("before", "Job/two-shared-replicas")]
    assert message.startswith("requests 2 nvidia.com/gpu.shared: more replicas of a time-sliced")


def test_nccl_ranks_on_shared_gpus(found):
    [(path, message)] = found[("before", "PyTorchJob/nccl-on-shared")]
    assert path == f"{CONTAINER.replace('Worker', 'Master')}.resources"
    assert message == (
        "runs NCCL ranks of a distributed job on 1 nvidia.com/gpu.shared: a time-sliced replica "
        "may share its GPU with another rank or pod, contending for its compute and memory with "
        "no isolation, and every all-reduce waits for the slowest rank"
    )
    severities = {
        f.object.name: f.severity
        for f in validate_fixture(RULE, RULE_FIXTURES / RULE / "trainops.yaml")
    }
    assert severities["nccl-on-shared"] is Severity.WARNING
    assert severities["two-mig-instances"] is Severity.ERROR
