"""Every object can be created at the point its GitOps controller applies it.

What it catches, simulating each Argo CD Application (its hooks and phases, waves, kind order,
the Namespace and CRD moves gitops-engine makes, `CreateNamespace=true` with the destination
namespace; an app of apps' Applications by wave) and each Flux Kustomization (`dependsOn`,
`wait`, `healthChecks`, the staged apply) — knowledge/sync_phases.py, from the pinned sources:
- an object applied in a namespace that nothing has created by then: not a Namespace of the
  same Application or Kustomization, not the Application's created destination namespace, not
  one an earlier-wave Application or a Kustomization it depends on creates, not built in;
- a pod-bearing object (a Job, a Deployment, a hook) whose pods need a ServiceAccount, ConfigMap,
  Secret or PersistentVolumeClaim the same Application applies only at a later phase or wave, or
  that a later-wave Application applies: Argo CD waits for the pods before applying it, and they
  wait for it;
- an object an admission webhook with `failurePolicy: Fail` intercepts once the webhook is
  registered, applied before the webhook's backend (the Deployment behind its Service) is known
  healthy: after the webhook configuration in the same phase and wave of the same Application
  (a wave is applied without waiting), or while the backend comes from a later-wave Application,
  or from a Kustomization it does not depend on or that does not wait (`wait: true` or a health
  check of that Deployment). Within one Kustomization Flux applies webhook configurations after
  everything else of their stage, so they admit nothing of their own first apply;
- an object an operator's webhook admits only once another object exists and is ready (a Volcano
  Job's Queue, Open: knowledge/admission_needs.py NEEDS), applied at the same Argo CD phase and
  wave as that object or before it (the same Application, or one of the same or a later wave), or
  under Flux from the same Kustomization, one it does not depend on, or one that does not wait
  for that object's state (`wait: true` or a health check, with a `healthCheckExprs` entry for
  its kind: Flux reads a custom resource without conditions as ready at once);
- a Flux `dependsOn` naming a Kustomization the environment does not define: the dependent is
  never applied.

Why it matters: the API server refuses the object ("namespaces … not found", "failed calling
webhook … no endpoints available"), and the controller retries the whole sync until its retries
run out; a hook that cannot start stalls its phase forever.

How to fix: keep a Namespace in the Application or Kustomization that fills it (gitops-engine
creates it first, before hooks too), or give the Application a destination namespace with
`CreateNamespace=true`; move what pods need to an earlier wave or layer; put webhook backends in
an earlier wave, or an earlier Kustomization with `wait: true` that the others depend on; put
what a webhook needs ready in an earlier layer that waits for its health.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from trainops.knowledge import kueue
from trainops.knowledge.admission_needs import Need, matches, needs_of
from trainops.knowledge.network.services import services
from trainops.knowledge.pod_templates import templates_of
from trainops.knowledge.sync_phases import (
    BUILT_IN_NAMESPACES,
    Step,
    argo_steps,
    wave,
)
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping, mappings, strings

ID = "sync-phases"
SEVERITY = Severity.ERROR
SUMMARY = "each object can be created where Argo CD's phases and waves or Flux's dependsOn apply it"

_WEBHOOK_KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
_WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"}


def _finding(rendered: Rendered, obj: K8sObject, message: str, path: str | None, hint: str):
    return Finding(ID, SEVERITY, message, rendered.root, obj.file, obj.line, obj.ref, path, hint)


@functools.lru_cache(maxsize=1024)
def _plural(kind: str) -> str:
    lower = kind.lower()
    if lower.endswith("y"):
        return lower[:-1] + "ies"
    if lower.endswith(("s", "x")):
        return lower + "es"
    return lower + "s"


def _selected(selector: object, labels: dict) -> bool:
    """A webhook's namespaceSelector or objectSelector: absent or empty selects everything."""
    if not isinstance(selector, dict) or not selector:
        return True
    return kueue.selects(selector, labels)


