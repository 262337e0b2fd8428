"""The rendered environments: restricted, queued through Kueue, and right for kind, cloud and GPU."""

from __future__ import annotations

import json
import re

import pytest

from helpers import ENVIRONMENTS, REPO, pod_templates
from restricted import restricted_problems
from trainops.model.config import load_config
from trainops.rules import RULES

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
GPU = "nvidia.com/gpu"
KUEUE_SUSPEND = {
    "Job": ("spec", "suspend"),
    "PyTorchJob": ("spec", "runPolicy", "suspend"),
    "RayJob": ("spec", "suspend"),
    "JobSet": ("spec", "suspend"),
}


def training_jobs(overlays, env):
    return [d for d in overlays[(env, "workloads")] if pod_templates(d)]


def containers(template):
    spec = template["spec"]
    return (spec.get("initContainers") or []) + spec["containers"]


def only(docs, kind, name=None):
    found = [
        d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)
    ]
    assert len(found) == 1, (kind, name, len(found))
    return found[0]


def parse_quantity(value) -> float:
    units = {
        "m": 1e-3,
        "Ki": 2**10,
        "Mi": 2**20,
        "Gi": 2**30,
        "Ti": 2**40,
        "k": 1e3,
        "M": 1e6,
        "G": 1e9,
    }
    match = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(value))
    return float(match.group(1)) * units.get(match.group(2), 1)


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_layer_renders_objects(overlays, env):
    for layer in ("operators", "platform", "workloads"):
        assert overlays[(env, layer)], f"overlays/{env}/{layer} rendered nothing"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_training_pods_meet_restricted_and_have_requests_and_limits(overlays, env):
    namespace = only(overlays[(env, "platform")], "Namespace", "bookstore-ml")
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    jobs = training_jobs(overlays, env)
    assert {d["kind"] for d in jobs} >= {"Job", "PyTorchJob", "RayJob", "JobSet"}
    for job in jobs:
        assert job["metadata"]["namespace"] == "bookstore-ml"
        for path, template in pod_templates(job):
            assert restricted_problems(template["spec"]) == [], (job["metadata"]["name"], path)
            for container in containers(template):
                resources = container["resources"]
                assert {"cpu", "memory"} <= set(resources["requests"]) & set(resources["limits"]), (
                    path,
                    container["name"],
                )


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_kueue_managed_jobs_name_the_local_queue_and_never_unsuspend(overlays, env):
    local_queue = only(overlays[(env, "platform")], "LocalQueue", "bookstore-ml-lq")
    assert local_queue["spec"]["clusterQueue"] == "bookstore-ml-cq"
    for job in training_jobs(overlays, env):
        if job["kind"] not in KUEUE_SUSPEND or job["apiVersion"].startswith("batch.volcano.sh/"):
            continue
        assert job["metadata"]["labels"][QUEUE_LABEL] == "bookstore-ml-lq", job["metadata"]["name"]
        node = job
        for key in KUEUE_SUSPEND[job["kind"]]:
            node = node.get(key, {}) if isinstance(node, dict) else {}
        assert node is not False, f"{job['metadata']['name']} sets suspend: false"


def test_rayjob_meets_kueue_webhook_rules(overlays):
    for env in ENVIRONMENTS:
        ray_job = only(overlays[(env, "workloads")], "RayJob")
        assert ray_job["spec"]["shutdownAfterJobFinishes"] is True
        assert ray_job["spec"]["rayClusterSpec"].get("enableInTreeAutoscaling") is not True


def test_kind_has_no_gpu_and_uses_local_dev_images(overlays):
    for layer in ("operators", "platform", "workloads"):
        assert GPU not in json.dumps(overlays[("kind", layer)])
    for job in training_jobs(overlays, "kind"):
        for _, template in pod_templates(job):
            for container in template["spec"]["containers"]:
                assert container["image"].startswith("bookstore/recommender-train"), container[
                    "image"
                ]
                assert container["image"].endswith(":dev")
                assert container["imagePullPolicy"] == "IfNotPresent"
    pvc = only(overlays[("kind", "workloads")], "PersistentVolumeClaim", "recommender-model")
    assert pvc["spec"]["accessModes"] == ["ReadWriteOnce"] and "storageClassName" not in pvc["spec"]


def _is_rendezvous_store(template: dict) -> bool:
    """The elastic PyTorchJob's Master (components/spot-elastic)."""
    command = template["spec"]["containers"][0].get("command")
    return command == ["python", "/workspace/rendezvous_store.py"]


