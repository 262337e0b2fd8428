"""partial-scope: a workload checked without its namespace or its LocalQueue says what could not be checked."""

from trainops.findings import Severity

RULE = "partial-scope"


def test_good(findings_of):
    assert findings_of(RULE, "good.yaml") == []


def test_bad(findings_of):
    findings = findings_of(RULE, "bad.yaml")
    assert [(f.severity, f.line, f.path) for f in findings] == [
        (Severity.WARNING, 2, "metadata.namespace"),
        (Severity.WARNING, 2, "metadata.labels.kueue.x-k8s.io/queue-name"),
    ]
    assert findings[0].message.startswith(
        "namespace training is not defined in this scope, so pod-security and network-reachability"
    )
    assert "LocalQueue training-lq" in findings[1].message
    assert findings[0].hint.startswith("validate the environment's layers together")
