"""Pod templates wherever a kind nests them, defaulted as the API server would before admission."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import jsonschema_rs

from trainops.model import quantity
from trainops.model.config import DEFAULT_KUBERNETES_VERSIONS
from trainops.model.objects import K8sObject
from trainops.model.shape import mapping, sequence

# The volume sources a volume may name; one with none of them is defaulted to an emptyDir.
_VOLUME_SOURCES = frozenset(
    [
        "awsElasticBlockStore",
        "azureDisk",
        "azureFile",
        "cephfs",
        "cinder",
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "fc",
        "flexVolume",
        "flocker",
        "gcePersistentDisk",
        "gitRepo",
        "glusterfs",
        "hostPath",
        "image",
        "iscsi",
        "nfs",
        "persistentVolumeClaim",
        "photonPersistentDisk",
        "portworxVolume",
        "projected",
        "quobyte",
        "rbd",
        "scaleIO",
        "secret",
        "storageos",
        "vsphereVolume",
    ]
)

# kubeflow.org/v1 training jobs: kind -> the field holding their replica specs.
_REPLICA_SPECS = {
    "PyTorchJob": "pytorchReplicaSpecs",
    "TFJob": "tfReplicaSpecs",
    "PaddleJob": "paddleReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs",
    "MPIJob": "mpiReplicaSpecs",
    "MXJob": "mxReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs",
}


@dataclass(frozen=True)
class PodTemplate:
    path: str  # JSON path of the template (metadata + spec) inside its object; "" for a Pod
    metadata: dict
    spec: dict

    def child(self, relative: str) -> str:
        return f"{self.path}.{relative}" if self.path else relative


def _template(path: str, template: object) -> PodTemplate | None:
    if not isinstance(template, dict):
        return None
    return PodTemplate(path, mapping(template.get("metadata")), mapping(template.get("spec")))


def _ray_cluster(prefix: str, cluster: object) -> Iterator[PodTemplate | None]:
    cluster = mapping(cluster)
    yield _template(
        f"{prefix}.headGroupSpec.template", mapping(cluster.get("headGroupSpec")).get("template")
    )
    for index, group in enumerate(sequence(cluster.get("workerGroupSpecs"))):
        yield _template(
            f"{prefix}.workerGroupSpecs[{index}].template", mapping(group).get("template")
        )


def _raw_templates(doc: dict) -> Iterator[PodTemplate | None]:
    kind, group = doc.get("kind"), str(doc.get("apiVersion", "")).rpartition("/")[0]
    spec = mapping(doc.get("spec"))
    if kind == "Pod" and group == "":
        yield PodTemplate("", mapping(doc.get("metadata")), spec)
    elif kind == "PodTemplate" and group == "":
        yield _template("template", doc.get("template"))
    elif (
        kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")
        and group
        in (
            "apps",
            "extensions",
        )
        or kind == "ReplicationController"
        and group == ""
        or kind == "Job"
        and group == "batch"
    ):
        yield _template("spec.template", spec.get("template"))
    elif kind == "CronJob" and group == "batch":
        yield _template(
            "spec.jobTemplate.spec.template",
            mapping(mapping(spec.get("jobTemplate")).get("spec")).get("template"),
        )
    elif group == "kubeflow.org" and kind in _REPLICA_SPECS:
        field = _REPLICA_SPECS[kind]
        for role, replica in mapping(spec.get(field)).items():
            yield _template(f"spec.{field}.{role}.template", mapping(replica).get("template"))
    elif group == "ray.io" and kind == "RayCluster":
        yield from _ray_cluster("spec", spec)
    elif group == "ray.io" and kind == "RayJob":
        yield from _ray_cluster("spec.rayClusterSpec", spec.get("rayClusterSpec"))
        if spec.get("submitterPodTemplate") is not None:
            yield _template("spec.submitterPodTemplate", spec.get("submitterPodTemplate"))
    elif group == "ray.io" and kind == "RayService":
        yield from _ray_cluster("spec.rayClusterConfig", spec.get("rayClusterConfig"))
    elif group == "jobset.x-k8s.io" and kind == "JobSet":
        for index, job in enumerate(sequence(spec.get("replicatedJobs"))):
            job_spec = mapping(mapping(mapping(job).get("template")).get("spec"))
            yield _template(
                f"spec.replicatedJobs[{index}].template.spec.template", job_spec.get("template")
            )
    elif group == "batch.volcano.sh" and kind == "Job":
        for index, task in enumerate(sequence(spec.get("tasks"))):
            yield _template(f"spec.tasks[{index}].template", mapping(task).get("template"))


# Errors meaning a value has the wrong type (not a missing or unknown field, or a bad enum).
_SHAPE_ERRORS = {"Type", "AnyOf", "OneOfNotValid"}


# The Kubernetes version whose PodTemplateSpec every template's shape is checked against.
SHAPE_VERSION = DEFAULT_KUBERNETES_VERSIONS[-1]


@cache
def _template_validator() -> jsonschema_rs.Validator:
    """Kubernetes' PodTemplateSpec schema: what every kind's pod template must look like."""
    from trainops.knowledge.schema import core

    definitions = core.definitions(SHAPE_VERSION)
    schema = {"$ref": "#/$defs/io.k8s.api.core.v1.PodTemplateSpec", "$defs": definitions}
    return jsonschema_rs.validator_for(schema, validate_formats=False)


def _path(parts: list[str | int]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")


def ill_shaped_templates(doc: dict) -> list[tuple[str, str]]:
    """(path, what is wrong) for each pod template of `doc` with a field of the wrong type."""
    found = []
    for template in _raw_templates(doc):
        if template is None:
            continue
        shaped = {"metadata": template.metadata, "spec": template.spec}
        for error in _template_validator().iter_errors(shaped):
            if type(error.kind).__name__ in _SHAPE_ERRORS:
                found.append((template.child(_path(list(error.instance_path))), error.message))
                break
    return found


def default_pod_spec(spec: dict) -> dict:
    """The spec as admission sees it: a volume naming no source has been defaulted to emptyDir."""
    volumes = sequence(spec.get("volumes"))
    if all(_VOLUME_SOURCES & set(v) for v in volumes if isinstance(v, dict)):
        return spec
    spec = copy.copy(spec)
    spec["volumes"] = [
        v if not isinstance(v, dict) or _VOLUME_SOURCES & set(v) else {**v, "emptyDir": {}}
        for v in volumes
    ]
    return spec


def pod_templates(doc: dict, shaped: bool = False) -> list[PodTemplate]:
    """Every pod template of an object, defaulted; [] for kinds that run no pods. Those with a
    field of the wrong type are left out, unless the caller knows there are none (`shaped`)."""
    return [
        PodTemplate(t.path, t.metadata, default_pod_spec(t.spec))
        for t in _raw_templates(doc)
        if t is not None and (shaped or not _ill_shaped(t))
    ]


def _ill_shaped(template: PodTemplate) -> bool:
    """Whether a field of the template has the wrong type: the checks that read pods would
    misread it, so they see only well-shaped templates (the schema rule reports the rest)."""
    shaped = {"metadata": template.metadata, "spec": template.spec}
    if _template_validator().is_valid(shaped):
        return False
    return any(
        type(error.kind).__name__ in _SHAPE_ERRORS
        for error in _template_validator().iter_errors(shaped)
    )


def templates_of(obj: K8sObject) -> list[PodTemplate]:
    """obj's pod templates, defaulted and well-shaped: found once per object, for most rules read
    them and the shape check is the costly part."""
    return obj.memo("pod templates", lambda o: pod_templates(o.doc))


def known_well_shaped(obj: K8sObject) -> None:
    """Say that no field of obj's pod templates has the wrong type, so templates_of() need not
    ask: the caller knows the object holds no such field by the schema of its built-in kind at
    SHAPE_VERSION (which reaches its templates through the same PodTemplateSpec definition, so
    it finds every error _ill_shaped would, at the same places)."""
    obj.memo("pod templates", lambda o: pod_templates(o.doc, shaped=True))


GPU = "nvidia.com/gpu"
# What NVIDIA's device plugin advertises besides whole GPUs (NVIDIA GPU Operator docs,
# gpu-sharing.html and gpu-operator-mig.html): time-sliced replicas renamed by `renameByDefault`,
# and under the mixed MIG strategy one resource per MIG profile, nvidia.com/mig-<g>g.<mem>gb (with
# a compute-instance prefix `<c>c.` or an extension such as `+me` for some profiles).
SHARED_GPU = "nvidia.com/gpu.shared"
_MIG = re.compile(r"nvidia\.com/mig-(\d+c\.)?\d+g\.\d+gb(\+[a-z0-9]+)*")


def is_mig(name: str) -> bool:
    """Whether a resource is a MIG instance of NVIDIA's device plugin (mixed strategy)."""
    return _MIG.fullmatch(name) is not None


