from helpers import RULE_FIXTURES as FIXTURES


def test_good(findings_of):
    assert findings_of("render-failed", "good") == []


def test_bad_names_the_kustomization_line_and_missing_file(findings_of):
    [finding] = findings_of("render-failed", "bad")
    assert finding.file.endswith("render-failed/bad/kustomization.yaml")
    assert finding.line == 3
    assert finding.message.startswith("'cofnigmap-extra.yaml' does not exist")
    assert str(FIXTURES / "render-failed" / "bad" / "cofnigmap-extra.yaml") in finding.message
