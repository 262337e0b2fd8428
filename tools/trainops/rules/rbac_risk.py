"""No Role or ClusterRole gives its subjects a privilege escalation path without a stated reason.

What it catches: a grant, in a Role or ClusterRole that a binding of the environment names, of
one of the privilege escalation risks of Kubernetes' "RBAC Good Practices" page
(https://kubernetes.io/docs/concepts/security/rbac-good-practices/): reading Secrets (get, list
or watch) in every namespace; exec or attach into pods (pods/exec, pods/attach); the escalate,
bind or impersonate verbs; the proxy subresource of Nodes; token requests (serviceaccounts/token
create); approving certificate requests (signers approve); a wildcard in apiGroups, resources or
verbs. Each finding names the grant, the role and whom its bindings give it to. Reading Secrets
in one namespace (an operator's own webhook certificate) is not reported; nor is a role no
binding names. Also a grant an operator's code needs for one feature only, given to its service
account where nothing of the environment uses that feature: Secrets for Volcano's controllers
(only the Volcano Job `ssh` plugin, which `mpi` brings, calls the Secrets API) where no Volcano
Job uses `ssh` or `mpi`.

Why it matters: an operator's service account token sits in its pod; whoever takes over that pod
(a flaw in the operator, a poisoned image) holds every grant of its roles. With Secrets read in
every namespace that is every Secret of the cluster, Git credentials included; with pods/exec
any pod and what it mounts; with escalate, bind or impersonate, cluster-admin. Upstream
manifests often grant more than the pinned code uses (the Training Operator v1.8.1 keeps its
MPIJob v1 controller's grants when that controller is off).

How to fix: trim the grant with a patch in the operator's folder under `operators/`, citing the
pinned code's call sites (a JSON patch that `test`s the rule before removing it fails the render
when a new pin moves it); scope it to one namespace with a Role where the operator's code reads
that kind there only. A grant the code needs keeps an ignore on the role,
`trainops.dev/ignore: "rbac-risk: <each grant and the call site that needs it>"`.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge import rbac
from trainops.model.findings import Finding, Severity, on_object
from trainops.model.rendered import Cluster, Rendered

ID = "rbac-risk"
SEVERITY = Severity.ERROR
SUMMARY = "no role grants a privilege escalation path (Secrets read, exec, escalate, wildcards...) without an argued ignore"

HINT = (
    "remove the grant if the pinned code does not use it (cite the call sites), or scope it to "
    'a namespace; else argue it: trainops.dev/ignore: "rbac-risk: <the call site that needs it>"'
)


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    bindings = cluster.memo("rbac bindings", lambda c: rbac.bindings_of(c.objects()))
    objects = cluster.memo("rbac objects", lambda c: list(c.objects()))
    for role in rendered.objects:
        if role.group != rbac.GROUP or role.kind not in ("ClusterRole", "Role"):
            continue
        namespace = role.namespace if role.kind == "Role" else None
        bound = bindings.get((role.kind, namespace, role.name), [])
        if not bound:
            continue
        cluster_wide = [b for b in bound if b.namespace is None]
        scoped = [b for b in bound if b.namespace is not None]
        reported: set[tuple[int, str]] = set()
        for wide, group in ((True, cluster_wide), (False, scoped)):
            if not group:
                continue
            for grant in rbac.risky_grants(role, wide):
                if (grant.index, grant.grant) in reported:
                    continue
                reported.add((grant.index, grant.grant))
                yield on_object(
                    ID,
                    SEVERITY,
                    rendered.root,
                    role,
                    f"{role.kind} {role.name} grants {grant.grant} "
                    f"{_where(group)} to {_whom(group)}: {grant.risk} (Kubernetes RBAC Good "
                    "Practices, privilege escalation risks)",
                    f"rules[{grant.index}]",
                    HINT,
                )

        for unused in rbac.unused_feature_grants(role, bound, objects):
            if any(index == unused.index for index, _ in reported):
                continue  # reported above as a risk already
            yield on_object(
                ID,
                SEVERITY,
                rendered.root,
                role,
                f"{role.kind} {role.name} grants {unused.grant} {_where([unused.binding])} to "
                f"{_whom([unused.binding])} for {unused.feature.feature}, which nothing there "
                f"uses ({unused.feature.upstream}): an escalation path and nothing else",
                f"rules[{unused.index}]",
                "remove the grant (and its binding) until a workload uses that feature",
            )


def _where(group: list[rbac.Binding]) -> str:
    if group[0].namespace is None:
        return "cluster-wide"
    return "in namespace " + ", ".join(sorted({b.namespace for b in group if b.namespace}))


def _whom(group: list[rbac.Binding]) -> str:
    parts = []
    for binding in group:
        subjects = ", ".join(binding.subjects) or "no subject"
        parts.append(f"{subjects} ({binding.obj.kind} {binding.obj.name})")
    return "; ".join(parts)
