"""PodSpec as the API server validates a Pod (pkg/apis/core/validation: ValidatePodSpec and helpers).

Ported from kube-apiserver v1.32.13 (validation.go), after what the server does first: v1
defaulting (probe thresholds, a volume with no source is an emptyDir, a Pod's requests default to
its limits and, with hostNetwork, its host ports to its container ports) and the fields v1.32's
feature gates drop (image volumes and their mounts, resizePolicy, resourceClaims, pod-level
resources, hostUsers, supplementalGroupsPolicy, seLinuxChangePolicy, procMount's value).
Conventions: each check returns `Errors`, (JSON path, message) pairs in the server's words; a
section is entered only where the spec sets it (this runs for every pod template of every object)
and a path string is built only for an error; what recurs word for word across objects (probes,
tolerations, requests and limits, env references) is remembered. Volumes, security contexts,
scheduling, resources and probes live in pod_volumes.py, pod_security.py, pod_scheduling.py,
pod_resources.py and pod_probes.py; quantities in go_quantity.py, shared helpers in pod_common.py.
Pod-only rules (ValidatePodCreate, a Pod's defaults, admission) apply where PodContext says the
spec is a Pod being created.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trainops.knowledge.apivalidation import names, pod_scheduling, pod_security
from trainops.knowledge.apivalidation.formats import (
    forbidden,
    go_quote,
    invalid,
    not_found,
    not_supported,
    required,
    validate_labels,
)
from trainops.knowledge.apivalidation.meta import Errors
from trainops.knowledge.apivalidation.pod_common import (
    ENV_FIELD_PATHS,
    MAX_INT32,
    PORT_RANGE,
    QUANTITY_SYNTAX,
    as_int,
    as_str,
    dicts,
    label,
    local_descending_path,
    mask_trailing_dash,
    memoized,
    no_backsteps,
    object_field_selector,
    resource_field_selector,
    subdomain,
)
from trainops.knowledge.apivalidation.pod_probes import check_lifecycle, check_probe
from trainops.knowledge.apivalidation.pod_resources import resources
from trainops.knowledge.apivalidation.pod_volumes import volume_source

__all__ = ["QUANTITY_SYNTAX", "PodContext", "validate_pod_spec"]

# Values core validation.go accepts, in the order its NotSupported messages list them.
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_POD_RESTART_POLICIES = ("Always", "OnFailure", "Never")
_TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
_PROTOCOLS = ("SCTP", "TCP", "UDP")
_PROPAGATIONS = ("Bidirectional", "HostToContainer", "None")
_RECURSIVE_READ_ONLY = ("Disabled", "Enabled", "IfPossible")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
_INIT_ONLY = "may not be set for init containers without restartPolicy=Always"
# The priority classes every cluster has (the Priority admission plugin resolves their values).
_SYSTEM_PRIORITIES = {"system-node-critical": 2000001000, "system-cluster-critical": 2000000000}


@dataclass(frozen=True)
class PodContext:
    """What decides some checks: which restart policies the controller allows, which Kubernetes rules
    apply to env names, and containers an operator adds (name -> who adds it)."""

    restart_policies: tuple[str, ...] | None = None  # None: not checked (an operator sets it)
    relaxed_env_names: bool = False
    injected_init: dict[str, str] = field(default_factory=dict)
    # Volumes the controller's object adds: a StatefulSet's volumeClaimTemplates are volumes of
    # its template as apps ValidateStatefulSetSpec validates it (kube-apiserver v1.32.13 accepts a
    # mount of one).
    claim_volumes: tuple[str, ...] = ()
    # Whether the spec is a Pod being created (a Pod, or one an operator creates from a
    # template) rather than a template a built-in controller keeps: ValidatePodCreate's checks,
    # the Pod's defaults and its admission apply. None: a Pod when every restart policy is
    # allowed (the Pod kind) or none is checked (an operator's Pod).
    creates_pod: bool | None = None


def _creates_pod(context: PodContext) -> bool:
    if context.creates_pod is not None:
        return context.creates_pod
    policies = context.restart_policies
    return policies is None or len(policies) == len(_POD_RESTART_POLICIES)


class _Pod:
    """What a container's checks read from the pod around it."""

    __slots__ = (
        "admission", "creates", "dropped", "grace", "host_network", "relaxed", "volumes", "windows"
    )  # fmt: skip

    def __init__(self, volumes, dropped, grace, creates, host_network, relaxed) -> None:
        self.volumes: dict[str, dict] = volumes
        self.dropped: set[str] = dropped  # image volumes, dropped with their mounts
        self.grace: int = grace
        self.creates: bool = creates
        self.host_network: bool = host_network
        self.relaxed: bool = relaxed
        self.windows = False  # a container sets windowsOptions
        self.admission = False  # the Pod kind: admission plugins judge it as written


