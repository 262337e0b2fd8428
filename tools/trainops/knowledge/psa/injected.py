"""Containers an operator adds to pods at run time, which admission sees and the manifests do not.

The Kubeflow Training Operator (v1) adds an `init-pytorch` init container to the worker pods of
every PyTorchJob that has a Master. It renders the container from the Go template file named by
`--pytorch-init-container-template-file`, or from its built-in template (alpine:3.10, no
securityContext: it fails Pod Security `restricted`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

import yaml

from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster
from trainops.model.shape import mapping, mappings, sequence
from trainops.model.yaml_bounds import load_bounded

TEMPLATE_FLAG = "--pytorch-init-container-template-file="
# What {{.InitContainerImage}} becomes: the flag's value, else pkg/config's
# PyTorchInitContainerImageDefault (cmd/training-operator.v1/main.go defines the flag).
IMAGE_FLAG = "--pytorch-init-container-image="
DEFAULT_IMAGE = "alpine:3.10"
# The Training Operator's built-in template, as it renders for a job.
BUILT_IN = [
    {
        "name": "init-pytorch",
        "image": "alpine:3.10",
        "imagePullPolicy": "IfNotPresent",
        "command": ["sh", "-c", "until nslookup master; do echo waiting for master; sleep 2; done"],
        "resources": {
            "limits": {"cpu": "100m", "memory": "20Mi"},
            "requests": {"cpu": "50m", "memory": "10Mi"},
        },
    }
]
_GO_FIELD = re.compile(r"\{\{\s*\.(\w+)\s*\}\}")
_SAMPLE_VALUES = {
    "MasterAddr": "job-master-0",
    "MaxTries": "100",
    "InitContainerImage": "alpine:3.10",
}


@dataclass(frozen=True)
class InjectedInit:
    containers: list[dict]
    source: str  # says where the template came from, for messages
    error: str | None = None
    # The ConfigMap that holds the template, and its key: where its images are pinned; or, for
    # a template that takes its image from IMAGE_FLAG, the operator's Deployment.
    config_map: K8sObject | None = None
    key: str | None = None
    image_from: K8sObject | None = None


def _training_operator_args(cluster: Cluster):
    for obj in cluster.objects():
        if obj.kind != "Deployment":
            continue
        spec = mapping(mapping(mapping(obj.doc.get("spec")).get("template")).get("spec"))
        for container in mappings(spec.get("containers")):
            if (
                "training-operator" in str(container.get("image", ""))
                or container.get("name") == "training-operator"
            ):
                yield obj, spec, container


def training_operator_in(cluster: Cluster) -> bool:
    """Whether this scope holds the Training Operator's Deployment (and so its configuration)."""
    return next(_training_operator_args(cluster), None) is not None


def _config_map(cluster: Cluster, namespace: str | None, name: str):
    for obj in cluster.objects():
        if obj.kind == "ConfigMap" and obj.name == name and obj.namespace == namespace:
            return obj
    return None


def pytorch_init(cluster: Cluster) -> InjectedInit:
    """The init container the Training Operator in this cluster injects into PyTorchJob workers."""
    operators = list(_training_operator_args(cluster))
    if not operators:
        return InjectedInit(
            BUILT_IN,
            "the Training Operator's built-in template (no Training Operator in this environment)",
        )
    deployment, pod, container = operators[0]
    flag = next(
        (
            a
            for a in (sequence(container.get("args"))) + (sequence(container.get("command")))
            if a.startswith(TEMPLATE_FLAG)
        ),
        None,
    )
    if flag is None:
        return InjectedInit(
            BUILT_IN,
            f"the Training Operator's built-in template ({deployment.ref} sets no {TEMPLATE_FLAG[:-1]})",
        )
    arguments = sequence(container.get("args")) + sequence(container.get("command"))
    image = next(
        (
            a[len(IMAGE_FLAG) :]
            for a in arguments
            if isinstance(a, str) and a.startswith(IMAGE_FLAG)
        ),
        DEFAULT_IMAGE,
    )
    path = PurePosixPath(flag[len(TEMPLATE_FLAG) :])
    where = f"{deployment.ref} {TEMPLATE_FLAG}{path}"
    for mount in mappings(container.get("volumeMounts")):
        if path.is_relative_to(mount.get("mountPath", "/nonexistent")):
            volume = next(
                (v for v in mappings(pod.get("volumes")) if v.get("name") == mount.get("name")), {}
            )
            config_map = _config_map(
                cluster, deployment.namespace, str(mapping(volume.get("configMap")).get("name"))
            )
            if config_map is None:
                return InjectedInit(
                    [], where, f"{where}: no ConfigMap in this environment provides it"
                )
            key = str(path.relative_to(mount["mountPath"]))
            text = (mapping(config_map.doc.get("data"))).get(key)
            if text is None:
                return InjectedInit(
                    [], where, f"{where}: ConfigMap {config_map.name} has no key {key}"
                )
            values = {**_SAMPLE_VALUES, "InitContainerImage": image}
            filled = _GO_FIELD.sub(lambda m, v=values: v.get(m.group(1), m.group(1)), text)
            try:
                containers = load_bounded(filled)
            except yaml.YAMLError as error:
                return InjectedInit([], where, f"{where}: the template is not YAML: {error}")
            if not isinstance(containers, list) or not all(
                isinstance(c, dict) and c.get("name") for c in containers
            ):
                return InjectedInit(
                    [], where, f"{where}: the template must be a YAML list of containers"
                )
            return InjectedInit(
                containers,
                f"ConfigMap {config_map.name} ({config_map.file}) mounted at {path}",
                config_map=config_map,
                key=key,
                image_from=deployment if "InitContainerImage" in text else None,
            )
    return InjectedInit([], where, f"{where}: no volume is mounted at that path")


def awaited_ports(init: InjectedInit) -> list[int]:
    """The ports on the Master that the init containers wait for: a port written after
    {{.MasterAddr}} (as `host port` or `host:port`) in a command or its args. The operator offers
    the template no port, so one is written in it (v1.8.1 pkg/controller.v1/pytorch/
    initcontainer.go, setInitContainer, fills MasterAddr and MaxTries only)."""
    address = re.escape(_SAMPLE_VALUES["MasterAddr"])
    after = re.compile(address + r"(?::|\s+)(\d{1,5})\b")
    found: list[int] = []
    for container in init.containers:
        for word in sequence(container.get("command")) + sequence(container.get("args")):
            for port in after.findall(str(word)):
                if int(port) not in found:
                    found.append(int(port))
    return found


def receives_pytorch_init(doc: dict, template_path: str) -> bool:
    """Whether the Training Operator injects init-pytorch into pods of this template."""
    if doc.get("kind") != "PyTorchJob" or not str(doc.get("apiVersion", "")).startswith(
        "kubeflow.org/"
    ):
        return False
    replicas = mapping((mapping(doc.get("spec"))).get("pytorchReplicaSpecs"))
    return "Master" in replicas and not template_path.startswith("spec.pytorchReplicaSpecs.Master.")
