"""PodSpec as the API server validates a Pod (pkg/apis/core/validation: ValidatePodSpec and helpers)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.meta import Errors, invalid, not_supported
from trainops.model import quantity
from trainops.model.shape import mapping

_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
# Values core validation.go accepts, in the order its NotSupported messages list them.
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")
_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
_TOLERATION_OPERATORS = ("Equal", "Exists")
_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_FS_GROUP_CHANGE_POLICIES = ("Always", "OnRootMismatch")
_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")
_MAX_INT32 = 2147483647
_TERMINATION_MESSAGE_POLICIES = ("File", "FallbackToLogsOnError")
_HOST_PATH_TYPES = (
    "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"
)  # fmt: skip
_LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
# ConvertDownwardAPIFieldLabel (core/v1 conversion): what an env var's fieldRef may name.
_FIELD_PATHS = frozenset(
    [
        "metadata.name", "metadata.namespace", "metadata.uid", "metadata.labels",
        "metadata.annotations", "spec.nodeName", "spec.serviceAccountName", "status.hostIP",
        "status.hostIPs", "status.podIP", "status.podIPs",
    ]
)  # fmt: skip
_STANDARD_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")


def _resource_name_problem(name: str) -> str | None:
    """validateContainerResourceName: a standard resource, a hugepage size, or a qualified name
    with a domain (an extended resource such as nvidia.com/gpu)."""
    if name in _STANDARD_CONTAINER_RESOURCES or name.startswith("hugepages-") or "/" in name:
        return None
    return "must be a standard resource type or fully qualified"


_MODE_SOURCES = frozenset(["secret", "configMap", "projected", "downwardAPI"])


def _volume_source(volume: dict, path: str) -> Errors:
    """validateVolumeSource: the checks of the sources a training pod names."""
    errors: Errors = []
    for source, settings in volume.items():  # a volume names itself and (usually) one source
        if not isinstance(settings, dict):
            continue
        if source in _MODE_SOURCES:
            mode = _int(settings.get("defaultMode"))
            if mode is not None and not 0 <= mode <= 0o777:
                message = "must be a number between 0 and 0777 (octal), both inclusive"
                errors.append((f"{path}.{source}.defaultMode", invalid(mode, message)))
        elif source == "hostPath":
            kind = settings.get("type")
            if isinstance(kind, str) and kind not in _HOST_PATH_TYPES:
                errors.append((f"{path}.hostPath.type", not_supported(kind, _HOST_PATH_TYPES)))
        elif source == "emptyDir":
            size = settings.get("sizeLimit")
            if isinstance(size, str | int) and not isinstance(size, bool) and _negative(size):
                message = "Forbidden: SizeLimit field must be a valid resource quantity"
                errors.append((f"{path}.emptyDir.sizeLimit", message))
        elif source == "persistentVolumeClaim" and not settings.get("claimName"):
            errors.append((f"{path}.persistentVolumeClaim.claimName", "Required value"))
    return errors


def _negative(size: str | int) -> bool:
    try:
        return quantity.parse(size) < 0
    except ValueError:
        return False  # a malformed quantity is reported where quantities are parsed


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _security_context(context: object, path: str) -> Errors:
    """ValidateSecurityContext / validatePodSecurityContext: ids in range, Localhost seccomp named."""
    if not isinstance(context, dict):
        return []
    errors: Errors = []
    for key in ("runAsUser", "runAsGroup"):
        value = _int(context.get(key))
        if value is not None and not 0 <= value <= _MAX_INT32:
            errors.append(
                (f"{path}.{key}", invalid(value, f"must be between 0 and {_MAX_INT32}, inclusive"))
            )
    seccomp = context.get("seccompProfile")
    if (
        isinstance(seccomp, dict)
        and seccomp.get("type") == "Localhost"
        and not seccomp.get("localhostProfile")
    ):
        errors.append(
            (
                f"{path}.seccompProfile.localhostProfile",
                "Required value: must be set when seccomp type is Localhost",
            )
        )
    return errors


_QUANTITY_PATTERN = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
# A quantity the server cannot even decode: the request fails before any validation runs.
QUANTITY_SYNTAX = f"quantities must match the regular expression '{_QUANTITY_PATTERN}'"


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


def _dicts(value: object) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _quote_list(values) -> str:
    return ", ".join(f'"{v}"' for v in values)


def _probe(probe: object, path: str, liveness_like: bool) -> Errors:
    if not isinstance(probe, dict):
        return []
    handlers = [h for h in _HANDLERS if probe.get(h) is not None]
    errors: Errors = []
    if not handlers:
        errors.append((path, "Required value: must specify a handler type"))
    elif len(handlers) > 1:
        errors.append(
            (f"{path}.{handlers[1]}", "Forbidden: may not specify more than 1 handler type")
        )
    threshold = probe.get("successThreshold")
    if liveness_like and isinstance(threshold, int) and threshold != 1:
        errors.append((f"{path}.successThreshold", invalid(threshold, "must be 1")))
    for key in ("periodSeconds", "timeoutSeconds", "successThreshold", "failureThreshold"):
        value = probe.get(key)
        # SetDefaults_Probe turns a 0 into the default (10 s, 1 s, 1, 3) before validation.
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and value < 0
            and not (key == "successThreshold" and liveness_like)
        ):
            errors.append((f"{path}.{key}", invalid(value, "must be greater than or equal to 1")))
    return errors


def _resources(resources: dict, path: str) -> Errors:
    """validateContainerResourceName for every resource named, then ValidateResourceRequirements:
    quantities that decode, none negative, no request above its limit."""
    errors: Errors = []
    bounds = [(b, v) for b in ("limits", "requests") if isinstance(v := resources.get(b), dict)]
    for bound, amounts in bounds:
        for resource_name in amounts:
            problem = _resource_name_problem(str(resource_name))
            if problem:
                errors.append(
                    (
                        f"{path}.{bound}[{resource_name}]",
                        f"Invalid value: {resource_name}: {problem}",
                    )
                )
    limits: dict[str, tuple[float, object]] = {}  # resource -> (value, as written)
    for bound, amounts in bounds:
        for resource, amount in amounts.items():
            try:
                value = quantity.parse(amount)
            except ValueError:
                errors.append((f"{path}.{bound}[{resource}]", QUANTITY_SYNTAX))
                continue
            if value < 0:
                errors.append(
                    (
                        f"{path}.{bound}[{resource}]",
                        invalid(str(amount), "must be greater than or equal to 0"),
                    )
                )
            if bound == "limits":
                limits[str(resource)] = (value, amount)
            elif (limit := limits.get(str(resource))) is not None and value > limit[0]:
                shown_limit = limit[1]
                errors.append(
                    (
                        f"{path}.requests[{resource}]",
                        invalid(
                            str(amount),
                            f"must be less than or equal to {resource} limit of {shown_limit}",
                        ),
                    )
                )
    return errors


def _container(
    container: dict, path: str, volumes: dict[str, dict], context: PodContext, init: bool
) -> Errors:
    # Hot: every container of every pod template. Sections are entered only where the container
    # sets the field, and paths are built only for an error.
    errors: Errors = []
    get = container.get
    name = get("name")
    if isinstance(name, str) and (problems := names.dns1123_label(name)):
        errors += [(f"{path}.name", invalid(name, m)) for m in problems]
    if not get("image"):  # validateContainers: every container names its image
        errors.append((f"{path}.image", "Required value"))
    pull = get("imagePullPolicy")
    if isinstance(pull, str) and pull not in _PULL_POLICIES:
        errors.append((f"{path}.imagePullPolicy", not_supported(pull, _PULL_POLICIES)))
    restart = get("restartPolicy")
    if restart is not None:
        if not init:
            errors.append(
                (f"{path}.restartPolicy", "Forbidden: may not be set for non-init containers")
            )
        elif restart != "Always":
            errors.append((f"{path}.restartPolicy", not_supported(restart, ("Always",))))
    security = get("securityContext")
    if security:
        errors += _security_context(security, f"{path}.securityContext")
    policy = get("terminationMessagePolicy")
    if isinstance(policy, str) and policy not in _TERMINATION_MESSAGE_POLICIES:
        errors.append(
            (
                f"{path}.terminationMessagePolicy",
                not_supported(policy, _TERMINATION_MESSAGE_POLICIES),
            )
        )
    lifecycle = get("lifecycle")
    if isinstance(lifecycle, dict):
        errors += _lifecycle(lifecycle, path)
    resources = get("resources")
    if isinstance(resources, dict):
        errors += _resources(resources, f"{path}.resources")
    ports = get("ports")
    if isinstance(ports, list):
        errors += _ports(ports, path)
    env = get("env")
    if isinstance(env, list):
        errors += _env(env, path, context.relaxed_env_names)
    mount_paths: set[str] = set()
    mounted: set[str] = set()
    mounts = get("volumeMounts")
    if isinstance(mounts, list):
        errors += _volume_mounts(mounts, path, volumes, mount_paths, mounted)
    devices = get("volumeDevices")
    if isinstance(devices, list):
        errors += _volume_devices(devices, path, volumes, mount_paths, mounted)
    sidecar = init and restart == "Always"
    for probe_name in _PROBES:
        probe = get(probe_name)
        if probe is None:
            continue
        if init and not sidecar:
            errors.append(
                (
                    f"{path}.{probe_name}",
                    "Forbidden: may not be set for init containers without restartPolicy=Always",
                )
            )
            continue
        errors += _probe(probe, f"{path}.{probe_name}", probe_name != "readinessProbe")
    return errors


_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")


def _lifecycle(lifecycle: dict, path: str) -> Errors:
    """validateLifecycle: each hook names one handler."""
    errors: Errors = []
    for hook in ("postStart", "preStop"):
        handler = lifecycle.get(hook)
        if isinstance(handler, dict) and not any(
            handler.get(h) is not None for h in _LIFECYCLE_HANDLERS
        ):
            errors.append(
                (f"{path}.lifecycle.{hook}", "Required value: must specify a handler type")
            )
    return errors


def _ports(ports: list, path: str) -> Errors:
    errors: Errors = []
    port_names: set[str] = set()
    for index, port in enumerate(ports):
        if not isinstance(port, dict):
            continue
        number = port.get("containerPort")
        if isinstance(number, int) and not isinstance(number, bool) and not 1 <= number <= 65535:
            errors.append(
                (
                    f"{path}.ports[{index}].containerPort",
                    invalid(number, "must be between 1 and 65535, inclusive"),
                )
            )
        port_name = port.get("name")
        if isinstance(port_name, str) and port_name:
            errors += [
                (f"{path}.ports[{index}].name", invalid(port_name, m))
                for m in names.port_name(port_name)
            ]
            if port_name in port_names:
                errors.append((f"{path}.ports[{index}].name", f'Duplicate value: "{port_name}"'))
            port_names.add(port_name)
    return errors


def _env(env: list, path: str, relaxed: bool) -> Errors:
    errors: Errors = []
    for index, variable in enumerate(env):
        if not isinstance(variable, dict):
            continue
        env_name = variable.get("name")
        if isinstance(env_name, str) and (problems := names.env_var_name(env_name, relaxed)):
            errors += [(f"{path}.env[{index}].name", invalid(env_name, m)) for m in problems]
        value_from = variable.get("valueFrom")
        if value_from is None:
            continue
        source = mapping(value_from)
        for ref in ("configMapKeyRef", "secretKeyRef"):
            if ref in source:
                ref_name = mapping(source[ref]).get("name", "")
                if isinstance(ref_name, str):
                    errors += [
                        (f"{path}.env[{index}].valueFrom.{ref}.name", invalid(ref_name, m))
                        for m in names.dns1123_subdomain(ref_name)
                    ]
        field_path = mapping(source.get("fieldRef")).get("fieldPath")
        if isinstance(field_path, str) and not _supported_field(field_path):
            message = f"error converting fieldPath: field label not supported: {field_path}"
            errors.append(
                (f"{path}.env[{index}].valueFrom.fieldRef.fieldPath", invalid(field_path, message))
            )
        if variable.get("value"):  # validateEnvVarValueFrom
            errors.append(
                (
                    f"{path}.env[{index}].valueFrom",
                    'Invalid value: "": may not be specified when `value` is not empty',
                )
            )
    return errors


def _volume_mounts(
    mounts: list, path: str, volumes: dict[str, dict], mount_paths: set[str], mounted: set[str]
) -> Errors:
    errors: Errors = []
    for index, mount in enumerate(mounts):
        if not isinstance(mount, dict):
            continue
        volume = mount.get("name")
        if isinstance(volume, str) and volume not in volumes:
            errors.append((f"{path}.volumeMounts[{index}].name", f'Not found: "{volume}"'))
        mounted.add(str(volume))
        sub_path = mount.get("subPath")
        if (
            isinstance(sub_path, str) and sub_path
        ):  # ValidateVolumeMounts: validateLocalDescendingPath
            if sub_path.startswith("/"):
                errors.append(
                    (f"{path}.volumeMounts.subPath", invalid(sub_path, "must be a relative path"))
                )
            elif ".." in sub_path.split("/"):
                errors.append(
                    (f"{path}.volumeMounts.subPath", invalid(sub_path, "must not contain '..'"))
                )
        mount_path = mount.get("mountPath")
        if isinstance(mount_path, str):
            if not mount_path:
                errors.append((f"{path}.volumeMounts[{index}].mountPath", "Required value"))
            elif mount_path in mount_paths:
                errors.append(
                    (
                        f"{path}.volumeMounts[{index}].mountPath",
                        invalid(mount_path, "must be unique"),
                    )
                )
            mount_paths.add(mount_path)
    return errors


def _volume_devices(
    devices: list, path: str, volumes: dict[str, dict], mount_paths: set[str], mounted: set[str]
) -> Errors:
    errors: Errors = []
    device_paths: set[str] = set()
    for index, device in enumerate(devices):
        if not isinstance(device, dict):
            continue
        where = f"{path}.volumeDevices[{index}]"
        volume = device.get("name")
        if isinstance(volume, str):
            if volume not in volumes:
                errors.append((f"{where}.name", f'Not found: "{volume}"'))
            elif (
                "persistentVolumeClaim" not in volumes[volume]
                and "ephemeral" not in volumes[volume]
            ):
                errors.append(
                    (
                        f"{where}.name",
                        invalid(
                            volume,
                            "can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode",
                        ),
                    )
                )
            if volume in mounted:
                errors.append(
                    (
                        f"{where}.name",
                        invalid(
                            volume, "volumeDevices already contains name, can only be mounted once"
                        ),
                    )
                )
        device_path = device.get("devicePath")
        if isinstance(device_path, str):
            if device_path in device_paths or device_path in mount_paths:
                errors.append((f"{where}.devicePath", invalid(device_path, "must be unique")))
            device_paths.add(device_path)
    return errors


def _pod_level(spec: dict, path: str) -> Errors:
    """ValidatePodSpec's checks of the pod as a whole: deadline, DNS policy, tolerations, node
    selector, pod security context, topology spread."""
    errors: Errors = []
    deadline = _int(spec.get("activeDeadlineSeconds"))
    if deadline is not None and not 1 <= deadline <= _MAX_INT32:
        errors.append(
            (
                f"{path}.activeDeadlineSeconds",
                invalid(deadline, f"must be between 1 and {_MAX_INT32}, inclusive"),
            )
        )
    dns = spec.get("dnsPolicy")
    if isinstance(dns, str) and dns not in _DNS_POLICIES:
        errors.append((f"{path}.dnsPolicy", not_supported(dns, _DNS_POLICIES)))
    if dns == "None" and not isinstance(spec.get("dnsConfig"), dict):
        errors.append(
            (
                f"{path}.dnsConfig",
                "Required value: must provide `dnsConfig` when `dnsPolicy` is None",
            )
        )
    account = spec.get("serviceAccountName")
    if isinstance(account, str) and account:
        errors += [
            (f"{path}.serviceAccountName", invalid(account, m))
            for m in names.dns1123_subdomain(account)
        ]
    for index, alias in enumerate(_dicts(spec.get("hostAliases"))):  # validateHostAliases
        address = alias.get("ip")
        if isinstance(address, str) and not _is_ip(address):
            message = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
            errors.append((f"{path}.hostAliases[{index}].ip", invalid(address, message)))
    for index, toleration in enumerate(_dicts(spec.get("tolerations"))):  # ValidateTolerations
        where = f"{path}.tolerations[{index}]"
        key, operator = toleration.get("key"), toleration.get("operator")
        if isinstance(key, str) and key:
            errors += [(f"{where}.key", invalid(key, m)) for m in names.qualified_name(key)]
        if isinstance(operator, str) and operator and operator not in _TOLERATION_OPERATORS:
            errors.append((f"{where}.operator", not_supported(operator, _TOLERATION_OPERATORS)))
        elif operator == "Exists" and toleration.get("value"):
            errors.append(
                (
                    f"{where}.operator",
                    invalid(toleration["value"], "value must be empty when `operator` is 'Exists'"),
                )
            )
        effect = toleration.get("effect")
        if isinstance(effect, str) and effect and effect not in _TAINT_EFFECTS:
            errors.append((f"{where}.effect", not_supported(effect, _TAINT_EFFECTS)))
    for key, value in mapping(spec.get("nodeSelector")).items():
        errors += [
            (f"{path}.nodeSelector", invalid(str(key), m)) for m in names.qualified_name(str(key))
        ]
        if isinstance(value, str):
            errors += [
                (f"{path}.nodeSelector", invalid(value, m)) for m in names.label_value(value)
            ]
    security = spec.get("securityContext")
    errors += _security_context(security, f"{path}.securityContext")
    change = mapping(security).get("fsGroupChangePolicy")
    if isinstance(change, str) and change not in _FS_GROUP_CHANGE_POLICIES:
        errors.append(
            (
                f"{path}.securityContext.fsGroupChangePolicy",
                not_supported(change, _FS_GROUP_CHANGE_POLICIES),
            )
        )
    for index, constraint in enumerate(_dicts(spec.get("topologySpreadConstraints"))):
        where = f"{path}.topologySpreadConstraints[{index}]"
        skew = _int(constraint.get("maxSkew"))
        if skew is not None and skew <= 0:
            errors.append((f"{where}.maxSkew", invalid(skew, "must be greater than zero")))
        unsatisfiable = constraint.get("whenUnsatisfiable")
        if isinstance(unsatisfiable, str) and unsatisfiable not in _UNSATISFIABLE:
            errors.append(
                (f"{where}.whenUnsatisfiable", not_supported(unsatisfiable, _UNSATISFIABLE))
            )
    return errors


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _supported_field(field_path: str) -> bool:
    if field_path in _FIELD_PATHS:
        return True
    return any(
        field_path.startswith(f"metadata.{k}['") and field_path.endswith("']")
        for k in ("labels", "annotations")
    )


def validate_pod_spec(spec: object, path: str, context: PodContext) -> Errors:
    """Every error the API server would report for a Pod with this spec, at `path` (e.g. spec.template.spec)."""
    if not isinstance(spec, dict):
        return []
    errors: Errors = []
    volumes: dict[str, dict] = {
        name: {"persistentVolumeClaim": {}} for name in context.claim_volumes
    }
    for index, volume in enumerate(_dicts(spec.get("volumes"))):
        name = volume.get("name")
        if not isinstance(name, str):
            continue
        errors += [
            (f"{path}.volumes[{index}].name", invalid(name, m)) for m in names.dns1123_label(name)
        ]
        if name in context.claim_volumes:
            # The StatefulSet controller replaces a volume of a claim's name by the claim
            # (stateful_set_utils.go updateStorage): kube-apiserver v1.32.13 takes one.
            continue
        if name in volumes:
            errors.append((f"{path}.volumes[{index}].name", f'Duplicate value: "{name}"'))
        volumes[name] = volume
        errors += _volume_source(volume, f"{path}.volumes[{index}]")
    containers = _dicts(spec.get("containers"))
    if not containers:
        errors.append((f"{path}.containers", "Required value"))
    seen: set[str] = set()
    for index, container in enumerate(containers):
        name = container.get("name")
        if isinstance(name, str):
            if name in seen:
                errors.append((f"{path}.containers[{index}].name", f'Duplicate value: "{name}"'))
            seen.add(name)
        errors += _container(container, f"{path}.containers[{index}]", volumes, context, init=False)
    for index, container in enumerate(_dicts(spec.get("initContainers"))):
        name = container.get("name")
        if isinstance(name, str):
            if name in seen:
                errors.append(
                    (f"{path}.initContainers[{index}].name", f'Duplicate value: "{name}"')
                )
            elif name in context.injected_init:
                errors.append(
                    (
                        f"{path}.initContainers[{index}].name",
                        f'Duplicate value: "{name}" ({context.injected_init[name]} adds an init container of that name)',
                    )
                )
            seen.add(name)
        errors += _container(
            container, f"{path}.initContainers[{index}]", volumes, context, init=True
        )
    for key in ("hostname", "subdomain"):
        value = spec.get(key)
        if isinstance(value, str) and value:
            errors += [(f"{path}.{key}", invalid(value, m)) for m in names.dns1123_label(value)]
    errors += _pod_level(spec, path)
    policy = spec.get("restartPolicy", "Always")
    if (
        context.restart_policies is not None
        and isinstance(policy, str)
        and policy not in context.restart_policies
    ):
        errors.append(
            (
                f"{path}.restartPolicy",
                f'Unsupported value: "{policy}": supported values: {_quote_list(context.restart_policies)}',
            )
        )
    return errors
