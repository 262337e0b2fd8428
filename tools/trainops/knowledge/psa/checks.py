"""The Pod Security Standards checks, each with the versions its behaviour changed in.

Semantics, check ids, reasons and details follow k8s.io/pod-security-admission/policy as of the
v1.37 policy; tests/psa/test_conformance.py runs all of upstream's conformance fixtures (every
level and version, pass and fail) against them. A check function takes the pod's metadata and spec (plain dicts, as parsed from YAML) and
returns None when the pod is allowed, else a Violation naming the offending fields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from trainops.model.shape import indexed_mappings, mapping, sequence

BASELINE = "baseline"
RESTRICTED = "restricted"


def _name(item: dict) -> str:
    """A container's or volume's name for a message; "" where it has none (the schema rule says
    so), as the Go structs the Pod Security checks read would hold."""
    name = item.get("name")
    return name if isinstance(name, str) else ""


@dataclass(frozen=True)
class Violation:
    reason: str
    detail: str
    # JSON paths (relative to the pod template) of what caused it, first one most useful.
    paths: tuple[str, ...] = ()


CheckFn = Callable[[dict, dict], "Violation | None"]


@dataclass(frozen=True)
class VersionedCheck:
    minimum: int  # minor version, 1.<minimum>
    run: CheckFn
    overrides: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    id: str
    level: str
    versions: tuple[VersionedCheck, ...] = field(default_factory=tuple)


# ------------------------------------------------------------------------------- helpers


def _pluralize(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _join_quote(items) -> str:
    items = list(items)
    return '"' + '", "'.join(items) + '"' if items else ""


def _go_quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _containers(spec: dict) -> Iterator[tuple[str, dict]]:
    """(path, container) for init, regular, then ephemeral containers, as the admission library visits them."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for index, container in enumerate(sequence(spec.get(key))):
            if isinstance(container, dict):
                yield f"spec.{key}[{index}]", container


def _security_context(obj: dict) -> dict:
    return mapping(obj.get("securityContext"))


def _pod_context(spec: dict) -> dict:
    return mapping(spec.get("securityContext"))


def _is_windows(spec: dict) -> bool:
    return ((mapping(spec.get("os"))).get("name")) == "windows"


def _in_user_namespace(spec: dict) -> bool:
    return spec.get("hostUsers") is False


def _containers_phrase(names: list[str]) -> str:
    return f"{_pluralize('container', 'containers', len(names))} {_join_quote(names)}"


# ------------------------------------------------------------------------------- baseline


def privileged(metadata: dict, spec: dict) -> Violation | None:
    bad = [
        (p, _name(c))
        for p, c in _containers(spec)
        if _security_context(c).get("privileged") is True
    ]
    if not bad:
        return None
    names = [n for _, n in bad]
    return Violation(
        "privileged",
        f"{_containers_phrase(names)} must not set securityContext.privileged=true",
        tuple(f"{p}.securityContext.privileged" for p, _ in bad),
    )


def host_namespaces(metadata: dict, spec: dict) -> Violation | None:
    found = [key for key in ("hostNetwork", "hostPID", "hostIPC") if spec.get(key) is True]
    if not found:
        return None
    return Violation(
        "host namespaces", ", ".join(f"{k}=true" for k in found), tuple(f"spec.{k}" for k in found)
    )


def host_path_volumes(metadata: dict, spec: dict) -> Violation | None:
    bad = [
        (i, _name(v))
        for i, v in indexed_mappings(spec.get("volumes"))
        if v.get("hostPath") is not None
    ]
    if not bad:
        return None
    names = [n for _, n in bad]
    return Violation(
        "hostPath volumes",
        f"{_pluralize('volume', 'volumes', len(names))} {_join_quote(names)}",
        tuple(f"spec.volumes[{i}].hostPath" for i, _ in bad),
    )


