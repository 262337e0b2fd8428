"""operator-admission: what the operators' webhooks and the GitOps controllers refuse."""

RULE = "operator-admission"


def test_good(findings_of):
    assert findings_of(RULE, "good.yaml") == []