def test_gpu_goes_only_to_the_distributed_training_on_the_cuda_image(overlays):
    """The PyTorchJob's workers and the JobSet's ranks use their GPUs (CUDA image, NCCL); the Job
    and the RayJob compute with NumPy/SciPy and stay on CPU. The GPU flavors declare the GPU
    nodes' taint (nodeTaints) and only the GPU pods tolerate it, so Kueue never admits a CPU job
    into them (flavorassigner checks a flavor's nodeTaints against the pods' tolerations)."""
    for job in training_jobs(overlays, "gpu"):
        for path, template in pod_templates(job):
            if _is_rendezvous_store(template):  # serves the rendezvous; trains nothing
                [container] = template["spec"]["containers"]
                assert GPU not in (container["resources"].get("limits") or {}), path
                assert "/recommender-train-torch:" in container["image"]
                assert not template["spec"].get("tolerations"), path
                continue
            for container in template["spec"]["containers"]:
                gpus = (container.get("resources", {}).get("limits") or {}).get(GPU)
                if job["kind"] in ("PyTorchJob", "JobSet"):
                    assert int(gpus) >= 1, path
                    assert "/recommender-train-cuda:" in container["image"]
                else:
                    assert gpus is None, (job["kind"], path)
            tolerated = {t["key"] for t in template["spec"].get("tolerations") or []}
            if job["kind"] in ("PyTorchJob", "JobSet"):
                assert GPU in tolerated, path
            else:
                assert not tolerated, path


def test_gpu_torchrun_runs_one_process_per_gpu(overlays):
    job = only(overlays[("gpu", "workloads")], "PyTorchJob")
    for role, replica in job["spec"]["pytorchReplicaSpecs"].items():
        if _is_rendezvous_store(replica["template"]):
            assert role == "Master"
            continue
        container = replica["template"]["spec"]["containers"][0]
        gpus = container["resources"]["limits"][GPU]
        assert f"--nproc-per-node={gpus}" in container["args"], role
        assert job["spec"]["nprocPerNode"] == gpus
        assert any(e["name"].startswith("NCCL_") for e in container["env"])


def test_gpu_cluster_queue_quota_holds_each_gang(overlays):
    queue = only(overlays[("gpu", "platform")], "ClusterQueue", "bookstore-ml-cq")
    quota = sum(
        parse_quantity(resource["nominalQuota"])
        for group in queue["spec"]["resourceGroups"]
        if GPU in group["coveredResources"]
        for flavor in group["flavors"]
        for resource in flavor["resources"]
        if resource["name"] == GPU
    )
    assert quota > 0
    # GPUs share a resource group with cpu and memory: a GPU pod gets one flavor's labels. So do
    # the shares of GPUs (docs/environments.md, "GPU sharing"), each with its node group's flavor.
    assert [g["coveredResources"] for g in queue["spec"]["resourceGroups"]] == [
        ["cpu", "memory", GPU, "nvidia.com/gpu.shared", "nvidia.com/mig-1g.10gb"]
    ]
    shared = {
        f["name"]: {r["name"]: parse_quantity(r["nominalQuota"]) for r in f["resources"]}
        for f in queue["spec"]["resourceGroups"][0]["flavors"]
    }
    assert shared["gpu-shared"]["nvidia.com/gpu.shared"] > 0
    assert shared["gpu-mig"]["nvidia.com/mig-1g.10gb"] > 0
    flavors = {
        d["metadata"]["name"]: d
        for d in overlays[("gpu", "platform")]
        if d["kind"] == "ResourceFlavor"
    }
    assert flavors["gpu"]["spec"]["nodeLabels"] == {"eks.amazonaws.com/nodegroup": "gpu"}
    assert any(t["key"] == GPU for t in flavors["gpu"]["spec"]["nodeTaints"])
    assert "tolerations" not in flavors["gpu"]["spec"]
    job = only(overlays[("gpu", "workloads")], "PyTorchJob")
    worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]
    per_pod = parse_quantity(
        worker["template"]["spec"]["containers"][0]["resources"]["limits"][GPU]
    )
    assert 0 < job["spec"]["elasticPolicy"]["maxReplicas"] * per_pod <= quota