@dataclass
class _Webhook:
    config: K8sObject
    name: str
    rules: list[dict]
    namespace_selector: object
    object_selector: object
    service: tuple[str, str]

    @functools.cached_property
    def _creates(self) -> list[tuple[frozenset[str], frozenset[str]]]:
        """(apiGroups, resources) of each rule that admits a create."""
        return [
            (frozenset(strings(rule.get("apiGroups"))), frozenset(strings(rule.get("resources"))))
            for rule in self.rules
            if any(o in ("*", "CREATE") for o in strings(rule.get("operations")))
        ]

    def creates(self, group: str, kind: str) -> bool:
        """Whether it is called on creating an object of this group and kind."""
        plural = _plural(kind)
        return any(
            ("*" in groups or group in groups) and ("*" in resources or plural in resources)
            for groups, resources in self._creates
        )

    def selects(self, obj: K8sObject, namespace_labels: dict[str, dict]) -> bool:
        """Of a webhook called on creating objects of `obj`'s kind (_creating), whether its
        selectors take `obj` (and it is not `obj` itself)."""
        if obj is self.config:
            return False
        labels = mapping(mapping(obj.doc.get("metadata")).get("labels"))
        if not _selected(self.object_selector, labels):
            return False
        if obj.namespace:
            ns_labels = {
                **namespace_labels.get(obj.namespace, {}),
                "kubernetes.io/metadata.name": obj.namespace,
            }
            return _selected(self.namespace_selector, ns_labels)
        return True


def _webhooks(objects: list[K8sObject]) -> list[_Webhook]:
    found = []
    for obj in objects:
        if obj.group != "admissionregistration.k8s.io" or obj.kind not in _WEBHOOK_KINDS:
            continue
        for webhook in mappings(obj.doc.get("webhooks")):
            service = mapping(mapping(webhook.get("clientConfig")).get("service"))
            if webhook.get("failurePolicy", "Fail") != "Fail" or not service.get("name"):
                continue
            found.append(
                _Webhook(
                    obj,
                    str(webhook.get("name")),
                    mappings(webhook.get("rules")),
                    webhook.get("namespaceSelector"),
                    webhook.get("objectSelector"),
                    (str(service.get("namespace")), str(service.get("name"))),
                )
            )
    return found


def _creating(webhooks: list[_Webhook]) -> Callable[[K8sObject], list[_Webhook]]:
    """The webhooks called on creating an object of its kind (before their selectors), by kind:
    every object is asked of every webhook, and Kueue registers dozens."""
    known: dict[tuple[str, str], list[_Webhook]] = {}

    def of(obj: K8sObject) -> list[_Webhook]:
        kind = (obj.group, obj.kind)
        if kind not in known:
            known[kind] = [webhook for webhook in webhooks if webhook.creates(*kind)]
        return known[kind]

    return of


def _backends(webhook: _Webhook, objects: list[K8sObject]) -> list[K8sObject]:
    """The workloads whose pods the webhook's Service selects."""
    service = services(objects).get(webhook.service)
    selector = mapping(mapping(service.doc.get("spec")).get("selector")) if service else {}
    if not selector:
        return []
    return [
        o
        for o in objects
        if o.kind in _WORKLOADS
        and o.namespace == webhook.service[0]
        and any(
            all(mapping(t.metadata.get("labels")).get(k) == v for k, v in selector.items())
            for t in templates_of(o)
        )
    ]


def _needs(obj: K8sObject) -> list[tuple[str, str]]:
    """(kind, name) of what the object's pods need in its namespace before they can start."""
    found: list[tuple[str, str]] = []
    for template in templates_of(obj):
        spec = template.spec
        account = spec.get("serviceAccountName")
        if isinstance(account, str) and account != "default":
            found.append(("ServiceAccount", account))
        for volume in mappings(spec.get("volumes")):
            config = mapping(volume.get("configMap"))
            if config.get("name") and not config.get("optional"):
                found.append(("ConfigMap", str(config["name"])))
            secret = mapping(volume.get("secret"))
            if secret.get("secretName") and not secret.get("optional"):
                found.append(("Secret", str(secret["secretName"])))
            claim = mapping(volume.get("persistentVolumeClaim"))
            if claim.get("claimName"):
                found.append(("PersistentVolumeClaim", str(claim["claimName"])))
        for group in ("initContainers", "containers"):
            for container in mappings(spec.get(group)):
                for source in mappings(container.get("envFrom")):
                    for key, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
                        ref = mapping(source.get(key))
                        if ref.get("name") and not ref.get("optional"):
                            found.append((kind, str(ref["name"])))
    return list(dict.fromkeys(found))


# --------------------------------------------------------------------------- Argo CD


