"""elastic-spot: an elastic PyTorchJob whose rendezvous host is a spot pod, as the repository had
it (envs/before) and as first fixed (envs/worker-0-waits); its store in a Master of its own off
spot nodes (envs/after), one that may go to spot (envs/store-on-spot); a job torchrun may not
restart (envs/no-restarts); an rdzvHost naming a pod the job lacks (envs/no-master); and with no
spot flavor in reach (envs/on-demand)."""

from __future__ import annotations

import pytest

from helpers import findings_by_object

RULE = "elastic-spot"
JOB = "PyTorchJob/train"


@pytest.fixture(scope="module")
def found() -> dict[tuple[str, str], list[tuple[str, str]]]:
    return findings_by_object(RULE)


def test_losing_worker_0_exhausts_the_backoff_limit(found):
    [(path, message)] = found[("before", JOB)]
    assert path == "spec.elasticPolicy.rdzvHost"
    assert message == (
        "PyTorchJob train rendezvouses on train-worker-0 (no rdzvHost: Training Operator v1.8.1 "
        "elastic.go), which Kueue may place on spot flavor spot: torch's c10d store lives in that "
        "pod's agent (torch 2.13 c10d_rendezvous_backend.py, _create_tcp_store), so a reclaim of "
        "it fails every other worker's agent, costing up to 10 container restarts (1 other "
        "worker(s), each failing every read_timeout 60s over Kueue's 600s recovery timeout), and "
        "backoffLimit 3 fails the whole job at that (v1.8.1 pkg/core/job.go, PastBackoffLimit)"
    )


def test_waiting_out_the_replacement_still_loses_the_store(found):
    """The first fix: the others wait for worker-0's replacement, one restart each, within the
    backoffLimit; the store still goes with worker-0."""
    [(path, message)] = found[("worker-0-waits", JOB)]
    assert path == "spec.elasticPolicy.rdzvHost"
    assert message.endswith(
        "costing up to 1 container restarts (1 other worker(s), each failing every read_timeout "
        "600s over Kueue's 600s recovery timeout)"
    )


def test_a_store_that_kueue_may_admit_to_spot(found):
    [(path, message)] = found[("store-on-spot", JOB)]
    assert path == "spec.elasticPolicy.rdzvHost"
    assert message.startswith(
        "PyTorchJob train rendezvouses on train-master-0 (rdzvHost), which Kueue may place on "
        "spot flavor spot:"
    )


def test_workers_torchrun_may_not_restart(found):
    [(path, message)] = found[("no-restarts", JOB)]
    assert path == "spec.elasticPolicy.maxRestarts"
    assert "torchrun may restart them 0 times (maxRestarts unset or 0" in message


def test_a_host_the_job_does_not_have(found):
    [(path, message)] = found[("no-master", JOB)]
    assert path == "spec.elasticPolicy.rdzvHost"
    assert message == (
        "PyTorchJob train rendezvouses on train-master-0, the name the Training Operator would "
        "give Master pod 0 (v1.8.1 pkg/core/utils.go, GenGeneralName), but the job has no such "
        "pod: no store answers there and no worker ever rendezvouses"
    )


def test_a_store_off_spot_and_on_demand_only_are_clean(found):
    assert {env for env, _ in found} == {
        "before",
        "worker-0-waits",
        "store-on-spot",
        "no-restarts",
        "no-master",
    }


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
    assert found is not None and found.replica is None and found.explicit
    assert (found.max_replicas, found.read_timeout, found.backoff_limit) == (4, 60, 3)
    assert found.max_restarts == 0  # torchrun's default
    assert elastic.restarts_per_loss(found, 600) == 30
    # A host in the job's namespace by its DNS name is still the job's pod.
    job["spec"]["elasticPolicy"]["rdzvHost"] = "train-worker-1.training.svc"
    job["spec"]["pytorchReplicaSpecs"] = {"Worker": {"replicas": 2}}
    found = elastic.rendezvous(K8sObject(job, "job.yaml", 1))
    assert found is not None and (found.replica, found.index, found.explicit) == ("Worker", 1, True)
    assert elastic.host_spec(K8sObject(job, "job.yaml", 1), found) == {}
