from trainops.model.objects import ObjectRef


def test_good(findings_of):
    assert findings_of("no-secret-data", "good.yaml") == []


def test_bad(findings_of):
    [finding] = findings_of("no-secret-data", "bad.yaml")
    assert finding.object == ObjectRef("v1", "Secret", None, "object-store")
    assert (finding.line, finding.path) == (5, "stringData")
    assert (
        finding.message
        == "Secret object-store commits stringData (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)"
    )