@pytest.mark.parametrize("env", ["cloud", "gpu"])
def test_cloud_checkpoints_on_rwx_and_an_elastic_pytorchjob(overlays, env):
    pvc = only(overlays[(env, "workloads")], "PersistentVolumeClaim", "recommender-model")
    assert pvc["spec"]["accessModes"] == ["ReadWriteMany"] and pvc["spec"]["storageClassName"]
    job = only(overlays[(env, "workloads")], "PyTorchJob")
    elastic = job["spec"]["elasticPolicy"]
    assert (
        1
        <= elastic["minReplicas"]
        <= job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"]
        == elastic["maxReplicas"]
    )
    assert elastic["rdzvBackend"] == "c10d" and elastic["maxRestarts"] > 0
    worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
    # Kueue's spot flavor adds the spot toleration to the pods it admits there, and only to
    # those; the GPU workers tolerate the GPU taint themselves (the GPU flavors' nodeTaints).
    assert "affinity" not in worker
    assert {t["key"] for t in worker.get("tolerations") or []} <= {GPU, "sku"}
    assert (
        "--checkpoint-dir=/workspace/model/checkpoints/pytorchjob"
        in worker["containers"][0]["args"]
    )
    # Every image from the registry trainops.yaml declares (provenance.registry).
    config = load_config(REPO / "trainops.yaml", RULES)
    assert config is not None and config.provenance is not None
    assert f"overlays/{env}" not in config.registries  # named once, in provenance
    registry = config.provenance.registry
    for job in training_jobs(overlays, env):
        for _, template in pod_templates(job):
            for container in template["spec"]["containers"]:
                assert container["image"].startswith(f"{registry}/bookstore/"), container["image"]


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_no_secret_carries_data(overlays, env):
    for layer in ("platform", "workloads"):
        for doc in overlays[(env, layer)]:
            if doc["kind"] == "Secret":
                assert not doc.get("data") and not doc.get("stringData"), doc["metadata"]["name"]


def test_cloud_training_has_no_unused_identity_or_egress(overlays):
    """Nothing uploads to an object store, so no cloud identity and no egress out of the cluster."""
    account = only(overlays[("cloud", "platform")], "ServiceAccount", "bookstore-ml-trainer")
    assert account["automountServiceAccountToken"] is False
    assert not (account["metadata"].get("annotations") or {})
    for policy in (d for d in overlays[("cloud", "platform")] if d["kind"] == "NetworkPolicy"):
        for rule in policy["spec"].get("egress") or []:
            assert rule.get("to"), f"{policy['metadata']['name']} allows egress to anywhere"


def test_volcano_job_uses_the_pytorch_plugin_with_a_restricted_wait_for_master(overlays):
    job = only(overlays[("volcano", "workloads")], "Job", "recommender-train-volcano")
    assert job["apiVersion"] == "batch.volcano.sh/v1alpha1"
    plugin = job["spec"]["plugins"]["pytorch"]
    assert {
        "--master=master",
        "--worker=worker",
        "--port=23456",
        "--wait-master-enabled=true",
    } <= set(plugin)
    tasks = {task["name"]: task for task in job["spec"]["tasks"]}
    init = tasks["worker"]["template"]["spec"]["initContainers"]
    # Volcano injects its own (unrestricted) init container unless one of this name is present.
    assert [c["name"] for c in init] == ["wait-for-master"]
    # It waits for the master to accept connections on the plugin's port, not only for its DNS name.
    script = init[0]["command"][-1]
    assert "nslookup" not in script
    assert "nc -z -w 2 recommender-train-volcano-master-0.recommender-train-volcano 23456" in script
    assert job["spec"]["minAvailable"] == sum(t["replicas"] for t in tasks.values())
    assert any(
        d["kind"] == "CustomResourceDefinition" and d["metadata"]["name"] == "jobs.batch.volcano.sh"
        for d in overlays[("volcano", "operators")]
    )


