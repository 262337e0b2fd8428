"""Admission webhooks: which objects the API server sends to a webhook, and whose objects they are.

Matching follows k8s.io/apiserver v0.32.13 (kube-apiserver v1.32.13),
pkg/admission/plugin/webhook/predicates:
- rules/rules.go, Matcher.Matches: an operation, API group, version and resource (`*` for any)
  of one rule, and its scope (`*` by default, or `Namespaced` or `Cluster`). With the default
  matchPolicy Equivalent a rule for one version of a resource matches its other versions too
  (webhook/generic/webhook.go, ShouldCallHook), so versions are not compared here;
- namespace/matcher.go, MatchNamespaceSelector: an object of a cluster-scoped kind other than a
  Namespace always matches; a Namespace matches by its own labels; a namespaced object by its
  namespace's labels, `kubernetes.io/metadata.name` included (the API server sets it on every
  Namespace). An absent selector matches everything;
- object/matcher.go, MatchObjectSelector: the object's labels (an absent selector: everything).
failurePolicy defaults to Fail in admissionregistration.k8s.io/v1 (pkg/apis/admissionregistration/
v1/defaults.go, SetDefaults_ValidatingWebhook and SetDefaults_MutatingWebhook): while the
webhook's service cannot answer, every request it matches is refused.

Whose an object is: an object applied by another application than the webhook's own, whose sync
a broken webhook blocks. Two kinds are recognised from the rendered objects alone: a sync hook
(Argo CD's `argocd.argoproj.io/hook`, or Helm's `helm.sh/hook`, which Argo CD runs as one), and an
object of another operator's namespace (one that runs a Deployment, StatefulSet or DaemonSet and
is not the namespace of the webhook's service).
"""

from __future__ import annotations

from collections.abc import Iterable

from trainops.model.objects import K8sObject
from trainops.model.shape import indexed_mappings, mapping, mappings, sequence, strings

GROUP = "admissionregistration.k8s.io"
KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
HOOK_ANNOTATIONS = ("argocd.argoproj.io/hook", "helm.sh/hook")
WORKLOADS = ("Deployment", "StatefulSet", "DaemonSet")

# Cluster-scoped kinds of the API server (kubectl api-resources --namespaced=false, v1.32); a CRD
# says its own scope.
_CLUSTER_SCOPED = {
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("storage.k8s.io", "StorageClass"),
}


def webhooks(obj: K8sObject) -> list[tuple[int, dict]]:
    """(index, webhook) of a webhook configuration; [] for any other object."""
    if obj.group != GROUP or obj.kind not in KINDS:
        return []
    return indexed_mappings(obj.doc.get("webhooks"))


def registered(objects: Iterable[K8sObject]) -> set[tuple[str, str]]:
    """(API group, resource) of every rule of the webhook configurations among `objects` that
    names the objects themselves, not only a subresource of theirs: the resources some webhook
    is called for, `*` as written."""
    found = set()
    for obj in objects:
        for _, hook in webhooks(obj):
            for rule in mappings(hook.get("rules")):
                for group in strings(rule.get("apiGroups")):
                    for entry in strings(rule.get("resources")):
                        resource = _object_resource(entry)
                        if resource is not None:
                            found.add((group, resource))
    return found


def is_registered(registered: set[tuple[str, str]], group: str, resource: str) -> bool:
    """Whether a rule of `registered` names the resource, `*` included (rules/rules.go)."""
    return bool({(group, resource), (group, "*"), ("*", resource), ("*", "*")} & registered)


def _object_resource(entry: str) -> str | None:
    """The resource (or `*`) whose objects themselves a rule's `resources` entry calls the
    webhook for, or None for a subresource alone: k8s.io/apiserver v0.32.13 rules/rules.go,
    Matcher.resource matches `x` or `*` with no subresource or `/*` (`jobs/*`, `*/*`), and
    `jobs/status` the status alone."""
    name, _, sub = entry.partition("/")
    return name if sub in ("", "*") else None


def _names_object(entries: Iterable[str], resource: str) -> bool:
    return any(_object_resource(entry) in (resource, "*") for entry in entries)


def fails_closed(webhook: dict) -> bool:
    return webhook.get("failurePolicy", "Fail") == "Fail"


def service_namespace(webhook: dict) -> str | None:
    service = mapping(mapping(webhook.get("clientConfig")).get("service"))
    namespace = service.get("namespace")
    return namespace if isinstance(namespace, str) else None


def service_name(webhook: dict) -> str:
    service = mapping(mapping(webhook.get("clientConfig")).get("service"))
    if service:
        return f"Service {service.get('namespace')}/{service.get('name')}"
    return f"URL {mapping(webhook.get('clientConfig')).get('url')}"