@dataclass
class _App:
    obj: K8sObject
    wave: int
    objects: list[K8sObject]
    steps: list[Step] = field(default_factory=list)


def _argo_apps(rendered: Rendered, cluster: Cluster) -> list[_App]:
    apps = []
    for obj in rendered.objects:
        if obj.group != "argoproj.io" or obj.kind != "Application":
            continue
        spec = mapping(obj.doc.get("spec"))
        root = cluster.root_at(mapping(spec.get("source")).get("path"))
        if root is None or not root.loaded:
            continue
        options = set(strings(mapping(spec.get("syncPolicy")).get("syncOptions")))
        destination = mapping(spec.get("destination")).get("namespace")
        destination = destination if isinstance(destination, str) and destination else None
        app = _App(obj, wave(obj), list(root.objects))
        app.steps = argo_steps(app.objects, destination, "CreateNamespace=true" in options)
        apps.append(app)
    return apps


def _argo_findings(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    apps = _argo_apps(rendered, cluster)
    everything = [o for app in apps for o in app.objects]
    labels = {
        o.name: dict(mapping(mapping(o.doc.get("metadata")).get("labels")))
        for o in everything
        if o.kind == "Namespace" and o.group == ""
    }
    webhooks = _webhooks(everything)
    creating = _creating(webhooks)
    backends = {id(w): _backends(w, everything) for w in webhooks}
    for app in apps:
        earlier = [a for a in apps if a.wave < app.wave]
        later = [a for a in apps if a.wave > app.wave]
        same = [a for a in apps if a.wave == app.wave and a is not app]
        created = set(BUILT_IN_NAMESPACES) | {str(app.obj.namespace)}
        created |= {s.name for a in earlier for s in a.steps if s.kind == "Namespace"}
        before = {(o.kind, o.namespace, o.name) for a in earlier for o in a.objects}
        point_of = {id(s.obj): s.point for s in app.steps if s.obj is not None}
        index_of = {id(s.obj): i for i, s in enumerate(app.steps) if s.obj is not None}
        name = f"Application {app.obj.name}"
        for index, step in enumerate(app.steps):
            if step.kind == "Namespace":
                created.add(step.name)
                continue
            obj = step.obj
            assert obj is not None
            if step.explicit and step.namespace and step.namespace not in created:
                elsewhere = [a.obj.name for a in same + later if step.namespace in _ns(a)]
                source = (
                    f"only Application {', '.join(elsewhere)} of the same or a later wave "
                    "creates it"
                    if elsewhere
                    else "nothing this Application or an earlier wave syncs creates it"
                )
                yield _finding(
                    rendered,
                    obj,
                    f"{name} applies {obj.kind} {obj.name} ({step.describe()}) in namespace "
                    f"{step.namespace}, and {source}: Argo CD fails with namespaces "
                    f'"{step.namespace}" not found and retries the sync',
                    "metadata.namespace",
                    "keep the Namespace in this Application (Argo CD creates it first), or set "
                    "the destination namespace with CreateNamespace=true",
                )
            for kind, needed in _needs(obj):
                key = (kind, step.namespace, needed)
                if key in before:
                    continue
                mine = [
                    s
                    for s in app.steps[index + 1 :]
                    if (s.kind, s.namespace, s.name) == key and s.point > step.point
                ]
                theirs = [a.obj.name for a in later if any(_is(o, key) for o in a.objects)]
                if mine or theirs:
                    when = (
                        f"only later ({mine[0].describe()})"
                        if mine
                        else f"only in Application {', '.join(theirs)}, a later wave"
                    )
                    yield _finding(
                        rendered,
                        obj,
                        f"{name} applies {obj.kind} {obj.name} ({step.describe()}), whose pods "
                        f"need {kind} {needed}, which it applies {when}: Argo CD waits for the "
                        "pods before going on, and they wait for it",
                        "spec",
                        f"apply {kind} {needed} at an earlier phase or wave than {obj.kind} "
                        f"{obj.name}",
                    )
            for need, needed in needs_of(obj):
                mine = [
                    s
                    for s in app.steps
                    if s.obj is not None
                    and matches(need, s.obj, step.namespace, needed)
                    and s.point >= step.point
                ]
                theirs = [
                    a.obj.name
                    for a in same + later
                    if any(matches(need, o, step.namespace, needed) for o in a.objects)
                ]
                if mine or theirs:
                    when = (
                        f"in the same Application at {mine[0].describe()}"
                        if mine
                        else f"in Application {', '.join(theirs)}, of the same or a later wave"
                    )
                    yield _need_finding(rendered, obj, need, needed, f"{name} applies", when)
            for webhook in creating(obj):
                if not webhook.selects(obj, labels):
                    continue
                at = index_of.get(id(webhook.config))
                if at is not None and at > index:
                    continue  # not registered yet when the object is created
                if any(webhook.config is o for a in later for o in a.objects):
                    continue
                risky = []
                for backend in backends[id(webhook)]:
                    if backend is obj:
                        continue
                    point = point_of.get(id(backend))
                    if point is not None and point >= step.point:
                        risky.append(f"{backend.kind} {backend.name} in the same wave or later")
                    elif any(backend is o for a in same + later for o in a.objects):
                        risky.append(f"{backend.kind} {backend.name} of an Application no earlier")
                if risky:
                    yield _finding(
                        rendered,
                        obj,
                        f"{name} applies {obj.kind} {obj.name} ({step.describe()}), which webhook "
                        f"{webhook.name} (failurePolicy Fail) must admit, before its backend "
                        f"({'; '.join(risky)}) is known healthy: the request fails while the "
                        "backend starts",
                        "kind",
                        "apply the webhook's backend in an earlier wave (Argo CD waits for it "
                        "to be healthy)",
                    )


def _need_finding(
    rendered: Rendered, obj: K8sObject, need: Need, needed: str, who: str, when: str
) -> Finding:
    kind = need.needed[1]
    return _finding(
        rendered,
        obj,
        f"{who} {obj.kind} {obj.name}, which is admitted only once {kind} {needed} exists "
        f"with {need.ready} ({need.upstream}), and {kind} {needed} comes {when}: the first "
        "sync fails until a retry finds it ready",
        ".".join(need.field),
        f"apply {kind} {needed} at an earlier wave or layer, waiting for its health",
    )


def _ns(app: _App) -> set[str]:
    return {s.name for s in app.steps if s.kind == "Namespace"}


def _is(obj: K8sObject, key: tuple) -> bool:
    return (obj.kind, obj.namespace, obj.name) == key


# --------------------------------------------------------------------------- Flux


def _flux_findings(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    kustomizations = {
        (o.namespace, o.name): o
        for o in rendered.objects
        if o.group == "kustomize.toolkit.fluxcd.io" and o.kind == "Kustomization"
    }
    if not kustomizations:
        return

    def dependencies(key) -> list[tuple]:
        spec = mapping(kustomizations[key].doc.get("spec"))
        # A name or namespace that is no string is the schema's to report; it names nothing here.
        return [
            (d.get("namespace") or key[0], d.get("name"))
            for d in mappings(spec.get("dependsOn"))
            if isinstance(d.get("name"), str) and isinstance(d.get("namespace") or "", str)
        ]

    def closure(key, seen=()) -> set[tuple]:
        found = set()
        for dep in dependencies(key):
            if dep in kustomizations and dep not in seen:
                found |= {dep} | closure(dep, seen + (key,))
        return found

    roots = {}
    for key, k in kustomizations.items():
        root = cluster.root_at(mapping(k.doc.get("spec")).get("path"))
        if root is not None and root.loaded:
            roots[key] = root
    everything = [o for root in roots.values() for o in root.objects]
    labels = {
        o.name: dict(mapping(mapping(o.doc.get("metadata")).get("labels")))
        for o in everything
        if o.kind == "Namespace" and o.group == ""
    }
    creating = _creating(_webhooks(everything))
    home = {id(o): key for key, root in roots.items() for o in root.objects}
    for key, k in kustomizations.items():
        spec = mapping(k.doc.get("spec"))
        for index, (namespace, dep) in enumerate(dependencies(key)):
            if (namespace, dep) not in kustomizations:
                yield _finding(
                    rendered,
                    k,
                    f"Kustomization {k.name} depends on Kustomization {dep}, which the "
                    "environment does not define: Flux never applies it (dependency not found)",
                    f"spec.dependsOn[{index}]",
                    "name a Kustomization of the environment, or drop the dependency",
                )
        root = roots.get(key)
        if root is None:
            continue
        before = closure(key)
        created = set(BUILT_IN_NAMESPACES) | {
            o.name
            for other in {key} | before
            if other in roots
            for o in roots[other].objects
            if o.kind == "Namespace" and o.group == ""
        }
        target = spec.get("targetNamespace")
        for obj in root.objects:
            namespace = target if isinstance(target, str) and target and obj.namespace else None
            namespace = namespace or obj.namespace
            if namespace and namespace not in created:
                yield _finding(
                    rendered,
                    obj,
                    f"Kustomization {k.name} applies {obj.kind} {obj.name} in namespace "
                    f"{namespace}, which neither it nor a Kustomization it depends on creates: "
                    f'the apply fails with namespaces "{namespace}" not found',
                    "metadata.namespace",
                    "add the Kustomization creating the namespace to dependsOn",
                )
            for need, needed in needs_of(obj):
                found = [
                    home[id(o)]
                    for o in everything
                    if matches(need, o, obj.namespace, needed) and id(o) in home
                ]
                # Reported only when no Kustomization defining it makes it ready in time; its
                # own Kustomization's reason first, then a dependency's.
                reasons = [
                    _flux_unready(kustomizations, key, before, owner, need, needed)
                    for owner in sorted(set(found), key=lambda o: (o != key, o not in before, o))
                ]
                first = reasons[0] if reasons and all(reasons) else None
                if first:
                    yield _need_finding(
                        rendered, obj, need, needed, f"Kustomization {k.name} applies", first
                    )
            for webhook in creating(obj):
                if not webhook.selects(obj, labels):
                    continue
                config_home = home.get(id(webhook.config))
                if config_home == key:
                    # Flux applies webhook configurations after everything else of their
                    # stage: they admit nothing of the first apply of their own Kustomization.
                    continue
                for backend in _backends(webhook, everything):
                    owner = home.get(id(backend))
                    if owner is None or backend is obj:
                        continue
                    owner_spec = mapping(kustomizations[owner].doc.get("spec"))
                    checked = any(
                        c.get("kind") == backend.kind and c.get("name") == backend.name
                        for c in mappings(owner_spec.get("healthChecks"))
                    )
                    if owner == key:
                        why = "is applied in the same stage of the same Kustomization"
                    elif owner not in before:
                        why = f"comes from Kustomization {owner[1]}, which it does not depend on"
                    elif owner_spec.get("wait") is not True and not checked:
                        why = (
                            f"comes from Kustomization {owner[1]}, which is Ready once applied "
                            "(no wait: true nor a health check of it)"
                        )
                    else:
                        continue
                    yield _finding(
                        rendered,
                        obj,
                        f"Kustomization {k.name} applies {obj.kind} {obj.name}, which webhook "
                        f"{webhook.name} (failurePolicy Fail) must admit, and the webhook's "
                        f"backend {backend.kind} {backend.name} {why}: the apply fails while it "
                        "starts",
                        "kind",
                        "depend on the backend's Kustomization and give that one wait: true",
                    )


def _flux_unready(kustomizations, key, before, owner, need: Need, needed: str) -> str | None:
    """Why the needed object, from Kustomization `owner`, may not be ready when Kustomization
    `key` applies what needs it (None: it is). Without a healthCheckExprs entry for its kind Flux
    reads a custom resource without conditions as current at once (kstatus), so `wait: true`
    alone does not wait for its state."""
    if owner == key:
        return "from the same Kustomization, which applies both without waiting between them"
    if owner not in before:
        return f"from Kustomization {owner[1]}, which it does not depend on"
    spec = mapping(kustomizations[owner].doc.get("spec"))
    checked = spec.get("wait") is True or any(
        c.get("kind") == need.needed[1] and c.get("name") == needed
        for c in mappings(spec.get("healthChecks"))
    )
    group, kind = need.needed
    expressed = any(
        c.get("kind") == kind and str(c.get("apiVersion", "")).split("/")[0] == group
        for c in mappings(spec.get("healthCheckExprs"))
    )
    if not checked or not expressed:
        return (
            f"from Kustomization {owner[1]}, which is Ready without waiting for its "
            f"{need.ready} (wait: true or a health check, and a healthCheckExprs entry for "
            f"{kind})"
        )
    return None


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    yield from _argo_findings(rendered, cluster)
    yield from _flux_findings(rendered, cluster)
