"""A Pod's volumes as the API server validates them (validation.go: ValidateVolumes,
validateVolumeSource and the validate<Source>VolumeSource functions, validateProjectionSources,
validateDownwardAPIVolumeFile, validateEphemeralVolumeSource), after v1 defaulting (a volume
naming no source is an emptyDir; azureDisk's kind Shared, cachingMode ReadWrite; a token's
expirationSeconds 3600)."""

from __future__ import annotations

import re
from collections.abc import Callable

from trainops.knowledge.apivalidation import core, names
from trainops.knowledge.apivalidation.formats import (
    forbidden,
    go_quote,
    invalid,
    not_supported,
    required,
)
from trainops.knowledge.apivalidation.meta import Errors
from trainops.knowledge.apivalidation.pod_common import (
    VOLUME_FIELD_PATHS,
    as_int,
    as_str,
    dicts,
    file_mode,
    key_to_path,
    label,
    local_descending_path,
    local_non_reserved_path,
    memoized,
    no_backsteps,
    object_field_selector,
    qualified,
    quantity,
    resource_field_selector,
    subdomain,
)

_ONE_SOURCE = "may not specify more than 1 volume type"
_PD_PARTITION = "must be between 1 and 255, inclusive"  # pdPartitionErrorMsg, as upstream words it


def volume_source(volume: dict, path: str, name: str) -> Errors:
    """validateVolumeSource: one source, each checked by its own function. The first source in
    upstream's order counts; each further one is reported under the name upstream gives it."""
    errors: Errors = []
    counted = False
    found = [
        _BY_KEY[key] for key, value in volume.items() if key in _BY_KEY and isinstance(value, dict)
    ]
    if len(found) > 1:
        found.sort()
    for _, key, second, checked, check in found:
        settings = volume[key]
        if counted:
            errors.append((f"{path}.{second}", forbidden(_ONE_SOURCE)))
        else:
            counted = True
            errors += check(settings, f"{path}.{checked}")
        if key == "iscsi" and settings.get("initiatorName") is not None:
            portal = as_str(settings.get("targetPortal"))
            if len(f"{name}:{portal}") > 64:
                message = (
                    "Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters "
                    "if iscsi.initiatorName is specified."
                )
                errors.append((f"{path}.name", invalid(name, message)))
    return errors


def _empty_dir(source: dict, path: str) -> Errors:
    size = source.get("sizeLimit")
    if size is None:
        return []
    parsed = quantity(size)
    if isinstance(parsed, str):
        return [(f"{path}.sizeLimit", parsed)]
    if parsed.value < 0:
        return [
            (f"{path}.sizeLimit", forbidden("SizeLimit field must be a valid resource quantity"))
        ]
    return []


# validateHostPathType: sets.List(supportedHostPathTypes)
_HOST_PATH_TYPES = (
    "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"
)  # fmt: skip


def _host_path(source: dict, path: str) -> Errors:
    target = as_str(source.get("path"))
    if not target:
        return [(f"{path}.path", required())]
    errors = no_backsteps(f"{path}.path", target)
    kind = source.get("type")
    if isinstance(kind, str) and kind not in _HOST_PATH_TYPES:
        errors.append((f"{path}.type", not_supported(kind, _HOST_PATH_TYPES)))
    return errors


def _git_repo(source: dict, path: str) -> Errors:
    errors: Errors = []
    if not as_str(source.get("repository")):
        errors.append((f"{path}.repository", required()))
    return errors + local_descending_path(f"{path}.directory", as_str(source.get("directory")))


def _gce_disk(source: dict, path: str) -> Errors:
    errors = [] if as_str(source.get("pdName")) else [(f"{path}.pdName", required())]
    return errors + _partition(source, path)


def _aws_disk(source: dict, path: str) -> Errors:
    errors = [] if as_str(source.get("volumeID")) else [(f"{path}.volumeID", required())]
    return errors + _partition(source, path)


