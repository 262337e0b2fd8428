"""service-references: on fixtures, and on Kueue and JobSet composed as the operators layers compose them."""

from trainops.model.objects import ObjectRef

RULE = "service-references"


def test_good(findings_of):
    assert findings_of(RULE, "good.yaml") == []


def test_bad(findings_of):
    found = {(f.object.name, f.path): f.message for f in findings_of(RULE, "bad.yaml")}
    assert found == {
        (
            "things.example.com",
            "spec.conversion.webhook.clientConfig.service.name",
        ): "the conversion webhook names Service ops/webhook-service, which this environment does not have "
        "(Services in ops: metrics, operator-webhook-service)",
        (
            "operator-validating",
            "webhooks[0].clientConfig.service.port",
        ): "the admission webhook vthing.example.com calls Service ops/operator-webhook-service on port 8443, "
        "which it does not expose (its ports: 443)",
        (
            "v1.metrics.example.com",
            "spec.service",
        ): "the aggregated API v1.metrics.example.com calls Service ops/metrics, whose selector {'app': 'metrics'} "
        "matches no pod template of this environment",
    }


def test_kueue_and_jobset_composed_without_the_component(findings_of):
    """The operators layers as they were: kustomize writes `webhook-service` back into six CRDs."""
    findings = findings_of(RULE, "composed-without-names")
    assert sorted(f.object.name for f in findings) == [
        "clusterqueues.kueue.x-k8s.io",
        "cohorts.kueue.x-k8s.io",
        "jobsets.jobset.x-k8s.io",
        "localqueues.kueue.x-k8s.io",
        "multikueueclusters.kueue.x-k8s.io",
        "workloads.kueue.x-k8s.io",
    ]
    jobset = next(f for f in findings if f.object.name == "jobsets.jobset.x-k8s.io")
    assert jobset.object == ObjectRef(
        "apiextensions.k8s.io/v1", "CustomResourceDefinition", None, "jobsets.jobset.x-k8s.io"
    )
    assert jobset.message == (
        "the conversion webhook names Service jobset-system/webhook-service, which this environment does not have "
        "(Services in jobset-system: jobset-controller-manager-metrics-service, jobset-webhook-service)"
    )
    assert jobset.file.startswith(
        "https://github.com/kubernetes-sigs/jobset.git//config/components/crd/bases/"
    )


def test_kueue_and_jobset_composed_with_the_component(findings_of):
    assert findings_of(RULE, "composed-with-names") == []