def host_ports(metadata: dict, spec: dict) -> Violation | None:
    bad_containers, ports, paths = [], set(), []
    for path, container in _containers(spec):
        found = False
        for index, port in indexed_mappings(container.get("ports")):
            if port.get("hostPort"):
                found = True
                ports.add(str(port["hostPort"]))
                paths.append(f"{path}.ports[{index}].hostPort")
        if found:
            bad_containers.append(_name(container))
    if not bad_containers:
        return None
    return Violation(
        "hostPort",
        f"{_containers_phrase(bad_containers)} {_pluralize('uses', 'use', len(bad_containers))} "
        f"{_pluralize('hostPort', 'hostPorts', len(ports))} {', '.join(sorted(ports))}",
        tuple(paths),
    )


_BASELINE_CAPABILITIES = frozenset(
    [
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    ]
)


def capabilities_baseline(metadata: dict, spec: dict) -> Violation | None:
    bad, extra, paths = [], set(), []
    for path, container in _containers(spec):
        added = [
            cap
            for cap in (
                sequence((mapping(_security_context(container).get("capabilities"))).get("add"))
            )
        ]
        forbidden = [cap for cap in added if cap not in _BASELINE_CAPABILITIES]
        if forbidden:
            bad.append(_name(container))
            extra.update(forbidden)
            paths.append(f"{path}.securityContext.capabilities.add")
    if not bad:
        return None
    return Violation(
        "non-default capabilities",
        f"{_containers_phrase(bad)} must not include {_join_quote(sorted(extra))} in securityContext.capabilities.add",
        tuple(paths),
    )


_SECCOMP_POD_ANNOTATION = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER_ANNOTATION = "container.seccomp.security.alpha.kubernetes.io/"


def _seccomp_annotation_allowed(value: str) -> bool:
    return value in ("runtime/default", "docker/default") or value.startswith("localhost/")


def seccomp_baseline_annotations(metadata: dict, spec: dict) -> Violation | None:
    """Before 1.19 seccomp was set by annotations; "unconfined" (or anything unknown) is forbidden."""
    annotations = mapping(metadata.get("annotations"))
    forbidden = set()
    value = annotations.get(_SECCOMP_POD_ANNOTATION)
    if value is not None and not _seccomp_annotation_allowed(value):
        forbidden.add(f"{_SECCOMP_POD_ANNOTATION}={_go_quote(value)}")
    for _, container in _containers(spec):
        key = _SECCOMP_CONTAINER_ANNOTATION + _name(container)
        value = annotations.get(key)
        if value is not None and not _seccomp_annotation_allowed(value):
            forbidden.add(f"{key}={_go_quote(value)}")
    if not forbidden:
        return None
    return Violation(
        "seccompProfile",
        f"forbidden {_pluralize('annotation', 'annotations', len(forbidden))} {', '.join(sorted(forbidden))}",
        ("metadata.annotations",),
    )


_SECCOMP_ALLOWED_TYPES = ("RuntimeDefault", "Localhost")


def _seccomp_setters(spec: dict, implicit_required: bool):
    """(bad setters, bad values, implicitly unset containers, paths) for the seccomp field checks."""
    setters, values, implicit, paths = [], set(), [], []
    pod_profile = _pod_context(spec).get("seccompProfile")
    pod_ok = False
    if pod_profile is not None:
        if pod_profile.get("type") not in _SECCOMP_ALLOWED_TYPES:
            setters.append("pod")
            values.add(str(pod_profile.get("type")))
            paths.append("spec.securityContext.seccompProfile.type")
        else:
            pod_ok = True
    explicit = []
    for path, container in _containers(spec):
        profile = _security_context(container).get("seccompProfile")
        if profile is not None:
            if profile.get("type") not in _SECCOMP_ALLOWED_TYPES:
                explicit.append(_name(container))
                values.add(str(profile.get("type")))
                paths.append(f"{path}.securityContext.seccompProfile.type")
        elif implicit_required and not pod_ok:
            implicit.append((path, _name(container)))
    if explicit:
        setters.append(_containers_phrase(explicit))
    return setters, values, implicit, paths


def seccomp_baseline_fields(metadata: dict, spec: dict) -> Violation | None:
    setters, values, _, paths = _seccomp_setters(spec, implicit_required=False)
    if not setters:
        return None
    return Violation(
        "seccompProfile",
        f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to {_join_quote(sorted(values))}",
        tuple(paths),
    )


