"""What a training pod asks for, its image and its script can use.

The repository declares what each training image can do in trainops.yaml `images` (by image
name, registry and tag aside): `cuda` (built on a CUDA torch), `backends` (the torch.distributed
backends its script uses) and `ray` (its script spreads work over Ray tasks); here it describes
the targets of workloads/bookstore-ml/train/Dockerfile. What it does not declare (an image it
does not name, or any image where no trainops.yaml is in scope) is not judged: a note says what to
declare, never an error.

What it catches, for every GPU resource NVIDIA's device plugin advertises — whole GPUs
(`nvidia.com/gpu`), time-sliced replicas renamed `nvidia.com/gpu.shared` and MIG instances
`nvidia.com/mig-<profile>` such as `nvidia.com/mig-1g.10gb` (knowledge/pod_templates.py):
- a container requesting GPUs whose image is not declared CUDA-capable (CPU-only torch sees no
  GPU; the GPUs idle while the quota counts them), or whose script has no `nccl` backend in a
  distributed job (gloo on GPUs moves every tensor through host memory);
- a container asking for more than one time-sliced replica or MIG instance: a CUDA process
  enumerates one MIG instance only (NVIDIA MIG user guide, "CUDA Device Enumeration"), and more
  replicas of a time-sliced GPU give no more of it (NVIDIA GPU Operator docs, gpu-sharing.html;
  with `failRequestsGreaterThanOne` the device plugin fails such a pod);
- (warning) a distributed job whose NCCL ranks run on time-sliced replicas or MIG instances: a
  synchronous all-reduce waits for the slowest rank, and a time-sliced rank may share its GPU with
  another rank or pod, contending for its compute and memory with no isolation, while a MIG
  instance is a fraction of a GPU without peer-to-peer access to any other (NVIDIA MIG user guide:
  no GPU-to-GPU P2P);
- NCCL_* settings on a container whose image's script never uses NCCL (they do nothing);
- (warning) a PyTorchJob `elasticPolicy.maxReplicas` above its Worker `replicas` that nothing can
  reach: the Training Operator v1.8.1 scales an elastic job only through the
  HorizontalPodAutoscaler it creates from `elasticPolicy` (pkg/controller.v1/pytorch/hpa.go),
  which needs metrics (the environment's profile lists `metrics-server` among its add-ons when
  the cluster has it), and for a Kueue-managed job Kueue v0.18.6 admits and holds quota for the
  `replicas` as written;
- (warning) a RayJob or RayCluster with worker replicas whose head image's script does not use
  Ray (`ray: true`): the workers hold quota and idle while the head does all the work.

Why it matters: each of these is accepted by the API server and runs, but spends accelerator
or node quota on nothing.

How to fix: build the CUDA target of the Dockerfile for GPU pods and declare it `cuda: true`
with `backends: [nccl, gloo]`; ask for one shared GPU or MIG instance per container, and run
multi-rank NCCL training on whole GPUs; set `maxReplicas` to `replicas` (or drop the elastic bounds);
give the Ray head an image whose script uses Ray, or no worker group.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge import kueue, profiles
from trainops.knowledge.pod_templates import gpu_requests, is_shared_gpu, templates_of
from trainops.model.findings import Finding, Severity, on_object
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import indexed_mappings, mapping, mappings

ID = "runnable"
SEVERITY = Severity.ERROR
SUMMARY = "GPUs only for CUDA images with NCCL, reachable elastic bounds, Ray workers with work"

_DISTRIBUTED = {"PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob"}


def _finding(
    rendered: Rendered,
    obj: K8sObject,
    message: str,
    path: str,
    hint: str,
    severity: Severity = SEVERITY,
) -> Finding:
    return on_object(ID, severity, rendered.root, obj, message, path, hint)


def _undeclared(
    rendered: Rendered,
    obj: K8sObject,
    cluster: Cluster,
    image: str,
    asks: str,
    unknown: str,
    path: str,
    declare: str,
) -> Finding:
    """A note, not an error: what the rule needs is a declaration this image does not have
    (outside any repository, or an image trainops.yaml does not name), so it cannot judge."""
    config = cluster.config
    where = (
        f"{config.file.name if config.file else 'trainops.yaml'} images"
        if config is not None
        else "a trainops.yaml `images:` (none is in scope)"
    )
    return _finding(
        rendered,
        obj,
        f"{asks}; its image {image} is not declared in {where}, so runnable cannot tell "
        f"{unknown}: not judged",
        path,
        f"declare the image in trainops.yaml images with {declare}",
        Severity.NOTE,
    )


def _distributed(obj: K8sObject) -> bool:
    return (obj.group == "kubeflow.org" and obj.kind in _DISTRIBUTED) or (
        obj.group == "batch.volcano.sh" and obj.kind == "Job"
    )


def _container_findings(rendered: Rendered, obj: K8sObject, cluster: Cluster) -> Iterator[Finding]:
    for template in templates_of(obj):
        for index, container in indexed_mappings(template.spec.get("containers")):
            path = template.child(f"spec.containers[{index}]")
            image = str(container.get("image", ""))
            traits = profiles.image_traits(cluster, image)
            requested = gpu_requests(container)
            asked = ", ".join(f"{amount:g} {name}" for name, amount in requested.items())
            if requested:
                if traits is None:
                    yield _undeclared(
                        rendered,
                        obj,
                        cluster,
                        image,
                        f"requests {asked}",
                        "whether it can use the GPUs",
                        f"{path}.resources",
                        "cuda: true and its backends",
                    )
                elif not traits.cuda:
                    yield _finding(
                        rendered,
                        obj,
                        f"requests {asked} but its image {image} is declared CPU-only (cuda: "
                        "false): the GPUs idle while the quota counts them",
                        f"{path}.resources",
                        "use the CUDA image (Dockerfile target train-cuda) and declare it cuda: "
                        "true, or drop the GPU request",
                    )
                elif _distributed(obj) and "nccl" not in traits.backends:
                    yield _finding(
                        rendered,
                        obj,
                        f"requests {asked} in a distributed job, but the script in "
                        f"{image} uses only {', '.join(sorted(traits.backends)) or 'no backend'}: "
                        "without NCCL the GPUs exchange through host memory",
                        f"{path}.resources",
                        "let the script choose nccl when CUDA is present and declare it",
                    )
                elif _distributed(obj) and any(is_shared_gpu(name) for name in requested):
                    why = (
                        "a time-sliced replica may share its GPU with another rank or pod, "
                        "contending for its compute and memory with no isolation"
                        if "nvidia.com/gpu.shared" in requested
                        else "a MIG instance is a fraction of a GPU without peer-to-peer access "
                        "to any other"
                    )
                    yield _finding(
                        rendered,
                        obj,
                        f"runs NCCL ranks of a distributed job on {asked}: {why}, and every "
                        "all-reduce waits for the slowest rank",
                        f"{path}.resources",
                        "train on whole GPUs (nvidia.com/gpu); keep time-sliced and MIG shares "
                        "for single-process work",
                        Severity.WARNING,
                    )
            for name, amount in requested.items():
                if is_shared_gpu(name) and amount > 1:
                    yield _finding(
                        rendered,
                        obj,
                        f"requests {amount:g} {name}: "
                        + (
                            "a CUDA process enumerates one MIG instance only, so the others idle"
                            if name != "nvidia.com/gpu.shared"
                            else "more replicas of a time-sliced GPU give no more of it (and with "
                            "failRequestsGreaterThanOne the device plugin fails the pod)"
                        ),
                        f"{path}.resources",
                        f"request 1 {name}, or a larger MIG profile or whole GPUs for more",
                    )
            nccl = [
                str(e.get("name"))
                for e in mappings(container.get("env"))
                if isinstance(e, dict) and str(e.get("name", "")).startswith("NCCL_")
            ]
            if nccl and traits is None:
                yield _undeclared(
                    rendered,
                    obj,
                    cluster,
                    image,
                    f"sets {', '.join(nccl)}",
                    "whether its script uses NCCL",
                    f"{path}.env",
                    "its backends",
                )
            elif nccl and traits is not None and "nccl" not in traits.backends:
                yield _finding(
                    rendered,
                    obj,
                    f"sets {', '.join(nccl)}, but the script in {image} never uses NCCL: they do "
                    "nothing",
                    f"{path}.env",
                    "drop them, or use an image whose script uses the nccl backend",
                )


def _elastic_findings(rendered: Rendered, obj: K8sObject, cluster: Cluster) -> Iterator[Finding]:
    spec = mapping(obj.doc.get("spec"))
    elastic = spec.get("elasticPolicy")
    if not isinstance(elastic, dict) or elastic.get("maxReplicas") is None:
        return
    worker = mapping(mapping(spec.get("pytorchReplicaSpecs")).get("Worker"))
    replicas = int(worker.get("replicas", 1))
    maximum = int(elastic["maxReplicas"])
    if maximum <= replicas:
        return
    profile = profiles.profile_of(cluster)
    if kueue.QUEUE_LABEL in mapping(mapping(obj.doc.get("metadata")).get("labels")):
        why = "Kueue admits and holds quota for the replicas as written"
    elif profile is not None and "metrics-server" not in profile.addons:
        why = (
            f"the {profile.name} cluster has no metrics-server, so the HorizontalPodAutoscaler "
            "the operator creates has nothing to scale on"
        )
    else:
        return
    yield _finding(
        rendered,
        obj,
        f"elasticPolicy.maxReplicas {maximum} can never be reached with {replicas} Worker "
        f"replicas: {why}",
        "spec.elasticPolicy.maxReplicas",
        f"set maxReplicas to {replicas}",
        Severity.WARNING,
    )


def _ray_findings(rendered: Rendered, obj: K8sObject, cluster: Cluster) -> Iterator[Finding]:
    spec = mapping(obj.doc.get("spec"))
    ray_cluster = spec.get("rayClusterSpec") if obj.kind == "RayJob" else spec
    ray_cluster = ray_cluster if isinstance(ray_cluster, dict) else {}
    workers = sum(
        count
        for g in mappings(ray_cluster.get("workerGroupSpecs"))
        if isinstance(count := g.get("replicas", g.get("minReplicas", 0)), int)
        and not isinstance(count, bool)
    )
    head = mappings(
        mapping(mapping(mapping(ray_cluster.get("headGroupSpec")).get("template")).get("spec")).get(
            "containers"
        )
    )
    image = str(head[0].get("image", "")) if head else ""
    traits = profiles.image_traits(cluster, image)
    if workers and traits is None:
        prefix = "spec.rayClusterSpec" if obj.kind == "RayJob" else "spec"
        yield _undeclared(
            rendered,
            obj,
            cluster,
            image,
            f"asks for {workers} Ray worker(s)",
            "whether the head's script spreads work over Ray tasks",
            f"{prefix}.workerGroupSpecs",
            "ray: true if its script uses Ray tasks",
        )
    elif workers and traits is not None and not traits.ray:
        prefix = "spec.rayClusterSpec" if obj.kind == "RayJob" else "spec"
        yield _finding(
            rendered,
            obj,
            f"asks for {workers} Ray worker(s), but the head's image {image} is not declared "
            "to spread work over Ray tasks (ray: true): the workers idle",
            f"{prefix}.workerGroupSpecs",
            "run a script that uses Ray tasks (and declare ray: true), or drop the worker group",
            Severity.WARNING,
        )


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    for obj in rendered.objects:
        yield from _container_findings(rendered, obj, cluster)
        if obj.group == "kubeflow.org" and obj.kind == "PyTorchJob":
            yield from _elastic_findings(rendered, obj, cluster)
        if obj.group == "ray.io" and obj.kind in ("RayJob", "RayCluster"):
            yield from _ray_findings(rendered, obj, cluster)
