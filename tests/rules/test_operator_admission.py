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
