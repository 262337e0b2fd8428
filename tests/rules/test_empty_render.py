def test_good(findings_of):
    assert findings_of("empty-render", "good") == []


def test_bad(findings_of):
    [finding] = findings_of("empty-render", "bad")
    assert finding.root.endswith("empty-render/bad")
    assert finding.message == "renders to no objects"
