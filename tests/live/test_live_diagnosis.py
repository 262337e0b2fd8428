"""The known shapes of a training job that is not running, diagnosed from canned objects: the
Workload, pods and events as Kueue, the scheduler, the kubelet and the API server write them."""

from __future__ import annotations

from trainops.live.diagnosis import diagnose
from trainops.live.health import Health, State
from trainops.live.jobs import NamespaceView, report
from trainops.model.objects import K8sObject

JOB = {
    "apiVersion": "kubeflow.org/v1",
    "kind": "PyTorchJob",
    "metadata": {"name": "pt", "uid": "job"},
}


def workload(**conditions: tuple[str, str, str]) -> dict:
    return {
        "metadata": {
            "name": "pytorchjob-pt-1a2b3",
            "uid": "wl",
            "ownerReferences": [{"uid": "job"}],
        },
        "status": {
            "conditions": [
                {"type": kind, "status": status, "reason": reason, "message": message}
                for kind, (status, reason, message) in conditions.items()
            ]
        },
    }


def pod(
    name: str, *, placed: bool, why: str = "", waiting: str = "", phase: str = "Pending"
) -> dict:
    scheduled = (
        {"type": "PodScheduled", "status": "True"}
        if placed
        else {
            "type": "PodScheduled",
            "status": "False",
            "reason": "Unschedulable",
            "message": why,
        }
    )
    status = {"phase": phase, "conditions": [scheduled]}
    if waiting:
        status["containerStatuses"] = [
            {
                "name": "pytorch",
                "image": "bookstore/t:dev",
                "state": {
                    "waiting": {"reason": waiting, "message": f"{waiting} for bookstore/t:dev"}
                },
            }
        ]
    return {
        "metadata": {"name": name, "uid": name, "ownerReferences": [{"uid": "job"}]},
        "spec": {"nodeName": "node-1"} if placed else {},
        "status": status,
    }


def shapes(found) -> list[tuple[str, bool]]:
    return [(d.shape, d.problem) for d in found]


QUOTA = "couldn't assign flavors to pod set master: insufficient unused quota for cpu in flavor default-flavor, 3 more needed"


def test_waiting_for_quota_is_not_a_problem():
    found = diagnose(
        JOB, workload(QuotaReserved=("False", "Pending", QUOTA)), [], [], 2, True, False
    )
    assert shapes(found) == [("waiting for quota", False)]
    assert found[0].detail == f"{QUOTA} (Pending)"
    # A Workload Kueue has not judged yet: still queued.
    assert shapes(diagnose(JOB, workload(), [], [], 2, True, False)) == [
        ("waiting for quota", False)
    ]


def test_gang_partly_placed():
    unschedulable = (
        "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available"
    )
    pods = [
        pod("pt-master-0", placed=True, phase="Running"),
        pod("pt-worker-0", placed=False, why=unschedulable),
    ]
    admitted = workload(
        QuotaReserved=("True", "QuotaReserved", ""), Admitted=("True", "Admitted", "")
    )
    found = diagnose(JOB, admitted, pods, [], 3, True, False)
    assert shapes(found) == [("gang partly placed", True)]
    assert found[0].detail == f"1 of 3 pods scheduled, 1 unschedulable: {unschedulable}"
    none_placed = diagnose(JOB, admitted, [pods[1]], [], 2, True, False)
    assert shapes(none_placed) == [("unschedulable", True)]


def test_image_pull_failing():
    pods = [pod("pt-master-0", placed=True, waiting="ImagePullBackOff")]
    found = diagnose(JOB, workload(QuotaReserved=("True", "", "")), pods, [], 1, True, False)
    assert shapes(found) == [("image pull failing", True)]
    assert (
        "pod pt-master-0, container pytorch, image bookstore/t:dev: ImagePullBackOff"
        in found[0].detail
    )
    event = {
        "type": "Warning",
        "reason": "Failed",
        "message": 'Failed to pull image "x:1": not found',
        "involvedObject": {"name": "p"},
    }
    assert shapes(diagnose(JOB, None, [], [event], 1, False, False)) == [
        ("image pull failing", True)
    ]


def test_rejected_by_pod_security():
    event = {
        "type": "Warning",
        "reason": "FailedCreate",
        "message": 'Error creating: pods "pt-worker-0" is forbidden: violates PodSecurity "restricted:v1.32": '
        'allowPrivilegeEscalation != false (container "init-pytorch" must set securityContext.allowPrivilegeEscalation=false)',
    }
    found = diagnose(JOB, workload(QuotaReserved=("True", "", "")), [], [event], 2, True, False)
    assert shapes(found) == [("rejected by Pod Security", True)]
    assert found[0].detail.startswith(
        'restricted:v1.32: allowPrivilegeEscalation != false (container "init-pytorch"'
    )


