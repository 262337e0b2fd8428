from helpers import RULE_FIXTURES as FIXTURES
from trainops.check.validate import Root, validate


def test_good(findings_of):
    assert findings_of("yaml-syntax", "good.yaml") == []


def test_bad_names_the_line(findings_of):
    [finding] = findings_of("yaml-syntax", "bad.yaml")
    assert finding.file.endswith("yaml-syntax/bad.yaml")
    assert finding.line == 6
    assert finding.message == "YAML syntax error: mapping values are not allowed in this context"


def test_bad_leaves_the_other_documents_readable():
    outcome = validate([Root(FIXTURES / "yaml-syntax" / "bad.yaml")], None)
    assert [obj.name for obj in outcome.rendered[0].objects] == ["still-read"]
