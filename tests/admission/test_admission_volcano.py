"""Volcano v1.15.1's own webhook test tables (tests/admission/volcano) judge its ports in
trainops.knowledge.admission.volcano."""

from __future__ import annotations

import pytest

from admission.tables import cases, judge
from trainops.knowledge.admission.volcano.jobs import validate as jobs
from trainops.knowledge.admission.volcano.podgroups import validate as podgroups
from trainops.knowledge.admission.volcano.queues import validate as queues


def _task_topology_policy(task: dict) -> list[tuple[str, str]]:
    message = jobs.topology_policy(task, 0)
    return [("topologyPolicy", message)] if message else []


# Each table's port: the function its upstream test calls (validateJobCreate without the
# mutating defaults, validateTaskTopoPolicy of task 0, AdmitQueues on CREATE, Validate of a
# PodGroup).
PORTS = {
    "job": jobs.validate_job_create,
    "task-topology-policy": _task_topology_policy,
    "queue": queues.webhook_check,
    "podgroup": podgroups.webhook_check,
}


@pytest.mark.parametrize(("table", "case"), cases("volcano"))
def test_upstream_case(table, case):
    judge(PORTS[table["port"]](case["object"]), table, case)


def _job(**spec) -> dict:
    task = {"replicas": 2, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "train"},
        "spec": {"tasks": [task], **spec},
    }


def test_the_defaults_come_first():
    # createPatch names the task default0 and sums minAvailable over the tasks: nothing to refuse.
    assert jobs.webhook_check(_job()) == []
    assert jobs.default(_job())["spec"]["minAvailable"] == 2
    assert jobs.default(_job())["spec"]["queue"] == "default"
    # The mpi plugin brings svc and ssh; its master task must exist.
    defaulted = jobs.default(_job(plugins={"mpi": []}))
    assert defaulted["spec"]["plugins"] == {"mpi": [], "svc": [], "ssh": []}
    assert jobs.webhook_check(_job(plugins={"mpi": []})) == [
        ("spec.plugins[mpi]", "The specified mpi master task was not found")
    ]


def test_a_pod_name_too_long_and_a_topology_policy_without_whole_cpus():
    job = _job(minAvailable=1)
    job["metadata"]["name"] = "j" * 60
    job["spec"]["tasks"][0]["topologyPolicy"] = "single-numa-node"
    job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"] = {
        "limits": {"cpu": "1500m"}
    }
    paths = [path for path, _ in jobs.webhook_check(job)]
    assert paths == ["spec.tasks[0].name", "spec.tasks[0].topologyPolicy"]
    job["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"] = {
        "limits": {"cpu": "2"}
    }
    job["metadata"]["name"] = "train"
    assert jobs.webhook_check(job) == []


def test_a_queue_that_is_its_own_parent():
    queue = {"metadata": {"name": "team"}, "spec": {"parent": "team"}}
    assert queues.webhook_check(queue) == [
        ("spec.parent", "queue team cannot use itself as parent")
    ]
    assert queues.webhook_check({"metadata": {"name": "team"}, "spec": {"parent": "root"}}) == []


def test_the_queue_webhook_judges_the_queue_its_mutating_webhook_rooted():
    queue = {
        "metadata": {
            "name": "team",
            "annotations": {"volcano.sh/hierarchy": "a/b", "volcano.sh/hierarchy-weights": "2/0"},
        },
    }
    assert queues.webhook_check(queue) == [
        (
            "requestBody.metadata.annotations",
            'Invalid value: "1/2/0": 0 in the 1/2/0 must be larger than 0',
        )
    ]
    assert queue["metadata"]["annotations"]["volcano.sh/hierarchy"] == "a/b"  # not changed


def test_the_webhooks_leave_volcano_system_and_kube_system_alone():
    job = _job(plugins={"torchrun": []})
    assert [path for path, _ in jobs.webhook_check(job)] == ["spec.plugins[torchrun]"]
    job["metadata"]["namespace"] = "kube-system"
    assert jobs.webhook_check(job) == []
    group = {
        "metadata": {"name": "g", "namespace": "volcano-system"},
        "spec": {"networkTopology": {"highestTierAllowed": 1, "highestTierName": "x"}},
    }
    assert podgroups.webhook_check(group) == []
    group["metadata"]["namespace"] = "bookstore-ml"
    assert [path for path, _ in podgroups.webhook_check(group)] == ["spec.networkTopology"]
