"""Objects behave under a GitOps controller that keeps syncing them, and rollouts reach the cluster.

What it catches:
- under a syncing GitOps entry point (an Argo CD Application with automated sync, a Flux
  Kustomization not suspended, pointing at the root):
  - a job its controller deletes once it finishes: `ttlSecondsAfterFinished` on a batch Job,
    a Volcano Job or a JobSet, `runPolicy.ttlSecondsAfterFinished` on a Kubeflow training job, a
    RayJob with `shutdownAfterJobFinishes` when the KubeRay operator sets
    `DELETE_RAYJOB_CR_AFTER_JOB_FINISHES=true` (otherwise KubeRay's TTL deletes only the
    RayCluster it created, which no GitOps tool tracks);
  - a job not marked for recreation: Argo CD needs `argocd.argoproj.io/sync-options` with
    `Replace=true` and `Force=true`, Flux `kustomize.toolkit.fluxcd.io/force: enabled`; and an
    Application syncing such jobs without `ApplyOutOfSyncOnly=true`. Argo CD hooks (its own
    `argocd.argoproj.io/hook`, or Helm's `helm.sh/hook`, which it maps onto its hooks) run per sync
    and are exempt from the Argo CD side, not from Flux's, which ignores them;
  - under Flux, a job whose webhook refuses a changed spec with a plain denial rather than an
    immutable-field error (a Volcano Job: knowledge/admission_needs.py UPDATE_REFUSED), unless
    it is created once (`kustomize.toolkit.fluxcd.io/ssa: IfNotPresent`): force recreates only
    after a Conflict, an Invalid or an "immutable" message (fluxcd/pkg ssa v0.76.1
    errors/immutable.go IsImmutableError), so a change fails the Kustomization for good;
  - a CustomResourceDefinition a GitOps tool may delete: Argo CD needs `Prune=false` and
    `Delete=false` in its sync-options annotation, a pruning Flux Kustomization needs
    `kustomize.toolkit.fluxcd.io/prune: disabled`;
- anywhere: a container mounting a file with `subPath` from a ConfigMap the environment defines
  whose name has no kustomize content hash (`-` and ten characters of kustomize's hash alphabet);
- anywhere: an admission webhook with `failurePolicy: Fail` (the default) and no namespace or
  object selector narrower than the cluster (an opt-in `In`/`Exists`/`matchLabels`; excluding a
  few namespaces is not narrower), for a kind no enabled Kueue integration needs (Kueue's webhooks,
  in the namespace of the Kueue configuration, against its `integrations.frameworks`);
- the layer with Kueue's mutating webhooks: an integration the configuration enables that none of
  them covers (its entry deleted in operators/kueue/webhooks-patch.yaml): Kueue suspends a new job
  in that webhook, so without it the job starts at once, outside quota, priority and preemption.

Why it matters: the TTL controller deletes a finished job and the GitOps tool recreates it, so
training reruns forever, one TTL after another; a job's pod template is immutable, so a changed job
fails to sync unless the tool recreates it, and recreating unchanged jobs on every sync reruns them.
Deleting a CRD deletes every custom resource of its kind in the cluster. A subPath mount never sees
a ConfigMap update, so without a new name the running pod keeps the old file. A webhook that fails
closed for kinds nobody needs makes every write of those kinds (every Pod, Deployment, StatefulSet)
depend on one controller replica.

How to fix: drop the TTL (the finished job is the record of the run); add the annotations
(components/server-side-crds marks CRDs; a job whose updates its webhook refuses is created once
under Flux, and a new run gets a new name); generate the ConfigMap with kustomize's name hash; delete
the webhooks of disabled integrations (operators/kueue/webhooks-patch.yaml), or narrow them with a
selector. Sources: Argo CD sync options (argo-cd docs/user-guide/sync-options.md), Flux's apply
annotations (kustomize-controller docs/spec/v1/kustomizations.md), KubeRay's RayJob quick start
(DELETE_RAYJOB_CR_AFTER_JOB_FINISHES), admissionregistration/v1 (failurePolicy defaults to Fail).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from trainops.knowledge.admission_needs import FLUX_SSA, UPDATE_REFUSED
from trainops.knowledge.kueue import kueue_configuration
from trainops.knowledge.pod_templates import templates_of
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered

ID = "gitops-lifecycle"
SEVERITY = Severity.ERROR
SUMMARY = "GitOps-synced objects converge: no TTL, jobs recreated, CRDs kept, configs roll, webhooks needed"

ARGO_OPTIONS = "argocd.argoproj.io/sync-options"
FLUX_FORCE = "kustomize.toolkit.fluxcd.io/force"
FLUX_PRUNE = "kustomize.toolkit.fluxcd.io/prune"
# kustomize's name hash: ten characters of hex mapped away from vowels (0→g, 1→h, 3→k, a→m, e→t).
HASH_SUFFIX = re.compile(r"-[2456789bcdfghkmt]{10}$")
KUBEFLOW_JOBS = {"PyTorchJob", "TFJob", "MPIJob", "PaddleJob", "XGBoostJob", "JAXJob", "MXJob"}
# Jobs whose own spec.ttlSecondsAfterFinished makes their controller delete them.
SPEC_TTL = {("batch", "Job"), ("batch.volcano.sh", "Job"), ("jobset.x-k8s.io", "JobSet")}
# Selector operators that include only what is marked, rather than excluding a few.
OPT_IN = {"In", "Exists"}


def _map(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _seq(value: object) -> list:
    return value if isinstance(value, list) else []


def _annotations(obj: K8sObject) -> dict:
    return _map(_map(obj.doc.get("metadata")).get("annotations"))


def _argo_options(obj: K8sObject) -> set[str]:
    value = _annotations(obj).get(ARGO_OPTIONS)
    return {part.strip() for part in value.split(",")} if isinstance(value, str) else set()


def _flux_setting(obj: K8sObject, key: str) -> str:
    metadata = _map(obj.doc.get("metadata"))
    value = _annotations(obj).get(key, _map(metadata.get("labels")).get(key))
    return value.lower() if isinstance(value, str) else ""


@dataclass
class _Syncers:
    """The GitOps objects of the run that keep one root synced."""

    argo: list[K8sObject] = field(default_factory=list)
    flux: list[K8sObject] = field(default_factory=list)


def _syncers(rendered: Rendered, cluster: Cluster) -> _Syncers:
    found = _Syncers()
    argo, flux = cluster.memo("gitops-lifecycle syncers", _automated)
    found.argo = [obj for obj, path in argo if cluster.root_at(path) is rendered]
    found.flux = [obj for obj, path in flux if cluster.root_at(path) is rendered]
    return found


def _automated(
    cluster: Cluster,
) -> tuple[list[tuple[K8sObject, object]], list[tuple[K8sObject, object]]]:
    """The Argo CD Applications that sync automatically and the unsuspended Flux Kustomizations
    of the run, each with the path it syncs from (found once: every root asks)."""
    argo: list[tuple[K8sObject, object]] = []
    flux: list[tuple[K8sObject, object]] = []
    for root in cluster.everything:
        for obj in root.objects:
            if obj.group == "argoproj.io" and obj.kind == "Application":
                spec = _map(obj.doc.get("spec"))
                automated = _map(spec.get("syncPolicy")).get("automated")
                if isinstance(automated, dict) and automated.get("enabled", True) is not False:
                    argo.append((obj, _map(spec.get("source")).get("path")))
            elif obj.group == "kustomize.toolkit.fluxcd.io" and obj.kind == "Kustomization":
                spec = _map(obj.doc.get("spec"))
                if spec.get("suspend") is not True:
                    flux.append((obj, spec.get("path")))
    return argo, flux


def _deleted_when_finished(obj: K8sObject, cluster: Cluster) -> str | None:
    """The field through which a controller deletes this job once it finishes, if one does."""
    spec = _map(obj.doc.get("spec"))
    if (obj.group, obj.kind) in SPEC_TTL and spec.get("ttlSecondsAfterFinished") is not None:
        return "spec.ttlSecondsAfterFinished"
    if (
        obj.group == "kubeflow.org"
        and obj.kind in KUBEFLOW_JOBS
        and _map(spec.get("runPolicy")).get("ttlSecondsAfterFinished") is not None
    ):
        return "spec.runPolicy.ttlSecondsAfterFinished"
    if (
        obj.group == "ray.io"
        and obj.kind == "RayJob"
        and spec.get("shutdownAfterJobFinishes") is True
        and cluster.memo("kuberay-deletes-rayjobs", _kuberay_deletes_rayjobs)
    ):
        return "spec.shutdownAfterJobFinishes"
    return None


def _kuberay_deletes_rayjobs(cluster: Cluster) -> bool:
    for obj in cluster.objects():
        if obj.kind != "Deployment":
            continue
        for template in _templates(obj):
            for container in _seq(_map(template.spec).get("containers")):
                for env in _seq(_map(container).get("env")):
                    env = _map(env)
                    if (
                        env.get("name") == "DELETE_RAYJOB_CR_AFTER_JOB_FINISHES"
                        and str(env.get("value")).lower() == "true"
                    ):
                        return True
    return False


def _is_job(obj: K8sObject) -> bool:
    return (
        (obj.group, obj.kind) in SPEC_TTL
        or (obj.group, obj.kind) == ("ray.io", "RayJob")
        or (obj.group == "kubeflow.org" and obj.kind in KUBEFLOW_JOBS)
    )


def _templates(obj: K8sObject) -> list:
    # pod_templates expects the nesting its kinds' schemas define; an object that breaks it is the
    # schema rule's finding, not a reason to stop.
    try:
        return templates_of(obj)
    except (AttributeError, TypeError):
        return []


def _finding(rendered: Rendered, obj: K8sObject, message: str, path: str, hint: str) -> Finding:
    return Finding(ID, SEVERITY, message, rendered.root, obj.file, obj.line, obj.ref, path, hint)


def _is_argo_hook(obj: K8sObject) -> bool:
    """Argo CD runs hooks (its own, and Helm's it maps onto them) per sync instead of keeping them."""
    annotations = _annotations(obj)
    return "argocd.argoproj.io/hook" in annotations or "helm.sh/hook" in annotations


def _job_findings(
    rendered: Rendered, obj: K8sObject, cluster: Cluster, syncers: _Syncers
) -> Iterator[Finding]:
    argo = [] if _is_argo_hook(obj) else syncers.argo
    keepers = [
        f"{kind} {', '.join(o.name for o in found)}"
        for kind, found in (("Application", argo), ("Kustomization", syncers.flux))
        if found
    ]
    deleting = _deleted_when_finished(obj, cluster)
    if deleting and keepers:
        yield _finding(
            rendered,
            obj,
            f"{obj.kind} {obj.name} is deleted once it finishes ({deleting}) and "
            f"{' and '.join(keepers)} recreates it: the job reruns forever",
            deleting,
            "drop the TTL; the finished job is the record of its run",
        )
    if argo and not {"Replace=true", "Force=true"} <= _argo_options(obj):
        yield _finding(
            rendered,
            obj,
            f"{obj.kind} {obj.name} is synced by Argo CD but not marked for recreation: "
            "a change to its immutable spec fails to sync",
            f"metadata.annotations.{ARGO_OPTIONS}",
            f"annotate {ARGO_OPTIONS}: Replace=true,Force=true",
        )
    refused = UPDATE_REFUSED.get((obj.group, obj.kind))
    if syncers.flux and refused and _flux_setting(obj, FLUX_SSA) != "ifnotpresent":
        relied = " (force does not help)" if _flux_setting(obj, FLUX_FORCE) == "enabled" else ""
        yield _finding(
            rendered,
            obj,
            f"{obj.kind} {obj.name} is synced by Flux, whose force recreates only what the API "
            f"refuses as immutable, and its webhook refuses a changed spec with a plain denial "
            f"({refused}){relied}: every change in git fails the Kustomization until someone "
            "deletes the job",
            f"metadata.annotations.{FLUX_SSA}",
            f"annotate {FLUX_SSA}: IfNotPresent (Flux creates it once) and name each new run",
        )
    elif syncers.flux and not refused and _flux_setting(obj, FLUX_FORCE) != "enabled":
        yield _finding(
            rendered,
            obj,
            f"{obj.kind} {obj.name} is synced by Flux but not marked for recreation: "
            "a change to its immutable spec fails to apply",
            f"metadata.annotations.{FLUX_FORCE}",
            f"annotate {FLUX_FORCE}: enabled",
        )


def _crd_findings(rendered: Rendered, obj: K8sObject, syncers: _Syncers) -> Iterator[Finding]:
    missing = sorted({"Prune=false", "Delete=false"} - _argo_options(obj)) if syncers.argo else []
    if missing:
        yield _finding(
            rendered,
            obj,
            f"CRD {obj.name} may be deleted by Argo CD, and every custom resource of its "
            f"kind with it: its sync options lack {', '.join(missing)}",
            f"metadata.annotations.{ARGO_OPTIONS}",
            "include components/server-side-crds, which marks CRDs Prune=false,Delete=false",
        )
    pruning = [k.name for k in syncers.flux if _map(k.doc.get("spec")).get("prune") is True]
    if pruning and _flux_setting(obj, FLUX_PRUNE) != "disabled":
        yield _finding(
            rendered,
            obj,
            f"CRD {obj.name} may be pruned by Flux Kustomization {', '.join(pruning)}, and "
            "every custom resource of its kind with it",
            f"metadata.annotations.{FLUX_PRUNE}",
            f"annotate {FLUX_PRUNE}: disabled (components/server-side-crds does)",
        )


def _synced_findings(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    syncers = _syncers(rendered, cluster)
    if not syncers.argo and not syncers.flux:
        return
    replaced = False
    for obj in rendered.objects:
        if _is_job(obj):
            yield from _job_findings(rendered, obj, cluster, syncers)
            replaced |= not _is_argo_hook(obj) and {"Replace=true", "Force=true"} <= _argo_options(
                obj
            )
        elif obj.kind == "CustomResourceDefinition" and obj.group == "apiextensions.k8s.io":
            yield from _crd_findings(rendered, obj, syncers)
    for app in syncers.argo:
        if replaced and "ApplyOutOfSyncOnly=true" not in {
            o
            for o in _seq(_map(_map(app.doc.get("spec")).get("syncPolicy")).get("syncOptions"))
            if isinstance(o, str)
        }:
            yield Finding(
                ID,
                SEVERITY,
                f"Application {app.name} recreates jobs marked Replace=true,Force=true on every "
                "sync, rerunning the unchanged ones",
                rendered.root,
                app.file,
                app.line,
                app.ref,
                "spec.syncPolicy.syncOptions",
                "add ApplyOutOfSyncOnly=true",
            )


def _subpath_findings(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    defined = {
        (o.namespace, o.name)
        for o in cluster.objects()
        if o.kind == "ConfigMap" and o.api_version == "v1"
    }
    for obj in rendered.objects:
        for template in _templates(obj):
            config_maps = {}
            for volume in _seq(_map(template.spec).get("volumes")):
                volume = _map(volume)
                name = _map(volume.get("configMap")).get("name")
                if (
                    isinstance(name, str)
                    and (obj.namespace, name) in defined
                    and not HASH_SUFFIX.search(name)
                ):
                    config_maps[volume.get("name")] = name
            for group in ("initContainers", "containers"):
                for index, container in enumerate(_seq(_map(template.spec).get(group))):
                    for mount_index, mount in enumerate(_seq(_map(container).get("volumeMounts"))):
                        mount = _map(mount)
                        if mount.get("subPath") and mount.get("name") in config_maps:
                            yield _finding(
                                rendered,
                                obj,
                                f"{obj.kind} {obj.name} mounts {mount.get('subPath')} from ConfigMap "
                                f"{config_maps[mount.get('name')]} through subPath, and the ConfigMap's name has no "
                                "content hash: an edit never reaches the running pod",
                                template.child(
                                    f"spec.{group}[{index}].volumeMounts[{mount_index}]"
                                ),
                                "generate the ConfigMap with kustomize's name hash (a configMapGenerator without disableNameSuffixHash)",
                            )


def _cluster_wide(selector: object) -> bool:
    selector = _map(selector)
    if _map(selector.get("matchLabels")):
        return False
    return not any(
        _map(e).get("operator") in OPT_IN for e in _seq(selector.get("matchExpressions"))
    )


def _framework(group: str, resource: str) -> str:
    """Kueue's integration name for a webhook rule's group and (plural) resource."""
    singular = resource.removesuffix("s")
    return singular if group in ("", "apps") else f"{group}/{singular}"


def _webhook_findings(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    kueue = cluster.memo("kueue-configuration", kueue_configuration)
    if kueue is None:
        return
    namespace, enabled = kueue
    for obj in rendered.objects:
        if obj.group != "admissionregistration.k8s.io" or obj.kind not in (
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
        ):
            continue
        for index, webhook in enumerate(_seq(obj.doc.get("webhooks"))):
            webhook = _map(webhook)
            service = _map(_map(webhook.get("clientConfig")).get("service"))
            if (
                service.get("namespace") != namespace
                or webhook.get("failurePolicy", "Fail") != "Fail"
                or not (
                    _cluster_wide(webhook.get("namespaceSelector"))
                    and _cluster_wide(webhook.get("objectSelector"))
                )
            ):
                continue
            frameworks = _frameworks_of(webhook)
            if frameworks and not frameworks & enabled:
                yield _finding(
                    rendered,
                    obj,
                    f"webhook {webhook.get('name')} fails closed cluster-wide for "
                    f"{', '.join(sorted(frameworks))}, an integration Kueue's configuration leaves off: every such "
                    "write depends on the Kueue controller",
                    f"webhooks[{index}]",
                    "delete the webhook (operators/kueue/webhooks-patch.yaml), or enable the integration",
                )


def _frameworks_of(webhook: dict) -> set[str]:
    return {
        _framework(group, resource)
        for rule in _seq(webhook.get("rules"))
        for group in _seq(_map(rule).get("apiGroups"))
        for resource in _seq(_map(rule).get("resources"))
        if isinstance(group, str)
        and isinstance(resource, str)
        and "/" not in resource
        and group != "kueue.x-k8s.io"
    }


def _unsuspended_findings(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    """An enabled integration whose mutating webhook was deleted: Kueue suspends a job of that
    kind in its mutating webhook as the job is created (Kueue v0.18.6 pkg/controller/jobframework
    ApplyDefaultForSuspend, called from each job kind's webhook Default), so without it the job
    starts at once, outside quota."""
    kueue = cluster.memo("kueue-configuration", kueue_configuration)
    if kueue is None:
        return
    namespace, enabled = kueue
    mutating = [
        obj
        for obj in rendered.objects
        if obj.group == "admissionregistration.k8s.io"
        and obj.kind == "MutatingWebhookConfiguration"
        and any(
            _map(_map(_map(w).get("clientConfig")).get("service")).get("namespace") == namespace
            for w in _seq(obj.doc.get("webhooks"))
        )
    ]
    if not mutating:
        return  # Kueue's webhooks are in another layer
    covered = {
        framework
        for obj in mutating
        for webhook in _seq(obj.doc.get("webhooks"))
        for framework in _frameworks_of(_map(webhook))
    }
    for framework in sorted(enabled - covered):
        if framework.count("/") > 1:
            continue  # not a name a webhook rule makes (an external framework's)
        yield _finding(
            rendered,
            mutating[0],
            f"Kueue's configuration enables {framework}, but no mutating webhook of Kueue's covers "
            "it: Kueue suspends such a job in that webhook as it is created, so without it the job "
            "starts at once, outside quota, priority and preemption",
            "webhooks",
            "keep the integration's mutating webhook (take its `$patch: delete` out of "
            "operators/kueue/webhooks-patch.yaml)",
        )


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    yield from _synced_findings(rendered, cluster)
    yield from _subpath_findings(rendered, cluster)
    yield from _webhook_findings(rendered, cluster)
    yield from _unsuspended_findings(rendered, cluster)