def test_webhook_unavailable():
    event = {
        "type": "Warning",
        "reason": "FailedCreate",
        "message": 'Internal error occurred: failed calling webhook "mpod.kb.io": failed to call webhook: '
        'Post "https://kueue-webhook-service.kueue-system.svc:443/mutate--v1-pod?timeout=10s": no endpoints available for service "kueue-webhook-service"',
    }
    found = diagnose(JOB, None, [], [event], 2, True, False)
    assert [d.shape for d in found][0] == "webhook unavailable"
    assert found[0].detail.startswith(
        'mpod.kb.io: failed to call webhook: Post "https://kueue-webhook-service'
    )


def test_evicted_no_workload_and_finished():
    evicted = workload(
        QuotaReserved=("True", "", ""),
        Evicted=("True", "PodsReadyTimeout", "Exceeded the PodsReady timeout"),
    )
    assert [str(d) for d in diagnose(JOB, evicted, [], [], 2, True, False)] == [
        "evicted: PodsReadyTimeout: Exceeded the PodsReady timeout"
    ]
    assert shapes(diagnose(JOB, None, [], [], 2, True, False)) == [("no Kueue Workload", True)]
    assert diagnose(JOB, None, [], [], 2, False, False) == []  # not Kueue's: nothing expected
    done = workload(QuotaReserved=("True", "", ""), Finished=("True", "Succeeded", "done"))
    assert diagnose(JOB, done, [], [], 2, True, False) == []
    assert diagnose(JOB, workload(QuotaReserved=("False", "", QUOTA)), [], [], 2, True, True) == []


def test_a_report_finds_the_workload_pods_and_events_through_owners():
    obj = K8sObject(
        {
            "apiVersion": "ray.io/v1",
            "kind": "RayJob",
            "metadata": {
                "name": "r",
                "namespace": "ml",
                "labels": {"kueue.x-k8s.io/queue-name": "lq"},
            },
            "spec": {
                "rayClusterSpec": {
                    "headGroupSpec": {"template": {}},
                    "workerGroupSpecs": [{"replicas": 2, "template": {}}],
                }
            },
        },
        "rayjob.yaml",
        1,
    )
    live = {**obj.doc, "metadata": {**obj.doc["metadata"], "uid": "job"}}
    cluster = {
        "metadata": {"name": "r-raycluster", "uid": "rc", "ownerReferences": [{"uid": "job"}]}
    }
    head = pod("r-head", placed=False, why="0/1 nodes are available")
    head["metadata"]["ownerReferences"] = [{"uid": "rc"}]
    stranger = pod("other", placed=True)
    stranger["metadata"]["ownerReferences"] = [{"uid": "someone-else"}]
    events = [
        {
            "type": "Warning",
            "reason": "FailedScheduling",
            "message": "old",
            "lastTimestamp": "2026-01-01T00:00:00Z",
            "involvedObject": {"uid": "r-head", "kind": "Pod", "name": "r-head"},
        },
        {
            "type": "Warning",
            "reason": "FailedScheduling",
            "message": "new",
            "lastTimestamp": "2026-01-02T00:00:00Z",
            "involvedObject": {"uid": "r-head", "kind": "Pod", "name": "r-head"},
        },
        {
            "type": "Warning",
            "reason": "X",
            "message": "not ours",
            "involvedObject": {"uid": "zzz", "kind": "Pod", "name": "other"},
        },
    ]
    view = NamespaceView(
        [workload(QuotaReserved=("True", "", ""), Admitted=("True", "", ""))],
        [head, stranger],
        [cluster],
        events,
    )
    job = report(obj, live, Health(State.RUNNING, "Ray job running"), view)
    assert job.queue == "lq" and job.workload == "pytorchjob-pt-1a2b3"
    assert [c["type"] for c in job.workload_conditions] == ["QuotaReserved", "Admitted"]
    assert [p["name"] for p in job.pods] == ["r-head"] and job.expected_pods == 3
    assert [e["message"] for e in job.events] == ["new", "old"]
    assert shapes(job.diagnoses) == [("unschedulable", True)]
    assert report(obj, None, Health(State.MISSING, "not in the cluster"), view).diagnoses == []