def proc_mount_any(metadata: dict, spec: dict) -> Violation | None:
    bad, types, paths = [], set(), []
    for path, container in _containers(spec):
        mount = _security_context(container).get("procMount")
        if mount is not None and mount != "Default":
            bad.append(_name(container))
            types.add(mount)
            paths.append(f"{path}.securityContext.procMount")
    if not bad:
        return None
    return Violation(
        "procMount",
        f"{_containers_phrase(bad)} must not set securityContext.procMount to {_join_quote(sorted(types))}",
        tuple(paths),
    )


def proc_mount_unless_user_namespace(metadata: dict, spec: dict) -> Violation | None:
    return None if _in_user_namespace(spec) else proc_mount_any(metadata, spec)


_SYSCTLS_1_0 = (
    "kernel.shm_rmid_forced",
    "net.ipv4.ip_local_port_range",
    "net.ipv4.tcp_syncookies",
    "net.ipv4.ping_group_range",
    "net.ipv4.ip_unprivileged_port_start",
)
_SYSCTLS_1_27 = _SYSCTLS_1_0 + ("net.ipv4.ip_local_reserved_ports",)
_SYSCTLS_1_29 = _SYSCTLS_1_27 + (
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
)
_SYSCTLS_1_32 = _SYSCTLS_1_29 + ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem")
# v1.37 (policy/check_sysctls.go): two more TCP tunables, namespaced per pod.
_SYSCTLS_1_37 = _SYSCTLS_1_32 + ("net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat")


def _sysctls_allowing(allowed: tuple[str, ...]) -> CheckFn:
    def sysctls(metadata: dict, spec: dict) -> Violation | None:
        entries = sequence(_pod_context(spec).get("sysctls"))
        bad = [
            (i, s.get("name", "")) for i, s in enumerate(entries) if s.get("name") not in allowed
        ]
        if not bad:
            return None
        return Violation(
            "forbidden sysctls",
            ", ".join(n for _, n in bad),
            tuple(f"spec.securityContext.sysctls[{i}]" for i, _ in bad),
        )

    return sysctls


_APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"


def app_armor_profile(metadata: dict, spec: dict) -> Violation | None:
    setters, values, paths = [], set(), []
    profile = _pod_context(spec).get("appArmorProfile")
    if profile is not None and profile.get("type") not in ("RuntimeDefault", "Localhost"):
        setters.append("pod")
        values.add(str(profile.get("type")))
        paths.append("spec.securityContext.appArmorProfile.type")
    bad = []
    for path, container in _containers(spec):
        profile = _security_context(container).get("appArmorProfile")
        if profile is not None and profile.get("type") not in ("RuntimeDefault", "Localhost"):
            bad.append(_name(container))
            values.add(str(profile.get("type")))
            paths.append(f"{path}.securityContext.appArmorProfile.type")
    if bad:
        setters.append(_containers_phrase(bad))
    listed = sorted(values)
    forbidden_annotations = sorted(
        f"{key}={_go_quote(value)}"
        for key, value in (mapping(metadata.get("annotations"))).items()
        if key.startswith(_APPARMOR_ANNOTATION)
        and not (value == "" or value == "runtime/default" or value.startswith("localhost/"))
    )
    if forbidden_annotations:
        listed += forbidden_annotations
        setters.append(_pluralize("annotation", "annotations", len(forbidden_annotations)))
        paths.append("metadata.annotations")
    if not setters:
        return None
    return Violation(
        _pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", len(listed)),
        f"{' and '.join(setters)} must not set AppArmor profile type to {_join_quote(listed)}",
        tuple(paths),
    )


_SELINUX_TYPES_1_0 = ("", "container_t", "container_init_t", "container_kvm_t")
_SELINUX_TYPES_1_31 = _SELINUX_TYPES_1_0 + ("container_engine_t",)