def _partition(source: dict, path: str) -> Errors:
    partition = as_int(source.get("partition"))
    if partition is not None and not 0 <= partition <= 255:
        return [(f"{path}.partition", invalid(partition, _PD_PARTITION))]
    return []


def _items(source: dict, path: str) -> Errors:
    errors: Errors = []
    items = source.get("items")
    if isinstance(items, list):
        for index, item in enumerate(items):
            if isinstance(item, dict):
                errors += key_to_path(item, f"{path}.items[{index}]")
    return errors


def _secret(source: dict, path: str) -> Errors:
    errors = [] if as_str(source.get("secretName")) else [(f"{path}.secretName", required())]
    errors += file_mode(f"{path}.defaultMode", source.get("defaultMode"))
    return errors + _items(source, path)


def _config_map(source: dict, path: str) -> Errors:
    errors = [] if as_str(source.get("name")) else [(f"{path}.name", required())]
    errors += file_mode(f"{path}.defaultMode", source.get("defaultMode"))
    return errors + _items(source, path)


def _nfs(source: dict, path: str) -> Errors:
    errors: Errors = []
    if not as_str(source.get("server")):
        errors.append((f"{path}.server", required()))
    target = as_str(source.get("path"))
    if not target:
        errors.append((f"{path}.path", required()))
    if not target.startswith("/"):
        errors.append((f"{path}.path", invalid(target, "must be an absolute path")))
    return errors


_IQN = re.compile(r"iqn\.\d{4}-\d{2}\.([A-Za-z0-9-.]+)(:[^,;*&$|\s]+)$")
_EUI = re.compile(r"^eui.[A-Za-z0-9]{16}$")
_NAA = re.compile(r"^naa.[A-Za-z0-9]{32}$")


def _iscsi(source: dict, path: str) -> Errors:
    errors: Errors = []
    if not as_str(source.get("targetPortal")):
        errors.append((f"{path}.targetPortal", required()))
    iqn = as_str(source.get("iqn"))
    if not iqn:
        errors.append((f"{path}.iqn", required()))
    elif not iqn.startswith(("iqn", "eui", "naa")):
        message = "must be valid format starting with iqn, eui, or naa"
        errors.append((f"{path}.iqn", invalid(iqn, message)))
    elif not _iscsi_name_matches(iqn):
        errors.append((f"{path}.iqn", invalid(iqn, "must be valid format")))
    lun = as_int(source.get("lun"))
    if lun is not None and not 0 <= lun <= 255:
        errors.append((f"{path}.lun", invalid(lun, "must be between 0 and 255, inclusive")))
    chap = source.get("chapAuthDiscovery") is True or source.get("chapAuthSession") is True
    if chap and source.get("secretRef") is None:
        errors.append((f"{path}.secretRef", required()))
    initiator = source.get("initiatorName")
    if isinstance(initiator, str):
        if not initiator.startswith(("iqn", "eui", "naa")):
            message = "must be valid format starting with iqn, eui, or naa"
            errors.append((f"{path}.initiatorname", invalid(initiator, message)))
        elif not _iscsi_name_matches(initiator):
            errors.append((f"{path}.initiatorname", invalid(initiator, "must be valid format")))
    return errors


def _iscsi_name_matches(name: str) -> bool:
    if name.startswith("iqn"):
        return bool(_IQN.search(name))
    if name.startswith("eui"):
        return bool(_EUI.search(name))
    return bool(_NAA.search(name))


def _glusterfs(source: dict, path: str) -> Errors:
    errors: Errors = []
    if not as_str(source.get("endpoints")):
        errors.append((f"{path}.endpoints", required()))
    if not as_str(source.get("path")):
        errors.append((f"{path}.path", required()))
    return errors


def _flocker(source: dict, path: str) -> Errors:
    errors: Errors = []
    name, uid = as_str(source.get("datasetName")), as_str(source.get("datasetUUID"))
    if not name and not uid:
        errors.append((path, required("one of datasetName and datasetUUID is required")))
    if name and uid:
        message = "datasetName and datasetUUID can not be specified simultaneously"
        errors.append((path, invalid("resource", message)))
    if "/" in name:
        errors.append((f"{path}.datasetName", invalid(name, "must not contain '/'")))
    return errors