# --- containers: validateContainerCommon and what validateContainers/validateInitContainers add ---


def _container(container: dict, path: str, pod: _Pod, kind: str) -> Errors:
    """validateContainerCommon, then (kind "container" or "init") the lifecycle, probes and
    restartPolicy rules of validateContainers / validateInitContainers."""
    # Hot: every container of every pod template. Sections are entered only where the container
    # sets the field, and paths are built only for an error.
    errors: Errors = []
    get = container.get
    name = get("name")
    if not isinstance(name, str) or not name:
        errors.append((f"{path}.name", required()))
    elif problems := names.is_dns1123_label(name):
        errors += [(f"{path}.name", invalid(name, m)) for m in problems]
    image = get("image")
    if not isinstance(image, str) or not image:
        errors.append((f"{path}.image", required()))
    elif (pod.creates or kind == "ephemeral") and image != image.strip():
        # validateContainerOnlyForPod (a template may hold " ", a token some tools fill in)
        errors.append(
            (f"{path}.image", invalid(image, "must not have leading or trailing whitespace"))
        )
    policy = get("terminationMessagePolicy")
    if isinstance(policy, str) and policy and policy not in _TERMINATION_MESSAGE_POLICIES:
        message = not_supported(policy, _TERMINATION_MESSAGE_POLICIES)
        errors.append((f"{path}.terminationMessagePolicy", message))
    ports = get("ports")
    if isinstance(ports, list) and ports:
        errors += _ports(ports, path, pod.host_network, pod.creates, kind == "container")
    env = get("env")
    if isinstance(env, list) and env:
        errors += _env(env, path, pod.relaxed)
    env_from = get("envFrom")
    if isinstance(env_from, list) and env_from:
        errors += _env_from(env_from, path, pod.relaxed)
    mounts, devices = get("volumeMounts"), get("volumeDevices")
    device_map = _name_map(devices, "devicePath") if isinstance(devices, list) and devices else {}
    if isinstance(mounts, list) and mounts:
        security = get("securityContext")
        privileged = isinstance(security, dict) and security.get("privileged") is True
        errors += _volume_mounts(mounts, path, pod, device_map, privileged)
    if device_map:
        errors += _volume_devices(devices, path, pod, _name_map(mounts, "mountPath"))  # type: ignore[arg-type]
    pull = get("imagePullPolicy")
    if isinstance(pull, str) and pull and pull not in _PULL_POLICIES:
        errors.append((f"{path}.imagePullPolicy", not_supported(pull, _PULL_POLICIES)))
    resources = get("resources")
    if isinstance(resources, dict) and resources:
        errors += _resources(resources, f"{path}.resources", pod.creates and kind != "ephemeral")
    security = get("securityContext")
    if isinstance(security, dict) and security:
        errors += _security_context(security, f"{path}.securityContext")
        if security.get("windowsOptions") is not None:
            pod.windows = True
    if kind == "ephemeral":
        return errors
    restart = get("restartPolicy")
    sidecar = False
    if restart is not None:
        if kind == "container":
            errors.append(
                (f"{path}.restartPolicy", forbidden("may not be set for non-init containers"))
            )
        elif restart != "Always":
            errors.append((f"{path}.restartPolicy", not_supported(as_str(restart), ("Always",))))
        else:
            sidecar = True
    lifecycle = get("lifecycle")
    if kind == "init" and not sidecar:
        for key in ("lifecycle", *_PROBES):
            if get(key) is not None:
                errors.append((f"{path}.{key}", forbidden(_INIT_ONLY)))
        return errors
    if isinstance(lifecycle, dict):
        errors += _lifecycle(lifecycle, f"{path}.lifecycle", pod.grace)
    for probe_name in _PROBES:
        probe = get(probe_name)
        if isinstance(probe, dict):
            errors += _probe(probe, f"{path}.{probe_name}", probe_name, pod.grace)
    return errors


