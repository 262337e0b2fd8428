"""partial-scope: a workload checked without its namespace or its LocalQueue says what could not be checked."""

from trainops.model.findings import Severity

RULE = "partial-scope"


def test_good(findings_of):
    assert findings_of(RULE, "good.yaml") == []


def test_bad(findings_of):
    findings = findings_of(RULE, "bad.yaml")
    assert [(f.severity, f.line, f.path) for f in findings] == [
        (Severity.WARNING, 6, "metadata.namespace"),
        (Severity.WARNING, 8, "metadata.labels.kueue.x-k8s.io/queue-name"),
        (Severity.WARNING, 8, "metadata.labels.kueue.x-k8s.io/queue-name"),
    ]
    assert findings[0].message.startswith(
        "namespace training is not defined in this scope, so pod-security and network-reachability"
    )
    assert "LocalQueue training-lq" in findings[1].message
    assert findings[2].message == (
        "no Kueue configuration is in this scope, so kueue-admission could not check that Kueue "
        "manages Job (its integrations are unknown)"
    )
    assert findings[0].hint.startswith("validate the environment's layers together")


def test_the_training_operator_out_of_scope(findings_of):
    [finding] = findings_of(RULE, "bad-operators.yaml")
    assert (finding.object.kind, finding.line, finding.path) == (
        "PyTorchJob",
        14,
        "spec.pytorchReplicaSpecs",
    )
    assert finding.message.startswith(
        "no Training Operator is in this scope, so pod-security and api-validation judged the "
        "worker Pods with its built-in init-pytorch container"
    )
