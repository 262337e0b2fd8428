"""RBAC: who a Role or ClusterRole is bound to, and which of its grants open a privilege
escalation path.

The classes of risk are those of Kubernetes' "Role Based Access Control Good Practices"
(https://kubernetes.io/docs/concepts/security/rbac-good-practices/, "Kubernetes RBAC -
privilege escalation risks" and "Least privilege"): reading Secrets (get, and list or watch, which
return their contents too), the escalate, bind and impersonate verbs, the proxy subresource of
Nodes (the kubelet's API, exec into any pod of the node included), token requests
(serviceaccounts/token create) and approving certificate requests (approve on signers), and
wildcards, which grant every verb, resource or group, those added later included. Exec and attach
(pods/exec, pods/attach) run commands in, or read the streams of, any pod in reach, and so read
whatever it mounts. kube-apiserver v1.32.13 authorizes them by the request's HTTP method: `create`
for SPDY's POST, `get` for a WebSocket upgrade's GET (kubectl's default since v1.31); only v1.35
requires `create` of both (the AuthorizePodWebsocketUpgradeCreatePermission feature gate), so
either verb is reported.

A grant is judged where its binding puts it: a ClusterRole bound by a ClusterRoleBinding holds
in every namespace; a Role, or a ClusterRole bound by a RoleBinding, in that binding's namespace
only, where reading Secrets (an operator's own certificate) is no escalation and is not reported.
A role no binding in the environment names grants nothing and is not judged.

Some grants serve one feature of an operator's code only (FEATURE_GRANTS): given to that
operator's service account where nothing of the environment uses the feature, they are an
escalation path and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from trainops.model.objects import K8sObject
from trainops.model.shape import indexed_mappings, mapping, mappings, strings

GROUP = "rbac.authorization.k8s.io"

# Why each class is a risk, in the good-practices page's words as a summary.
SECRETS = "its holder reads every Secret, service account tokens and Git credentials included"
EXEC = "its holder runs commands in any pod in reach and reads whatever that pod mounts"
ESCALATION = "its holder grants itself, or binds, permissions it does not hold"
IMPERSONATE = "its holder acts as any user, group or service account it may impersonate"
NODE_PROXY = "its holder reaches the kubelet's API, which runs commands in every pod of the node"
TOKEN = "its holder mints tokens for other service accounts"
APPROVE = "its holder approves certificate requests, issuing client certificates for any identity"
WILDCARD = "a wildcard grants every {what}, those the cluster gains later included"


@dataclass(frozen=True)
class Grant:
    """One risky grant of a rule: what it grants, and the class of risk."""

    index: int  # of the rule in the role's `rules`
    grant: str
    risk: str


@dataclass(frozen=True)
class Binding:
    obj: K8sObject
    subjects: tuple[str, ...]
    namespace: str | None  # None: every namespace (a ClusterRoleBinding)


@dataclass(frozen=True)
class FeatureGrant:
    """A grant an operator's service account needs for one feature of its code only."""

    subject: str  # as a binding names it: "ServiceAccount <namespace>/<name>"
    api_group: str
    resource: str
    feature: str  # what uses it, for the message
    upstream: str  # where the pinned code says so
    uses: Callable[[K8sObject], bool]  # whether an object (of the grant's namespace) uses it


def _volcano_job_with_ssh(obj: K8sObject) -> bool:
    plugins = mapping(mapping(obj.doc.get("spec")).get("plugins"))
    return (
        obj.group == "batch.volcano.sh"
        and obj.kind == "Job"
        and bool({"ssh", "mpi"} & set(plugins))
    )


FEATURE_GRANTS = (
    # Volcano v1.15.1: in pkg/controllers/job only the ssh plugin calls the Secrets API
    # (pkg/controllers/job/plugins/ssh/ssh.go, OnJobAdd and OnJobDelete: a Secret of SSH keys named
    # after the Job, in its namespace); a Job gets the plugin from its own `plugins` or, for
    # `mpi`, from the admission webhook (pkg/webhooks/admission/jobs/mutate/mutate_job.go,
    # patchDefaultPlugins, which adds `svc` for pytorch, tensorflow and mpi, `ssh` for mpi only).
    FeatureGrant(
        "ServiceAccount volcano-system/volcano-controllers",
        "",
        "secrets",
        "the Volcano Job ssh plugin (a Volcano Job with plugin ssh, or mpi, which brings it)",
        "Volcano v1.15.1 pkg/controllers/job/plugins/ssh/ssh.go, the controllers' only Job "
        "Secret calls; mutate_job.go patchDefaultPlugins adds ssh for mpi only",
        _volcano_job_with_ssh,
    ),
)


@dataclass(frozen=True)
class UnusedGrant:
    index: int  # of the rule in the role's `rules`
    grant: str
    binding: Binding
    feature: FeatureGrant


