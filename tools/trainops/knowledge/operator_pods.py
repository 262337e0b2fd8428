"""The Pod an operator builds from a pod template: what it adds, which admission then judges.

A custom resource's pod template is accepted with its resource; the operator then adds containers,
volumes, mounts, ports and names, and the API server and Pod Security admission judge that Pod.
What the pinned operators add (read in their sources at the pinned tags):

- Training Operator v1.8.1: the `init-pytorch` init container in PyTorchJob workers
  (`psa/injected.py`).
- KubeRay v1.2.2, `ray-operator/controllers/ray/common/pod.go`: `DefaultWorkerPodTemplate` appends
  a `wait-gcs-ready` init container to every worker Pod (the Ray container's image, pull policy,
  securityContext, env and mounts; 200m CPU and 256Mi as requests and limits);
  `DefaultHeadPodTemplate` appends an `autoscaler` container to the head Pod when
  `enableInTreeAutoscaling` is set, with a securityContext only from
  `autoscalerOptions.securityContext`. A RayJob's submitter template becomes a batch Job's Pod, so
  its restartPolicy must be OnFailure or Never. (KubeRay's /dev/shm volume and metrics port are
  added only when absent, so they cannot make a Pod invalid and are not modelled.)
- Volcano v1.15.1, `pkg/controllers/job/plugins`: the job webhook turns on `svc` whenever
  `pytorch`, `tensorflow` or `mpi` is on (`mutate_job.go`, patchDefaultPlugins). `svc`
  (`svc/svc.go`, OnPodCreate) sets each Pod's hostname to its name `<job>-<task>-<index>` and its
  subdomain to the job's name (both must be DNS labels), adds `VC_<TASK>_HOSTS`/`VC_<TASK>_NUM`
  env to every container, and mounts a ConfigMap volume `<job>-svc` at /etc/volcano in every
  container and init container. `pytorch` (`distributed-framework/pytorch/pytorch.go`) adds a port
  named `pytorchjob-port` to each container without its `--port`, and with
  `--wait-master-enabled=true` a `wait-for-master` init container (`--wait-master-image`, default
  busybox:1.36.1, no securityContext) to worker Pods that have none of that name.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field, replace

from trainops.knowledge.pod_templates import PodTemplate
from trainops.knowledge.psa.injected import pytorch_init, receives_pytorch_init
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster
from trainops.model.shape import mapping, mappings, sequence

JOB_RESTART_POLICIES = ("OnFailure", "Never")
OPERATORS = {
    "kubeflow.org": "the Training Operator",
    "ray.io": "KubeRay",
    "jobset.x-k8s.io": "the JobSet controller",
    "batch.volcano.sh": "Volcano",
}
VOLCANO_SVC_MOUNT = "/etc/volcano"
VOLCANO_PYTORCH_PORT = 23456
VOLCANO_WAIT_MASTER_IMAGE = "busybox:1.36.1"
KUBERAY_GCS_PORT = 6379


@dataclass(frozen=True)
class Addition:
    """Something an operator adds: where it lands in the built Pod (a path prefix relative to the
    template), where to report a problem with it (a path the template has), and what it is."""

    path: str
    report_at: str
    description: str
    container_name: str | None = None  # an added container's name, for clashes with the template's


@dataclass(frozen=True)
class OperatorPod:
    template: PodTemplate  # the template as the operator turns it into a Pod
    additions: list[Addition] = field(default_factory=list)
    restart_policies: tuple[str, ...] | None = None  # set when the Pod belongs to a Job it makes
    error: str | None = None  # the operator's additions could not be worked out

    def addition_at(self, path: str) -> Addition | None:
        return next(
            (a for a in self.additions if path == a.path or path.startswith(a.path + ".")), None
        )


def operator_pod(obj: K8sObject, template: PodTemplate, cluster: Cluster) -> OperatorPod:
    """The Pod (as a template) the object's operator creates from `template`."""
    if obj.group == "kubeflow.org":
        return _training_operator(obj, template, cluster)
    if obj.group == "ray.io":
        return _kuberay(obj, template)
    if obj.group == "batch.volcano.sh" and obj.kind == "Job":
        return _volcano(obj, template)
    if obj.group == "jobset.x-k8s.io":
        return _jobset(obj, template)
    return OperatorPod(template)