def selects(selector: object, labels: dict) -> bool:
    """A metav1.LabelSelector; an absent one selects everything, as a webhook's does."""
    if selector is None:
        return True
    if not isinstance(selector, dict):
        return False
    for key, value in mapping(selector.get("matchLabels")).items():
        if labels.get(key) != value:
            return False
    for expression in mappings(selector.get("matchExpressions")):
        key, operator = expression.get("key"), expression.get("operator")
        values = sequence(expression.get("values"))
        present = key in labels
        if (
            (operator == "In" and (not present or labels[key] not in values))
            or (operator == "NotIn" and present and labels[key] in values)
            or (operator == "Exists" and not present)
            or (operator == "DoesNotExist" and present)
        ):
            return False
    return True


class Resources:
    """Each kind's resource name and scope: CRDs of the environment, else the built-in kinds."""

    def __init__(self, objects: Iterable[K8sObject]):
        self.crds: dict[tuple[str, str], tuple[str, bool]] = {}
        for obj in objects:
            if obj.kind != "CustomResourceDefinition":
                continue
            spec = mapping(obj.doc.get("spec"))
            names = mapping(spec.get("names"))
            kind, plural, group = names.get("kind"), names.get("plural"), spec.get("group")
            if isinstance(kind, str) and isinstance(plural, str) and isinstance(group, str):
                self.crds[(group, kind)] = (plural, spec.get("scope") == "Cluster")

    def of(self, obj: K8sObject) -> tuple[str, bool]:
        """(resource, cluster-scoped) of `obj`'s kind."""
        if (obj.group, obj.kind) in self.crds:
            return self.crds[(obj.group, obj.kind)]
        kind = obj.kind.lower()
        plural = (
            kind[:-1] + "ies"
            if kind.endswith("y") and kind[-2:-1] not in "aeiou"
            else kind + "es"
            if kind.endswith(("s", "x", "ch", "sh"))
            else kind + "s"
        )
        return plural, (obj.group, obj.kind) in _CLUSTER_SCOPED


def _rule_matches(rule: dict, group: str, resource: str, cluster_scoped: bool) -> bool:
    operations = strings(rule.get("operations"))
    if not ({"CREATE", "*"} & set(operations)):
        return False  # applying an object creates it first; updates follow from it
    if not ({group, "*"} & set(strings(rule.get("apiGroups")))):
        return False
    if not _names_object(strings(rule.get("resources")), resource):
        return False
    scope = rule.get("scope", "*")
    return scope == "*" or (scope == "Cluster") == cluster_scoped


def reaches(
    webhook: dict,
    obj: K8sObject,
    resource: tuple[str, bool],
    namespace_labels: dict[str, str] | None,
) -> bool:
    """Whether the API server calls `webhook` when `obj` is created."""
    name, cluster_scoped = resource
    if not any(
        _rule_matches(r, obj.group, name, cluster_scoped) for r in mappings(webhook.get("rules"))
    ):
        return False
    labels = mapping(mapping(obj.doc.get("metadata")).get("labels"))
    if not selects(webhook.get("objectSelector"), labels):
        return False
    if obj.kind == "Namespace" and obj.group == "":
        return selects(
            webhook.get("namespaceSelector"),
            {**labels, "kubernetes.io/metadata.name": obj.name},
        )
    if cluster_scoped or not obj.namespace:
        return True
    return selects(
        webhook.get("namespaceSelector"),
        {**(namespace_labels or {}), "kubernetes.io/metadata.name": obj.namespace},
    )


def hook_of(obj: K8sObject) -> str | None:
    """`Argo CD PreSync hook` or `Helm pre-install,pre-upgrade hook` for a sync hook; else None."""
    annotations = mapping(mapping(obj.doc.get("metadata")).get("annotations"))
    if isinstance(annotations.get(HOOK_ANNOTATIONS[0]), str):
        return f"Argo CD {annotations[HOOK_ANNOTATIONS[0]]} hook"
    if isinstance(annotations.get(HOOK_ANNOTATIONS[1]), str):
        return f"Helm {annotations[HOOK_ANNOTATIONS[1]]} hook, which Argo CD runs as a sync hook"
    return None


def operator_namespaces(objects: Iterable[K8sObject]) -> set[str]:
    """Namespaces that run a long-lived workload (an operator, a controller)."""
    return {
        obj.namespace
        for obj in objects
        if obj.group == "apps" and obj.kind in WORKLOADS and obj.namespace
    }
