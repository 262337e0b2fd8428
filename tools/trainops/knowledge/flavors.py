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
    """The pools a flavor's nodeLabels select (with tolerated=True: whose taints the pods it
    admits tolerate: its tolerations, which Kueue adds to them, and its nodeTaints, which Kueue
    admits only pods tolerating)."""
    wanted = {k: str(v) for k, v in mapping(flavor.get("nodeLabels")).items()}
    pools = [p for p in profile.pools if all(p.labels.get(k) == v for k, v in wanted.items())]
    if tolerated:
        declared = [
            {
                "key": t.get("key"),
                "operator": "Equal",
                "value": t.get("value", ""),
                "effect": t.get("effect"),
            }
            for t in mappings(flavor.get("nodeTaints"))
        ]
        fake = {"tolerations": sequence(flavor.get("tolerations")) + declared}
        pools = [p for p in pools if not profiles.untolerated(fake, p)]
    return pools


def is_spot(flavor: dict, profile: Profile) -> bool:
    pools = pools_of(flavor, profile, tolerated=False)
    return bool(pools) and all(p.spot for p in pools)


def compatible(spec: dict, flavor: dict) -> bool:
    """Whether Kueue may assign the flavor: its nodeLabels agree with the pod's nodeSelector and
    required node affinity (each judged on the keys the flavor labels), and the pod's tolerations,
    with the flavor's own, tolerate its NoSchedule and NoExecute nodeTaints (Kueue v0.18.6
    pkg/scheduler/flavorassigner/flavorassigner.go, checkFlavorForPodSets)."""
    labels = {k: str(v) for k, v in mapping(flavor.get("nodeLabels")).items()}
    selector = mapping(spec.get("nodeSelector"))
    if any(str(selector[k]) != v for k, v in labels.items() if k in selector):
        return False
    terms = profiles.required_terms(spec)
    if terms and not any(profiles.term_holds(term, labels, keys=labels) for term in terms):
        return False
    tolerations = sequence(spec.get("tolerations")) + sequence(flavor.get("tolerations"))
    return all(
        profiles.tolerates(tolerations, taint)
        for taint in mappings(flavor.get("nodeTaints"))
        if taint.get("effect") in ("NoSchedule", "NoExecute")
    )


# What any pod may request; a pool offering more (GPUs, MIG instances) is special hardware.
_COMMON_RESOURCES = {"cpu", "memory", "ephemeral-storage", "pods", "hugepages-2Mi", "hugepages-1Gi"}


def unguarded_taints(flavor: dict, profile: Profile) -> list[tuple[NodePool, dict, list[str]]]:
    """(pool, taint, its special resources) for each taint of the pools the flavor selects, when
    they are all pools of special hardware tainted against other pods, that Kueue lets a pod
    without tolerations past: the flavor declares no
    nodeTaints, or tolerates its own. Kueue tests only the flavor's nodeTaints against the pod's
    tolerations and the flavor's (checkFlavorForPodSets), and only the requested resources
    against quota (fitsResourceQuota, Kueue v0.18.6 flavorassigner.go), so a job requesting none
    of the hardware is admitted into the flavor when those before it are full (whenCanPreempt and
    whenCanBorrow default to TryNextFlavor, apis/kueue/v1beta2/clusterqueue_types.go). Tainting
    such nodes keeps them for pods that ask for the hardware (Kubernetes, "Taints and
    Tolerations", example use cases: nodes with special hardware)."""
    if not compatible({}, flavor):
        return []  # its nodeTaints hold off pods that do not tolerate them
    found = []
    for pool in pools_of(flavor, profile, tolerated=False):
        special = sorted(r for r, v in pool.allocatable.items() if v and r not in _COMMON_RESOURCES)
        taints = profiles.untolerated({}, pool) if special else []
        if not taints:
            return []  # the flavor also selects nodes for any pod (a flavor without nodeLabels)
        found += [(pool, taint, special) for taint in taints]
    return found


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
