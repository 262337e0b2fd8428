"""elastic-spot: an elastic PyTorchJob whose rendezvous host is a spot pod, as the repository had
it (envs/before), as fixed (envs/after), and with no spot flavor in reach (envs/on-demand)."""

from __future__ import annotations

import pytest

from helpers import findings_by_object

RULE = "elastic-spot"


@pytest.fixture(scope="module")
def found() -> dict[tuple[str, str], list[tuple[str, str]]]:
    return findings_by_object(RULE)


def test_losing_worker_0_exhausts_the_backoff_limit(found):
    [(path, message)] = found[("before", "PyTorchJob/train")]
    assert path == "spec.runPolicy.backoffLimit"
    assert message == (
        "PyTorchJob train rendezvouses on train-worker-0 (no rdzvHost: Training Operator v1.8.1 "
        "elastic.go), which Kueue may place on spot flavor spot; losing it costs up to 10 "
        "container restarts (1 other worker(s), each failing every read_timeout 60s over "
        "Kueue's 600s recovery timeout), and backoffLimit 3 fails the whole job at that (v1.8.1 "
        "pkg/core/job.go, PastBackoffLimit)"
    )


def test_waiting_out_the_recovery_timeout_and_on_demand_only_are_clean(found):
    assert set(found) == {("before", "PyTorchJob/train")}


def test_go_durations_and_a_rendezvous_host_of_its_own():
    from trainops.knowledge import elastic
    from trainops.model.objects import K8sObject

    assert [elastic.seconds(d) for d in ("10m", "1h30m", "90s", "1.5m", "10", "m", None)] == [
        600.0,
        5400.0,
        90.0,
        90.0,
        None,
        None,
        None,
    ]
    job = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "train", "namespace": "training"},
        "spec": {
            "elasticPolicy": {"rdzvHost": "rendezvous.training.svc", "maxReplicas": 4},
            "runPolicy": {"backoffLimit": 3},
        },
    }
    found = elastic.rendezvous(K8sObject(job, "job.yaml", 1))
    assert found is not None and not found.on_worker_0
    assert (found.max_replicas, found.read_timeout, found.backoff_limit) == (4, 60, 3)
    assert elastic.restarts_per_loss(found, 600) == 30