def is_gpu(name: str) -> bool:
    """Whether a resource is a GPU or a share of one: a whole GPU, a time-sliced replica or a MIG
    instance, as NVIDIA's device plugin names them."""
    return name in (GPU, SHARED_GPU) or is_mig(name)


def is_shared_gpu(name: str) -> bool:
    """A share of a GPU, not a whole one: a time-sliced replica (renamed) or a MIG instance."""
    return name == SHARED_GPU or is_mig(name)


def gpu_requests(container: dict) -> dict[str, float]:
    """The GPUs, and shares of GPUs, a container asks for, by resource name: its requests, else
    its limits (the device plugin's resources are not overcommitted, so a limit alone is also the
    request); names it asks none of, or whose amount does not parse (the API server's check
    reports that), are left out."""
    resources = mapping(container.get("resources"))
    merged = {**mapping(resources.get("limits")), **mapping(resources.get("requests"))}
    found = {}
    for name, value in merged.items():
        if not isinstance(name, str) or not is_gpu(name):
            continue
        try:
            amount = quantity.parse(value)
        except ValueError:
            continue
        if amount > 0:
            found[name] = amount
    return found


def gpus(container: dict) -> float:
    """How many GPUs, or shares of GPUs, a container asks for (every GPU resource summed); 0 when
    it names none."""
    return sum(gpu_requests(container).values())
