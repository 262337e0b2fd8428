"""What one node offers pods: its capacity less what the provider reserves for the kubelet, the
container runtime and the OS (kube-reserved, system-reserved) and the kubelet's hard eviction
threshold, by each provider's published formula.

kubelet: allocatable = capacity - kube-reserved - system-reserved - hard eviction threshold
(https://kubernetes.io/docs/tasks/administer-cluster/reserve-compute-resources/).

- gke: CPU: 6% of the first core, 1% of the next, 0.5% of the next two, 0.25% of every core above
  four; memory: 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112,
  2% above 128 GiB; plus a 100 MiB eviction threshold
  (https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes, "Memory and CPU
  reservations").
- eks: the EKS AMI's nodeadm at v20260724 reserves CPU by the same ranges
  (nodeadm/internal/kubelet/config.go getCPUMillicoresToReserve: 600, 100, 50 and 25 per 10,000
  of the millicores in [0, 1000), [1000, 2000), [2000, 4000), [4000, ...)), 11 MiB per pod the
  node may run plus 255 MiB of memory (getMemoryMebibytesToReserve), and sets evictionHard
  memory.available 100Mi (config.go, defaultKubeletSubConfig). Its max pods are the ENI formula
  `ENIs x (IPv4 addresses per ENI - 1) + 2` (eni_max_pods.go calculateStandardMaxPods), from its
  instance-info.jsonl: m5.2xlarge 4 x 14 + 2 = 58, g5.12xlarge 15 x 49 + 2 = 737.
- aks: CPU by core count, 60m (1 core), 100m (2), 140m (4), 180m (8), 260m (16), 420m (32),
  740m (64), straight lines between them; memory from Kubernetes 1.29 the smaller of 20 MB per
  pod plus 50 MB and 25% of the node's memory, plus a 100 MiB eviction threshold
  (https://learn.microsoft.com/azure/aks/node-resource-reservations).
- kind: nothing. kind v0.27.0 (whose default node image is Kubernetes v1.32.2) writes a
  KubeletConfiguration with neither kubeReserved nor systemReserved and an evictionHard that
  names only disk signals (pkg/cluster/internal/kubeadm/config.go): the node offers pods what
  Docker gives the node container.

The profile in trainops.yaml states each pool's allocatable (rounded down); with the machine's
`capacity` (and `maxPods` where the formula counts pods) the formula checks it.
"""

from __future__ import annotations

from trainops.model import quantity

MI = 2.0**20
GI = 2.0**30

# (upper bound in cores, fraction of the cores in that range reserved) for GKE and the EKS AMI.
_CPU_RANGES = [(1.0, 0.06), (2.0, 0.01), (4.0, 0.005), (float("inf"), 0.0025)]
# (upper bound in GiB, fraction of the memory in that range reserved) for GKE.
_GKE_MEMORY_RANGES = [(4.0, 0.25), (8.0, 0.20), (16.0, 0.10), (128.0, 0.06), (float("inf"), 0.02)]
# AKS: (cores, millicores reserved).
_AKS_CPU = [(1, 60), (2, 100), (4, 140), (8, 180), (16, 260), (32, 420), (64, 740)]
EVICTION_MEMORY = 100 * MI


def _ranged(total: float, ranges: list[tuple[float, float]]) -> float:
    reserved, start = 0.0, 0.0
    for end, fraction in ranges:
        if total <= start:
            break
        reserved += (min(total, end) - start) * fraction
        start = end
    return reserved


def _aks_cpu(cores: float) -> float:
    points = _AKS_CPU
    if cores <= points[0][0]:
        return points[0][1] / 1000
    for (low, low_m), (high, high_m) in zip(points, points[1:]):
        if cores <= high:
            return (low_m + (high_m - low_m) * (cores - low) / (high - low)) / 1000
    (low, low_m), (high, high_m) = points[-2], points[-1]
    return (high_m + (high_m - low_m) * (cores - high) / (high - low)) / 1000


def reserved(cloud: str, capacity: dict[str, float], max_pods: int | None) -> dict[str, float]:
    """What the provider keeps from pods on a node of this capacity (cpu in cores, memory in
    bytes); ValueError when the formula needs the node's max pods and the profile gives none."""
    cpu, memory = capacity.get("cpu", 0.0), capacity.get("memory", 0.0)
    if cloud == "kind":
        return {"cpu": 0.0, "memory": 0.0}
    if cloud == "gke":
        return {
            "cpu": _ranged(cpu, _CPU_RANGES),
            "memory": _ranged(memory / GI, _GKE_MEMORY_RANGES) * GI + EVICTION_MEMORY,
        }
    if max_pods is None:
        raise ValueError(f"the {cloud} formula counts the pods a node may run: give maxPods")
    if cloud == "eks":
        return {
            "cpu": _ranged(cpu, _CPU_RANGES),
            "memory": (11 * max_pods + 255) * MI + EVICTION_MEMORY,
        }
    if cloud == "aks":
        per_pods = (20 * max_pods + 50) * 1e6
        kept = min(per_pods, 0.25 * memory) // MI * MI  # AKS reserves whole MiB
        return {"cpu": _aks_cpu(cpu), "memory": kept + EVICTION_MEMORY}
    raise ValueError(f"no reservation formula for {cloud!r}")


def allocatable(cloud: str, capacity: dict[str, float], max_pods: int | None) -> dict[str, float]:
    """capacity less the provider's reservations; other resources (GPUs) are not reserved."""
    kept = reserved(cloud, capacity, max_pods)
    return {name: amount - kept.get(name, 0.0) for name, amount in capacity.items()}


def overstated(
    cloud: str,
    capacity: dict[str, float],
    max_pods: int | None,
    declared: dict[str, float],
) -> list[str]:
    """Resources a profile declares more allocatable of than the formula leaves, said for people."""
    computed = allocatable(cloud, capacity, max_pods)
    return [
        f"{name} {quantity.show(name, amount)} > {quantity.show(name, computed[name])}"
        for name, amount in sorted(declared.items())
        if name in computed and amount > computed[name] + 1e-9
    ]
