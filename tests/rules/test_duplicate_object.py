from trainops.model.objects import ObjectRef


def test_good(findings_of):
    assert findings_of("duplicate-object", "good.yaml") == []


def test_bad_names_both_places(findings_of):
    [finding] = findings_of("duplicate-object", "bad.yaml")
    assert finding.line == 9
    assert finding.object == ObjectRef("v1", "ConfigMap", "a", "settings")
    assert (
        finding.message
        == "ConfigMap/a/settings is defined again (first at tests/rules/fixtures/duplicate-object/bad.yaml:1)"
    )