_security_context = pod_security.container_security_context


def _name_map(entries: object, key: str) -> dict[str, str]:
    """GetVolumeMountMap / GetVolumeDeviceMap: name -> path."""
    return {as_str(e.get("name")): as_str(e.get(key)) for e in dicts(entries)}


# --- ports: validateContainerPorts, validatePodHostNetworkDeps ---


def _check_ports(
    ports: list, path: str, host_network: bool, creates: bool, regular: bool
) -> Errors:
    errors: Errors = []
    seen: set[str] = set()
    for index, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        port_name = port.get("name")
        if isinstance(port_name, str) and port_name:
            if problems := names.port_name(port_name):
                errors += [(f"{path}.ports[{index}].name", invalid(port_name, m)) for m in problems]
            elif port_name in seen:
                errors.append(
                    (f"{path}.ports[{index}].name", f"Duplicate value: {go_quote(port_name)}")
                )
            else:
                seen.add(port_name)
        number = as_int(port.get("containerPort")) or 0
        if not number:
            errors.append((f"{path}.ports[{index}].containerPort", required()))
        elif not 1 <= number <= 65535:
            errors.append((f"{path}.ports[{index}].containerPort", invalid(number, PORT_RANGE)))
        host = as_int(port.get("hostPort")) or 0
        if host_network:
            if not host and creates:  # SetDefaults_Pod: defaultHostNetworkPorts
                host = number
            if regular and host and host != number:
                message = "must match `containerPort` when `hostNetwork` is true"
                errors.append((f"{path}.ports[{index}].hostPort", invalid(host, message)))
        if host and not 1 <= host <= 65535:
            errors.append((f"{path}.ports[{index}].hostPort", invalid(host, PORT_RANGE)))
        protocol = port.get("protocol")
        if isinstance(protocol, str) and protocol and protocol not in _PROTOCOLS:
            errors.append((f"{path}.ports[{index}].protocol", not_supported(protocol, _PROTOCOLS)))
    return errors


def _host_ports(containers: list[tuple[int, dict]], path: str, pod: _Pod) -> Errors:
    """AccumulateUniqueHostPorts: no protocol/hostIP/hostPort twice among these containers."""
    errors: Errors = []
    seen: set[str] = set()
    for index, container in containers:
        for port_index, port in enumerate(dicts(container.get("ports"))):
            host = as_int(port.get("hostPort")) or 0
            if not host and pod.host_network and pod.creates:
                host = as_int(port.get("containerPort")) or 0
            if not host:
                continue
            protocol = port.get("protocol")
            protocol = protocol if isinstance(protocol, str) and protocol else "TCP"
            key = f"{protocol}/{as_str(port.get('hostIP'))}/{host}"
            if key in seen:
                where = f"{path}[{index}].ports[{port_index}].hostPort"
                errors.append((where, f"Duplicate value: {go_quote(key)}"))
            seen.add(key)
    return errors


# --- env: ValidateEnv, validateEnvVarValueFrom, ValidateEnvFrom ---

_VALUE_SOURCES = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")


def _check_env(env: list, path: str, relaxed: bool) -> Errors:
    errors: Errors = []
    for index, variable in enumerate(env):
        if not isinstance(variable, dict):
            continue
        env_name = variable.get("name")
        if not isinstance(env_name, str) or not env_name:
            errors.append((f"{path}.env[{index}].name", required()))
        elif problems := names.env_var_name(env_name, relaxed):
            errors += [(f"{path}.env[{index}].name", invalid(env_name, m)) for m in problems]
        value_from = variable.get("valueFrom")
        if isinstance(value_from, dict):
            value = variable.get("value")
            found = _value_from(value_from, isinstance(value, str) and bool(value))
            if found:
                where = f"{path}.env[{index}].valueFrom"
                errors += [(where + suffix, message) for suffix, message in found]
    return errors


