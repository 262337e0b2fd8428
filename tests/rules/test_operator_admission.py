"""operator-admission: what the operators' webhooks and the GitOps controllers refuse."""

RULE = "operator-admission"


def test_good(findings_of):
    assert findings_of(RULE, "good.yaml") == []


def assert_refused(findings, expected: dict[str, tuple[str, str]], who: str) -> None:
    """Each object named in `expected` refused once, at that path, in those words, by `who`."""
    found: dict[str, list] = {}
    for f in findings:
        found.setdefault(f.object.name, []).append(f)
    assert set(found) == set(expected)
    for name, (path, words) in expected.items():
        assert len(found[name]) == 1, (name, found[name])
        finding = found[name][0]
        assert finding.path == path, name
        assert words in finding.message, (name, finding.message)
        assert who in finding.message, name


# Flux: each bad Kustomization, where it is refused, and what the refusal must say.
FLUX_BAD = {
    # As shipped in gitops/flux/mpi/layers.yaml.
    "trainops-workloads": (
        "spec.healthCheckExprs[3]",
        "duplicate custom health check for GroupKind JobSet.jobset.x-k8s.io at healthchecks[3]",
    ),
    "duplicate-groupkind": (
        "spec.healthCheckExprs[1]",
        "duplicate custom health check for GroupKind ConfigMap at healthchecks[1]",
    ),
    "duplicate-group-only": (
        "spec.healthCheckExprs[1]",
        "duplicate custom health check for GroupKind .bitnami.com at healthchecks[1]",
    ),
    "duplicate-across-versions": (
        "spec.healthCheckExprs[1]",
        "duplicate custom health check for GroupKind JobSet.jobset.x-k8s.io",
    ),
    "cel-compile-error": (
        "spec.healthCheckExprs[0].current",
        "failed to create custom status evaluator for healthchecks[0]: failed to parse the "
        "expression Current",
    ),
    "current-required": ("spec.healthCheckExprs[0].current", "expression Current not specified"),
    "inprogress-invalid": (
        "spec.healthCheckExprs[0].inProgress",
        "failed to parse the expression InProgress",
    ),
    "failed-invalid": ("spec.healthCheckExprs[0].failed", "failed to parse the expression Failed"),
    "macro-misused": (
        "spec.healthCheckExprs[0].current",
        "invalid argument to has() macro",
    ),
    "ready-expr-invalid": (
        "spec.dependsOn[0].readyExpr",
        "failed to evaluate dependency trainops-platform: failed to parse the CEL expression",
    ),
}
# source-controller, for GitRepositories.
SOURCE_BAD = {
    "github-provider-without-secret": (
        "spec.secretRef",
        "secretRef with github app data must be specified when provider is set to github",
    ),
    "verify-tag-of-a-branch": (
        "spec.verify.mode",
        "cannot verify tag object's signature if a tag reference is not specified",
    ),
    "verify-tag-of-a-commit": (
        "spec.verify.mode",
        "cannot verify tag object's signature if a tag reference is not specified",
    ),
}
# helm-controller, for HelmReleases.
HELM_BAD = {
    "helm-duplicate-groupkind": (
        "spec.healthCheckExprs[1]",
        "duplicate custom health check for GroupKind ClusterQueue.kueue.x-k8s.io at "
        "healthchecks[1]: the HelmRelease is Stalled",
    ),
    "helm-ready-expr-invalid": (
        "spec.dependsOn[0].readyExpr",
        "failed to evaluate dependency cert-manager: failed to parse the CEL expression",
    ),
}


def test_flux_bad(findings_of):
    found = findings_of(RULE, "bad-flux.yaml")
    by_kind = {
        kind: [f for f in found if f.object.kind == kind]
        for kind in ("Kustomization", "HelmRelease", "GitRepository")
    }
    assert sum(len(v) for v in by_kind.values()) == len(found)
    kustomize = "kustomize-controller v1.9.4 refuses it before acting"
    assert_refused(by_kind["Kustomization"], FLUX_BAD, kustomize)
    assert_refused(
        by_kind["HelmRelease"], HELM_BAD, "helm-controller v1.6.3 refuses it before acting"
    )
    source = "source-controller v1.9.1 refuses it before acting"
    assert_refused(by_kind["GitRepository"], SOURCE_BAD, source)
    assert all(
        "Reconciliation failed terminally due to configuration error" in f.message
        for f in found
        if f.object.kind != "GitRepository"
    )


def test_flux_good(findings_of):
    assert findings_of(RULE, "good-flux.yaml") == []


ARGOCD_BAD = {
    "empty-repo-url": ("spec.source", "are required"),
    "incomplete-path-chart": ("spec.source", "are required"),
    "chart-without-revision": (
        "spec.source.targetRevision",
        "is required if the manifest source is a helm chart",
    ),
    "empty-destination": ("spec.destination", "Destination server missing from app spec"),
    "server-and-name": (
        "spec.destination",
        "application destination can't have both name and server defined: minikube "
        "https://127.0.0.1:6443",
    ),
    "source-without-path": (
        "spec.sources[0]",
        "either source.path, source.chart, or source.ref are required",
    ),
    "duplicate-ref": (
        "spec.sources[1].ref",
        "invalid sources: multiple sources had the same `ref` key",
    ),
    "ref-special-characters": (
        "spec.sources[0].ref",
        "sources.ref my.values cannot contain any special characters except '_' and '-'",
    ),
    "two-source-types": (
        "spec.source",
        "multiple application sources defined: Kustomize,Directory",
    ),
    "retry-backoff-unparsable": (
        "spec.syncPolicy.retry.backoff.maxDuration",
        "unable to parse 1d as a duration",
    ),
}


def test_argocd_bad(findings_of):
    found = findings_of(RULE, "bad-argocd.yaml")
    assert_refused(found, ARGOCD_BAD, "Argo CD v3.5.1 refuses it before acting")


def test_argocd_good(findings_of):
    assert findings_of(RULE, "good-argocd.yaml") == []


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


def test_volcano(findings_of):
    who = "(Volcano v1.15.1's admission webhook refuses it: "
    found = _refusals(findings_of, "bad-volcano.yaml")
    assert [path for path, _ in found] == [
        "requestBody.spec.deserved.cpu",
        "spec.networkTopology",
        "spec.plugins[torchrun]",
        "spec.policies",
    ]
    messages = dict(found)
    assert messages["requestBody.spec.deserved.cpu"].startswith(
        'Invalid value: "2": deserved[cpu]=2 must be <= capability[cpu]=1 '
        + who
        + "pkg/webhooks/admission/queues/validate/validate_queue.go AdmitQueues"
    )
    assert messages["spec.networkTopology"].startswith(
        "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology "
        "simultaneously. " + who
    )
    assert messages["spec.plugins[torchrun]"].startswith(" unable to find job plugin: torchrun;")
    assert "0 is not a valid error code" in messages["spec.policies"]
    assert "admit_job.go validateJobCreate" in messages["spec.policies"]
