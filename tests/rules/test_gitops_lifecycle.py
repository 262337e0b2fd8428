"""gitops-lifecycle: each case bad and good, the defects as the repository had them, and the repository clean."""

from __future__ import annotations

import pytest

from helpers import REPO, RULE_FIXTURES
from trainops.check.validate import Root, validate
from trainops.model.config import load_config
from trainops.model.objects import ObjectRef
from trainops.render import kustomization
from trainops.rules import RULES

RULE = "gitops-lifecycle"
FIXTURES = RULE_FIXTURES / RULE


def configured_findings(fixture: str, renderer=None) -> list[tuple[str, str, str]]:
    """(object, path, message) of the rule on a fixture with its own trainops.yaml (its entry points)."""
    config = load_config(FIXTURES / fixture / "trainops.yaml", RULES)
    outcome = validate(
        [Root(p) for p in kustomization.configured_roots(config)],
        renderer,
        config=config,
        selected={RULE},
    )
    return sorted(
        (f"{f.object.kind}/{f.object.name}", f.path, f.message)
        for f in outcome.findings
        if f.rule == RULE
    )


def test_bad_synced_jobs_and_crds():
    found = configured_findings("synced-bad")
    by_object = {}
    for obj, path, message in found:
        by_object.setdefault(obj, []).append((path, message))
    tools = "Application jobs and Kustomization jobs"
    assert (
        "spec.ttlSecondsAfterFinished",
        f"Job train is deleted once it finishes (spec.ttlSecondsAfterFinished) and {tools} "
        "recreates it: the job reruns forever",
    ) in by_object["Job/train"]
    assert (
        "metadata.annotations.argocd.argoproj.io/sync-options",
        "Job train is synced by Argo CD but not marked for "
        "recreation: a change to its immutable spec fails to sync",
    ) in by_object["Job/train"]
    assert (
        "metadata.annotations.kustomize.toolkit.fluxcd.io/force",
        "Job train is synced by Flux but not marked for "
        "recreation: a change to its immutable spec fails to apply",
    ) in by_object["Job/train"]
    assert [p for p, _ in by_object["PyTorchJob/train-pt"]] == [
        "spec.runPolicy.ttlSecondsAfterFinished"
    ]
    # As the repository had it: a Volcano Job relying on Flux's force, which never recreates it
    # after Volcano's update denial (no immutable error for fluxcd/pkg ssa IsImmutableError).
    assert by_object["Job/train-volcano"][0] == (
        "metadata.annotations.kustomize.toolkit.fluxcd.io/ssa",
        "Job train-volcano is synced by Flux, whose force recreates only what the API refuses as "
        "immutable, and its webhook refuses a changed spec with a plain denial (volcano-sh/volcano "
        "v1.15.1 pkg/webhooks/admission/jobs/validate/admit_job.go validateJobUpdate: only "
        "minAvailable, tasks[*].replicas and priorityClassName may change) (force does not help): "
        "every change in git fails the Kustomization until someone deletes the job",
    )
    assert [p for p, _ in by_object["Job/train-volcano"]] == [
        "metadata.annotations.kustomize.toolkit.fluxcd.io/ssa",
        "spec.ttlSecondsAfterFinished",
    ]
    assert [p for p, _ in by_object["RayJob/train-ray"]] == ["spec.shutdownAfterJobFinishes"]
    assert by_object["CustomResourceDefinition/widgets.example.com"] == [
        (
            "metadata.annotations.argocd.argoproj.io/sync-options",
            "CRD widgets.example.com may be deleted by Argo CD, and "
            "every custom resource of its kind with it: its sync options lack Delete=false, Prune=false",
        ),
        (
            "metadata.annotations.kustomize.toolkit.fluxcd.io/prune",
            "CRD widgets.example.com may be pruned by Flux "
            "Kustomization crds, and every custom resource of its kind with it",
        ),
    ]
    assert by_object["Application/jobs"] == [
        (
            "spec.syncPolicy.syncOptions",
            "Application jobs recreates jobs marked "
            "Replace=true,Force=true on every sync, rerunning the unchanged ones",
        )
    ]
    assert set(by_object) == {
        "Job/train",
        "PyTorchJob/train-pt",
        "Job/train-volcano",
        "RayJob/train-ray",
        "CustomResourceDefinition/widgets.example.com",
        "Application/jobs",
    }


def test_good_synced_jobs_and_crds():
    assert configured_findings("synced-good") == []


def test_good_a_ttl_nothing_resyncs():
    assert configured_findings("unsynced") == []


def test_bad_subpath_from_a_configmap_without_hash(findings_of):
    [finding] = findings_of(RULE, "subpath-bad.yaml")
    assert finding.object == ObjectRef(
        "apps/v1", "Deployment", "kueue-system", "kueue-controller-manager"
    )
    assert finding.path == "spec.template.spec.containers[0].volumeMounts[0]"
    assert "ConfigMap kueue-manager-config through subPath" in finding.message


def test_good_subpath(findings_of):
    assert findings_of(RULE, "subpath-good.yaml") == []


def test_bad_webhooks_for_disabled_integrations(findings_of):
    found = sorted(
        (f.object.kind, f.path, f.message) for f in findings_of(RULE, "webhooks-bad.yaml")
    )
    assert found == [
        (
            "MutatingWebhookConfiguration",
            "webhooks[0]",
            "webhook mpod.kb.io fails closed cluster-wide for pod, an "
            "integration Kueue's configuration leaves off: every such write depends on the Kueue controller",
        ),
        (
            "ValidatingWebhookConfiguration",
            "webhooks[0]",
            "webhook vstatefulset.kb.io fails closed cluster-wide for "
            "statefulset, an integration Kueue's configuration leaves off: every such write depends on the Kueue controller",
        ),
    ]


def test_good_webhooks(findings_of):
    assert findings_of(RULE, "webhooks-good.yaml") == []


def test_an_enabled_integration_without_its_mutating_webhook(findings_of):
    [finding] = findings_of(RULE, "webhooks-missing.yaml")
    assert (finding.object.kind, finding.path) == ("MutatingWebhookConfiguration", "webhooks")
    assert finding.message.startswith(
        "Kueue's configuration enables kubeflow.org/mpijob, but no mutating webhook of Kueue's "
        "covers it"
    )
    assert "webhooks-patch.yaml" in (finding.hint or "")


def test_wrong_typed_fields_give_no_finding_and_no_traceback():
    # This rule alone: other rules are not all as forgiving of such input.
    outcome = validate([Root(FIXTURES / "malformed.yaml")], None, selected={RULE})
    assert [f for f in outcome.findings if f.rule == RULE] == []


@pytest.mark.parametrize("env", ["kind", "volcano", "mpi"])
def test_the_repository_is_clean(renderer, env):
    """Each environment's layers with both GitOps entry points, as `make validate` checks them."""
    config = load_config(REPO / "trainops.yaml", RULES)
    roots = [REPO / "overlays" / env / layer for layer in ("operators", "platform", "workloads")]
    roots += [REPO / "gitops" / "argocd" / env / "apps", REPO / "gitops" / "flux" / env]
    outcome = validate([Root(p) for p in roots], renderer, config=config, selected={RULE})
    assert [f for f in outcome.findings if f.rule == RULE] == []