def _selinux_allowing(allowed_types: tuple[str, ...]) -> CheckFn:
    def se_linux_options(metadata: dict, spec: dict) -> Violation | None:
        setters, bad_types, paths = [], set(), []
        flags = {"user": False, "role": False}

        def valid(options: dict) -> bool:
            ok = True
            kind = options.get("type") or ""
            if kind not in allowed_types:
                ok = False
                bad_types.add(kind)
            for key in ("user", "role"):
                if options.get(key):
                    ok = False
                    flags[key] = True
            return ok

        options = _pod_context(spec).get("seLinuxOptions")
        if options is not None and not valid(options):
            setters.append("pod")
            paths.append("spec.securityContext.seLinuxOptions")
        bad = []
        for path, container in _containers(spec):
            options = _security_context(container).get("seLinuxOptions")
            if options is not None and not valid(options):
                bad.append(_name(container))
                paths.append(f"{path}.securityContext.seLinuxOptions")
        if bad:
            setters.append(_containers_phrase(bad))
        if not setters:
            return None
        data = []
        if bad_types:
            data.append(
                f"{_pluralize('type', 'types', len(bad_types))} {_join_quote(sorted(bad_types))}"
            )
        data += [f"{key} may not be set" for key in ("user", "role") if flags[key]]
        return Violation(
            "seLinuxOptions",
            f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}",
            tuple(paths),
        )

    return se_linux_options


def windows_host_process(metadata: dict, spec: dict) -> Violation | None:
    setters, paths = [], []
    if (mapping(_pod_context(spec).get("windowsOptions"))).get("hostProcess") is True:
        setters.append("pod")
        paths.append("spec.securityContext.windowsOptions.hostProcess")
    bad = []
    for path, container in _containers(spec):
        if (mapping(_security_context(container).get("windowsOptions"))).get("hostProcess") is True:
            bad.append(_name(container))
            paths.append(f"{path}.securityContext.windowsOptions.hostProcess")
    if bad:
        setters.append(_containers_phrase(bad))
    if not setters:
        return None
    return Violation(
        "hostProcess",
        f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true",
        tuple(paths),
    )


def host_probes_and_host_lifecycle(metadata: dict, spec: dict) -> Violation | None:
    bad, hosts, paths = set(), set(), []
    for path, container in _containers(spec):
        handlers = [
            (f"{path}.{probe}", container.get(probe))
            for probe in ("livenessProbe", "readinessProbe", "startupProbe")
        ]
        lifecycle = mapping(container.get("lifecycle"))
        handlers += [
            (f"{path}.lifecycle.{hook}", lifecycle.get(hook)) for hook in ("postStart", "preStop")
        ]
        for handler_path, handler in handlers:
            for action in ("httpGet", "tcpSocket"):
                host = (mapping((handler or {}).get(action))).get("host")
                if host:
                    bad.add(_name(container))
                    hosts.add(host)
                    paths.append(f"{handler_path}.{action}.host")
    if not bad:
        return None
    return Violation(
        "probe or lifecycle host",
        f"{_pluralize('container', 'containers', len(bad))} {_join_quote(sorted(bad))} "
        f"{_pluralize('uses', 'use', len(bad))} "
        f"{_pluralize('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} {_join_quote(sorted(hosts))}",
        tuple(paths),
    )


# ------------------------------------------------------------------------------- restricted


def allow_privilege_escalation(metadata: dict, spec: dict) -> Violation | None:
    bad = [
        (p, _name(c))
        for p, c in _containers(spec)
        if _security_context(c).get("allowPrivilegeEscalation") is not False
    ]
    if not bad:
        return None
    return Violation(
        "allowPrivilegeEscalation != false",
        f"{_containers_phrase([n for _, n in bad])} must set securityContext.allowPrivilegeEscalation=false",
        tuple(f"{p}.securityContext.allowPrivilegeEscalation" for p, _ in bad),
    )


def capabilities_restricted(metadata: dict, spec: dict) -> Violation | None:
    missing_drop, adding, extra, paths = [], [], set(), []
    for path, container in _containers(spec):
        capabilities = _security_context(container).get("capabilities")
        if capabilities is None:
            missing_drop.append(_name(container))
            paths.append(f"{path}.securityContext.capabilities")
            continue
        if "ALL" not in (sequence(capabilities.get("drop"))):
            missing_drop.append(_name(container))
            paths.append(f"{path}.securityContext.capabilities.drop")
        forbidden = [
            cap for cap in (sequence(capabilities.get("add"))) if cap != "NET_BIND_SERVICE"
        ]
        if forbidden:
            adding.append(_name(container))
            extra.update(forbidden)
            paths.append(f"{path}.securityContext.capabilities.add")
    details = []
    if missing_drop:
        details.append(
            f'{_containers_phrase(missing_drop)} must set securityContext.capabilities.drop=["ALL"]'
        )
    if adding:
        details.append(
            f"{_containers_phrase(adding)} must not include {_join_quote(sorted(extra))} in securityContext.capabilities.add"
        )
    if not details:
        return None
    return Violation("unrestricted capabilities", "; ".join(details), tuple(paths))