def _claim(source: dict, path: str) -> Errors:
    return [] if as_str(source.get("claimName")) else [(f"{path}.claimName", required())]


def _rbd(source: dict, path: str) -> Errors:
    errors: Errors = []
    if not source.get("monitors"):
        errors.append((f"{path}.monitors", required()))
    if not as_str(source.get("image")):
        errors.append((f"{path}.image", required()))
    return errors


def _secret_ref_name(source: dict, path: str) -> Errors:
    ref = source.get("secretRef")
    if isinstance(ref, dict) and not as_str(ref.get("name")):
        return [(f"{path}.secretRef.name", required())]
    return []


def _cinder(source: dict, path: str) -> Errors:
    errors = [] if as_str(source.get("volumeID")) else [(f"{path}.volumeID", required())]
    return errors + _secret_ref_name(source, path)


def _cephfs(source: dict, path: str) -> Errors:
    return [] if source.get("monitors") else [(f"{path}.monitors", required())]


def _quobyte(source: dict, path: str) -> Errors:
    errors: Errors = []
    registry = as_str(source.get("registry"))
    pairs = "must be a host:port pair or multiple pairs separated by commas"
    if not registry:
        errors.append((f"{path}.registry", required(pairs)))
    elif len(as_str(source.get("tenant"))) >= 65:
        message = "must be a UUID and may not exceed a length of 64 characters"
        errors.append((f"{path}.tenant", required(message)))
    else:
        for pair in registry.split(","):
            if not _host_port(pair):
                errors.append((f"{path}.registry", invalid(registry, pairs)))
    if not as_str(source.get("volume")):
        errors.append((f"{path}.volume", required()))
    return errors


def _host_port(text: str) -> bool:
    """net.SplitHostPort succeeds."""
    if text.startswith("["):
        end = text.find("]")
        return end > 0 and text[end + 1 : end + 2] == ":" and "]" not in text[end + 2 :]
    return text.count(":") == 1 and "[" not in text and "]" not in text


def _downward_api(source: dict, path: str) -> Errors:
    errors = file_mode(f"{path}.defaultMode", source.get("defaultMode"))
    for item in dicts(source.get("items")):
        errors += _downward_api_file(item, path)
    return errors


def _downward_api_file(item: dict, path: str) -> Errors:
    """validateDownwardAPIVolumeFile (its errors name the source, not the item)."""
    errors: Errors = []
    target = as_str(item.get("path"))
    if not target:
        errors.append((f"{path}.path", required()))
    errors += local_non_reserved_path(f"{path}.path", target)
    field_ref, resource_ref = item.get("fieldRef"), item.get("resourceFieldRef")
    if isinstance(field_ref, dict):
        errors += object_field_selector(field_ref, f"{path}.fieldRef", VOLUME_FIELD_PATHS)
        if isinstance(resource_ref, dict):
            message = "fieldRef and resourceFieldRef can not be specified simultaneously"
            errors.append((path, invalid("resource", message)))
    elif isinstance(resource_ref, dict):
        errors += resource_field_selector(resource_ref, f"{path}.resourceFieldRef", volume=True)
    else:
        errors.append((path, required("one of fieldRef and resourceFieldRef is required")))
    return errors + file_mode(f"{path}.mode", item.get("mode"))


def _fc(source: dict, path: str) -> Errors:
    errors: Errors = []
    wwns, wwids = source.get("targetWWNs") or [], source.get("wwids") or []
    if not wwns and not wwids:
        message = "must specify either targetWWNs or wwids, but not both"
        errors.append((f"{path}.targetWWNs", required(message)))
    if wwns and wwids:
        message = "targetWWNs and wwids can not be specified simultaneously"
        shown = "[]string{" + ", ".join(go_quote(str(w)) for w in wwns) + "}"
        errors.append((f"{path}.targetWWNs", f"Invalid value: {shown}: {message}"))
    if wwns:
        lun = source.get("lun")
        if lun is None:
            errors.append((f"{path}.lun", required("lun is required if targetWWNs is specified")))
        elif (value := as_int(lun)) is not None and not 0 <= value <= 255:
            errors.append((f"{path}.lun", invalid(value, "must be between 0 and 255, inclusive")))
    return errors


