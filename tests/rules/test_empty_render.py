def test_good(findings_of):
    assert findings_of("empty-render", "good") == []


def test_bad(findings_of):
    [finding] = findings_of("empty-render", "bad")
    assert finding.root.endswith("empty-render/bad")
    assert finding.message == "renders to no objects"


def test_an_object_withheld_for_its_shape_still_counts(findings_of):
    assert findings_of("empty-render", "good-ill-shaped") == []