_RESTRICTED_VOLUME_ALLOWED = (
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "image",
    "persistentVolumeClaim",
    "projected",
    "secret",
)
# The order in which the admission library names a restricted volume's type.
_RESTRICTED_VOLUME_TYPES = (
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "storageos",
)


def restricted_volumes(metadata: dict, spec: dict) -> Violation | None:
    bad, types, paths = [], set(), []
    for index, volume in indexed_mappings(spec.get("volumes")):
        if any(volume.get(key) is not None for key in _RESTRICTED_VOLUME_ALLOWED):
            continue
        bad.append(_name(volume))
        types.add(
            next((t for t in _RESTRICTED_VOLUME_TYPES if volume.get(t) is not None), "unknown")
        )
        paths.append(f"spec.volumes[{index}]")
    if not bad:
        return None
    return Violation(
        "restricted volume types",
        f"{_pluralize('volume', 'volumes', len(bad))} {_join_quote(bad)} {_pluralize('uses', 'use', len(bad))} "
        f"{_pluralize('restricted volume type', 'restricted volume types', len(types))} {_join_quote(sorted(types))}",
        tuple(paths),
    )


def run_as_non_root(metadata: dict, spec: dict) -> Violation | None:
    setters, paths = [], []
    pod_value = _pod_context(spec).get("runAsNonRoot")
    if pod_value is False:
        setters.append("pod")
        paths.append("spec.securityContext.runAsNonRoot")
    explicit, implicit = [], []
    for path, container in _containers(spec):
        value = _security_context(container).get("runAsNonRoot")
        if value is False:
            explicit.append(_name(container))
            paths.append(f"{path}.securityContext.runAsNonRoot")
        elif value is None and pod_value is not True:
            implicit.append((path, _name(container)))
    if explicit:
        setters.append(_containers_phrase(explicit))
    if setters:
        return Violation(
            "runAsNonRoot != true",
            f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false",
            tuple(paths),
        )
    if implicit:
        return Violation(
            "runAsNonRoot != true",
            f"pod or {_containers_phrase([n for _, n in implicit])} must set securityContext.runAsNonRoot=true",
            tuple(f"{p}.securityContext.runAsNonRoot" for p, _ in implicit),
        )
    return None


def run_as_non_root_unless_user_namespace(metadata: dict, spec: dict) -> Violation | None:
    return None if _in_user_namespace(spec) else run_as_non_root(metadata, spec)


def run_as_user(metadata: dict, spec: dict) -> Violation | None:
    setters, paths = [], []
    if _pod_context(spec).get("runAsUser") == 0:
        setters.append("pod")
        paths.append("spec.securityContext.runAsUser")
    bad = []
    for path, container in _containers(spec):
        if _security_context(container).get("runAsUser") == 0:
            bad.append(_name(container))
            paths.append(f"{path}.securityContext.runAsUser")
    if bad:
        setters.append(_containers_phrase(bad))
    if not setters:
        return None
    return Violation(
        "runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0", tuple(paths)
    )


def run_as_user_unless_user_namespace(metadata: dict, spec: dict) -> Violation | None:
    return None if _in_user_namespace(spec) else run_as_user(metadata, spec)


def seccomp_restricted(metadata: dict, spec: dict) -> Violation | None:
    setters, values, implicit, paths = _seccomp_setters(spec, implicit_required=True)
    if setters:
        return Violation(
            "seccompProfile",
            f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to {_join_quote(sorted(values))}",
            tuple(paths),
        )
    if implicit:
        return Violation(
            "seccompProfile",
            f'pod or {_containers_phrase([n for _, n in implicit])} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
            tuple(f"{p}.securityContext.seccompProfile" for p, _ in implicit),
        )
    return None