def test_ray_version_equals_the_ray_image_version(overlays):
    dockerfile = (REPO / "workloads" / "bookstore-ml" / "train" / "Dockerfile").read_text()
    ray_image = re.search(
        r"^ARG RAY_IMAGE=rayproject/ray:(\d+\.\d+\.\d+)", dockerfile, re.MULTILINE
    ).group(1)
    for env in ENVIRONMENTS:
        ray_job = only(overlays[(env, "workloads")], "RayJob")
        assert ray_job["spec"]["rayClusterSpec"]["rayVersion"] == ray_image, env
        assert ray_job["spec"]["entrypoint"].startswith("python /workspace/train.py ")


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_jobset_rendezvous_is_wired_by_jobset(overlays, env):
    """JobSet's headless Service and coordinator label give MASTER_ADDR; the completion index is
    the rank (train.py reads JOB_COMPLETION_INDEX when RANK is unset)."""
    jobset = only(overlays[(env, "workloads")], "JobSet", "recommender-train-js")
    spec = jobset["spec"]
    assert spec["network"]["enableDNSHostnames"] is True
    assert "subdomain" not in spec["network"]  # the JobSet's name: a renamed copy gets its own
    [replicated] = spec["replicatedJobs"]
    job = replicated["template"]["spec"]
    assert job["completionMode"] == "Indexed"
    assert job["completions"] == job["parallelism"]
    assert spec["coordinator"] == {
        "replicatedJob": replicated["name"],
        "jobIndex": 0,
        "podIndex": 0,
    }
    container = job["template"]["spec"]["containers"][0]
    env_vars = {e["name"]: e for e in container["env"]}
    assert env_vars["MASTER_ADDR"]["valueFrom"]["fieldRef"]["fieldPath"] == (
        "metadata.labels['jobset.sigs.k8s.io/coordinator']"
    )
    assert int(env_vars["WORLD_SIZE"]["value"]) == replicated["replicas"] * job["completions"]
    port = int(env_vars["MASTER_PORT"]["value"])
    assert port in [p["containerPort"] for p in container["ports"]]
    assert "RANK" not in env_vars
    assert job["template"]["metadata"]["labels"]["bookstore-ml/network"] == "pytorch"
    assert "--checkpoint-dir=/workspace/model/checkpoints/jobset" in container["args"]
    volumes = {v["name"]: v for v in job["template"]["spec"]["volumes"]}
    assert volumes["model"]["persistentVolumeClaim"]["claimName"] == "recommender-model"


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_jobs_run_at_a_defined_priority_and_have_time_to_checkpoint(overlays, env):
    classes = {
        d["metadata"]["name"]: d["value"]
        for d in overlays[(env, "platform")]
        if d["kind"] == "WorkloadPriorityClass"
    }
    assert classes["bookstore-ml-adhoc"] > classes["bookstore-ml-scheduled"]
    queue = only(overlays[(env, "platform")], "ClusterQueue", "bookstore-ml-cq")
    preemption = queue["spec"]["preemption"]
    assert preemption["withinClusterQueue"] == "LowerPriority"
    assert preemption["borrowWithinCohort"] == {
        "policy": "LowerPriority",
        "maxPriorityThreshold": classes["bookstore-ml-scheduled"],
    }
    for job in training_jobs(overlays, env):
        if job["kind"] in KUEUE_SUSPEND and not job["apiVersion"].startswith("batch.volcano.sh/"):
            labels = job["metadata"]["labels"]
            assert labels["kueue.x-k8s.io/priority-class"] == "bookstore-ml-scheduled"
        for path, template in pod_templates(job):
            assert template["spec"]["terminationGracePeriodSeconds"] == 60, (
                job["metadata"]["name"],
                path,
            )


def test_only_volcano_gang_schedules_the_pytorchjob_with_volcano(overlays):
    for env in ENVIRONMENTS:
        operator = only(overlays[(env, "operators")], "Deployment", "training-operator")
        args = operator["spec"]["template"]["spec"]["containers"][0]["args"]
        job = only(overlays[(env, "workloads")], "PyTorchJob")
        policy = job["spec"]["runPolicy"].get("schedulingPolicy")
        if env == "volcano":
            assert "--gang-scheduler-name=volcano" in args
            replicas = sum(r["replicas"] for r in job["spec"]["pytorchReplicaSpecs"].values())
            # Its PodGroup goes to a Volcano queue of its own, bounded by Kueue's quota; the
            # Volcano Job's queue has a capability for that Job alone. Both are in the platform.
            assert policy == {"minAvailable": replicas, "queue": "bookstore-ml-kueue"}
            queue = only(overlays[(env, "platform")], "Queue", "bookstore-ml-kueue")
            assert queue["apiVersion"] == "scheduling.volcano.sh/v1beta1"
            assert "capability" not in queue["spec"]
            role = only(overlays[(env, "operators")], "ClusterRole", "training-operator")
            assert any(
                "scheduling.volcano.sh" in rule["apiGroups"] and "podgroups" in rule["resources"]
                for rule in role["rules"]
            )
        else:
            assert not any(a.startswith("--gang-scheduler-name") for a in args), env
            assert policy is None, env
