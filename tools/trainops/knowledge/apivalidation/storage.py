"""storage.k8s.io as kube-apiserver v1.32.13 validates it on create
(pkg/apis/storage/validation/validation.go: ValidateStorageClass, ValidateVolumeAttachment,
ValidateCSIDriver, ValidateCSINode, ValidateCSIStorageCapacity), after the v1 defaults (pkg/apis/storage/v1/defaults.go:
reclaimPolicy Delete, volumeBindingMode Immediate; a CSIDriver's attachRequired and
podInfoOnMount, its fsGroupPolicy ReadWriteOnceWithFSType, volumeLifecycleModes Persistent)."""

from __future__ import annotations

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    duplicate,
    invalid,
    not_supported,
    parse_quantity,
    required,
    too_long,
    validate_label_selector,
)
from trainops.model.shape import mapping, mappings

_RECLAIM = ("Delete", "Retain")
_BINDING_MODES = ("Immediate", "WaitForFirstConsumer")
_LIFECYCLE = ("Ephemeral", "Persistent")
_FS_GROUP = ("File", "None", "ReadWriteOnceWithFSType")
_MAX_PROVISIONER = 63
_MAX_PARAMETERS = 512
_MAX_PARAMETERS_BYTES = 256 * (1 << 10)
_CSI_DRIVER_NAME_MAX = 63
_CSI_NODE_ID_MAX = 192


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def csi_driver_name(name: str, path: str) -> Errors:
    """apivalidation ValidateCSIDriverName (core/validation)."""
    if not name:
        return [(path, required())]
    errors: Errors = []
    if len(name) > _CSI_DRIVER_NAME_MAX:
        errors.append((path, too_long(_CSI_DRIVER_NAME_MAX)))
    errors += [(path, invalid(name, m)) for m in names.dns1123_subdomain(name.lower())]
    return errors


def storage_class(doc: dict) -> Errors:
    """ValidateStorageClass."""
    errors: Errors = []
    provisioner = _text(doc.get("provisioner"))
    if not provisioner:
        errors.append(("provisioner", required()))
    else:
        if len(provisioner) > _MAX_PROVISIONER:
            errors.append(("provisioner", too_long(_MAX_PROVISIONER)))
        errors += [
            ("provisioner", invalid(provisioner, m))
            for m in names.qualified_name(provisioner.lower())
        ]
    parameters = mapping(doc.get("parameters"))
    size = sum(len(k) + len(str(v)) for k, v in parameters.items())
    if len(parameters) > _MAX_PARAMETERS:
        errors.append(
            (
                "parameters",
                f"Too many: {len(parameters)}: must have at most {_MAX_PARAMETERS} items",
            )
        )
    if size > _MAX_PARAMETERS_BYTES:
        errors.append(("parameters", too_long(_MAX_PARAMETERS_BYTES)))
    reclaim = doc.get("reclaimPolicy")
    if isinstance(reclaim, str) and reclaim not in _RECLAIM:
        errors.append(("reclaimPolicy", not_supported(reclaim, _RECLAIM)))
    mode = doc.get("volumeBindingMode")
    if isinstance(mode, str) and mode not in _BINDING_MODES:
        errors.append(("volumeBindingMode", not_supported(mode, _BINDING_MODES)))
    return errors


def volume_attachment(doc: dict) -> Errors:
    """ValidateVolumeAttachment / validateVolumeAttachmentSource (create: the status is dropped)."""
    spec = mapping(doc.get("spec"))
    errors = csi_driver_name(_text(spec.get("attacher")), "spec.attacher")
    source = mapping(spec.get("source"))
    volume, inline = source.get("persistentVolumeName"), source.get("inlineVolumeSpec")
    if volume is None and inline is None:
        message = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
        errors.append(("spec.source", required(message)))
    elif volume is not None and inline is not None:
        message = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
        errors.append(("spec.source", f"Forbidden: {message}"))
    elif volume is not None and not volume:
        errors.append(
            (
                "spec.source.persistentVolumeName",
                required("must specify non empty persistentVolumeName"),
            )
        )
    node = _text(spec.get("nodeName"))
    if not node:
        errors.append(("spec.nodeName", required()))
    else:
        errors += [("spec.nodeName", invalid(node, m)) for m in names.dns1123_subdomain(node)]
    return errors


