"""Training Operator v1.8.1 pkg/webhooks/pytorch/pytorchjob_webhook.go: validatePyTorchJob, on
create and update alike (the operator serves no mutating webhook: what it sees is what the
repository holds, with the API server's defaults)."""

from __future__ import annotations

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    forbidden,
    invalid,
    not_supported,
    required,
)
from trainops.model.shape import mapping

UPSTREAM = "pkg/webhooks/pytorch/pytorchjob_webhook.go validatePyTorchJob, Training Operator v1.8.1"

_ROLES = ("Master", "Worker")
_DEFAULT_CONTAINER = "pytorch"  # PyTorchJobDefaultContainerName
_SPECS = "spec.pytorchReplicaSpecs"


def validate_pytorch_job(doc: dict) -> Errors:
    metadata = mapping(doc.get("metadata"))
    name = metadata.get("name")
    if not name and isinstance(metadata.get("generateName"), str):
        # The API server generates the name (five letters or digits after generateName) before
        # the validating webhooks see the object.
        name = metadata["generateName"] + "x"
    name = name if isinstance(name, str) else ""
    errors: Errors = []
    if problems := names.dns1035_label(name):
        detail = f"should match: {','.join(problems)}"
        errors.append(("metadata.name", invalid(metadata.get("name") or "", detail)))
    spec = mapping(doc.get("spec"))
    elastic = mapping(spec.get("elasticPolicy"))
    if elastic.get("nProcPerNode") is not None and spec.get("nprocPerNode") is not None:
        # The deprecation warning the webhook also returns is not a refusal.
        detail = "must not be used with spec.nprocPerNode"
        errors.append(("spec.elasticPolicy.nProcPerNode", forbidden(detail)))
    return errors + _replica_specs(spec.get("pytorchReplicaSpecs"))


def _replica_specs(specs: object) -> Errors:
    """validatePyTorchReplicaSpecs (upstream walks a Go map: its errors come in a random order
    between roles; here, in the file's)."""
    if specs is None:
        return [(_SPECS, required("must be required"))]
    errors: Errors = []
    for role, replica in mapping(specs).items():
        where = f"{_SPECS}[{role}]"
        containers_path = f"{where}.template.spec.containers"
        if role not in _ROLES:
            errors.append((where, not_supported(role, _ROLES)))
        replica = replica if isinstance(replica, dict) else None
        template_spec = mapping(mapping(mapping(replica).get("template")).get("spec"))
        containers = template_spec.get("containers")
        containers = containers if isinstance(containers, list) else []
        if replica is None or not containers:
            errors.append((containers_path, required("must be specified")))
        default_present = False
        for index, container in enumerate(containers):
            container = mapping(container)
            if not container.get("image"):
                errors.append((f"{containers_path}[{index}].image", required("must be required")))
            if container.get("name") == _DEFAULT_CONTAINER:
                default_present = True
        if not default_present:
            detail = f"must have at least one container with name {_DEFAULT_CONTAINER}"
            errors.append((containers_path, required(detail)))
        if role == "Master" and mapping(replica).get("replicas") != 1:
            errors.append((f"{where}.replicas", forbidden("must be 1")))
    return errors
