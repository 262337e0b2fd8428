import pytest

from helpers import RULE_FIXTURES as FIXTURES


def test_good(findings_of):
    assert findings_of("render-failed", "good") == []


def test_bad_names_the_kustomization_line_and_missing_file(findings_of):
    [finding] = findings_of("render-failed", "bad")
    assert finding.file.endswith("render-failed/bad/kustomization.yaml")
    assert finding.line == 3
    assert finding.message.startswith("'cofnigmap-extra.yaml' does not exist")
    assert str(FIXTURES / "render-failed" / "bad" / "cofnigmap-extra.yaml") in finding.message


@pytest.mark.parametrize(
    ("fixture", "file"),
    [
        ("bad-syntax", "bad-syntax/kustomization.yaml"),
        ("bad-syntax-in-base", "bad-syntax-in-base/base/kustomization.yaml"),
    ],
)
def test_an_invalid_kustomization_is_named_at_its_file_and_line(findings_of, fixture, file):
    [finding] = findings_of("render-failed", fixture)
    assert finding.file.endswith(f"render-failed/{file}")
    assert finding.line == 5
    assert finding.message == "invalid kustomization: did not find expected ',' or ']'"


def test_kustomizes_own_words_name_the_users_files_not_the_origins_wrapper(findings_of):
    """The wrapper that asks for origin annotations is trainops' own: its frame says nothing
    the user can act on, and named a temporary folder."""
    [finding] = findings_of("render-failed", "bad-patch")
    assert finding.message.startswith("kustomize failed: no resource matches strategic merge patch")
    assert (
        "accumulating resources" not in finding.message and "trainops-origin" not in finding.message
    )
