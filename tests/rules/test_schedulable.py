"""schedulable: pods against the environment's node pools, as Kueue places them; each defect as
the repository had it (envs/before) and as fixed (envs/after)."""

from __future__ import annotations

import pytest

from helpers import RULE_FIXTURES, configured_findings, findings_by_object

RULE = "schedulable"


@pytest.fixture(scope="module")
def found() -> dict[tuple[str, str], list[tuple[str, str]]]:
    return findings_by_object(RULE)


def test_invented_spot_keys_match_no_pool(found):
    assert found[("before", "ResourceFlavor/spot")] == [
        (
            "spec.nodeLabels",
            "nodeLabels trainops.dev/capacity-type=spot match no node pool of the gke cluster "
            "(pools: default-pool, spot-pool (spot), gpu-pool): pods admitted to this flavor "
            "never schedule",
        )
    ]
    messages = [m for _, m in found[("before", "Job/spot-elastic")]]
    assert any(
        m.startswith("admitted to flavor spot, the pod fits no node pool of the gke cluster ")
        and "pool spot-pool: nodeSelector trainops.dev/capacity-type=spot is not among its labels"
        in m
        for m in messages
    )


def test_a_spot_toleration_in_the_template_lets_on_demand_quota_run_on_spot(found):
    assert (
        "spec.template",
        "admitted to flavor default-flavor, charged to on-demand quota, yet the pod can run on "
        "spot pool spot-pool: a reclaim stops a job its quota says is on-demand",
    ) in found[("before", "Job/spot-elastic")]


def test_gpu_feature_discovery_label_without_the_add_on(found):
    [(path, message)] = found[("before", "ResourceFlavor/gpu")]
    assert message.startswith("nodeLabels nvidia.com/gpu.present=true match no node pool")
    # GPUs in a resource group of their own: the pod gets the cpu flavor's labels as well.
    assert [m.split(", the pod")[0] for _, m in found[("before", "Job/gpu-train")]] == [
        "admitted to flavor default-flavor, gpu",
        "admitted to flavor spot, gpu",
    ]


def test_requests_beyond_one_node_and_quota_beyond_the_pools(found):
    assert (
        "spec.template",
        "admitted to flavor default-flavor, the pod fits no node pool of the gke cluster (pool "
        "default-pool: one node offers less than it requests (cpu 12 > 7.91); pool spot-pool: "
        "it does not tolerate cloud.google.com/gke-spot=true:NoSchedule; pool gpu-pool: it does "
        "not tolerate nvidia.com/gpu=present:NoSchedule): it stays Pending",
    ) in found[("before", "Job/too-big")]
    assert (
        "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
        "flavor default-flavor has cpu nominal quota 32, more than its pools can hold (15.82: "
        "default-pool 2 × 7.91): admitted pods wait for nodes",
    ) in found[("before", "ClusterQueue/team-cq")]


def test_pods_kueue_does_not_place(found):
    [(_, pinned)] = found[("plain", "Deployment/pinned")]
    assert "pool default-pool: nodeSelector disktype=ssd is not among its labels" in pinned
    [(_, affine)] = found[("plain", "Deployment/affine")]
    assert "pool gpu-pool: the required node affinity matches none of its labels" in affine


def test_fixed_environment_is_clean_and_daemonsets_are_not_checked(found):
    # on-demand-only: Kueue never assigns the spot flavor to a pod whose affinity rules it out.
    assert not [key for key in found if key[0] == "after"]
    assert ("plain", "Deployment/fine") not in found
    assert ("plain", "DaemonSet/agent") not in found


def test_an_unreadable_request_is_a_finding_not_a_traceback(found):
    assert found[("plain", "Deployment/unreadable")] == [
        ("spec.template", "cannot read a quantity: 'lots' is not a Kubernetes quantity")
    ]


SHARING = RULE_FIXTURES / "schedulable" / "gpu-sharing" / "trainops.yaml"


def test_a_mig_instance_schedules_only_on_a_pool_exposing_it():
    found = configured_findings("schedulable", SHARING)
    by_object = {(env, obj): message for env, obj, _, message in found}
    # Kueue admits the job to the MIG flavor, whose labels select the whole-GPU node group.
    assert by_object[("before", "Job/mig-job")].startswith(
        "admitted to flavor gpu-mig, the pod fits no node pool of the eks cluster (pool gpu: one "
        "node offers less than it requests (nvidia.com/mig-1g.10gb 1 > 0);"
    )
    assert (
        "(nvidia.com/mig-1g.10gb 1 > 0)"
        in by_object[("before", "Deployment/mig-on-whole-gpu-nodes")]
    )
    assert (
        "before",
        "ClusterQueue/team-cq",
        "spec.resourceGroups[0].flavors[1].resources[3].nominalQuota",
        "flavor gpu-mig has nvidia.com/mig-1g.10gb nominal quota 56, more than its pools can hold "
        "(0: gpu 2 × 0): admitted pods wait for nodes",
    ) in found


def test_time_sliced_nodes_offer_no_whole_gpu():
    """With renameByDefault the time-sliced node group advertises nvidia.com/gpu.shared only."""
    found = {
        (env, obj): message for env, obj, _, message in configured_findings("schedulable", SHARING)
    }
    assert (
        "pool gpu-shared: one node offers less than it requests (nvidia.com/gpu 1 > 0)"
        in found[("before", "Deployment/whole-gpu-on-shared-nodes")]
    )


def test_gpu_sharing_fixed_is_clean():
    assert not [f for f in configured_findings("schedulable", SHARING) if f[0] == "after"]


TAINTS = RULE_FIXTURES / "schedulable" / "flavor-taints" / "trainops.yaml"


def test_a_gpu_flavor_without_node_taints_admits_cpu_only_jobs():
    """The gpu environment as shipped: GPU flavors tolerating the GPU taint instead of declaring
    it as nodeTaints, after CPU flavors in one ClusterQueue."""
    found = [
        (path, message)
        for env, obj, path, message in configured_findings("schedulable", TAINTS)
        if env == "before" and obj == "ClusterQueue/team-cq"
    ]
    assert [path for path, _ in found] == [
        "spec.resourceGroups[0].flavors[2]",
        "spec.resourceGroups[0].flavors[3]",
    ]
    gpu, mig = (message for _, message in found)
    assert gpu.startswith(
        "flavor gpu selects pool gpu, tainted nvidia.com/gpu=true:NoSchedule for pods requesting "
        "nvidia.com/gpu, but does not declare the taint in its nodeTaints (or tolerates it "
        "itself): Kueue admits into it a job that requests none of it and does not tolerate the "
        "taint once default-flavor, spot, gpu-mig cannot hold it"
    )
    assert "checkFlavorForPodSets" in gpu
    assert mig.startswith("flavor gpu-mig selects pool gpu-mig, tainted nvidia.com/gpu=true")


def test_gpu_flavors_with_node_taints_are_clean():
    """nodeTaints on the GPU flavors, the toleration in the GPU pods; the spot flavor's own
    toleration is no finding (its pools offer only CPU and memory)."""
    assert [f for f in configured_findings("schedulable", TAINTS) if f[0] == "after"] == []