def _except_windows(check: CheckFn) -> CheckFn:
    """From 1.25 the restricted checks that Windows pods cannot satisfy skip them (spec.os.name: windows)."""

    def run(metadata: dict, spec: dict) -> Violation | None:
        return None if _is_windows(spec) else check(metadata, spec)

    run.__name__ = f"{check.__name__}_except_windows"
    return run


# ------------------------------------------------------------------------------- the registry

CHECKS: tuple[Check, ...] = (
    Check(
        "allowPrivilegeEscalation",
        RESTRICTED,
        (
            VersionedCheck(8, allow_privilege_escalation),
            VersionedCheck(25, _except_windows(allow_privilege_escalation)),
        ),
    ),
    Check("appArmorProfile", BASELINE, (VersionedCheck(0, app_armor_profile),)),
    Check("capabilities_baseline", BASELINE, (VersionedCheck(0, capabilities_baseline),)),
    Check(
        "capabilities_restricted",
        RESTRICTED,
        (
            VersionedCheck(22, capabilities_restricted, ("capabilities_baseline",)),
            VersionedCheck(
                25, _except_windows(capabilities_restricted), ("capabilities_baseline",)
            ),
        ),
    ),
    Check("hostNamespaces", BASELINE, (VersionedCheck(0, host_namespaces),)),
    Check("hostPathVolumes", BASELINE, (VersionedCheck(0, host_path_volumes),)),
    Check("hostPorts", BASELINE, (VersionedCheck(0, host_ports),)),
    Check(
        "hostProbesAndHostLifecycle",
        BASELINE,
        (VersionedCheck(34, host_probes_and_host_lifecycle),),
    ),
    Check("privileged", BASELINE, (VersionedCheck(0, privileged),)),
    Check(
        "procMount",
        BASELINE,
        (
            VersionedCheck(0, proc_mount_any),
            VersionedCheck(35, proc_mount_unless_user_namespace),
        ),
    ),
    Check(
        "procMount_restricted", RESTRICTED, (VersionedCheck(35, proc_mount_any, ("procMount",)),)
    ),
    Check(
        "restrictedVolumes",
        RESTRICTED,
        (VersionedCheck(0, restricted_volumes, ("hostPathVolumes",)),),
    ),
    Check(
        "runAsNonRoot",
        RESTRICTED,
        (
            VersionedCheck(0, run_as_non_root),
            VersionedCheck(35, run_as_non_root_unless_user_namespace),
        ),
    ),
    Check(
        "runAsUser",
        RESTRICTED,
        (
            VersionedCheck(23, run_as_user),
            VersionedCheck(35, run_as_user_unless_user_namespace),
        ),
    ),
    Check(
        "seLinuxOptions",
        BASELINE,
        (
            VersionedCheck(0, _selinux_allowing(_SELINUX_TYPES_1_0)),
            VersionedCheck(31, _selinux_allowing(_SELINUX_TYPES_1_31)),
        ),
    ),
    Check(
        "seccompProfile_baseline",
        BASELINE,
        (
            VersionedCheck(0, seccomp_baseline_annotations),
            VersionedCheck(19, seccomp_baseline_fields),
        ),
    ),
    Check(
        "seccompProfile_restricted",
        RESTRICTED,
        (
            VersionedCheck(19, seccomp_restricted, ("seccompProfile_baseline",)),
            VersionedCheck(25, _except_windows(seccomp_restricted), ("seccompProfile_baseline",)),
        ),
    ),
    Check(
        "sysctls",
        BASELINE,
        (
            VersionedCheck(0, _sysctls_allowing(_SYSCTLS_1_0)),
            VersionedCheck(27, _sysctls_allowing(_SYSCTLS_1_27)),
            VersionedCheck(29, _sysctls_allowing(_SYSCTLS_1_29)),
            VersionedCheck(32, _sysctls_allowing(_SYSCTLS_1_32)),
            VersionedCheck(37, _sysctls_allowing(_SYSCTLS_1_37)),
        ),
    ),
    Check("windowsHostProcess", BASELINE, (VersionedCheck(0, windows_host_process),)),
)
