"""provenance: the cloud environment as the repository shipped it (its own registry and its GitOps
sources under the placeholder owner `example`, unacknowledged), the same acknowledged in
trainops.yaml provenance, and a real owner adopted with what the rule refuses and accepts."""

from __future__ import annotations

import pytest
import yaml

from helpers import REPO, RULE_FIXTURES, validate_fixture
from trainops.knowledge import provenance
from trainops.model.findings import Severity

RULE = "provenance"
FIXTURES = RULE_FIXTURES / RULE


def _by_object(config: str) -> dict[str, list]:
    found: dict[str, list] = {}
    for f in validate_fixture(RULE, FIXTURES / config):
        root = f.root.removeprefix(f"{FIXTURES.relative_to(REPO)}/")
        found.setdefault(f"{f.object.kind}/{f.object.name}@{root}", []).append(f)
    return found


@pytest.fixture(scope="module")
def shipped() -> dict[str, list]:
    return _by_object("shipped.yaml")


def test_the_shipped_cloud_environment_is_an_error(shipped):
    [finding] = shipped["Job/train@shipped/cloud/workloads.yaml"]
    assert finding.severity is Severity.ERROR
    assert finding.message.startswith(
        "environment shipped/cloud (a gke cluster) names a placeholder owner in 1 place "
        "(image ghcr.io/example/bookstore/train (Job train)): owner 'example' is RFC 2606's "
        "placeholder word, which nobody owns."
    )
    assert "an environment for a real cloud may not ship one unacknowledged" in finding.message
    assert "trainops adopt --repository" in finding.hint


def test_the_shipped_gitops_sources(shipped):
    [app] = shipped["Application/trainops-cloud@shipped/gitops/cloud/app.yaml"]
    assert app.severity is Severity.ERROR and app.path == "spec.source.repoURL"
    assert "Application trainops-cloud spec.source.repoURL https://github.com/example/" in (
        app.message
    )
    [source] = shipped["GitRepository/trainops@shipped/gitops/kind/source.yaml"]
    assert source.severity is Severity.WARNING  # a kind environment's
    assert "environment shipped/kind (a kind cluster)" in source.message
    assert len(shipped) == 3  # the kind environment's own images are loaded, not pulled


def test_acknowledged_it_is_a_warning_everywhere():
    found = _by_object("acknowledged.yaml")
    assert len(found) == 3
    for [finding] in found.values():
        assert finding.severity is Severity.WARNING
        assert "trainops.yaml acknowledges it (provenance.placeholder: true)" in finding.message


@pytest.fixture(scope="module")
def adopted() -> dict[str, list]:
    return _by_object("adopted.yaml")


def test_a_source_that_is_not_the_declared_repository(adopted):
    [finding] = adopted["Application/forked@adopted/gitops/found/apps.yaml"]
    assert finding.path == "spec.sources[0].repoURL"  # the Helm chart source is not ours
    assert finding.message.startswith(
        "Application forked fetches https://github.com/someone-else/trainops.git "
        "(spec.sources[0].repoURL), not the repository trainops.yaml declares "
        "(provenance.repository: https://github.com/team/trainops.git)"
    )


def test_own_images_the_workflow_does_not_publish(adopted):
    messages = {
        key.split("@")[0]: [f.message for f in found]
        for key, found in adopted.items()
        if key.endswith("adopted/found/workloads.yaml")
    }
    assert messages.keys() == {"Job/stale-tag", "Job/unpublished", "Job/elsewhere", "Job/no-target"}
    [stale] = messages["Job/stale-tag"]
    assert stale.startswith(
        "image ghcr.io/team/bookstore/train:latest names a tag .github/workflows/images.yaml "
        "never pushes: it tags bookstore/train with the pushed git tag less its leading v, on "
        "git tags matching v*.*.*"
    )
    [unpublished] = messages["Job/unpublished"]
    assert "no workflow under .github/workflows builds and pushes bookstore/unpublished" in (
        unpublished
    )
    [elsewhere] = messages["Job/elsewhere"]
    assert elsewhere.startswith(
        "image docker.io/someone/bookstore/train-cuda is one of the repository's own "
        "(bookstore/train-cuda), yet not from ghcr.io/team"
    )
    [gone] = messages["Job/no-target"]
    assert "from target train-gone, which train/Dockerfile does not define" in gone


def test_what_follows_from_the_declared_provenance_is_clean(adopted):
    assert not [k for k in adopted if "fixed" in k or "Application/ours" in k]
    assert not [k for k in adopted if k.startswith("GitRepository/")]  # no .git: the same


@pytest.mark.parametrize(
    ("host", "path", "placeholder"),
    [
        ("github.com", "example/trainops", True),
        ("ghcr.io", "example-org", True),
        ("ghcr.io", "your-org/x", True),
        ("registry.example.com", "team", True),
        ("git.corp.test", "team/trainops", True),
        ("ghcr.io", "examples", False),
        ("ghcr.io", "acme", False),
        ("github.com", "team/example", False),  # the owner is what counts
    ],
)
def test_placeholder_owners(host, path, placeholder):
    assert (provenance.placeholder(host, path) is not None) is placeholder


@pytest.mark.parametrize(
    ("url", "parts"),
    [
        ("https://github.com/Team/trainops.git", ("github.com", "team/trainops")),
        ("ssh://git@github.com:22/team/trainops.git/", ("github.com", "team/trainops")),
        ("git@github.com:team/trainops", ("github.com", "team/trainops")),
        ("github.com/team/trainops", None),
        ("https://github.com/", None),
        ("not a url", None),
    ],
)
def test_git_urls(url, parts):
    assert provenance.git_url(url) == parts


def test_the_workflow_publishes_every_image_the_cloud_overlays_name():
    """The shipped overlays' own images are the ones .github/workflows/images.yaml pushes, at a
    tag it pushes, built from targets the Dockerfile defines."""
    published = {p.image: p for p in provenance.published_images(REPO)}
    registry = yaml.safe_load((REPO / "trainops.yaml").read_text())["provenance"]["registry"]
    for env in ("cloud", "gpu"):
        kustomization = yaml.safe_load(
            (REPO / "overlays" / env / "workloads" / "kustomization.yaml").read_text()
        )
        for entry in kustomization["images"]:
            name = entry["newName"].removeprefix(registry + "/")
            assert name == entry["name"] and name in published, entry
            assert published[name].publishes_tag(entry["newTag"]), entry
    targets = provenance.dockerfile_targets(REPO / "workloads" / "bookstore-ml" / "train")
    assert {p.target for p in published.values()} <= targets
