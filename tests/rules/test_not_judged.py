"""not-judged: an object of a kind whose API-server validation is not modelled is noted, once per
kind and root, and never fails a run."""

from trainops.model.findings import Severity

RULE = "not-judged"


def test_good(findings_of):
    assert findings_of(RULE, "good.yaml") == []


def test_bad(findings_of):
    findings = findings_of(RULE, "bad.yaml")
    assert [(f.severity, f.object.kind, f.line) for f in findings if f.object] == [
        (Severity.NOTE, "ControllerRevision", 5),
        (Severity.NOTE, "ComponentStatus", 19),
    ]
    assert findings[0].message == (
        "not judged as the API server judges it: kube-apiserver's validation of "
        "ControllerRevision (apps/v1) is not modelled, so this object and the other objects of its kind in "
        "this root are checked against the schema and ObjectMeta only"
    )
    assert findings[1].message.endswith(
        "so this object is checked against the schema and ObjectMeta only"
    )
    assert findings[0].hint.startswith("trainops verify asks a live API server")
