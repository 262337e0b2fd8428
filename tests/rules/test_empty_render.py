import pytest


def test_good(findings_of):
    assert findings_of("empty-render", "good") == []


def test_bad(findings_of):
    [finding] = findings_of("empty-render", "bad")
    assert finding.root.endswith("empty-render/bad")
    assert finding.message == "renders to no objects"


def test_an_object_withheld_for_its_shape_still_counts(findings_of):
    assert findings_of("empty-render", "good-ill-shaped") == []


@pytest.mark.parametrize("fixture", ["bad-folder", "bad-file.yaml"])
def test_a_plain_folder_or_file_with_no_objects_is_named_as_what_it_is(findings_of, fixture):
    [finding] = findings_of("empty-render", fixture)
    assert finding.message == "holds no Kubernetes objects"
    assert finding.hint == "add manifests, or stop checking it"