def _value_from(source: dict, has_value: bool) -> tuple[tuple[str, str], ...]:
    """validateEnvVarValueFrom, its paths relative to valueFrom. One reference (the usual
    case) is cached by its fields: the same references recur in every object."""
    if len(source) == 1:
        kind, selector = next(iter(source.items()))
        if selector.__class__ is dict:
            try:
                key = (kind, tuple(selector.items()), has_value)
                found = _VALUE_FROM_ERRORS.get(key)
            except TypeError:  # a list or a map where a scalar belongs: the schema reports it
                key = found = None
            if found is None:
                found = tuple(_value_from_errors(source, has_value))
                # strings only (`optional` is read by no check)
                if key is not None and all(
                    v.__class__ is str for k, v in selector.items() if k != "optional"
                ):
                    if len(_VALUE_FROM_ERRORS) >= _CACHE_SIZE:
                        _VALUE_FROM_ERRORS.clear()
                    _VALUE_FROM_ERRORS[key] = found
            return found
    return tuple(_value_from_errors(source, has_value))


# A reference -> its errors; kept as pod_resources keeps requests and limits (strings only).
_VALUE_FROM_ERRORS: dict[tuple, tuple] = {}
_CACHE_SIZE = 4096


def _value_from_errors(source: dict, has_value: bool) -> Errors:
    errors: Errors = []
    count = 0
    for kind in _VALUE_SOURCES:
        selector = source.get(kind)
        if not isinstance(selector, dict):
            continue
        count += 1
        where = f".{kind}"
        if kind == "fieldRef":
            errors += object_field_selector(selector, where, ENV_FIELD_PATHS)
        elif kind == "resourceFieldRef":
            errors += resource_field_selector(selector, where, volume=False)
        else:  # validateConfigMapKeySelector / validateSecretKeySelector
            errors += subdomain(f"{where}.name", as_str(selector.get("name")))
            key = as_str(selector.get("key"))
            if not key:
                errors.append((f"{where}.key", required()))
            else:
                errors += [(f"{where}.key", invalid(key, m)) for m in names.config_map_key(key)]
    if not count:
        message = "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
        errors.append(("", invalid("", message)))
    elif has_value:
        errors.append(("", invalid("", "may not be specified when `value` is not empty")))
    elif count > 1:
        errors.append(("", invalid("", "may not have more than one field specified at a time")))
    return errors


def _check_env_from(sources: list, path: str, relaxed: bool) -> Errors:
    errors: Errors = []
    for index, source in enumerate(sources):
        if not isinstance(source, dict):
            continue
        where = f"{path}.envFrom[{index}]"
        prefix = source.get("prefix")
        if isinstance(prefix, str) and prefix:
            errors += [
                (f"{where}.prefix", invalid(prefix, m)) for m in names.env_var_name(prefix, relaxed)
            ]
        count = 0
        for kind in ("configMapRef", "secretRef"):
            ref = source.get(kind)
            if not isinstance(ref, dict):
                continue
            count += 1
            ref_name = as_str(ref.get("name"))
            if not ref_name:
                errors.append((f"{where}.{kind}.name", required()))
            else:  # ValidateConfigMapName / ValidateSecretName with prefix=true
                errors += [
                    (f"{where}.{kind}.name", invalid(ref_name, m))
                    for m in names.dns1123_subdomain(mask_trailing_dash(ref_name))
                ]
        if not count:
            message = "must specify one of: `configMapRef` or `secretRef`"
            errors.append((f"{path}.envFrom", invalid("", message)))
        elif count > 1:
            message = "may not have more than one field specified at a time"
            errors.append((f"{path}.envFrom", invalid("", message)))
    return errors


# --- mounts: ValidateVolumeMounts, ValidateVolumeDevices ---


_PLAIN_MOUNT = frozenset(["name", "mountPath", "readOnly"])