def _flex(source: dict, path: str) -> Errors:
    errors = [] if as_str(source.get("driver")) else [(f"{path}.driver", required())]
    options = source.get("options")
    if isinstance(options, dict):
        for key in options:
            namespace = str(key).split("/", 1)[0]
            if ("." + namespace.lower()).endswith((".kubernetes.io", ".k8s.io")):
                message = "kubernetes.io and k8s.io namespaces are reserved"
                errors.append((f"{path}.options[{key}]", invalid(str(key), message)))
    return errors


def _azure_file(source: dict, path: str) -> Errors:
    errors: Errors = []
    if not as_str(source.get("secretName")):
        errors.append((f"{path}.secretName", required()))
    if not as_str(source.get("shareName")):
        errors.append((f"{path}.shareName", required()))
    return errors


_CACHING_MODES = ("None", "ReadOnly", "ReadWrite")
_DISK_KINDS = ("Dedicated", "Managed", "Shared")


def _azure_disk(source: dict, path: str) -> Errors:
    errors: Errors = []
    if not as_str(source.get("diskName")):
        errors.append((f"{path}.diskName", required()))
    uri = as_str(source.get("diskURI"))
    if not uri:
        errors.append((f"{path}.diskURI", required()))
    caching = source.get("cachingMode")
    caching = caching if isinstance(caching, str) else "ReadWrite"
    if caching not in _CACHING_MODES:
        errors.append((f"{path}.cachingMode", not_supported(caching, _CACHING_MODES)))
    kind = source.get("kind")
    kind = kind if isinstance(kind, str) else "Shared"
    if kind not in _DISK_KINDS:
        errors.append((f"{path}.kind", not_supported(kind, _DISK_KINDS)))
    if kind == "Managed" and not uri.startswith("/subscriptions/"):
        supported = (
            "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}",
        )
        errors.append((f"{path}.diskURI", not_supported(uri, supported)))
    if kind != "Managed" and not uri.startswith("https://"):
        supported = (
            "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd",
        )
        errors.append((f"{path}.diskURI", not_supported(uri, supported)))
    return errors


def _required_field(key: str):
    def check(source: dict, path: str) -> Errors:
        return [] if as_str(source.get(key)) else [(f"{path}.{key}", required())]

    return check


def _scale_io(source: dict, path: str) -> Errors:
    errors: Errors = []
    for key in ("gateway", "system", "volumeName"):
        if not as_str(source.get(key)):
            errors.append((f"{path}.{key}", required()))
    return errors


def _storageos(source: dict, path: str) -> Errors:
    name = as_str(source.get("volumeName"))
    errors = label(f"{path}.volumeName", name) if name else [(f"{path}.volumeName", required())]
    namespace = as_str(source.get("volumeNamespace"))
    if namespace:
        errors += label(f"{path}.volumeNamespace", namespace)
    return errors + _secret_ref_name(source, path)


def _csi(source: dict, path: str) -> Errors:
    """validateCSIVolumeSource, ValidateCSIDriverName."""
    errors: Errors = []
    driver = as_str(source.get("driver"))
    if not driver:
        errors.append((f"{path}.driver", required()))
    if len(driver) > 63:
        errors.append((f"{path}.driver", "Too long: may not be more than 63 bytes"))
    errors += [
        (f"{path}.driver", invalid(driver, m)) for m in names.dns1123_subdomain(driver.lower())
    ]
    ref = source.get("nodePublishSecretRef")
    if isinstance(ref, dict):
        ref_name = as_str(ref.get("name"))
        if not ref_name:
            errors.append((f"{path}.nodePublishSecretRef.name", required()))
        else:
            errors += subdomain(f"{path}.name", ref_name)
    return errors


