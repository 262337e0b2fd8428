"""Pod templates wherever a kind nests them, defaulted as the API server would before admission."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass

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


def _template(path: str, template: dict | None) -> PodTemplate | None:
    if not isinstance(template, dict):
        return None
    return PodTemplate(path, template.get("metadata") or {}, template.get("spec") or {})


def _ray_cluster(prefix: str, cluster: dict | None) -> Iterator[PodTemplate | None]:
    cluster = cluster or {}
    yield _template(
        f"{prefix}.headGroupSpec.template", (cluster.get("headGroupSpec") or {}).get("template")
    )
    for index, group in enumerate(cluster.get("workerGroupSpecs") or []):
        yield _template(
            f"{prefix}.workerGroupSpecs[{index}].template", (group or {}).get("template")
        )


def _raw_templates(doc: dict) -> Iterator[PodTemplate | None]:
    kind, group = doc.get("kind"), doc.get("apiVersion", "").rpartition("/")[0]
    spec = doc.get("spec") or {}
    if kind == "Pod" and group == "":
        yield PodTemplate("", doc.get("metadata") or {}, spec)
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
            ((spec.get("jobTemplate") or {}).get("spec") or {}).get("template"),
        )
    elif group == "kubeflow.org" and kind in _REPLICA_SPECS:
        field = _REPLICA_SPECS[kind]
        for role, replica in (spec.get(field) or {}).items():
            yield _template(f"spec.{field}.{role}.template", (replica or {}).get("template"))
    elif group == "ray.io" and kind == "RayCluster":
        yield from _ray_cluster("spec", spec)
    elif group == "ray.io" and kind == "RayJob":
        yield from _ray_cluster("spec.rayClusterSpec", spec.get("rayClusterSpec"))
        if spec.get("submitterPodTemplate") is not None:
            yield _template("spec.submitterPodTemplate", spec.get("submitterPodTemplate"))
    elif group == "ray.io" and kind == "RayService":
        yield from _ray_cluster("spec.rayClusterConfig", spec.get("rayClusterConfig"))
    elif group == "jobset.x-k8s.io" and kind == "JobSet":
        for index, job in enumerate(spec.get("replicatedJobs") or []):
            job_spec = ((job or {}).get("template") or {}).get("spec") or {}
            yield _template(
                f"spec.replicatedJobs[{index}].template.spec.template", job_spec.get("template")
            )
    elif group == "batch.volcano.sh" and kind == "Job":
        for index, task in enumerate(spec.get("tasks") or []):
            yield _template(f"spec.tasks[{index}].template", (task or {}).get("template"))


def default_pod_spec(spec: dict) -> dict:
    """The spec as admission sees it: a volume naming no source has been defaulted to emptyDir."""
    volumes = spec.get("volumes") or []
    if all(_VOLUME_SOURCES & set(v) for v in volumes if isinstance(v, dict)):
        return spec
    spec = copy.copy(spec)
    spec["volumes"] = [
        v if not isinstance(v, dict) or _VOLUME_SOURCES & set(v) else {**v, "emptyDir": {}}
        for v in volumes
    ]
    return spec


def pod_templates(doc: dict) -> list[PodTemplate]:
    """Every pod template of an object, defaulted; [] for kinds that run no pods."""
    return [
        PodTemplate(t.path, t.metadata, default_pod_spec(t.spec))
        for t in _raw_templates(doc)
        if t is not None
    ]