def _volume_mounts(
    mounts: list, path: str, pod: _Pod, devices: dict[str, str], privileged: bool
) -> Errors:
    errors: Errors = []
    mount_paths: set[str] = set()
    volumes = pod.volumes
    for index, mount in enumerate(mounts):
        if not isinstance(mount, dict):
            continue
        volume = mount.get("name")
        mount_path = mount.get("mountPath")
        if (  # the usual mount: a known volume at a new path, nothing more to check
            volume.__class__ is str
            and volume in volumes
            and mount_path
            and mount_path.__class__ is str
            and mount_path not in mount_paths
            and mount.keys() <= _PLAIN_MOUNT
            and not devices
        ):
            mount_paths.add(mount_path)
            continue
        volume = as_str(volume)
        if volume in pod.dropped:
            continue
        if not volume:
            errors.append((f"{path}.volumeMounts[{index}].name", required()))
        if volume not in pod.volumes:
            errors.append((f"{path}.volumeMounts[{index}].name", not_found(volume)))
        mount_path = as_str(mount_path)
        if not mount_path:
            errors.append((f"{path}.volumeMounts[{index}].mountPath", required()))
        if mount_path in mount_paths:
            message = invalid(mount_path, "must be unique")
            errors.append((f"{path}.volumeMounts[{index}].mountPath", message))
        mount_paths.add(mount_path)
        if devices:
            if volume in devices:
                message = invalid(volume, "must not already exist in volumeDevices")
                errors.append((f"{path}.volumeMounts[{index}].name", message))
            if mount_path in devices.values():
                message = invalid(mount_path, "must not already exist as a path in volumeDevices")
                errors.append((f"{path}.volumeMounts[{index}].mountPath", message))
        sub_path = mount.get("subPath")
        if isinstance(sub_path, str) and sub_path:
            errors += local_descending_path(f"{path}.volumeMounts.subPath", sub_path)
        expression = mount.get("subPathExpr")
        if isinstance(expression, str) and expression:
            if isinstance(sub_path, str) and sub_path:
                message = invalid(expression, "subPathExpr and subPath are mutually exclusive")
                errors.append((f"{path}.volumeMounts[{index}].subPathExpr", message))
            errors += local_descending_path(f"{path}.volumeMounts.subPathExpr", expression)
        propagation = mount.get("mountPropagation")
        if isinstance(propagation, str):  # validateMountPropagation
            if propagation not in _PROPAGATIONS:
                message = not_supported(propagation, _PROPAGATIONS)
                errors.append((f"{path}.volumeMounts.mountPropagation", message))
            if propagation == "Bidirectional" and not privileged:
                message = (
                    "Bidirectional mount propagation is available only to privileged containers"
                )
                errors.append((f"{path}.volumeMounts.mountPropagation", forbidden(message)))
        recursive = mount.get("recursiveReadOnly")
        if isinstance(recursive, str):  # validateMountRecursiveReadOnly
            where = f"{path}.volumeMounts.recursiveReadOnly"
            if recursive in ("Enabled", "IfPossible"):
                if mount.get("readOnly") is not True:
                    errors.append((where, forbidden("may only be specified when readOnly is true")))
                if isinstance(propagation, str) and propagation != "None":
                    message = "may only be specified when mountPropagation is None or not specified"
                    errors.append((where, forbidden(message)))
            elif recursive != "Disabled":
                errors.append((where, not_supported(recursive, _RECURSIVE_READ_ONLY)))
    return errors


def _volume_devices(devices: list, path: str, pod: _Pod, mounts: dict[str, str]) -> Errors:
    errors: Errors = []
    device_paths: set[str] = set()
    device_names: set[str] = set()
    for index, device in enumerate(devices):
        if not isinstance(device, dict):
            continue
        where = f"{path}.volumeDevices[{index}]"
        volume = as_str(device.get("name"))
        device_path = as_str(device.get("devicePath"))
        source = pod.volumes.get(volume)
        if not volume:
            errors.append((f"{where}.name", required()))
        if volume in device_names:
            errors.append((f"{where}.name", invalid(volume, "must be unique")))
        if (
            source is not None
            and "persistentVolumeClaim" not in source
            and "ephemeral" not in source
        ):
            message = "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode"
            errors.append((f"{where}.name", invalid(volume, message)))
        if source is None:
            errors.append((f"{where}.name", not_found(volume)))
        if not device_path:
            errors.append((f"{where}.devicePath", required()))
        if device_path in device_paths:
            errors.append((f"{where}.devicePath", invalid(device_path, "must be unique")))
        if device_path and no_backsteps("", device_path):
            message = "can not contain backsteps ('..')"
            errors.append((f"{where}.devicePath", invalid(device_path, message)))
        else:
            device_paths.add(device_path)
        if volume in mounts:
            message = invalid(volume, "must not already exist in volumeMounts")
            errors.append((f"{where}.name", message))
        if device_path in mounts.values():
            message = invalid(device_path, "must not already exist as a path in volumeMounts")
            errors.append((f"{where}.devicePath", message))
        if volume:
            device_names.add(volume)
    return errors


