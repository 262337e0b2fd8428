"""sync-phases: Argo CD apps of apps and Flux Kustomizations as found (argocd-found, flux-found)
and as fixed (argocd-fixed, flux-fixed), and gitops-engine's order of a sync reproduced."""

from __future__ import annotations

import pytest

from helpers import RULE_FIXTURES, findings_by_root
from trainops.knowledge.sync_phases import argo_steps
from trainops.model.objects import K8sObject

RULE = "sync-phases"


@pytest.fixture(scope="module")
def found() -> dict[str, list[tuple[str, str, str]]]:
    return findings_by_root(RULE, RULE_FIXTURES / RULE / "trainops.yaml")


def test_hooks_in_a_namespace_only_a_later_wave_creates(found):
    assert (
        "ServiceAccount/volcano-system/volcano-admission-init",
        "metadata.namespace",
        "Application operators applies ServiceAccount volcano-admission-init (hook PreSync/0) in "
        "namespace volcano-system, and only Application namespaces of the same or a later wave "
        'creates it: Argo CD fails with namespaces "volcano-system" not found and retries the sync',
    ) in found["argocd-found"]
    assert any(
        obj == "Job/volcano-system/volcano-admission-init" and "(hook PreSync/5)" in message
        for obj, _, message in found["argocd-found"]
    )


def test_a_hook_whose_service_account_comes_in_sync(found):
    assert (
        "Job/jobs/migrate",
        "spec",
        "Application jobs applies Job migrate (hook PreSync/0), whose pods need ServiceAccount "
        "migrator, which it applies only later (wave Sync/0): Argo CD waits for the pods before "
        "going on, and they wait for it",
    ) in found["argocd-found"]


def test_a_webhook_admitting_objects_of_its_backends_wave(found):
    [(obj, path, message)] = [f for f in found["argocd-found"] if f[0].startswith("Widget/")]
    assert (obj, path) == ("Widget/widget-system/first", "kind")
    assert message.startswith(
        "Application widgets applies Widget first (wave Sync/1), which webhook "
        "vwidget.example.com (failurePolicy Fail) must admit, before its backend (Deployment "
        "widget-webhook in the same wave or later) is known healthy"
    )


def test_flux_dependencies_namespaces_and_waiting(found):
    messages = {(obj, path): message for obj, path, message in found["flux-found"]}
    assert messages[("Kustomization/flux-system/workloads", "spec.dependsOn[1]")] == (
        "Kustomization workloads depends on Kustomization monitoring, which the environment "
        "does not define: Flux never applies it (dependency not found)"
    )
    assert messages[("Widget/training/first", "metadata.namespace")] == (
        "Kustomization platform applies Widget first in namespace training, which neither it nor "
        'a Kustomization it depends on creates: the apply fails with namespaces "training" not '
        "found"
    )
    assert (
        "comes from Kustomization operators, which is Ready once applied"
        in (messages[("Widget/training/first", "kind")])
    )
    # The operators layer's own objects are applied before its webhook is registered (Flux
    # applies webhook configurations last): nothing there is a finding.
    assert not [obj for obj, _ in messages if obj.startswith("Deployment/")]


def test_a_volcano_job_applied_with_or_before_its_queue_is_open(found):
    """Volcano v1.15.1 admit_job.go validateJobCreate admits a Job only into an existing, Open
    Queue, which Volcano's controller opens after creation: the shipped volcano environment
    synced both in its workloads layer."""
    argo = [m for obj, path, m in found["argocd-found"] if obj == "Job/runs/train"]
    assert argo == [
        "Application volcano applies Job train, which is admitted only once Queue q exists with "
        "status.state Open (volcano-sh/volcano v1.15.1 pkg/webhooks/admission/jobs/validate/"
        "admit_job.go validateJobCreate), and Queue q comes in the same Application at wave "
        "Sync/0: the first sync fails until a retry finds it ready"
    ]
    flux = sorted(m for obj, path, m in found["flux-found"] if obj == "Job/runs/train")
    assert len(flux) == 2
    assert flux[0].startswith("Kustomization volcano applies Job train,")
    assert "from the same Kustomization, which applies both" in flux[0]
    assert flux[1].startswith("Kustomization volcano-jobs applies Job train,")
    assert "from Kustomization volcano-queues, which is Ready without waiting" in flux[1]


def test_the_fixed_entry_points_are_clean(found):
    assert "argocd-fixed" not in found and "flux-fixed" not in found


def _object(doc: dict) -> K8sObject:
    return K8sObject(doc, "test.yaml", 1)


def test_a_managed_namespace_moves_before_presync_hooks_in_it():
    """gitops-engine v3.5.1 sync_tasks.go Sort (its own TestSyncTasksSort_NamespaceAndObjectIn
    Namespace): a Namespace the Application syncs is created before the PreSync hooks in it,
    in their phase and wave. This is why Volcano's Helm-hook installer syncs under Argo CD."""
    hook = {"helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-weight": "5"}
    objects = [
        _object({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}),
        _object(
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": "init", "namespace": "ns", "annotations": hook},
            }
        ),
        _object({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}),
    ]
    steps = [(s.phase, s.wave, s.kind, s.name) for s in argo_steps(objects, None, False)]
    assert steps == [
        ("PreSync", 5, "Namespace", "ns"),
        ("PreSync", 5, "Job", "init"),
        ("Sync", 0, "ConfigMap", "c"),
    ]


def test_create_namespace_is_a_presync_step_and_argo_hooks_win_over_helm():
    objects = [
        _object(
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {
                    "name": "after",
                    "namespace": "dest",
                    "annotations": {
                        "argocd.argoproj.io/hook": "PostSync",
                        "helm.sh/hook": "pre-install",
                    },
                },
            }
        ),
        _object({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}),
    ]
    steps = [(s.phase, s.kind, s.name, s.namespace) for s in argo_steps(objects, "dest", True)]
    assert steps == [
        ("PreSync", "Namespace", "dest", None),
        ("Sync", "Secret", "s", "dest"),
        ("PostSync", "Job", "after", "dest"),
    ]
