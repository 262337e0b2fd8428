"""What the real Kueue, Job controller and kube-scheduler do with the kind environment's platform
(its ClusterQueue, LocalQueue and WorkloadPriorityClasses, the node and the pods already on it),
in a cluster without containers (harness.py): the plain Job's whole path, a priority preemption
and its resume, and waitForPodsReady's evict and requeue. Skipped, saying which binary is
missing and how to build it, where the harness cannot run (`make cluster` runs them)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import cluster_harness as harness  # noqa: E402

pytestmark = pytest.mark.cluster

NAMESPACE = "bookstore-ml"
QUEUE = "bookstore-ml-lq"
BEHAVIOUR = "trainops-harness/kubelet"  # a pod label: how the harness's kubelet treats the pod


def _behaviour(pod: dict) -> str:
    return ((pod.get("metadata") or {}).get("labels") or {}).get(BEHAVIOUR, "ready")


@pytest.fixture(scope="module")
def kind():
    reason = harness.missing()
    if reason is not None:
        pytest.skip(f"no cluster without containers: {reason}")
    if not os.environ.get(harness.OPT_IN):
        pytest.skip(f"the cluster without containers runs with {harness.OPT_IN}=1 (make cluster)")
    env = harness.environment("kind")
    with harness.cluster(_behaviour, harness.PODS_READY_TIMEOUT) as (plane, api, _):
        # The environment without its jobs: the tests bring their own.
        refused = harness.load(plane, api, env, skip=lambda doc: doc["kind"] in harness.JOB_KINDS)
        assert not refused, refused
        yield api


def _job(name: str, cpu: str, pods: int = 1, behaviour: str = "ready", priority: str = "") -> dict:
    labels = {"kueue.x-k8s.io/queue-name": QUEUE}
    if priority:
        labels["kueue.x-k8s.io/priority-class"] = priority
    security = {
        "runAsNonRoot": True,
        "runAsUser": 65532,
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": labels},
        "spec": {
            "parallelism": pods,
            "completions": pods,
            "backoffLimit": 0,
            "template": {
                "metadata": {"labels": {BEHAVIOUR: behaviour}},
                "spec": {
                    "restartPolicy": "Never",
                    "securityContext": security,
                    "containers": [
                        {
                            "name": "main",
                            "image": harness.PAUSE_IMAGE,
                            "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}},
                            "securityContext": {
                                "allowPrivilegeEscalation": False,
                                "capabilities": {"drop": ["ALL"]},
                            },
                        }
                    ],
                },
            },
        },
    }


def _workload(api, job: str) -> dict | None:
    return next((w for w in harness.workloads(api) if w["job"] == f"Job {job}"), None)


def _job_status(api, name: str) -> dict:
    found = api.resource("batch/v1", "Job").get(name=name, namespace=NAMESPACE).to_dict()
    return {"spec": found["spec"], "status": found.get("status") or {}}


def _cpu_used(api) -> str:
    queue = api.resource("kueue.x-k8s.io/v1beta2", "ClusterQueue").get(name="bookstore-ml-cq")
    usage = queue.to_dict().get("status", {}).get("flavorsUsage") or []
    for flavor in usage:
        for resource in flavor.get("resources") or []:
            if resource["name"] == "cpu":
                return str(resource.get("total", "0"))
    return "0"


def _delete(api, name: str) -> None:
    api.resource("batch/v1", "Job").delete(
        name=name, namespace=NAMESPACE, body={"propagationPolicy": "Background"}
    )
    harness.wait_for(
        f"Job {name}'s Workload gone", lambda: _workload(api, name) is None, seconds=60
    )


def test_the_plain_job_end_to_end(kind):
    api = kind
    api.apply(_job("e2e", "300m", pods=2, behaviour="succeed"))
    # Kueue's webhook suspends it, Kueue admits it and unsuspends it ...
    admitted = harness.wait_for(
        "e2e admitted", lambda: (_workload(api, "e2e") or {}).get("admitted")
    )
    assert admitted
    # ... the Job controller makes its pods, the scheduler binds them, the kubelet completes them.
    harness.wait_for(
        "e2e complete",
        lambda: any(
            c["type"] == "Complete" and c["status"] == "True"
            for c in _job_status(api, "e2e")["status"].get("conditions") or []
        ),
        seconds=90,
    )
    nodes = {p["node"] for p in harness.pods(api, {NAMESPACE}) if p["owner"] == "Job e2e"}
    assert nodes == {"kind-control-plane"}
    # Kueue releases the quota once the job finished.
    harness.wait_for("the quota released", lambda: _cpu_used(api) in ("0", "0m"), seconds=60)
    _delete(api, "e2e")


def test_an_adhoc_run_preempts_scheduled_retraining_which_resumes(kind):
    api = kind
    # The ClusterQueue preempts LowerPriority within itself (base/kueue.yaml), and the ad-hoc
    # class (1000) is above the scheduled one (100): with 1800m of quota, 1200m taken by the
    # scheduled job leaves too little for the ad-hoc 1000m, which preempts it.
    api.apply(_job("scheduled", "1200m", priority="bookstore-ml-scheduled"))
    harness.wait_for(
        "scheduled admitted", lambda: (_workload(api, "scheduled") or {}).get("admitted")
    )
    api.apply(_job("adhoc", "1000m", priority="bookstore-ml-adhoc"))
    harness.wait_for(
        "adhoc admitted", lambda: (_workload(api, "adhoc") or {}).get("admitted"), seconds=90
    )
    scheduled = _workload(api, "scheduled")
    assert scheduled is not None and not scheduled["admitted"]
    assert _job_status(api, "scheduled")["spec"].get("suspend") is True
    # Once the ad-hoc run is gone, the preempted job is admitted again and resumes.
    _delete(api, "adhoc")
    harness.wait_for(
        "scheduled admitted again",
        lambda: (_workload(api, "scheduled") or {}).get("admitted"),
        seconds=90,
    )
    assert _job_status(api, "scheduled")["spec"].get("suspend") is False
    _delete(api, "scheduled")


def test_a_gang_not_ready_in_time_is_evicted_and_requeued(kind):
    api = kind
    api.apply(_job("never-ready", "200m", pods=2, behaviour="not-ready"))
    harness.wait_for("admitted", lambda: (_workload(api, "never-ready") or {}).get("admitted"))
    # waitForPodsReady (the harness's timeout: harness.PODS_READY_TIMEOUT) evicts it and
    # suspends the Job; the requeuing strategy puts it back in the queue after a backoff.
    evicted = harness.wait_for(
        "evicted for PodsReady",
        lambda: _evicted_reason(api, "never-ready"),
        seconds=90,
    )
    assert evicted == "PodsReadyTimeout"
    _delete(api, "never-ready")


def _evicted_reason(api, job: str) -> str | None:
    for item in api.items("kueue.x-k8s.io/v1beta2", "Workload", NAMESPACE):
        owner = next(iter(item["metadata"].get("ownerReferences") or []), {})
        if owner.get("name") != job:
            continue
        for condition in (item.get("status") or {}).get("conditions") or []:
            if condition["type"] == "Evicted" and condition["status"] == "True":
                return condition.get("reason")
            if condition["type"] == "Requeued" and condition.get("reason") == "PodsReadyTimeout":
                return condition["reason"]
    return None