_TEMPLATE_META_FIELDS = {  # ObjectMeta's fields, as validateFieldAllowList names them
    "name": "name", "generateName": "generateName", "namespace": "namespace",
    "selfLink": "selfLink", "uid": "uID", "resourceVersion": "resourceVersion",
    "generation": "generation", "creationTimestamp": "creationTimestamp",
    "deletionTimestamp": "deletionTimestamp",
    "deletionGracePeriodSeconds": "deletionGracePeriodSeconds",
    "ownerReferences": "ownerReferences", "finalizers": "finalizers",
    "managedFields": "managedFields",
}  # fmt: skip


def _ephemeral(source: dict, path: str) -> Errors:
    """validateEphemeralVolumeSource: ValidatePersistentVolumeClaimTemplate (its metadata holds
    labels and annotations only; its spec is a PVC's)."""
    template = source.get("volumeClaimTemplate")
    where = f"{path}.volumeClaimTemplate"
    if not isinstance(template, dict):
        return [(where, required())]
    errors: Errors = []
    metadata = template.get("metadata")
    if isinstance(metadata, dict):
        annotations = metadata.get("annotations")
        if isinstance(annotations, dict):
            for key in annotations:
                errors += [
                    (f"{where}.metadata.annotations", invalid(str(key), m))
                    for m in names.qualified_name(str(key).lower())
                ]
        labels = metadata.get("labels")
        if isinstance(labels, dict):
            for key, value in labels.items():
                errors += qualified(f"{where}.metadata.labels", str(key))
                if isinstance(value, str):
                    errors += [
                        (f"{where}.metadata.labels", invalid(value, m))
                        for m in names.label_value(value)
                    ]
        for key, go_name in _TEMPLATE_META_FIELDS.items():
            if metadata.get(key) not in (None, "", 0, [], {}):
                errors.append((f"{where}.metadata.{go_name}", forbidden("cannot be set")))
    spec = template.get("spec")
    return errors + _claim_spec(spec if isinstance(spec, dict) else {}, f"{where}.spec")


def _claim_spec(spec: dict, path: str) -> Errors:
    """ValidatePersistentVolumeClaimSpec, as the PersistentVolumeClaim kind check ports it."""
    found = core.persistent_volume_claim({"spec": spec})
    return [(path + p[len("spec") :], m) for p, m in found if p.startswith("spec")]


def _projected(source: dict, path: str) -> Errors:
    """validateProjectedVolumeSource, validateProjectionSources (clusterTrustBundle sources are
    dropped: ClusterTrustBundleProjection is off in v1.32)."""
    errors = file_mode(f"{path}.defaultMode", source.get("defaultMode"))
    seen: set[str] = set()
    sources = source.get("sources")
    if not isinstance(sources, list):
        return errors
    for index, projection in enumerate(sources):
        if not isinstance(projection, dict):
            continue
        where = f"{path}.sources[{index}]"
        count = 0
        for kind in ("secret", "configMap"):
            ref = projection.get(kind)
            if not isinstance(ref, dict):
                continue
            count += 1
            ref_name = as_str(ref.get("name"))
            if not ref_name:
                errors.append((f"{where}.{kind}.name", required()))
            items = ref.get("items")
            for item_index, item in enumerate(items if isinstance(items, list) else []):
                if not isinstance(item, dict):
                    continue
                errors += key_to_path(item, f"{where}.{kind}.items[{item_index}]")
                target = as_str(item.get("path"))
                if target:
                    if target in seen:
                        errors.append((path, invalid(ref_name, "conflicting duplicate paths")))
                    seen.add(target)
        downward = projection.get("downwardAPI")
        if isinstance(downward, dict):
            count += 1
            for item in dicts(downward.get("items")):
                errors += _downward_api_file(item, f"{where}.downwardAPI")
                target = as_str(item.get("path"))
                if target:
                    if target in seen:
                        errors.append((path, invalid(target, "conflicting duplicate paths")))
                    seen.add(target)
        token = projection.get("serviceAccountToken")
        if isinstance(token, dict):
            count += 1
            expiration = token.get("expirationSeconds")
            expiration = as_int(expiration) if expiration is not None else 3600
            if expiration is not None and expiration < 600:
                message = "may not specify a duration less than 10 minutes"
                errors.append(
                    (f"{where}.serviceAccountToken.expirationSeconds", invalid(expiration, message))
                )
            if expiration is not None and expiration > 1 << 32:
                message = "may not specify a duration larger than 2^32 seconds"
                errors.append(
                    (f"{where}.serviceAccountToken.expirationSeconds", invalid(expiration, message))
                )
            target = as_str(token.get("path"))
            if not target:
                errors.append((f"{path}.path", required()))
            else:
                errors += local_non_reserved_path(f"{path}.path", target)
        if count > 1:
            errors.append((where, forbidden("may not specify more than 1 volume type per source")))
    return errors


