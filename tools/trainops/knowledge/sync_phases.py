"""The order in which Argo CD and Flux apply a root's objects, and what exists at each step.

Argo CD v3.5.1 (its gitops-engine, in the argo-cd repository under gitops-engine/):
- Hooks: an object with `argocd.argoproj.io/hook`, or with `helm.sh/hook` other than
  `crd-install` (pkg/sync/hook/hook.go IsHook, hook/helm/hook.go), is run as a hook, not kept as
  a managed resource. Helm's `pre-install`/`pre-upgrade` are PreSync, `post-install`/
  `post-upgrade` PostSync (hook/helm/type.go); Argo's own types win over Helm's (hook.go Types).
  Other objects are applied in the Sync phase (sync_phase.go syncPhases).
- Order: phase (PreSync < Sync < PostSync < SyncFail), then wave (`argocd.argoproj.io/sync-wave`,
  else `helm.sh/hook-weight`, else 0: syncwaves/waves.go), then kind (Namespace first …, custom
  kinds last), then name (sync_tasks.go Less). Then a Namespace the sync applies moves before the
  first object in it, taking that object's phase and wave, and a CRD before its first custom
  resource (sync_tasks.go Sort/adjustDeps): a managed Namespace is created even before PreSync
  hooks in it.
- With the `CreateNamespace=true` sync option and a destination namespace the Application does
  not itself define, that namespace is a PreSync task (sync_context.go autoCreateNamespace); an
  object with no namespace is given the destination namespace (getSyncTasks).
- Each phase and wave is applied and must be healthy (hooks: complete) before the next one
  starts (sync_context.go Sync); within one wave nothing waits. An app of apps orders its
  Applications the same way, by their waves.

Flux kustomize-controller v1.9.4: a Kustomization waits for every Kustomization in its
`dependsOn` to be Ready (internal/controller/kustomization_controller.go checkDependencies; a
missing one is "dependency … not found", retried forever), and is Ready once applied — and, with
`wait: true` or `healthChecks`, once what it applied is healthy. It applies its objects in
stages: CRDs, ClusterRoles and Namespaces first, waiting for them, then everything else
(fluxcd/pkg ssa v0.76.1, manager_apply.go ApplyAllStaged): every object of a stage is dry-run
first, then applied one by one in ReconcileOrder, webhook configurations last (ssa/sort.go).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trainops.model.objects import K8sObject
from trainops.model.shape import mapping

HOOK = "argocd.argoproj.io/hook"
HELM_HOOK = "helm.sh/hook"
SYNC_WAVE = "argocd.argoproj.io/sync-wave"
HELM_WEIGHT = "helm.sh/hook-weight"
PHASES = ("PreSync", "Sync", "PostSync", "SyncFail")
_HELM_PHASES = {
    "pre-install": "PreSync",
    "pre-upgrade": "PreSync",
    "post-install": "PostSync",
    "post-upgrade": "PostSync",
}
# Namespaces every cluster has (kube-apiserver creates them).
BUILT_IN_NAMESPACES = frozenset({"default", "kube-system", "kube-public", "kube-node-lease"})
_INTEGER = re.compile(r"[+-]?[0-9]+")
# gitops-engine sync_tasks.go kindOrder (Helm's kind_sorter): earlier kinds first, others last.
_KIND_ORDER = [
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
]
KIND_ORDER = {kind: index - len(_KIND_ORDER) for index, kind in enumerate(_KIND_ORDER)}


def annotations_of(obj: K8sObject) -> dict:
    return mapping(mapping(obj.doc.get("metadata")).get("annotations"))


def _csv(value: object) -> list[str]:
    return [part.strip() for part in value.split(",")] if isinstance(value, str) else []


def hook_phases(obj: K8sObject) -> list[str] | None:
    """The phases Argo CD runs a hook in (empty: never), or None when it is no hook."""
    found = annotations_of(obj)
    argo = _csv(found.get(HOOK))
    if HOOK in found:
        if argo == ["Skip"]:
            return []
        phases = [p for p in argo if p in PHASES]
        if phases or argo:
            return list(dict.fromkeys(phases))
    helm = found.get(HELM_HOOK)
    if helm is None or helm == "crd-install":
        return None
    return list(dict.fromkeys(_HELM_PHASES[t] for t in _csv(helm) if t in _HELM_PHASES))


def wave(obj: K8sObject) -> int:
    found = annotations_of(obj)
    for key in (SYNC_WAVE, HELM_WEIGHT):
        text = found.get(key)
        if isinstance(text, str) and _INTEGER.fullmatch(text):
            return int(text)
    return 0


@dataclass
class Step:
    """One object Argo CD applies in one phase and wave (obj None: a namespace it creates)."""

    obj: K8sObject | None
    kind: str
    name: str
    namespace: str | None
    phase: str
    wave: int
    hook: bool = False
    explicit: bool = True  # its namespace is written in it (not the destination's)

    @property
    def key(self) -> tuple:
        return (PHASES.index(self.phase), self.wave, KIND_ORDER.get(self.kind, 0), self.name)

    @property
    def point(self) -> tuple[int, int]:
        """Phase and wave: Argo CD waits for what one point applied before the next."""
        return (PHASES.index(self.phase), self.wave)

    def describe(self) -> str:
        return f"{'hook' if self.hook else 'wave'} {self.phase}/{self.wave}"


def _crd_of(step: Step) -> str | None:
    if step.kind != "CustomResourceDefinition" or step.obj is None:
        return None
    spec = mapping(step.obj.doc.get("spec"))
    return f"{spec.get('group')}/{mapping(spec.get('names')).get('kind')}"


def _adjust(steps: list[Step], depends, refers) -> None:
    """gitops-engine's adjustDeps: move each dependency before the first step referring to it,
    giving it that step's phase and wave."""
    first: dict[str, int] = {}
    index = 0
    while index < len(steps):
        step = steps[index]
        key = depends(step)
        if key is not None:
            if key in first and first[key] < index:
                target = first[key]
                moved = steps.pop(index)
                moved.phase, moved.wave = steps[target].phase, steps[target].wave
                steps.insert(target, moved)
                for other, at in first.items():
                    if at >= target:
                        first[other] = at + 1
        else:
            reference = refers(step)
            if reference is not None:
                first.setdefault(reference, index)
        index += 1


def argo_steps(
    objects: list[K8sObject], destination: str | None, create_namespace: bool
) -> list[Step]:
    """The objects of one Application as Argo CD applies them, in order."""
    steps: list[Step] = []
    for obj in objects:
        phases = hook_phases(obj)
        namespace = obj.namespace or destination
        for phase in phases if phases is not None else ["Sync"]:
            steps.append(
                Step(
                    obj,
                    obj.kind,
                    obj.name,
                    namespace,
                    phase,
                    wave(obj),
                    phases is not None,
                    obj.namespace is not None,
                )
            )
    defined = {o.name for o in objects if o.kind == "Namespace" and o.group == ""}
    if create_namespace and destination and destination not in defined:
        steps.append(Step(None, "Namespace", destination, None, "PreSync", 0))
    steps.sort(key=lambda s: s.key)
    _adjust(
        steps,
        lambda s: s.name if s.kind == "Namespace" else None,
        lambda s: s.namespace if s.kind != "Namespace" else None,
    )
    _adjust(
        steps,
        _crd_of,
        lambda s: f"{s.obj.group}/{s.kind}" if s.obj is not None else None,
    )
    return steps


def creates_namespace(step: Step) -> str | None:
    return step.name if step.kind == "Namespace" else None
