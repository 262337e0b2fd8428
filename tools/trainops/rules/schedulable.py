"""Every pod fits a node pool of the environment's cluster, as Kueue would place it.

What it catches, against the environment's profile in trainops.yaml (`environments` names it;
an environment without a profile is not checked):
- a ResourceFlavor whose nodeLabels no node pool carries (a GPU flavor selecting
  `nvidia.com/gpu.present`, which only GPU Feature Discovery sets, on a cluster without it; a
  spot flavor selecting an invented label instead of the cloud's spot label);
- a pod template that fits no pool: for a Kueue-managed job, once for each flavor Kueue may
  assign it, with what Kueue adds on admission — the flavor's nodeLabels merged into the
  nodeSelector and its tolerations appended (Kueue v0.18.6, site/content/en/docs/concepts/
  resource_flavor.md, "ResourceFlavor labels" and "ResourceFlavor tolerations"). As Kueue does,
  a flavor is skipped when the pod's nodeSelector or required affinity rules out its labels,
  when the pod does not tolerate its nodeTaints, or when it has no quota for what the pod
  requests (GPU pods move past on-demand and spot flavors holding no GPUs). A pool fits
  when the nodeSelector and required node affinity match its labels, every NoSchedule and
  NoExecute taint is tolerated, and one node's allocatable holds the pod's requests — extended
  resources included, so a pod asking for a MIG instance (`nvidia.com/mig-1g.10gb`) or a
  time-sliced GPU (`nvidia.com/gpu.shared`) fits only a pool whose allocatable lists it (a
  time-sliced pool renamed by `renameByDefault` offers no `nvidia.com/gpu`). The finding says,
  pool by pool, why not;
- a pod charged to an on-demand flavor that can still run on a spot pool (it tolerates the spot
  taint, or the spot pool has none): its quota says on-demand, its node is reclaimable;
- a ClusterQueue nominal quota above what the pools of that flavor (its nodeLabels matched, its
  tolerations applied) can hold at their maximum size: admitted pods would wait for nodes.
- a flavor of a ClusterQueue's resource group with other flavors, selecting pools of special
  hardware (an allocatable resource beyond CPU and memory, such as GPUs) tainted to keep off
  pods that do not ask for it, without that taint among its nodeTaints (or tolerating it
  itself): Kueue tests only a flavor's nodeTaints against the pod's tolerations
  (flavorassigner.go, checkFlavorForPodSets, Kueue v0.18.6) and only the requested resources
  against its quota, so a CPU-only job is admitted into it once the flavors before it are full,
  and its pods then take the GPU nodes (the flavor tolerating their taint) or wait for them.

Why it matters: Kueue admits the job and holds its quota, and then its pods stay Pending
because no node can take them — or a job meant for on-demand capacity is lost to a spot reclaim.

How to fix: select the cloud's real node labels in the ResourceFlavors (components/cloud-*),
let the flavor, not the pod template, carry the spot toleration, size requests to the pools'
allocatable, and keep nominal quota within the pools' maximum size. A flavor of special
hardware declares its nodes' taint as nodeTaints (no tolerations) and the pods that use the
hardware tolerate it in their templates.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from trainops.knowledge import flavors, kueue, profiles
from trainops.knowledge.pod_templates import templates_of
from trainops.knowledge.profiles import Profile
from trainops.model import quantity
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import indexed_mappings, mapping, mappings, sequence

ID = "schedulable"
SEVERITY = Severity.ERROR
SUMMARY = (
    "pods fit a node pool of the cluster's profile, with Kueue's flavor labels and tolerations"
)


def _finding(rendered: Rendered, obj: K8sObject, message: str, path: str, hint: str) -> Finding:
    return Finding(ID, SEVERITY, message, rendered.root, obj.file, obj.line, obj.ref, path, hint)


def _assignments(
    obj: K8sObject, spec: dict, requests: dict[str, float], cluster: Cluster
) -> list[list[str]] | None:
    """Every combination of flavors (one per resource group the pod uses) Kueue may assign, or
    None when Kueue does not place this pod (not a managed job, or its queue is not found)."""
    if kueue.framework(obj) is None:
        return None
    defined_queues = cluster.memo("kueue", kueue.Kueue)
    queue_name = mapping(mapping(obj.doc.get("metadata")).get("labels")).get(kueue.QUEUE_LABEL)
    local = defined_queues.local_queues.get((obj.namespace, queue_name))
    queue = defined_queues.cluster_queues.get(
        (mapping(local.doc.get("spec")) if local else {}).get("clusterQueue")
    )
    if queue is None:
        return None
    defined = flavors.defined(cluster)
    choices = []
    for group in mappings(mapping(queue.doc.get("spec")).get("resourceGroups")):
        wanted = {
            n: v for n, v in requests.items() if v and n in sequence(group.get("coveredResources"))
        }
        if not wanted:
            continue
        names = []
        for entry in mappings(group.get("flavors")):
            name = entry.get("name")
            if name not in defined or not flavors.compatible(spec, defined[name]):
                continue
            # Kueue moves on to the next flavor when this one cannot hold the pod at all.
            try:
                holds = all(
                    sum(defined_queues.available(queue, name, r)) >= v for r, v in wanted.items()
                )
            except ValueError:  # a quota that is no quantity: kueue-admission says so
                return None
            if holds:
                names.append(name)
        if names:
            choices.append(names)
    return [list(combo) for combo in itertools.product(*choices)]


def _pod_findings(
    rendered: Rendered, obj: K8sObject, profile: Profile, cluster: Cluster
) -> Iterator[Finding]:
    defined = flavors.defined(cluster)
    for template in templates_of(obj):
        try:
            requests = kueue.pod_requests(template.spec)
        except ValueError as error:
            yield _finding(
                rendered,
                obj,
                f"cannot read a quantity: {error}",
                template.path,
                "write requests as Kubernetes quantities (500m, 2Gi, 4)",
            )
            continue
        combos = _assignments(obj, template.spec, requests, cluster)
        for combo in combos if combos is not None else [[]]:
            assigned = [defined[name] for name in combo]
            spec = flavors.admitted_spec(template.spec, assigned)
            reasons = {pool.name: profiles.misfit(spec, requests, pool) for pool in profile.pools}
            fitting = [pool for pool in profile.pools if reasons[pool.name] is None]
            admitted = f"admitted to flavor {', '.join(combo)}, " if combo else ""
            if not fitting:
                why = "; ".join(f"pool {name}: {reason}" for name, reason in reasons.items())
                yield _finding(
                    rendered,
                    obj,
                    f"{admitted}the pod fits no node pool of the {profile.name} cluster ({why}): "
                    "it stays Pending",
                    template.path,
                    "select the cloud's real node labels (in the ResourceFlavor for Kueue jobs), "
                    "tolerate the pool's taints, or request what one node offers",
                )
            elif combo and not any(flavors.is_spot(f, profile) for f in assigned):
                spot = [pool.name for pool in fitting if pool.spot]
                if spot:
                    yield _finding(
                        rendered,
                        obj,
                        f"{admitted}charged to on-demand quota, yet the pod can run on spot pool "
                        f"{', '.join(spot)}: a reclaim stops a job its quota says is on-demand",
                        template.path,
                        "drop the spot toleration and affinity from the pod template: the spot "
                        "flavor adds them to the pods it admits",
                    )


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    profile = profiles.profile_of(cluster)
    if profile is None:
        return
    pools = ", ".join(p.describe() for p in profile.pools)
    for obj in rendered.objects:
        spec = mapping(obj.doc.get("spec"))
        if obj.group == "kueue.x-k8s.io" and obj.kind == "ResourceFlavor":
            if not flavors.pools_of(spec, profile, tolerated=False):
                labels = ", ".join(f"{k}={v}" for k, v in mapping(spec.get("nodeLabels")).items())
                yield _finding(
                    rendered,
                    obj,
                    f"nodeLabels {labels} match no node pool of the {profile.name} cluster "
                    f"(pools: {pools}): pods admitted to this flavor never schedule",
                    "spec.nodeLabels",
                    "use labels the pools carry (trainops.yaml profiles lists them)",
                )
        elif obj.group == "kueue.x-k8s.io" and obj.kind == "ClusterQueue":
            yield from _quota_findings(rendered, obj, profile, cluster)
        elif obj.kind != "DaemonSet":
            yield from _pod_findings(rendered, obj, profile, cluster)


def _quota_findings(
    rendered: Rendered, obj: K8sObject, profile: Profile, cluster: Cluster
) -> Iterator[Finding]:
    defined = flavors.defined(cluster)
    groups = mapping(obj.doc.get("spec")).get("resourceGroups")
    for g, group in indexed_mappings(groups):
        names = [str(e.get("name")) for e in mappings(group.get("flavors"))]
        for f, entry in indexed_mappings(group.get("flavors")):
            flavor = defined.get(str(entry.get("name")))
            if flavor is None:
                continue
            others = [n for n in names if n != entry.get("name")]
            for pool, taint, special in flavors.unguarded_taints(flavor, profile) if others else []:
                yield _finding(
                    rendered,
                    obj,
                    f"flavor {entry.get('name')} selects pool {pool.name}, tainted "
                    f"{profiles.show_taint(taint)} for pods requesting {', '.join(special)}, but "
                    "does not declare the taint in its nodeTaints (or tolerates it itself): Kueue "
                    "admits into it a job that requests none of it and does not tolerate the "
                    f"taint once {', '.join(others)} cannot hold it, and its pods take or wait for "
                    "those nodes (Kueue v0.18.6 flavorassigner.go, checkFlavorForPodSets tests only "
                    "the flavor's nodeTaints, fitsResourceQuota only the requested resources)",
                    f"spec.resourceGroups[{g}].flavors[{f}]",
                    "declare the pools' taint in the flavor's nodeTaints, drop it from its "
                    "tolerations, and tolerate it in the templates of the pods that use the hardware",
                )
            pools = flavors.pools_of(flavor, profile, tolerated=True)
            for r, resource in indexed_mappings(entry.get("resources")):
                name = resource.get("name")
                if not isinstance(name, str):
                    continue
                try:
                    nominal = quantity.parse(resource.get("nominalQuota", 0))
                except ValueError:
                    continue  # kueue-admission reports unreadable quantities
                capacity = sum(p.allocatable.get(name, 0.0) * p.max_nodes for p in pools)
                if nominal > capacity:
                    held = (
                        " + ".join(
                            f"{p.name} {p.max_nodes} × {quantity.show(name, p.allocatable.get(name, 0.0))}"
                            for p in pools
                        )
                        or "no pool"
                    )
                    yield _finding(
                        rendered,
                        obj,
                        f"flavor {entry.get('name')} has {name} nominal quota "
                        f"{quantity.show(name, nominal)}, more than its pools can hold "
                        f"({quantity.show(name, capacity)}: {held}): admitted pods wait for nodes",
                        f"spec.resourceGroups[{g}].flavors[{f}].resources[{r}].nominalQuota",
                        "lower the quota to the pools' capacity, or raise the pools' maxNodes in "
                        "the profile (and the cluster)",
                    )
