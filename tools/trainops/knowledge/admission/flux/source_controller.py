"""What source-controller v1.9.1 refuses in a GitRepository for good (a Stalled condition, no
retry until the object changes) that can be told without the repository
(internal/controller/gitrepository_controller.go at v1.9.1):
- reconcileSource, getAuthOpts: `provider: github` without `secretRef` — "secretRef with github
  app data must be specified when provider is set to github" (InvalidProviderConfiguration);
- verifySignature: `verify.mode` Tag or TagAndHEAD (GitRepositoryVerification.VerifyTag) while the
  checkout is not of a tag — "cannot verify tag object's signature if a tag reference is not
  specified" (InvalidVerificationMode). The checkout follows the first of `ref.commit`,
  `ref.name`, `ref.tag`, `ref.semver`, `ref.branch` set (fluxcd/pkg git v0.52.0 gogit/client.go clone;
  no ref is the default branch), and only a checkout of a tag (`tag`, `semver`, or a `name` under
  refs/tags/, with no `commit`) has a referencing tag (clone.go buildCommitWithRef).

The CRD's own schema (URL pattern, verify mode enum) is the API server's to judge.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.admission.check import Refusal
from trainops.model.shape import mapping

_TAG_MODES = ("Tag", "TagAndHEAD")


def github_provider(doc: dict) -> Iterator[Refusal]:
    spec = mapping(doc.get("spec"))
    if spec.get("provider") == "github" and not mapping(spec.get("secretRef")).get("name"):
        yield (
            "spec.secretRef",
            "secretRef with github app data must be specified when provider is set to github: "
            "the GitRepository is Stalled (InvalidProviderConfiguration)",
        )


def _checks_out_a_tag(ref: dict) -> bool:
    """The reference the checkout follows (commit, name, tag, semver, branch: the first set)."""
    for field in ("commit", "name", "tag", "semver", "branch"):
        value = ref.get(field)
        if isinstance(value, str) and value:
            if field == "name":
                return value.startswith("refs/tags/")
            return field in ("semver", "tag")
    return False


def verify_tag(doc: dict) -> Iterator[Refusal]:
    spec = mapping(doc.get("spec"))
    verify = spec.get("verify")
    if not isinstance(verify, dict) or verify.get("mode") not in _TAG_MODES:
        return
    if not _checks_out_a_tag(mapping(spec.get("ref"))):
        yield (
            "spec.verify.mode",
            "cannot verify tag object's signature if a tag reference is not specified: the "
            "GitRepository is Stalled (InvalidVerificationMode)",
        )