_REPLICATED_JOB = re.compile(r"^spec\.replicatedJobs\[(\d+)\]\.")


def _jobset(obj: K8sObject, template: PodTemplate) -> OperatorPod:
    """A JobSet's template becomes a Job's (so a Job's restart policies), with a volume for each
    volumeClaimPolicies claim that targets its replicated job and that one of its containers
    mounts (JobSet v0.12.0, KEP-572 "Job Template Enhancement": addVolumes)."""
    spec = mapping(obj.doc.get("spec"))
    found = _REPLICATED_JOB.match(template.path)
    jobs = sequence(spec.get("replicatedJobs"))
    index = int(found.group(1)) if found else -1
    job_name = mapping(jobs[index]).get("name") if 0 <= index < len(jobs) else None
    mounted = {
        mount.get("name")
        for key in ("containers", "initContainers")
        for container in mappings(template.spec.get(key))
        for mount in mappings(container.get("volumeMounts"))
    }
    volumes = []
    for policy in mappings(spec.get("volumeClaimPolicies")):
        targets = sequence(policy.get("targetReplicatedJobs"))
        if targets and job_name not in targets:
            continue
        for claim in mappings(policy.get("templates")):
            name = mapping(claim.get("metadata")).get("name")
            if isinstance(name, str) and name in mounted:
                suffix = f"-{job_name}-0-0" if targets else ""
                volumes.append(
                    {
                        "name": name,
                        "persistentVolumeClaim": {"claimName": f"{name}-{obj.name}{suffix}"},
                    }
                )
    if not volumes:
        return OperatorPod(template, restart_policies=JOB_RESTART_POLICIES)
    built, additions = _appended(
        template.spec, "volumes", volumes, "the claim JobSet's volumeClaimPolicies adds"
    )
    return OperatorPod(
        replace(template, spec=built), additions, restart_policies=JOB_RESTART_POLICIES
    )


def _appended(spec: dict, key: str, items: list, description: str) -> tuple[dict, list[Addition]]:
    """`spec` with `items` appended to its list `key`, and an Addition for each (an added
    container also carries its name, for clashes with the template's own)."""
    existing = sequence(spec.get(key))
    containers = key in ("containers", "initContainers")
    return {**spec, key: existing + items}, [
        Addition(
            f"spec.{key}[{len(existing) + i}]",
            f"spec.{key}",
            description,
            item.get("name") if containers and isinstance(item, dict) else None,
        )
        for i, item in enumerate(items)
    ]


def _training_operator(obj: K8sObject, template: PodTemplate, cluster: Cluster) -> OperatorPod:
    if not receives_pytorch_init(obj.doc, template.path):
        return OperatorPod(template)
    injected = cluster.memo("pytorch-init", pytorch_init)
    if injected.error:
        return OperatorPod(
            template,
            error=f"cannot read the init container the Training Operator injects: {injected.error}",
        )
    spec, additions = _appended(
        template.spec,
        "initContainers",
        injected.containers,
        f"the init-pytorch container the Training Operator injects, from {injected.source}",
    )
    return OperatorPod(PodTemplate(template.path, template.metadata, spec), additions)


