"""Controllers that act on each other's objects agree: quota, cleanup, images and the GPUs' ranks.

What it catches:
- resources that outlive the Kueue quota of the job that made them. Kueue releases a job's quota
  the moment the job finishes (v0.18.6 pkg/controller/jobframework/reconciler.go: Finished()
  marks the Workload finished; core/workload_controller.go deletes it from the cache):
  - a Kueue-managed RayJob with `ttlSecondsAfterFinished` above 0: KubeRay v1.2.2 deletes the
    RayCluster only once `status.endTime` plus the TTL has passed
    (ray-operator/controllers/ray/rayjob_controller.go, JobDeploymentStatusComplete/Failed), and
    Kueue's RayJob is finished at Complete or Failed (pkg/controller/jobs/rayjob, Finished): the
    head and workers run that long outside any quota;
  - a Kueue-managed Kubeflow training job whose `runPolicy.cleanPodPolicy` is `None` (the
    Training Operator v1.8.1's default for every kind, pkg/apis/kubeflow.org/v1/*_defaults.go):
    once the job has Succeeded or Failed the operator deletes no pod
    (pkg/controller.v1/common/job.go, DeletePodsAndServices), and Kueue's job is finished at that
    condition (pkg/controller/jobs/kubeflow/kubeflowjob, Finished). A PyTorchJob succeeds when its
    Master does, or with `elasticPolicy` when any Worker does
    (pkg/controller.v1/pytorch/pytorchjob_controller.go, UpdateJobStatus): replicas still running
    then keep their nodes with no quota behind them;
- in an environment that pulls the repository's own images from a registry (trainops.yaml
  `provenance.registry`, or the environment's own `registry`), an image at a reserved name no
  cluster resolves (RFC 2606 and RFC 6761: `example`, `example.com`/`.net`/`.org`, `.test`,
  `.invalid`, `.localhost`, `localhost`); in an environment on a cloud profile that declares
  none, an own image with no registry at all (Docker Hub). Whether an own image comes from the
  declared registry, and is one the image workflow publishes, is the provenance rule's;
- a GPU pod running several NCCL ranks (a PyTorchJob's `nprocPerNode`, torchrun's
  `--nproc-per-node`) without a memory-backed `/dev/shm` of at least 1 GiB — NCCL keeps its
  intra-node buffers there, and the container runtime gives a pod 64 MiB (containerd's CRI
  plugin, defaultShmSize); NCCL's guide asks containers for `--shm-size=1g` (NCCL user guide,
  Troubleshooting, "Shared memory") — or with limits below what its ranks need: each rank what
  trainops.yaml `images.<image>.rank` declares, and the memory limit also holds the `/dev/shm`
  tmpfs, whose files count against it (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir).

Why it matters: each is accepted by every controller alone and goes wrong between two of them:
quota freed while pods still run over-commits the nodes; a pull from a name that cannot resolve
leaves an admitted gang in ImagePullBackOff holding its quota; NCCL fails to initialise, or the
pod is OOM-killed, on the first all-reduce.

How to fix: `ttlSecondsAfterFinished: 0` (the RayCluster goes as the job ends);
`cleanPodPolicy: Running`; set the registry in trainops.yaml and the overlays' `images:` from it;
mount an `emptyDir: {medium: Memory, sizeLimit: 1Gi}` at /dev/shm and size the limits to the
ranks.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trainops.knowledge import kueue, pins, profiles, provenance
from trainops.knowledge.pod_templates import PodTemplate, gpus, templates_of
from trainops.knowledge.provenance import reserved
from trainops.model import quantity
from trainops.model.findings import Finding, Severity, placed
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import indexed_mappings, mapping, mappings, strings

ID = "controller-interplay"
SEVERITY = Severity.ERROR
SUMMARY = (
    "no resource outlives its Kueue quota, images come from the declared registry, "
    "multi-rank GPU pods have /dev/shm and limits for their ranks"
)

SHM_NEEDED = 2.0**30  # NCCL's guide: --shm-size=1g
_NPROC = re.compile(r"--nproc[-_]per[-_]node(?:=|\s+)(\d+)$")
_CLOUDS = {"gke", "eks", "aks"}


def _finding(
    rendered: Rendered, obj: K8sObject | None, message: str, path, hint: str, file=None, line=None
) -> Finding:
    return placed(ID, SEVERITY, rendered.root, obj, message, path, hint, file, line)


def _kueue_managed(obj: K8sObject, cluster: Cluster) -> bool:
    defined = cluster.memo("kueue", kueue.Kueue)
    labels = mapping(mapping(obj.doc.get("metadata")).get("labels"))
    return (
        kueue.framework(obj) is not None
        and bool(obj.namespace)
        and defined.manages(str(obj.namespace))
        and bool(labels.get(kueue.QUEUE_LABEL))
    )


# ------------------------------------------------------------------ outliving the quota


def _ray_findings(rendered: Rendered, obj: K8sObject) -> Iterator[Finding]:
    spec = mapping(obj.doc.get("spec"))
    ttl = spec.get("ttlSecondsAfterFinished", 0)
    if spec.get("shutdownAfterJobFinishes") is not True or not isinstance(ttl, int) or ttl <= 0:
        return
    cluster_pods: dict[str, float] = {}
    try:
        for name, count, pod in kueue.named_pod_sets(obj):
            if name != "submitter":
                for resource, amount in kueue.pod_requests(pod).items():
                    cluster_pods[resource] = cluster_pods.get(resource, 0.0) + amount * count
    except ValueError:
        cluster_pods = {}
    held = ", ".join(f"{n} {quantity.show(n, v)}" for n, v in sorted(cluster_pods.items()) if v)
    yield _finding(
        rendered,
        obj,
        f"Kueue releases the RayJob's quota when it finishes, but KubeRay deletes its RayCluster "
        f"only {ttl}s later (ttlSecondsAfterFinished): for {ttl}s the head and workers"
        f"{f' ({held})' if held else ''} run outside any quota",
        "spec.ttlSecondsAfterFinished",
        "set ttlSecondsAfterFinished: 0 (the Ray cluster is deleted as the job ends; the "
        "submitter Job keeps the driver's logs)",
    )


def _kubeflow_findings(rendered: Rendered, obj: K8sObject) -> Iterator[Finding]:
    spec = mapping(obj.doc.get("spec"))
    if obj.kind == "MPIJob" and "cleanPodPolicy" in spec:
        policy, path = spec.get("cleanPodPolicy"), "spec.cleanPodPolicy"
    else:
        policy = mapping(spec.get("runPolicy")).get("cleanPodPolicy")
        path = "spec.runPolicy.cleanPodPolicy"
    if policy not in (None, "None"):
        return
    said = (
        "cleanPodPolicy None"
        if policy
        else "no cleanPodPolicy (the Training Operator's default, None)"
    )
    yield _finding(
        rendered,
        obj,
        f"{obj.kind} {obj.name} has {said}: once it has Succeeded or Failed the Training Operator "
        "deletes none of its pods, while Kueue releases its quota at that moment, so replicas "
        "still running (workers when the master succeeded first, or waiting on a failed one) "
        "hold their nodes outside any quota",
        path if policy else "spec.runPolicy",
        "set runPolicy.cleanPodPolicy: Running (finished pods, and their logs, are kept)",
    )


# ------------------------------------------------------------------ registries


def _registry_findings(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    profile = profiles.profile_of(cluster)
    registry = profiles.registry_of(cluster)
    cloud = profile is not None and profile.cloud in _CLOUDS
    if registry is None and not cloud:
        return

    def problem_of(image: str) -> str | None:
        host = provenance.image_host(image)
        if host is not None and reserved(host):
            return (
                f"image {image} is at {host}, a name reserved so that it never resolves: the "
                "pods sit in ImagePullBackOff while Kueue holds their quota"
            )
        if registry is None and host is None and profiles.image_traits(cluster, image):
            return (
                f"image {image} names no registry, so the {profile.name if profile else ''} "
                "cluster pulls it from Docker Hub, and trainops.yaml declares none for this "
                "environment"
            )
        return None

    seen = set()
    sites = pins.image_sites(rendered, keep=lambda pin: problem_of(pin.what) is not None)
    for pin, file, line, path in sites:
        problem = problem_of(pin.what)
        if problem is None or (file, line, problem) in seen:
            continue
        seen.add((file, line, problem))
        obj = next((o for o in rendered.objects if o.ref == pin.object_ref), None)
        yield _finding(
            rendered,
            obj,
            problem,
            path,
            "declare the registry in trainops.yaml (provenance.registry) and set the overlay's "
            "images: newName from it (`trainops adopt` does both)",
            file=file,
            line=line,
        )


# ------------------------------------------------------------------ NCCL ranks


def _ranks(obj: K8sObject, container: dict) -> int:
    found = 1
    if obj.group == "kubeflow.org" and obj.kind == "PyTorchJob":
        value = mapping(obj.doc.get("spec")).get("nprocPerNode")
        if isinstance(value, int) and not isinstance(value, bool):
            found = max(found, value)
        elif isinstance(value, str) and value.isdigit():
            found = max(found, int(value))
    words = strings(container.get("command")) + strings(container.get("args"))
    for index, word in enumerate(words):
        joined = f"{word} {words[index + 1]}" if index + 1 < len(words) else word
        for text in (word, joined):
            match = _NPROC.search(text)
            if match:
                found = max(found, int(match.group(1)))
    return found


def _limit(container: dict, name: str) -> float | None:
    value = mapping(mapping(container.get("resources")).get("limits")).get(name)
    try:
        return quantity.parse(value) if value is not None else None
    except ValueError:
        return None


def _shm(template: PodTemplate, container: dict) -> tuple[dict | None, float | None]:
    """The emptyDir mounted at /dev/shm (None: none) and its sizeLimit (None: unbounded)."""
    names = {
        str(m.get("name"))
        for m in mappings(container.get("volumeMounts"))
        if str(m.get("mountPath", "")).rstrip("/") == "/dev/shm"
    }
    for volume in mappings(template.spec.get("volumes")):
        if volume.get("name") in names and isinstance(volume.get("emptyDir"), dict):
            empty = volume["emptyDir"]
            try:
                size = quantity.parse(empty["sizeLimit"]) if "sizeLimit" in empty else None
            except ValueError:
                size = None
            return empty, size
    return None, None


def _rank_findings(rendered: Rendered, obj: K8sObject, cluster: Cluster) -> Iterator[Finding]:
    for template in templates_of(obj):
        for index, container in indexed_mappings(template.spec.get("containers")):
            ranks = _ranks(obj, container)
            if ranks < 2 or gpus(container) <= 0:
                continue
            path = template.child(f"spec.containers[{index}]")
            empty, size = _shm(template, container)
            if empty is None or empty.get("medium") != "Memory":
                yield _finding(
                    rendered,
                    obj,
                    f"runs {ranks} NCCL ranks on its GPUs with no memory-backed /dev/shm: NCCL "
                    "keeps its buffers between the ranks there, and the runtime's is 64 MiB",
                    f"{path}.volumeMounts",
                    "mount an emptyDir {medium: Memory, sizeLimit: 1Gi} at /dev/shm",
                )
            elif size is not None and size < SHM_NEEDED:
                yield _finding(
                    rendered,
                    obj,
                    f"runs {ranks} NCCL ranks with a /dev/shm of {quantity.show('memory', size)}, "
                    "less than the 1 GiB NCCL's guide gives containers",
                    f"{path}.volumeMounts",
                    "raise the /dev/shm emptyDir's sizeLimit to 1Gi",
                )
            traits = profiles.image_traits(cluster, str(container.get("image", "")))
            if traits is None or not traits.rank:
                continue
            shm = size if size is not None else SHM_NEEDED
            needed = {
                name: ranks * amount + (shm if name == "memory" else 0.0)
                for name, amount in traits.rank.items()
            }
            for name, amount in sorted(needed.items()):
                limit = _limit(container, name)
                if limit is not None and limit + 1e-9 < amount:
                    extra = (
                        f" plus /dev/shm {quantity.show('memory', shm)}" if name == "memory" else ""
                    )
                    yield _finding(
                        rendered,
                        obj,
                        f"its {name} limit {quantity.show(name, limit)} is less than its {ranks} "
                        f"ranks need ({ranks} x {quantity.show(name, traits.rank[name])} per rank "
                        f"as trainops.yaml declares for {traits.name}{extra}: "
                        f"{quantity.show(name, amount)})",
                        f"{path}.resources.limits.{name}",
                        f"raise the {name} limit (and request) to at least "
                        f"{quantity.show(name, amount)}",
                    )


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    for obj in rendered.objects:
        if obj.group == "ray.io" and obj.kind == "RayJob" and _kueue_managed(obj, cluster):
            yield from _ray_findings(rendered, obj)
        elif obj.group == "kubeflow.org" and _kueue_managed(obj, cluster):
            yield from _kubeflow_findings(rendered, obj)
        yield from _rank_findings(rendered, obj, cluster)
    yield from _registry_findings(rendered, cluster)
