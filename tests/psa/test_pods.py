"""Pod templates are found wherever each kind nests them."""

from __future__ import annotations

import pytest

from trainops.knowledge.psa.evaluate import evaluate_object
from trainops.model.objects import K8sObject

BAD = {
    "spec": {"containers": [{"name": "c", "image": "i", "securityContext": {"privileged": True}}]}
}


def job_spec():
    return {"template": BAD}


NESTED = [
    ("v1", "Pod", lambda: BAD["spec"], ["spec.containers[0].securityContext.privileged"]),
    ("v1", "PodTemplate", None, ["template.spec.containers[0].securityContext.privileged"]),
    (
        "apps/v1",
        "Deployment",
        job_spec,
        ["spec.template.spec.containers[0].securityContext.privileged"],
    ),
    (
        "apps/v1",
        "ReplicaSet",
        job_spec,
        ["spec.template.spec.containers[0].securityContext.privileged"],
    ),
    (
        "apps/v1",
        "StatefulSet",
        job_spec,
        ["spec.template.spec.containers[0].securityContext.privileged"],
    ),
    (
        "apps/v1",
        "DaemonSet",
        job_spec,
        ["spec.template.spec.containers[0].securityContext.privileged"],
    ),
    (
        "v1",
        "ReplicationController",
        job_spec,
        ["spec.template.spec.containers[0].securityContext.privileged"],
    ),
    ("batch/v1", "Job", job_spec, ["spec.template.spec.containers[0].securityContext.privileged"]),
    (
        "batch/v1",
        "CronJob",
        lambda: {"jobTemplate": {"spec": job_spec()}},
        ["spec.jobTemplate.spec.template.spec.containers[0].securityContext.privileged"],
    ),
    (
        "kubeflow.org/v1",
        "PyTorchJob",
        lambda: {"pytorchReplicaSpecs": {"Master": job_spec(), "Worker": job_spec()}},
        [
            "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].securityContext.privileged",
            "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].securityContext.privileged",
        ],
    ),
    (
        "kubeflow.org/v1",
        "TFJob",
        lambda: {"tfReplicaSpecs": {"PS": job_spec()}},
        ["spec.tfReplicaSpecs.PS.template.spec.containers[0].securityContext.privileged"],
    ),
    (
        "kubeflow.org/v1",
        "PaddleJob",
        lambda: {"paddleReplicaSpecs": {"Worker": job_spec()}},
        ["spec.paddleReplicaSpecs.Worker.template.spec.containers[0].securityContext.privileged"],
    ),
    (
        "kubeflow.org/v1",
        "XGBoostJob",
        lambda: {"xgbReplicaSpecs": {"Master": job_spec()}},
        ["spec.xgbReplicaSpecs.Master.template.spec.containers[0].securityContext.privileged"],
    ),
    (
        "kubeflow.org/v1",
        "MPIJob",
        lambda: {"mpiReplicaSpecs": {"Launcher": job_spec()}},
        ["spec.mpiReplicaSpecs.Launcher.template.spec.containers[0].securityContext.privileged"],
    ),
    (
        "kubeflow.org/v2beta1",
        "MPIJob",
        lambda: {"mpiReplicaSpecs": {"Worker": job_spec()}},
        ["spec.mpiReplicaSpecs.Worker.template.spec.containers[0].securityContext.privileged"],
    ),
    (
        "ray.io/v1",
        "RayCluster",
        lambda: {"headGroupSpec": job_spec(), "workerGroupSpecs": [job_spec()]},
        [
            "spec.headGroupSpec.template.spec.containers[0].securityContext.privileged",
            "spec.workerGroupSpecs[0].template.spec.containers[0].securityContext.privileged",
        ],
    ),
    (
        "ray.io/v1",
        "RayJob",
        lambda: {"rayClusterSpec": {"headGroupSpec": job_spec()}, "submitterPodTemplate": BAD},
        [
            "spec.rayClusterSpec.headGroupSpec.template.spec.containers[0].securityContext.privileged",
            "spec.submitterPodTemplate.spec.containers[0].securityContext.privileged",
        ],
    ),
    (
        "ray.io/v1",
        "RayService",
        lambda: {"rayClusterConfig": {"workerGroupSpecs": [job_spec()]}},
        [
            "spec.rayClusterConfig.workerGroupSpecs[0].template.spec.containers[0].securityContext.privileged"
        ],
    ),
    (
        "jobset.x-k8s.io/v1alpha2",
        "JobSet",
        lambda: {"replicatedJobs": [{"name": "w", "template": {"spec": job_spec()}}]},
        [
            "spec.replicatedJobs[0].template.spec.template.spec.containers[0].securityContext.privileged"
        ],
    ),
    (
        "batch.volcano.sh/v1alpha1",
        "Job",
        lambda: {"tasks": [{"name": "m", "template": BAD}]},
        ["spec.tasks[0].template.spec.containers[0].securityContext.privileged"],
    ),
]


@pytest.mark.parametrize(
    ("api_version", "kind", "spec", "paths"), NESTED, ids=[f"{n[0]}-{n[1]}" for n in NESTED]
)
def test_every_nested_template_is_found_and_checked(api_version, kind, spec, paths):
    doc = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}
    if kind == "PodTemplate":
        doc["template"] = BAD
    else:
        doc["spec"] = spec()
    found = evaluate_object("baseline", None, K8sObject(doc, "f.yaml", 1))
    assert [v.path for v in found if v.check == "privileged"] == paths


def test_kinds_without_pods_are_skipped():
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    assert evaluate_object("restricted", None, K8sObject(doc, "f.yaml", 1)) is None
    other_group_job = {
        "apiVersion": "example.com/v1",
        "kind": "Job",
        "metadata": {"name": "x"},
        "spec": {"template": BAD},
    }
    assert evaluate_object("restricted", None, K8sObject(other_group_job, "f.yaml", 1)) is None