def _kuberay(obj: K8sObject, template: PodTemplate) -> OperatorPod:
    spec = template.spec
    if template.path.endswith("submitterPodTemplate"):
        return OperatorPod(template, restart_policies=JOB_RESTART_POLICIES)
    containers = [c for c in sequence(spec.get("containers")) if isinstance(c, dict)]
    if not containers:
        return OperatorPod(template)
    ray = containers[0]
    cluster_path, _, _ = template.path.rpartition(
        ".workerGroupSpecs[" if ".workerGroupSpecs[" in template.path else ".headGroupSpec"
    )
    additions: list[Addition] = []
    if ".workerGroupSpecs[" in template.path:
        wait = {
            "name": "wait-gcs-ready",
            "image": ray.get("image"),
            "imagePullPolicy": ray.get("imagePullPolicy"),
            "command": ["/bin/bash", "-lc", "--"],
            # The script (a `ray health-check` loop) does not affect admission; not modelled.
            "args": [f"ray health-check --address $(FQ_RAY_IP):{KUBERAY_GCS_PORT}"],
            "env": copy.deepcopy(sequence(ray.get("env"))),
            "volumeMounts": copy.deepcopy(sequence(ray.get("volumeMounts"))),
            "resources": {
                "limits": {"cpu": "200m", "memory": "256Mi"},
                "requests": {"cpu": "200m", "memory": "256Mi"},
            },
        }
        if ray.get("securityContext") is not None:
            wait["securityContext"] = copy.deepcopy(ray["securityContext"])
        spec, added = _appended(
            spec,
            "initContainers",
            [wait],
            "the wait-gcs-ready init container KubeRay adds to worker Pods",
        )
        additions += added
    elif template.path.endswith("headGroupSpec.template"):
        ray_cluster = mapping(_at(obj.doc, cluster_path))
        if ray_cluster.get("enableInTreeAutoscaling") is True:
            options = mapping(ray_cluster.get("autoscalerOptions"))
            autoscaler: dict = {
                "name": "autoscaler",
                # DefaultHeadPodTemplate passes the Ray container's image to
                # BuildAutoscalerContainer; autoscalerOptions.image overrides it.
                "image": options.get("image") or ray.get("image"),
                "resources": options.get("resources")
                or {
                    "limits": {"cpu": "500m", "memory": "512Mi"},
                    "requests": {"cpu": "500m", "memory": "512Mi"},
                },
            }
            if options.get("securityContext") is not None:
                autoscaler["securityContext"] = copy.deepcopy(options["securityContext"])
            spec, added = _appended(
                spec,
                "containers",
                [autoscaler],
                "the autoscaler container KubeRay adds to the head Pod "
                "(its securityContext comes from autoscalerOptions.securityContext)",
            )
            additions += added
    return OperatorPod(PodTemplate(template.path, template.metadata, spec), additions)


def _at(doc: dict, dotted: str) -> object:
    node: object = doc
    for part in dotted.split("."):
        node = mapping(node).get(part)
    return node


def _flags(arguments: object) -> dict[str, str]:
    """Go flag-package arguments (`--name=value`, `-name=value`) as a mapping."""
    flags = {}
    for argument in sequence(arguments):
        if isinstance(argument, str) and argument.startswith("-"):
            name, _, value = argument.lstrip("-").partition("=")
            flags[name] = value if _ else "true"
    return flags


def _volcano(obj: K8sObject, template: PodTemplate) -> OperatorPod:
    spec_root = mapping(obj.doc.get("spec"))
    plugins = mapping(spec_root.get("plugins"))
    if not plugins:
        return OperatorPod(template)
    task_index = int(template.path.split("[", 1)[1].split("]", 1)[0])
    all_tasks = sequence(spec_root.get("tasks"))
    task = mapping(all_tasks[task_index]) if task_index < len(all_tasks) else {}
    # The admission webhook names an unnamed task default<index> (mutate_job.go, mutateSpec).
    names = [str(mapping(t).get("name") or f"default{i}") for i, t in enumerate(all_tasks)]
    task_name = names[task_index] if task_index < len(names) else f"default{task_index}"
    count = task.get("replicas")
    replicas = count if type(count) is int else 1
    spec = template.spec
    additions: list[Addition] = []
    if "svc" in plugins or {"pytorch", "tensorflow", "mpi"} & set(plugins):
        spec, added = _volcano_svc(obj.name, task_name, max(replicas - 1, 0), names, spec)
        additions += added
    if "pytorch" in plugins:
        spec, added = _volcano_pytorch(_flags(plugins["pytorch"]), task_name, names, spec)
        additions += added
    return OperatorPod(PodTemplate(template.path, template.metadata, spec), additions)