_ports = _check_ports
_env = _check_env
_env_from = _check_env_from
_probe = memoized(check_probe)  # probes recur, word for word, across objects
_lifecycle = check_lifecycle
_resources = resources


# --- volumes: ValidateVolumes ---


def _volumes(
    spec: dict, path: str, context: PodContext
) -> tuple[Errors, dict[str, dict], set[str]]:
    """ValidateVolumes: a volume with an error is not one a mount may name. Image volumes are
    dropped (ImageVolume is off in v1.32), and so are their mounts."""
    volumes: dict[str, dict] = {
        name: {"persistentVolumeClaim": {}} for name in context.claim_volumes
    }
    dropped: set[str] = set()
    errors: Errors = []
    listed = spec.get("volumes")
    if not isinstance(listed, list):
        return errors, volumes, dropped
    names_seen: set[str] = set()
    for index, volume in enumerate(listed):
        if not isinstance(volume, dict):
            continue
        name = as_str(volume.get("name"))
        if volume.get("image") is not None:
            dropped.add(name)
            continue
        if name in context.claim_volumes:
            # The StatefulSet controller replaces a volume of a claim's name by the claim
            # (stateful_set_utils.go updateStorage): kube-apiserver v1.32.13 takes one.
            continue
        found = _volume_source(volume, "", name)
        if not name:
            found.append((".name", required()))
        elif problems := names.is_dns1123_label(name):
            found += [(".name", invalid(name, m)) for m in problems]
        if name in names_seen:
            found.append((".name", f"Duplicate value: {go_quote(name)}"))
        if found:
            where = f"{path}.volumes[{index}]"
            errors += [(where + suffix, message) for suffix, message in found]
        else:
            names_seen.add(name)
            volumes[name] = volume
    return errors, volumes, dropped


_volume_source = volume_source  # ValidateVolumes' validateVolumeSource


# --- the pod as a whole ---


_affinity = pod_scheduling.affinity
_pod_security = memoized(
    lambda fields, path: pod_security.pod_security_context(
        dict(zip(_POD_SECURITY_FIELDS, fields, strict=True)), path
    )
)
_POD_SECURITY_FIELDS = (
    "securityContext",
    "hostPID",
    "shareProcessNamespace",
    "hostNetwork",
    "hostIPC",
)
_topology_spread = pod_scheduling.topology_spread
_tolerations = memoized(pod_scheduling.tolerations)