def unused_feature_grants(
    role: K8sObject, bound: list[Binding], objects: list[K8sObject]
) -> list[UnusedGrant]:
    """The FEATURE_GRANTS that `role`'s rules give, through `bound`, to the service account that
    needs them for a feature no object in the binding's reach (its namespace, or everywhere for a
    ClusterRoleBinding) uses."""
    found = []
    for binding in bound:
        reach = [
            o for o in objects if binding.namespace is None or o.namespace == binding.namespace
        ]
        for feature in FEATURE_GRANTS:
            if feature.subject not in binding.subjects or any(feature.uses(o) for o in reach):
                continue
            for index, rule in indexed_mappings(role.doc.get("rules")):
                groups, resources = strings(rule.get("apiGroups")), strings(rule.get("resources"))
                verbs = strings(rule.get("verbs"))
                if (
                    verbs
                    and _matches(groups, feature.api_group)
                    and _matches(resources, feature.resource)
                ):
                    grant = f"{feature.resource} {'/'.join(verbs)}"
                    found.append(UnusedGrant(index, grant, binding, feature))
    return found


def _matches(values: list[str], wanted: str) -> bool:
    return wanted in values or "*" in values


def risky_grants(role: K8sObject, cluster_wide: bool) -> list[Grant]:
    """The grants of `role`'s rules that open an escalation path, bound cluster-wide or not."""
    found: dict[tuple[int, str], Grant] = {}
    for index, rule in indexed_mappings(role.doc.get("rules")):
        for grant, risk in _rule_risks(rule, cluster_wide):
            found.setdefault((index, grant), Grant(index, grant, risk))
    return list(found.values())


def _rule_risks(rule: dict, cluster_wide: bool) -> list[tuple[str, str]]:
    groups, resources, verbs = (
        strings(rule.get("apiGroups")),
        strings(rule.get("resources")),
        strings(rule.get("verbs")),
    )
    if not resources:
        return []  # nonResourceURLs (such as /metrics): none of the classes above
    found = [
        (f"{field} '*'", WILDCARD.format(what=what))
        for field, values, what in (
            ("apiGroups", groups, "API group"),
            ("resources", resources, "resource"),
            ("verbs", verbs, "verb"),
        )
        if "*" in values
    ]
    core = _matches(groups, "")
    read = sorted(set(verbs) & {"get", "list", "watch", "*"})
    if cluster_wide and core and _matches(resources, "secrets") and read:
        found.append((f"Secrets {'/'.join(read)}", SECRETS))
    for subresource in ("pods/exec", "pods/attach"):
        connect = sorted(set(verbs) & {"create", "get", "*"})
        if core and _matches(resources, subresource) and connect:
            found.append((f"{subresource} {'/'.join(connect)}", EXEC))
    found += [(f"verb {verb}", ESCALATION) for verb in ("escalate", "bind") if verb in verbs]
    if "impersonate" in verbs:
        found.append(("verb impersonate", IMPERSONATE))
    if core and _matches(resources, "nodes/proxy") and verbs:
        found.append((f"nodes/proxy {'/'.join(verbs)}", NODE_PROXY))
    if core and _matches(resources, "serviceaccounts/token") and _matches(verbs, "create"):
        found.append(("serviceaccounts/token create", TOKEN))
    signers = _matches(groups, "certificates.k8s.io") and _matches(resources, "signers")
    if signers and "approve" in verbs:
        found.append(("signers approve", APPROVE))
    return found


def _subjects(binding: K8sObject) -> tuple[str, ...]:
    named = []
    for subject in mappings(binding.doc.get("subjects")):
        kind, name = subject.get("kind"), subject.get("name")
        namespace = subject.get("namespace") or (
            binding.namespace if kind == "ServiceAccount" else None
        )
        named.append(f"{kind} {namespace + '/' if namespace else ''}{name}")
    return tuple(named)


def bindings_of(objects: Iterable[K8sObject]) -> dict[tuple[str, str | None, str], list[Binding]]:
    """(role kind, role namespace or None, role name) -> the bindings that name it.

    A ClusterRoleBinding may name only a ClusterRole; a RoleBinding a Role of its own namespace,
    or a ClusterRole, whose grants then hold in that namespace (kube-apiserver v1.32.13,
    pkg/registry/rbac/validation/rule.go, VisitRulesFor)."""
    found: dict[tuple[str, str | None, str], list[Binding]] = {}
    for obj in objects:
        if obj.group != GROUP or obj.kind not in ("ClusterRoleBinding", "RoleBinding"):
            continue
        ref = mapping(obj.doc.get("roleRef"))
        kind, name = ref.get("kind"), ref.get("name")
        if not isinstance(kind, str) or not isinstance(name, str):
            continue
        cluster_wide = obj.kind == "ClusterRoleBinding"
        if cluster_wide and kind != "ClusterRole":
            continue
        key = (kind, None if kind == "ClusterRole" else obj.namespace, name)
        found.setdefault(key, []).append(
            Binding(obj, _subjects(obj), None if cluster_wide else obj.namespace)
        )
    return found
