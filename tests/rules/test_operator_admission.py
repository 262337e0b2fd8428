"""operator-admission: what the operators' webhooks and the GitOps controllers refuse."""

RULE = "operator-admission"


def test_good(findings_of):
    assert findings_of(RULE, "good.yaml") == []


def _refusals(findings_of, fixture):
    return sorted((f.path, f.message) for f in findings_of(RULE, fixture))


def test_kueue(findings_of):
    # The RayJob is refused by KubeRay's controller too (test_kuberay): Kueue's refusals only.
    found = [r for r in _refusals(findings_of, "bad-kueue.yaml") if "(Kueue v0.18.6's" in r[1]]
    assert [path for path, _ in found] == [
        "metadata.labels[kueue.x-k8s.io/queue-name]",
        "spec.nodeTaints[1]",
        "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit",
        "spec.shutdownAfterJobFinishes",
    ]
    messages = dict(found)
    assert messages["spec.resourceGroups[0].flavors[0].resources[0].lendingLimit"] == (
        'Invalid value: "4": must be nil when cohort is empty '
        "(Kueue v0.18.6's admission webhook refuses it: pkg/webhooks/clusterqueue_webhook.go "
        "ValidateClusterQueue, Kueue v0.18.6)"
    )
    assert "taints must be unique by key and effect pair" in messages["spec.nodeTaints[1]"]
    assert (
        "a lowercase RFC 1123 subdomain" in messages["metadata.labels[kueue.x-k8s.io/queue-name]"]
    )
    assert "should delete the cluster after finishing" in messages["spec.shutdownAfterJobFinishes"]


def test_training_operator(findings_of):
    assert _refusals(findings_of, "bad-training-operator.yaml") == [
        (
            "spec.pytorchReplicaSpecs[Master].replicas",
            "Forbidden: must be 1 (Training Operator v1.8.1's admission webhook refuses it: "
            "pkg/webhooks/pytorch/pytorchjob_webhook.go validatePyTorchJob, Training Operator v1.8.1)",
        ),
        (
            "spec.pytorchReplicaSpecs[Worker].template.spec.containers",
            "Required value: must have at least one container with name pytorch "
            "(Training Operator v1.8.1's admission webhook refuses it: "
            "pkg/webhooks/pytorch/pytorchjob_webhook.go validatePyTorchJob, Training Operator v1.8.1)",
        ),
    ]


def test_jobset(findings_of):
    assert _refusals(findings_of, "bad-jobset.yaml") == [
        (
            "spec",
            "Internal error: invalid replicatedJob name 'workers' does not appear in "
            ".spec.ReplicatedJobs (JobSet v0.12.0's admission webhook refuses it: "
            "pkg/webhooks/jobset_webhook.go ValidateCreate, JobSet v0.12.0)",
        )
    ]


def test_kuberay(findings_of):
    assert _refusals(findings_of, "bad-kuberay.yaml") == [
        (
            "spec.shutdownAfterJobFinishes",
            "a RayJob with shutdownAfterJobFinishes set to false is not allowed to be suspended "
            "(KubeRay v1.2.2 refuses it before acting: "
            "ray-operator/controllers/ray/rayjob_controller.go validateRayJobSpec, KubeRay v1.2.2)",
        )
    ]


def test_mpi_operator(findings_of):
    assert _refusals(findings_of, "bad-mpi-operator.yaml") == [
        (
            "spec.mpiReplicaSpecs[Worker].replicas",
            "Invalid value: 0: must be greater than or equal to 1 (MPI Operator v0.8.0 refuses it "
            "before acting: pkg/apis/kubeflow/validation/validation.go ValidateMPIJob, "
            "MPI Operator v0.8.0)",
        )
    ]