def _pod_level(spec: dict, path: str, pod: _Pod) -> Errors:
    """ValidatePodSpec's checks of the pod as a whole, from validatePodHostNetworkDeps on."""
    get = spec.get
    errors: Errors = []
    dns = get("dnsPolicy")
    if isinstance(dns, str) and dns and dns not in _DNS_POLICIES:
        errors.append((f"{path}.dnsPolicy", not_supported(dns, _DNS_POLICIES)))
    selector = get("nodeSelector")
    if isinstance(selector, dict) and selector:
        errors += validate_labels(selector, f"{path}.nodeSelector")
    errors += _pod_security(
        (
            get("securityContext"),
            get("hostPID"),
            get("shareProcessNamespace"),
            get("hostNetwork"),
            get("hostIPC"),
        ),
        path,
    )
    affinity = get("affinity")
    if isinstance(affinity, dict) and affinity:
        errors += _affinity(affinity, f"{path}.affinity")
    if dns == "None" or get("dnsConfig") is not None:
        errors += pod_scheduling.dns_config(spec, path)
    gates = get("readinessGates")
    if isinstance(gates, list) and gates:
        errors += pod_scheduling.readiness_gates(gates, f"{path}.readinessGates")
    scheduling = get("schedulingGates")
    if isinstance(scheduling, list) and scheduling:
        errors += pod_scheduling.scheduling_gates(scheduling, f"{path}.schedulingGates")
    spread = get("topologySpreadConstraints")
    if isinstance(spread, list) and spread:
        errors += _topology_spread(spread, f"{path}.topologySpreadConstraints")
    context = get("securityContext")
    if pod.windows or (isinstance(context, dict) and context.get("windowsOptions") is not None):
        errors += pod_security.windows_host_process(spec, path)
    account = get("serviceAccountName") or get("serviceAccount")  # the deprecated alias
    if isinstance(account, str) and account:
        errors += subdomain(f"{path}.serviceAccountName", account)
    node = get("nodeName")
    if isinstance(node, str) and node:
        errors += subdomain(f"{path}.nodeName", node)
    deadline = as_int(get("activeDeadlineSeconds"))
    if deadline is not None and not 1 <= deadline <= MAX_INT32:
        message = f"must be between 1 and {MAX_INT32}, inclusive"
        errors.append((f"{path}.activeDeadlineSeconds", invalid(deadline, message)))
    for key in ("hostname", "subdomain"):
        value = get(key)
        if isinstance(value, str) and value:
            errors += label(f"{path}.{key}", value)
    tolerations = get("tolerations")
    if isinstance(tolerations, list) and tolerations:
        errors += _tolerations(tolerations, f"{path}.tolerations")
    aliases = get("hostAliases")
    if isinstance(aliases, list) and aliases:
        errors += pod_scheduling.host_aliases(aliases, f"{path}.hostAliases")
    priority_class = get("priorityClassName")
    if isinstance(priority_class, str) and priority_class:
        errors += subdomain(f"{path}.priorityClassName", priority_class)
    runtime_class = get("runtimeClassName")
    if isinstance(runtime_class, str):
        errors += subdomain(f"{path}.runtimeClassName", runtime_class)
    preemption = get("preemptionPolicy")
    if isinstance(preemption, str):
        if not preemption:
            errors.append((f"{path}.preemptionPolicy", required()))
        elif preemption not in _PREEMPTION_POLICIES:
            errors.append(
                (f"{path}.preemptionPolicy", not_supported(preemption, _PREEMPTION_POLICIES))
            )
    overhead = get("overhead")
    if isinstance(overhead, dict):  # validateOverhead
        errors += _resources({"limits": overhead}, f"{path}.overhead")
    if get("os") is not None:
        errors += pod_security.pod_os(spec, path)
    if pod.creates:
        # admission, for the Pod kind only: an operator may set a Pod's priority class itself
        errors += _pod_create(spec, path, admission=pod.admission)
    return errors


def _pod_create(spec: dict, path: str, admission: bool) -> Errors:
    """ValidatePodCreate's own checks, and (`admission`) the admission plugins every cluster runs
    that judge a Pod by its spec alone: Priority (no PriorityClass is a global default) and
    RuntimeClass."""
    get = spec.get
    errors: Errors = []
    if get("ephemeralContainers"):
        errors.append((f"{path}.ephemeralContainers", forbidden("cannot be set on create")))
    if as_str(get("nodeName")) and get("schedulingGates"):
        message = "cannot be set until all schedulingGates have been cleared"
        errors.append((f"{path}.nodeName", forbidden(message)))
    if not admission:
        return errors
    priority_class = as_str(get("priorityClassName"))
    if not priority_class or priority_class in _SYSTEM_PRIORITIES:
        computed = _SYSTEM_PRIORITIES.get(priority_class, 0)
        priority = as_int(get("priority"))
        preemption = get("preemptionPolicy")
        if priority is not None and priority != computed:
            message = (
                f"the integer value of priority ({priority}) must not be provided in pod spec; "
                f"priority admission controller computed {computed} from the given PriorityClass name"
            )
            errors.append((f"{path}.priority", forbidden(message)))
        elif isinstance(preemption, str) and preemption and preemption != "PreemptLowerPriority":
            message = (
                f"the string value of PreemptionPolicy ({preemption}) must not be provided in pod spec; "
                "priority admission controller computed PreemptLowerPriority from the given PriorityClass name"
            )
            errors.append((f"{path}.preemptionPolicy", forbidden(message)))
    if get("overhead") is not None and not as_str(get("runtimeClassName")):
        message = (
            "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"
        )
        errors.append((f"{path}.overhead", forbidden(message)))
    return errors


