def test_good(findings_of):
    assert findings_of("malformed-object", "good.yaml") == []


def test_bad(findings_of):
    findings = findings_of("malformed-object", "bad.yaml")
    assert [(f.line, f.message) for f in findings] == [
        (6, "document is a list, not a mapping: a Kubernetes object is a mapping"),
        (9, "object has no kind"),
    ]