def _volcano_svc(
    job: str, task: str, last_index: int, task_names: list[str], spec: dict
) -> tuple[dict, list[Addition]]:
    svc = "Volcano's svc plugin (on with pytorch, tensorflow and mpi)"
    spec = dict(spec)
    additions = []
    if not spec.get("hostname"):
        spec["hostname"] = f"{job}-{task}-{last_index}"
        additions.append(
            Addition(
                "spec.hostname", "spec.hostname", f"the hostname {svc} gives each Pod: its name"
            )
        )
    if not spec.get("subdomain"):
        spec["subdomain"] = job
        additions.append(
            Addition(
                "spec.subdomain",
                "spec.subdomain",
                f"the subdomain {svc} gives each Pod: the job's name",
            )
        )
    volume = f"{job}-svc"
    spec, added = _appended(
        spec, "volumes", [{"name": volume, "configMap": {"name": volume}}], f"the volume {svc} adds"
    )
    additions += added
    env = []
    for name in task_names:  # svc.go OnPodCreate: the ConfigMap key is the variable's name
        key = name.replace("-", "_").upper()
        env += [
            {
                "name": f"VC_{key}_{suffix}",
                "valueFrom": {"configMapKeyRef": {"name": volume, "key": f"VC_{key}_{suffix}"}},
            }
            for suffix in ("HOSTS", "NUM")
        ]
    for key in ("containers", "initContainers"):
        containers = []
        for index, container in enumerate(sequence(spec.get(key))):
            if not isinstance(container, dict):
                containers.append(container)
                continue
            mounts = sequence(container.get("volumeMounts"))
            variables = sequence(container.get("env"))
            containers.append(
                {
                    **container,
                    "env": variables + env,
                    "volumeMounts": mounts + [{"name": volume, "mountPath": VOLCANO_SVC_MOUNT}],
                }
            )
            base = f"spec.{key}[{index}]"
            additions.append(
                Addition(
                    f"{base}.volumeMounts[{len(mounts)}]",
                    f"{base}.volumeMounts",
                    f"the mount at {VOLCANO_SVC_MOUNT} {svc} adds to every container",
                )
            )
            additions += [
                Addition(
                    f"{base}.env[{len(variables) + i}]",
                    f"{base}.env",
                    f"the {variable['name']} variable {svc} adds to every container",
                )
                for i, variable in enumerate(env)
            ]
        if key in spec:
            spec[key] = containers
    return spec, additions


def _volcano_pytorch(
    flags: dict[str, str], task: str, task_names: list[str], spec: dict
) -> tuple[dict, list[Addition]]:
    plugin = "Volcano's pytorch plugin"
    if (flags.get("master") or "master") not in task_names:
        return spec, []  # pytorch.go OnPodCreate: no master task, nothing added
    port = int(flags["port"]) if flags.get("port", "").isdigit() else VOLCANO_PYTORCH_PORT
    spec = dict(spec)
    additions = []
    containers = []
    for index, container in enumerate(sequence(spec.get("containers"))):
        ports = sequence(container.get("ports")) if isinstance(container, dict) else []
        if isinstance(container, dict) and not any(
            mapping(p).get("containerPort") == port for p in ports
        ):
            container = {
                **container,
                "ports": ports + [{"name": "pytorchjob-port", "containerPort": port}],
            }
            additions.append(
                Addition(
                    f"spec.containers[{index}].ports[{len(ports)}]",
                    f"spec.containers[{index}].ports",
                    f"the pytorchjob-port port {plugin} opens on container port {port}",
                )
            )
        containers.append(container)
    if "containers" in spec:
        spec["containers"] = containers
    worker = flags.get("worker") or "worker"
    existing = [c for c in sequence(spec.get("initContainers")) if isinstance(c, dict)]
    if (
        flags.get("wait-master-enabled", "false").lower() in ("true", "1", "t")
        and task == worker
        and not any(c.get("name") == "wait-for-master" for c in existing)
    ):
        wait = {
            "name": "wait-for-master",
            "image": flags.get("wait-master-image") or VOLCANO_WAIT_MASTER_IMAGE,
            # The plugin's generated wait script does not affect admission; not modelled.
            "command": ["sh", "-c", "until nc -z $MASTER_ADDR $MASTER_PORT; do sleep 2; done"],
        }
        spec, added = _appended(
            spec,
            "initContainers",
            [wait],
            f"the wait-for-master init container {plugin} adds to worker Pods "
            "(--wait-master-enabled)",
        )
        additions += added
    return spec, additions