def _ephemeral_containers(listed: list, path: str, pod: _Pod, others: set[str]) -> Errors:
    """validateEphemeralContainers, and the reason a new Pod or a template holds none."""
    errors: Errors = []
    if not pod.creates:  # ValidatePodTemplateSpec
        errors.append((path, forbidden("ephemeral containers not allowed in pod template")))
    all_names = set(others)
    for index, container in enumerate(listed):
        if not isinstance(container, dict):
            continue
        where = f"{path}[{index}]"
        errors += _container(container, where, pod, "ephemeral")
        name = as_str(container.get("name"))
        if name in all_names:
            errors.append((f"{where}.name", f"Duplicate value: {go_quote(name)}"))
        all_names.add(name)
        target = as_str(container.get("targetContainerName"))
        if target and target not in others:
            errors.append((f"{where}.targetContainerName", not_found(target)))
        for key in _NOT_EPHEMERAL:
            if container.get(key) not in (None, [], {}):
                errors.append(
                    (f"{where}.{key}", forbidden("cannot be set for an Ephemeral Container"))
                )
        for mount_index, mount in enumerate(dicts(container.get("volumeMounts"))):
            for key in ("subPath", "subPathExpr"):
                if as_str(mount.get(key)):
                    message = forbidden("cannot be set for an Ephemeral Container")
                    errors.append((f"{where}.volumeMounts[{mount_index}].{key}", message))
    return errors


# allowedEphemeralContainerFields: what an ephemeral container may not set (resizePolicy is
# dropped in v1.32)
_NOT_EPHEMERAL = ("ports", "resources", "restartPolicy", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle")  # fmt: skip


def validate_pod_spec(spec: object, path: str, context: PodContext) -> Errors:
    """Every error the API server would report for a Pod with this spec, at `path` (e.g. spec.template.spec)."""
    if not isinstance(spec, dict):
        return []
    creates = _creates_pod(context)
    grace = spec.get("terminationGracePeriodSeconds")
    grace = as_int(grace) if grace is not None else 30  # SetDefaults_PodSpec
    if creates and grace is not None and grace < 0:
        grace = 1  # Convert_v1_Pod_To_core_Pod: a Pod's negative grace period is 1
    errors, volumes, dropped = _volumes(spec, path, context)
    pod = _Pod(
        volumes,
        dropped,
        grace if grace is not None else 30,
        creates,
        spec.get("hostNetwork") is True,
        context.relaxed_env_names,
    )
    policies = context.restart_policies
    pod.admission = creates and policies is not None and len(policies) == len(_POD_RESTART_POLICIES)
    containers = spec.get("containers")
    seen: set[str] = set()
    regular: list[tuple[int, dict]] = []
    if not isinstance(containers, list) or not containers:
        errors.append((f"{path}.containers", required()))
    else:
        for index, container in enumerate(containers):
            if not isinstance(container, dict):
                continue
            where = f"{path}.containers[{index}]"
            errors += _container(container, where, pod, "container")
            name = as_str(container.get("name"))
            if name in seen:
                errors.append((f"{where}.name", f"Duplicate value: {go_quote(name)}"))
            seen.add(name)
            if container.get("ports"):
                regular.append((index, container))
        if regular:
            errors += _host_ports(regular, f"{path}.containers", pod)
    init_containers = spec.get("initContainers")
    if isinstance(init_containers, list):
        for index, container in enumerate(init_containers):
            if not isinstance(container, dict):
                continue
            where = f"{path}.initContainers[{index}]"
            errors += _container(container, where, pod, "init")
            name = as_str(container.get("name"))
            if name in seen:
                errors.append((f"{where}.name", f"Duplicate value: {go_quote(name)}"))
            elif name in context.injected_init:
                errors.append(
                    (
                        f"{where}.name",
                        f'Duplicate value: "{name}" ({context.injected_init[name]} adds an init container of that name)',
                    )
                )
            if name:
                seen.add(name)
            if container.get("ports"):
                # checkHostPortConflicts, one init container at a time (upstream names it [0])
                errors += _host_ports([(0, container)], f"{path}.initContainers", pod)
    ephemeral = spec.get("ephemeralContainers")
    if isinstance(ephemeral, list) and ephemeral:
        errors += _ephemeral_containers(ephemeral, f"{path}.ephemeralContainers", pod, seen)
    errors += _pod_level(spec, path, pod)
    policy = spec.get("restartPolicy")
    policy = policy if isinstance(policy, str) and policy else "Always"
    # validateRestartPolicy, and what the controller allows (None: the operator sets the policy)
    if context.restart_policies is not None and policy not in context.restart_policies:
        supported = ", ".join(f'"{p}"' for p in context.restart_policies)
        errors.append(
            (
                f"{path}.restartPolicy",
                f'Unsupported value: "{policy}": supported values: {supported}',
            )
        )
    return errors
