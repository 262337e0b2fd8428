"""The connections each kind of workload needs to run, with the labels its operator gives its pods.

This is the one place that says what traffic distributed training needs; each entry names its
upstream source. The network-reachability rule checks every one against an environment's
NetworkPolicies, and tests/workload/test_observed_connections.py checks the PyTorch entry
against the connections two real gloo ranks of train.py open.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from trainops.knowledge.network.netpol import MAX_PORT, Endpoint, PortSet
from trainops.knowledge.network.services import (
    service_ports,
    service_references,
    service_selector,
    services,
)
from trainops.knowledge.pod_templates import PodTemplate, templates_of
from trainops.model.objects import K8sObject
from trainops.model.shape import mapping, mappings, sequence

ALL_TCP = PortSet.of("TCP", 1, MAX_PORT)

# torch.distributed: the rendezvous store listens on MASTER_PORT (static) or, with c10d elastic
# rendezvous, on the rdzv endpoint and then on a random port of rank 0's agent; gloo and NCCL then
# connect every pair of ranks on ephemeral ports (torch.distributed docs, "Distributed
# communication package"; gloo's tcp transport binds port 0). So: every TCP port, both ways.
TORCH_DISTRIBUTED = ALL_TCP
TORCH_WHY = "torch.distributed: the store on MASTER_PORT or c10d's random port, gloo/NCCL on ephemeral ports"

# Ray: GCS (6379), raylet node and object managers, dashboard agent (52365), runtime-env agent and
# worker processes (10002-19999 by default) connect head and workers, and workers with each other
# (docs.ray.io "Configuring Ray", ports configuration). Every TCP port, both ways.
RAY_CLUSTER = ALL_TCP
RAY_WHY = (
    "Ray: GCS 6379, raylet and object manager, dashboard agent 52365, worker ports 10002-19999"
)

# The RayJob and RayService controllers of KubeRay v1.2.2 poll the head's dashboard (job and serve
# APIs) from the operator's pod: ray-operator/controllers/ray/rayjob_controller.go (GetJobInfo
# through utils.GetRayDashboardClient, at the head Service's dashboard port). The K8sJobMode
# submitter runs `ray job submit --address http://<head>:<dashboard port>`.
RAY_DASHBOARD_PORT = 8265

# Cluster DNS: kube-dns/CoreDNS pods carry k8s-app=kube-dns in kube-system on kind, EKS, GKE and
# AKS alike; UDP 53, and TCP 53 for answers too large for UDP.
DNS = PortSet({"UDP": [(53, 53)], "TCP": [(53, 53)]})
KUBE_DNS = Endpoint(
    "the cluster DNS (kube-system pods k8s-app=kube-dns)", "kube-system", {"k8s-app": "kube-dns"}
)

# The API server calls webhooks and aggregated APIs from outside the pod network.
API_SERVER = Endpoint("the API server", None)

# Kinds whose pods form one distributed job (every pod talks to every other).
_KUBEFLOW_JOBS = {"PyTorchJob", "TFJob", "PaddleJob", "XGBoostJob", "MPIJob", "MXJob", "JAXJob"}
_VOLCANO_DISTRIBUTED_PLUGINS = {"pytorch", "tensorflow", "mpi"}


@dataclass(frozen=True)
class Need:
    """`source` must be able to open `ports` on `destination`, because of `why`."""

    source: Endpoint
    destination: Endpoint
    ports: PortSet
    why: str
    obj: K8sObject  # the object the finding is reported on
    path: str  # its JSON path


@dataclass(frozen=True)
class Pods:
    """The pods of one template, as their operator will create them."""

    template: PodTemplate
    endpoint: Endpoint
    replicas: int
    role: str


def _labels(template: PodTemplate) -> dict[str, str]:
    labels = template.metadata.get("labels") if isinstance(template.metadata, dict) else None
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}


def _named_ports(template: PodTemplate) -> dict[tuple[str, str], int]:
    ports = {}
    containers = template.spec.get("containers") if isinstance(template.spec, dict) else None
    for container in containers if isinstance(containers, list) else []:
        for port in (sequence(container.get("ports"))) if isinstance(container, dict) else []:
            if (
                isinstance(port, dict)
                and isinstance(port.get("name"), str)
                and isinstance(port.get("containerPort"), int)
            ):
                ports[(port["name"], str(port.get("protocol") or "TCP"))] = port["containerPort"]
    return ports


def _replicas(value: object, default: int = 1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _operator_labels(obj: K8sObject, template: PodTemplate) -> tuple[dict[str, str], str, int]:
    """(labels the operator adds, the role, how many pods) for one template of a known kind."""
    spec = mapping(obj.doc.get("spec"))
    parts = template.path.split(".")
    if obj.group == "kubeflow.org" and obj.kind in _KUBEFLOW_JOBS and len(parts) > 2:
        # Training Operator v1.8: pkg/controller.v1/common (labels of every replica pod).
        role = parts[2]
        replica = mapping((mapping(spec.get(parts[1]))).get(role))
        labels = {
            "training.kubeflow.org/job-name": obj.name,
            "training.kubeflow.org/replica-type": role.lower(),
            "training.kubeflow.org/operator-name": f"{obj.kind.lower()}-controller",
        }
        if role == "Master":
            labels["training.kubeflow.org/job-role"] = "master"
        elastic = mapping(spec.get("elasticPolicy"))
        count = max(_replicas(replica.get("replicas")), _replicas(elastic.get("maxReplicas"), 0))
        return labels, role, count
    if obj.group == "ray.io" and ".submitterPodTemplate" not in f".{template.path}":
        # KubeRay v1.2.2: ray-operator/controllers/ray/common/pod.go (labelPod).
        head = "headGroupSpec" in template.path
        cluster = (
            obj.name
        )  # a RayJob's cluster is named after the job plus a suffix: selectors use the fixed labels
        labels = {
            "ray.io/is-ray-node": "yes",
            "ray.io/node-type": "head" if head else "worker",
            "app.kubernetes.io/name": "kuberay",
            "app.kubernetes.io/created-by": "kuberay-operator",
        }
        if obj.kind == "RayCluster":
            labels["ray.io/cluster"] = cluster
        if head:
            return labels, "head", 1
        index = int(template.path.split("workerGroupSpecs[")[1].split("]")[0])
        groups = sequence(
            (spec.get("rayClusterSpec") or spec.get("rayClusterConfig") or spec).get(
                "workerGroupSpecs"
            )
        )
        group = groups[index] if index < len(groups) and isinstance(groups[index], dict) else {}
        labels["ray.io/group"] = str(group.get("groupName", ""))
        return (
            labels,
            f"worker group {group.get('groupName', index)}",
            max(_replicas(group.get("replicas")), _replicas(group.get("maxReplicas"), 0)),
        )
    if obj.group == "ray.io":
        return {}, "submitter", 1
    if (
        obj.group == "jobset.x-k8s.io"
        and obj.kind == "JobSet"
        and "replicatedJobs[" in template.path
    ):
        # JobSet v0.12.0: pkg/controllers/jobset_controller.go (labelAndAnnotateObject); every
        # replicated Job has `replicas` Jobs of `parallelism` pods.
        index = int(template.path.split("replicatedJobs[")[1].split("]")[0])
        job = mapping(sequence(spec.get("replicatedJobs"))[index])
        job_spec = mapping(mapping(job.get("template")).get("spec"))
        name = str(job.get("name", index))
        labels = {
            "jobset.sigs.k8s.io/jobset-name": obj.name,
            "jobset.sigs.k8s.io/replicatedjob-name": name,
        }
        return (
            labels,
            f"replicated job {name}",
            _replicas(job.get("replicas")) * _replicas(job_spec.get("parallelism")),
        )
    if obj.group == "batch.volcano.sh" and obj.kind == "Job":
        # Volcano v1.15: pkg/controllers/job/job_controller_util.go (createJobPod).
        index = int(template.path.split("tasks[")[1].split("]")[0])
        task = (sequence(spec.get("tasks")))[index]
        task = task if isinstance(task, dict) else {}
        labels = {
            "volcano.sh/job-name": obj.name,
            "volcano.sh/job-namespace": obj.namespace or "default",
            "volcano.sh/task-spec": str(task.get("name", "")),
        }
        if isinstance(spec.get("queue"), str):
            labels["volcano.sh/queue-name"] = spec["queue"]
        return labels, f"task {task.get('name', index)}", _replicas(task.get("replicas"))
    return {}, "pods", 1


def pods_of(obj: K8sObject) -> list[Pods]:
    found = []
    for template in templates_of(obj):
        added, role, replicas = _operator_labels(obj, template)
        endpoint = Endpoint(
            f"{role} of {obj.kind} {obj.name}",
            obj.namespace or "default",
            {**_labels(template), **added},
            _named_ports(template),
        )
        found.append(Pods(template, endpoint, replicas, role))
    return found


def _distributed(obj: K8sObject) -> tuple[PortSet, str] | None:
    """The ports every pod of this object must reach on every other, if it is one distributed job."""
    spec = mapping(obj.doc.get("spec"))
    if obj.group == "kubeflow.org" and obj.kind in _KUBEFLOW_JOBS:
        return TORCH_DISTRIBUTED, TORCH_WHY
    if obj.group == "batch.volcano.sh" and obj.kind == "Job":
        plugins = mapping(spec.get("plugins"))
        if _VOLCANO_DISTRIBUTED_PLUGINS & set(plugins):
            return TORCH_DISTRIBUTED, TORCH_WHY
    if obj.group == "ray.io" and obj.kind in ("RayCluster", "RayJob", "RayService"):
        return RAY_CLUSTER, RAY_WHY
    # A JobSet whose pods find each other by hostname (network.enableDNSHostnames, which JobSet
    # v0.12.0's webhook defaults to true: pkg/webhooks/jobset_webhook.go) is one distributed job:
    # its ranks rendezvous on the coordinator's port and then connect on ephemeral ones.
    if (
        obj.group == "jobset.x-k8s.io"
        and obj.kind == "JobSet"
        and mapping(spec.get("network")).get("enableDNSHostnames") is not False
    ):
        return TORCH_DISTRIBUTED, TORCH_WHY
    return None


def _dashboard_port(obj: K8sObject) -> int:
    spec = mapping(obj.doc.get("spec"))
    cluster = mapping(spec.get("rayClusterSpec") or spec.get("rayClusterConfig") or spec)
    params = mapping(mapping(cluster.get("headGroupSpec")).get("rayStartParams"))
    try:
        return int(params.get("dashboard-port", RAY_DASHBOARD_PORT))
    except (TypeError, ValueError):
        return RAY_DASHBOARD_PORT


def workload_needs(obj: K8sObject, ray_operators: list[Endpoint]) -> Iterator[Need]:
    """The connections one object's pods need: among a job's pods, to the Ray dashboard, and DNS."""
    pods = pods_of(obj)
    distributed = _distributed(obj)
    ray = obj.group == "ray.io"
    members = [p for p in pods if not (ray and p.role == "submitter")]
    if distributed is not None:
        ports, why = distributed
        for source in members:
            for destination in members:
                if source is destination and source.replicas < 2:
                    continue
                yield Need(
                    source.endpoint, destination.endpoint, ports, why, obj, source.template.path
                )
    if ray and obj.kind in ("RayJob", "RayService"):
        heads = [p for p in pods if p.role == "head"]
        dashboard = PortSet.of("TCP", _dashboard_port(obj))
        for head in heads:
            for submitter in (p for p in pods if p.role == "submitter"):
                yield Need(
                    submitter.endpoint,
                    head.endpoint,
                    dashboard,
                    "the submitter runs `ray job submit` against the head's dashboard",
                    obj,
                    submitter.template.path,
                )
            for operator in ray_operators:
                yield Need(
                    operator,
                    head.endpoint,
                    dashboard,
                    f"KubeRay's {obj.kind} controller polls the head's dashboard for the job's status",
                    obj,
                    head.template.path,
                )
    for pod in pods:
        dns_policy = (
            pod.template.spec.get("dnsPolicy") if isinstance(pod.template.spec, dict) else None
        )
        if dns_policy not in ("Default", "None"):
            yield Need(
                pod.endpoint,
                KUBE_DNS,
                DNS,
                "Services and the master are found by name",
                obj,
                pod.template.path,
            )


def webhook_needs(objects: list[K8sObject]) -> Iterator[Need]:
    """The API server must reach the pods behind every webhook and aggregated API Service on its target port."""
    by_name = services(objects)
    backends = [
        (o, p)
        for o in objects
        if o.kind in ("Deployment", "StatefulSet", "DaemonSet")
        for p in pods_of(o)
    ]
    for reference in service_references(objects):
        service = by_name.get((reference.namespace, reference.name))
        if service is None:
            continue  # the service-references rule reports it
        selector = service_selector(service)
        port = next((p for p in service_ports(service) if p.get("port") == reference.port), None)
        if selector is None or port is None:
            continue
        target = port.get("targetPort", reference.port)
        protocol = str(port.get("protocol") or "TCP")
        for owner, pods in backends:
            if pods.endpoint.namespace != reference.namespace or any(
                pods.endpoint.labels.get(k) != v for k, v in selector.items()
            ):
                continue
            number = (
                target
                if isinstance(target, int)
                else pods.endpoint.named_ports.get((str(target), protocol))
            )
            if number is None:
                continue
            yield Need(
                API_SERVER,
                pods.endpoint,
                PortSet.of(protocol, number),
                f"the API server calls the {reference.what} through Service {reference.namespace}/{reference.name} "
                f"({owner.kind} {owner.name})",
                reference.referrer,
                reference.path,
            )


def ray_operator_pods(objects: list[K8sObject]) -> list[Endpoint]:
    """The KubeRay operator's pods in this environment (from its Deployment's template)."""
    found = []
    for obj in objects:
        if obj.kind != "Deployment":
            continue
        for pods in pods_of(obj):
            images = [
                c.get("image", "")
                for c in mappings(pods.template.spec.get("containers"))
                if isinstance(c, dict)
            ]
            if any("kuberay/operator" in str(image) for image in images):
                found.append(
                    Endpoint(
                        f"the KubeRay operator ({obj.namespace}/{obj.name})",
                        obj.namespace or "default",
                        pods.endpoint.labels,
                        pods.endpoint.named_ports,
                    )
                )
    return found
