"""Kueue ResourceFlavors against a cluster profile: which node pools a flavor selects, which
flavors Kueue may assign a pod, and the pod spec as Kueue starts it with a flavor assigned —
its nodeLabels merged into the nodeSelector and its tolerations appended (Kueue v0.18.6,
site/content/en/docs/concepts/resource_flavor.md, "ResourceFlavor labels" and "ResourceFlavor
tolerations"). The schedulable and capacity rules place pods with these.
"""

from __future__ import annotations

from trainops.knowledge import profiles
from trainops.knowledge.profiles import NodePool, Profile
from trainops.model.rendered import Cluster
from trainops.model.shape import mapping, mappings, sequence


def defined(cluster: Cluster) -> dict[str, dict]:
    """The spec of every ResourceFlavor the environment defines, by name."""
    return cluster.memo(
        "flavors",
        lambda c: {
            o.name: mapping(o.doc.get("spec"))
            for o in c.objects()
            if o.group == "kueue.x-k8s.io" and o.kind == "ResourceFlavor"
        },
    )


def pools_of(flavor: dict, profile: Profile, tolerated: bool) -> list[NodePool]:
    """The pools a flavor's nodeLabels select (with tolerated=True: whose taints it tolerates)."""
    wanted = {k: str(v) for k, v in mapping(flavor.get("nodeLabels")).items()}
    pools = [p for p in profile.pools if all(p.labels.get(k) == v for k, v in wanted.items())]
    if tolerated:
        fake = {"tolerations": sequence(flavor.get("tolerations"))}
        pools = [p for p in pools if not profiles.untolerated(fake, p)]
    return pools


def is_spot(flavor: dict, profile: Profile) -> bool:
    pools = pools_of(flavor, profile, tolerated=False)
    return bool(pools) and all(p.spot for p in pools)


def compatible(spec: dict, flavor: dict) -> bool:
    """Whether Kueue may assign the flavor: its nodeLabels agree with the pod's nodeSelector and
    required node affinity (each judged on the keys the flavor labels), and the pod tolerates its
    nodeTaints."""
    labels = {k: str(v) for k, v in mapping(flavor.get("nodeLabels")).items()}
    selector = mapping(spec.get("nodeSelector"))
    if any(str(selector[k]) != v for k, v in labels.items() if k in selector):
        return False
    terms = profiles.required_terms(spec)
    if terms and not any(profiles.term_holds(term, labels, keys=labels) for term in terms):
        return False
    tolerations = sequence(spec.get("tolerations"))
    return all(
        profiles.tolerates(tolerations, taint)
        for taint in mappings(flavor.get("nodeTaints"))
        if taint.get("effect") in ("NoSchedule", "NoExecute")
    )


def admitted_spec(spec: dict, flavors: list[dict]) -> dict:
    """The pod spec as Kueue starts it with these flavors assigned."""
    spec = dict(spec)
    selector = dict(mapping(spec.get("nodeSelector")))
    tolerations = list(sequence(spec.get("tolerations")))
    for flavor in flavors:
        selector.update({k: str(v) for k, v in mapping(flavor.get("nodeLabels")).items()})
        tolerations += sequence(flavor.get("tolerations"))
    spec["nodeSelector"], spec["tolerations"] = selector, tolerations
    return spec