def csi_driver(doc: dict) -> Errors:
    """ValidateCSIDriver: the name, and the spec's enumerations."""
    errors = csi_driver_name(_text(mapping(doc.get("metadata")).get("name")), "name")
    spec = mapping(doc.get("spec"))
    policy = spec.get("fsGroupPolicy")
    if isinstance(policy, str) and policy not in _FS_GROUP:
        errors.append(("spec.fsGroupPolicy", not_supported(policy, _FS_GROUP)))
    modes = spec.get("volumeLifecycleModes")
    for index, mode in enumerate(modes if isinstance(modes, list) else []):
        if mode not in _LIFECYCLE:
            shown = mode if isinstance(mode, str) else ""
            errors.append((f"spec.volumeLifecycleModes[{index}]", not_supported(shown, _LIFECYCLE)))
    audiences: set[str] = set()
    for index, request in enumerate(mappings(spec.get("tokenRequests"))):
        audience = _text(request.get("audience"))
        if audience in audiences:
            errors.append((f"spec.tokenRequests[{index}].audience", duplicate(audience)))
        audiences.add(audience)
        seconds = request.get("expirationSeconds")
        if isinstance(seconds, int) and seconds < 600:
            message = "may not specify a duration less than 10 minutes"
            errors.append(
                (f"spec.tokenRequests[{index}].expirationSeconds", invalid(seconds, message))
            )
    return errors


def csi_node(doc: dict) -> Errors:
    """ValidateCSINode / validateCSINodeDrivers."""
    errors: Errors = []
    seen: set[str] = set()
    for index, driver in enumerate(mappings(mapping(doc.get("spec")).get("drivers"))):
        path = f"spec.drivers[{index}]"
        name = _text(driver.get("name"))
        errors += csi_driver_name(name, f"{path}.name")
        node = _text(driver.get("nodeID"))
        if not node:
            errors.append((f"{path}.nodeID", required()))
        elif len(node) > _CSI_NODE_ID_MAX:
            message = f"must be {_CSI_NODE_ID_MAX} characters or less"
            errors.append((f"{path}.nodeID", invalid(node, message)))
        keys: set[str] = set()
        keys_listed = driver.get("topologyKeys")
        for k, key in enumerate(keys_listed if isinstance(keys_listed, list) else []):
            key = _text(key)
            if not key:
                errors.append((f"{path}.topologyKeys", required()))
                continue
            if key in keys:
                errors.append((f"{path}.topologyKeys[{k}]", duplicate(key)))
            keys.add(key)
            errors += [
                (f"{path}.topologyKeys[{k}]", invalid(key, m)) for m in names.qualified_name(key)
            ]
        if name in seen:
            errors.append((f"{path}.name", duplicate(name)))
        seen.add(name)
    return errors


def csi_storage_capacity(doc: dict) -> Errors:
    """storage ValidateCSIStorageCapacity (v1.32.13): nodeTopology's ValidateLabelSelector
    (label values held to their syntax on create), storageClassName a DNS subdomain
    (ValidateClassName), and a capacity that is not negative (ValidateNonnegativeQuantity);
    maximumVolumeSize is not checked."""
    errors = validate_label_selector(doc.get("nodeTopology"), "nodeTopology")
    name = _text(doc.get("storageClassName"))
    errors += [("storageClassName", invalid(name, m)) for m in names.dns1123_subdomain(name)]
    capacity = parse_quantity(doc.get("capacity"))
    if isinstance(capacity, str):
        errors.append(("capacity", capacity))
    elif capacity is not None and capacity.value < 0:
        errors.append(
            ("capacity", invalid(capacity.string(), "must be greater than or equal to 0"))
        )
    return errors


LEFT_OUT = {
    "StorageClass": "allowedTopologies, and mountOptions' syntax",
    "VolumeAttachment": "an inline volume spec's own validation (as a PersistentVolume's)",
    "CSIDriver": "",
    "CSINode": "the allocatable count",
    "CSIStorageCapacity": "",
}