# validateVolumeSource's order: (v1 key, the name a second source is reported under, the name
# the source's own errors use, its check)
_SOURCES = (
    ("emptyDir", "emptyDir", "emptyDir", _empty_dir),
    ("hostPath", "hostPath", "hostPath", _host_path),
    ("gitRepo", "gitRepo", "gitRepo", _git_repo),
    ("gcePersistentDisk", "gcePersistentDisk", "persistentDisk", _gce_disk),
    ("awsElasticBlockStore", "awsElasticBlockStore", "awsElasticBlockStore", _aws_disk),
    ("secret", "secret", "secret", _secret),
    ("nfs", "nfs", "nfs", _nfs),
    ("iscsi", "iscsi", "iscsi", _iscsi),
    ("glusterfs", "glusterfs", "glusterfs", _glusterfs),
    ("flocker", "flocker", "flocker", _flocker),
    ("persistentVolumeClaim", "persistentVolumeClaim", "persistentVolumeClaim", _claim),
    ("rbd", "rbd", "rbd", _rbd),
    ("cinder", "cinder", "cinder", _cinder),
    ("cephfs", "cephFS", "cephfs", _cephfs),
    ("quobyte", "quobyte", "quobyte", _quobyte),
    ("downwardAPI", "downwarAPI", "downwardAPI", memoized(_downward_api)),
    ("fc", "fc", "fc", _fc),
    ("flexVolume", "flexVolume", "flexVolume", _flex),
    ("configMap", "configMap", "configMap", _config_map),
    ("azureFile", "azureFile", "azureFile", _azure_file),
    ("vsphereVolume", "vsphereVolume", "vsphereVolume", _required_field("volumePath")),
    (
        "photonPersistentDisk",
        "photonPersistentDisk",
        "photonPersistentDisk",
        _required_field("pdID"),
    ),
    ("portworxVolume", "portworxVolume", "portworxVolume", _required_field("volumeID")),
    ("azureDisk", "azureDisk", "azureDisk", _azure_disk),
    ("storageos", "storageos", "storageos", _storageos),
    ("projected", "projected", "projected", memoized(_projected)),
    ("scaleIO", "scaleIO", "scaleIO", _scale_io),
    ("csi", "csi", "csi", _csi),
    ("ephemeral", "ephemeral", "ephemeral", _ephemeral),
)
_Check = Callable[[dict, str], Errors]
# The checks a PersistentVolume's sources share with a Pod's volumes (persistent_volume.py).
host_path, nfs, glusterfs, iscsi, fc, flex, azure_file, azure_disk = (
    _host_path, _nfs, _glusterfs, _iscsi, _fc, _flex, _azure_file, _azure_disk
)  # fmt: skip
# v1 key -> (upstream's order, v1 key, name as a second source, name of its errors, check); a
# volume naming no source is an emptyDir (SetDefaults_Volume), and checks nothing
_BY_KEY: dict[str, tuple[int, str, str, str, _Check]] = {
    key: (order, key, second, checked, check)
    for order, (key, second, checked, check) in enumerate(_SOURCES)
}
