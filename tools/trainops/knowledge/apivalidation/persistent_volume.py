"""PersistentVolumes as kube-apiserver v1.32.13 validates them on create
(pkg/apis/core/validation/validation.go ValidatePersistentVolume / ValidatePersistentVolumeSpec),
after the v1 defaults (pkg/apis/core/v1/defaults.go SetDefaults_PersistentVolume: reclaim policy
Retain, volumeMode Filesystem)."""

from __future__ import annotations

import posixpath

from trainops.knowledge.apivalidation import names, pod_volumes
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    forbidden,
    go_quantity,
    invalid,
    not_supported,
    parse_quantity,
    required,
)
from trainops.knowledge.apivalidation.pod_common import as_str, no_backsteps
from trainops.knowledge.apivalidation.pod_scheduling import node_selector
from trainops.model.shape import mapping

_ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_RECLAIM = ("Delete", "Recycle", "Retain")
_VOLUME_MODES = ("Block", "Filesystem")
_ONE_SOURCE = "may not specify more than 1 volume type"


def _csi(source: dict, path: str) -> Errors:
    """validateCSIPersistentVolumeSource: the driver's name and a volume handle."""
    errors: Errors = []
    driver = as_str(source.get("driver"))
    if not driver:
        errors.append((f"{path}.driver", required()))
    else:
        errors += [
            (f"{path}.driver", invalid(driver, m)) for m in names.dns1123_subdomain(driver.lower())
        ]
    if not as_str(source.get("volumeHandle")):
        errors.append((f"{path}.volumeHandle", required()))
    return errors


def _local(source: dict, path: str) -> Errors:
    """validateLocalVolumeSource."""
    target = as_str(source.get("path"))
    if not target:
        return [(f"{path}.path", required())]
    return no_backsteps(f"{path}.path", target)


def _unchecked(source: dict, path: str) -> Errors:
    return []


# ValidatePersistentVolumeSpec's order of sources: the first counts, each further one is
# "may not specify more than 1 volume type" (the checks of the ones not listed are left out).
_SOURCES = (
    ("hostPath", pod_volumes.host_path),
    ("gcePersistentDisk", _unchecked),
    ("awsElasticBlockStore", _unchecked),
    ("glusterfs", _unchecked),
    ("flocker", _unchecked),
    ("nfs", pod_volumes.nfs),
    ("rbd", _unchecked),
    ("quobyte", _unchecked),
    ("cephfs", _unchecked),
    ("iscsi", _unchecked),
    ("cinder", _unchecked),
    ("fc", pod_volumes.fc),
    ("flexVolume", _unchecked),
    ("azureFile", _unchecked),
    ("vsphereVolume", _unchecked),
    ("photonPersistentDisk", _unchecked),
    ("portworxVolume", _unchecked),
    ("azureDisk", pod_volumes.azure_disk),
    ("scaleIO", _unchecked),
    ("local", _local),
    ("storageos", _unchecked),
    ("csi", _csi),
)


def persistent_volume(doc: dict) -> Errors:
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    modes = spec.get("accessModes")
    modes = [m for m in modes if isinstance(m, str)] if isinstance(modes, list) else []
    if not modes:
        errors.append(("spec.accessModes", required()))
    for mode in modes:
        if mode not in _ACCESS_MODES:
            errors.append(("spec.accessModes", not_supported(mode, _ACCESS_MODES)))
    if "ReadWriteOncePod" in modes and any(m in _ACCESS_MODES[:3] for m in modes):
        message = "may not use ReadWriteOncePod with other access modes"
        errors.append(("spec.accessModes", forbidden(message)))
    errors += _capacity(mapping(spec.get("capacity")))
    klass = spec.get("storageClassName")
    if isinstance(klass, str) and klass:
        errors += [
            ("spec.storageClassName", invalid(klass, m)) for m in names.dns1123_subdomain(klass)
        ]
    mode = spec.get("volumeMode")
    if isinstance(mode, str) and mode not in _VOLUME_MODES:
        errors.append(("spec.volumeMode", not_supported(mode, _VOLUME_MODES)))
    reclaim = spec.get("persistentVolumeReclaimPolicy") or "Retain"
    if isinstance(reclaim, str) and reclaim not in _RECLAIM:
        errors.append(("spec.persistentVolumeReclaimPolicy", not_supported(reclaim, _RECLAIM)))
    affinity = spec.get("nodeAffinity")
    pinned = False
    if isinstance(affinity, dict):
        chosen = affinity.get("required")
        if isinstance(chosen, dict):
            pinned = True
            errors += node_selector(chosen, "spec.nodeAffinity.required")
        else:
            message = "must specify required node constraints"
            errors.append(("spec.nodeAffinity.required", required(message)))
    counted = False
    for key, check in _SOURCES:
        source = spec.get(key)
        if not isinstance(source, dict):
            continue
        if counted:
            errors.append((f"spec.{key}", forbidden(_ONE_SOURCE)))
            continue
        counted = True
        errors += check(source, f"spec.{key}")
        if key == "local" and not pinned:
            errors.append(("spec.nodeAffinity", required("Local volume requires node affinity")))
    if not counted:
        errors.append(("spec", required("must specify a volume type")))
    host = spec.get("hostPath")
    if (
        isinstance(host, dict)
        and posixpath.normpath(as_str(host.get("path")) or ".") in ("/", "//")
        and reclaim == "Recycle"
    ):
        message = "may not be 'recycle' for a hostPath mount of '/'"
        errors.append(("spec.persistentVolumeReclaimPolicy", forbidden(message)))
    return errors


def _capacity(capacity: dict) -> Errors:
    """Only `storage`, a positive quantity."""
    errors: Errors = []
    if not capacity:
        errors.append(("spec.capacity", required()))
    if "storage" not in capacity or len(capacity) > 1:
        shown = GoValue("core.ResourceList{...}")
        errors.append(("spec.capacity", not_supported(shown, ("storage",))))
    for name, amount in capacity.items():
        parsed = parse_quantity(amount)
        if isinstance(parsed, str):
            errors.append((f"spec.capacity[{name}]", parsed))
        elif parsed is not None and parsed.value <= 0:
            message = "must be greater than zero"
            errors.append((f"spec.capacity[{name}]", invalid(go_quantity(parsed), message)))
    return errors


LEFT_OUT = {
    "PersistentVolume": (
        "the own checks of the sources other than hostPath, nfs, fc, azureDisk, local and csi "
        "(csi's secret references too); mountOptions per source type; the claimRef"
    )
}
