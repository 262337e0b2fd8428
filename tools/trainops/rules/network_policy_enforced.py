"""Every NetworkPolicy is enforced: the environment's cluster profile names what enforces it.

What it catches: a NetworkPolicy in an environment whose cluster profile (trainops.yaml
`environments` and `profiles`) declares no `networkPolicy` engine, or declares
`enforcedBy: none`. The API server stores a NetworkPolicy whatever the cluster's network plugin;
only a plugin that implements NetworkPolicy enforces it, and "creating a NetworkPolicy resource
without a controller that implements it will have no effect"
(https://kubernetes.io/docs/concepts/services-networking/network-policies/, Prerequisites).
Which plugin does is a property of the cluster, not of the manifests:
- kind: kindnetd enforces NetworkPolicy from kind v0.24.0 (kind images/kindnetd/cmd/kindnetd/
  main.go at v0.24.0 and v0.27.0 starts kube-network-policies' controller, fail-open: when it
  cannot start, as on kernels without nfqueue, kindnetd logs it and carries on without policies);
- GKE Standard: only with GKE Dataplane V2 or with network policy enforcement (Calico) enabled
  on the cluster (https://cloud.google.com/kubernetes-engine/docs/how-to/network-policy);
- EKS: the Amazon VPC CNI enforces none until its add-on is configured with
  `enableNetworkPolicy: "true"` (VPC CNI 1.14 or later;
  https://docs.aws.amazon.com/eks/latest/userguide/cni-network-policy.html);
- AKS: none unless the cluster is created with a network policy engine (Azure NPM, Cilium or
  Calico; https://learn.microsoft.com/azure/aks/use-network-policies).

Why it matters: the NetworkPolicies are the training pods' only network isolation. A reachability
proof (network-reachability) says what they allow; on a cluster that does not enforce them
everything is allowed, silently.

How to fix: state the engine in the profile, with the provider's documentation, and create the
cluster with it enabled: `profiles.<name>.networkPolicy: {enforcedBy: ..., setup: ...,
source: https://...}`.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge import profiles
from trainops.model.findings import Finding, Severity, on_object
from trainops.model.rendered import Cluster, Rendered

ID = "network-policy-enforced"
SEVERITY = Severity.ERROR
SUMMARY = "NetworkPolicies are shipped only to clusters whose profile names what enforces them"

_DOCS = "https://kubernetes.io/docs/concepts/services-networking/network-policies/"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    policies = [
        o for o in rendered.objects if o.kind == "NetworkPolicy" and o.group == "networking.k8s.io"
    ]
    if not policies:
        return
    profile = profiles.profile_of(cluster)
    if profile is None or (profile.network_policy and profile.network_policy.enforces):
        return
    engine = profile.network_policy
    said = (
        f"says nothing enforces NetworkPolicies (enforcedBy: {engine.enforced_by}, {engine.source})"
        if engine
        else "declares no NetworkPolicy engine (networkPolicy)"
    )
    where = profiles.environment_folder(cluster)
    for policy in policies:
        yield on_object(
            ID,
            SEVERITY,
            rendered.root,
            policy,
            f"NetworkPolicy {policy.namespace}/{policy.name} isolates nothing unless the cluster "
            f"enforces it, and profile {profile.name} (environment {where}) {said}: the API "
            f"server stores a NetworkPolicy whatever the network plugin, and without a plugin "
            f"that implements it the policy has no effect ({_DOCS}, Prerequisites)",
            None,
            f"state the engine in trainops.yaml profiles.{profile.name}.networkPolicy "
            "{enforcedBy, setup, source} and create the cluster with it enabled",
        )
