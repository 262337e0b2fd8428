"""Security contexts as the API server validates them (validation.go: ValidateSecurityContext,
validatePodSpecSecurityContext, validateSysctls, validateSeccompProfileField,
ValidateAppArmorProfileField, validateWindowsSecurityContextOptions, validateOS with
validateLinux and validateWindows, validateWindowsHostProcessPod). Fields v1.32 drops before
validation (its gates off: procMount's value, hostUsers, supplementalGroupsPolicy,
seLinuxChangePolicy) are not checked."""

from __future__ import annotations

import re

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    forbidden,
    go_quote,
    invalid,
    not_supported,
    required,
)
from trainops.knowledge.apivalidation.meta import Errors
from trainops.knowledge.apivalidation.pod_common import (
    ID_RANGE,
    MAX_INT32,
    as_int,
    local_descending_path,
)

_PROFILE_TYPES = ("Localhost", "RuntimeDefault", "Unconfined")


def _id_range(context: dict, key: str, path: str) -> Errors:
    value = as_int(context.get(key))
    if value is not None and not 0 <= value <= MAX_INT32:
        return [(f"{path}.{key}", invalid(value, ID_RANGE))]
    return []


def _pointer(go_type: str, value: object) -> str:
    return f"(*{go_type})(nil)" if value is None else f"(*{go_type})(0x…)"


def seccomp_profile(profile: object, path: str) -> Errors:
    """validateSeccompProfileField."""
    if not isinstance(profile, dict):
        return []
    errors: Errors = []
    kind = profile.get("type")
    kind = kind if isinstance(kind, str) else ""
    if not kind:
        errors.append((f"{path}.type", required("type is required when seccompProfile is set")))
    elif kind not in _PROFILE_TYPES:
        errors.append((f"{path}.type", not_supported(kind, _PROFILE_TYPES)))
    localhost = profile.get("localhostProfile")
    if kind == "Localhost":
        if localhost is None:
            message = "must be set when seccomp type is Localhost"
            errors.append((f"{path}.localhostProfile", required(message)))
        elif isinstance(localhost, str):
            errors += local_descending_path(f"{path}.localhostProfile", localhost)
    elif localhost is not None:
        shown = (
            f"core.SeccompProfile{{Type:{go_quote(kind)}, "
            f"LocalhostProfile:{_pointer('string', localhost)}}}"
        )
        message = "can only be set when seccomp type is Localhost"
        errors.append((f"{path}.localhostProfile", f"Invalid value: {shown}: {message}"))
    return errors


def apparmor_profile(profile: object, path: str) -> Errors:
    """ValidateAppArmorProfileField."""
    if not isinstance(profile, dict):
        return []
    errors: Errors = []
    kind = profile.get("type")
    kind = kind if isinstance(kind, str) else ""
    localhost = profile.get("localhostProfile")
    where = f"{path}.localhostProfile"
    if kind == "Localhost":
        if not isinstance(localhost, str):
            errors.append((where, required("must be set when AppArmor type is Localhost")))
        else:
            if localhost.strip() != localhost:
                errors.append((where, invalid(localhost, "must not be padded with whitespace")))
            elif not localhost:
                errors.append((where, required("must be set when AppArmor type is Localhost")))
            if len(localhost.encode()) > 4095:
                errors.append((where, "Too long: may not be more than 4095 bytes"))
    elif kind in ("RuntimeDefault", "Unconfined"):
        if isinstance(localhost, str):
            errors.append(
                (where, invalid(localhost, "can only be set when AppArmor type is Localhost"))
            )
    elif not kind:
        errors.append((f"{path}.type", required("type is required when appArmorProfile is set")))
    else:
        errors.append((f"{path}.type", not_supported(kind, _PROFILE_TYPES)))
    return errors


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NETBIOS = re.compile(r'^[^\\/:\*\?"<>|\.][^\\/:\*\?"<>|]{0,14}$')
_DNS_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_WINDOWS_DOMAIN = re.compile(rf"^{_DNS_LABEL}(?:\.{_DNS_LABEL})*$")
_BAD_USER_CHARS = re.compile(r'["/\\:;|=,\+\*\?<>@\[\]]')
_DOTS_SPACES = re.compile(r"^[\. ]+$")


def windows_options(options: object, path: str) -> Errors:
    """validateWindowsSecurityContextOptions."""
    if not isinstance(options, dict):
        return []
    errors: Errors = []
    spec_name = options.get("gmsaCredentialSpecName")
    if isinstance(spec_name, str):
        errors += [
            (f"{path}.gmsaCredentialSpecName", invalid(spec_name, m))
            for m in names.dns1123_subdomain(spec_name)
        ]
    spec = options.get("gmsaCredentialSpec")
    if isinstance(spec, str):
        if not spec:
            message = "gmsaCredentialSpec cannot be an empty string"
            errors.append((f"{path}.gmsaCredentialSpec", invalid(spec, message)))
        elif len(spec.encode()) > 64 * 1024:
            message = "gmsaCredentialSpec size must be under 64 KiB"
            errors.append((f"{path}.gmsaCredentialSpec", invalid(spec, message)))
    user = options.get("runAsUserName")
    if isinstance(user, str):
        errors += [(f"{path}.runAsUserName", invalid(user, m)) for m in _run_as_user_name(user)]
    return errors


def _run_as_user_name(value: str) -> list[str]:
    if not value:
        return ["runAsUserName cannot be an empty string"]
    if _CONTROL.search(value):
        return ["runAsUserName cannot contain control characters"]
    parts = value.split("\\")
    if len(parts) > 2:
        return ["runAsUserName cannot contain more than one backslash"]
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
    problems = []
    if len(domain.encode()) >= 256:
        problems.append("runAsUserName's Domain length must be under 256 characters")
    if len(parts) == 2 and not (_NETBIOS.match(domain) or _WINDOWS_DOMAIN.match(domain)):
        problems.append("runAsUserName's Domain doesn't match the NetBios nor the DNS format")
    if not user:
        problems.append("runAsUserName's User cannot be empty")
    elif len(user.encode()) > 104:
        problems.append("runAsUserName's User length must not be longer than 104 characters")
    if _DOTS_SPACES.match(user):
        problems.append("runAsUserName's User cannot contain only periods or spaces")
    if _BAD_USER_CHARS.search(user):
        problems.append(
            "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"
        )
    return problems


_CONTEXT_POINTERS = (  # core.SecurityContext's fields, in order: v1 key, Go name, Go type
    ("capabilities", "Capabilities", "core.Capabilities"),
    ("privileged", "Privileged", "bool"),
    ("seLinuxOptions", "SELinuxOptions", "core.SELinuxOptions"),
    ("windowsOptions", "WindowsOptions", "core.WindowsSecurityContextOptions"),
    ("runAsUser", "RunAsUser", "int64"),
    ("runAsGroup", "RunAsGroup", "int64"),
    ("runAsNonRoot", "RunAsNonRoot", "bool"),
    ("readOnlyRootFilesystem", "ReadOnlyRootFilesystem", "bool"),
    ("allowPrivilegeEscalation", "AllowPrivilegeEscalation", "bool"),
    ("procMount", "ProcMount", "core.ProcMountType"),
    ("seccompProfile", "SeccompProfile", "core.SeccompProfile"),
    ("appArmorProfile", "AppArmorProfile", "core.AppArmorProfile"),
)


def _security_context_struct(context: dict) -> str:
    """%#v of a core.SecurityContext (the addresses of its pointers cannot be known: 0x…)."""
    fields = ", ".join(
        f"{go_name}:{_pointer(go_type, context.get(key))}"
        for key, go_name, go_type in _CONTEXT_POINTERS
    )
    return f"core.SecurityContext{{{fields}}}"


def container_security_context(context: dict, path: str) -> Errors:
    """ValidateSecurityContext (the cluster allows privileged containers)."""
    errors = _id_range(context, "runAsUser", path) + _id_range(context, "runAsGroup", path)
    seccomp = context.get("seccompProfile")
    if seccomp is not None:
        errors += seccomp_profile(seccomp, f"{path}.seccompProfile")
    if context.get("allowPrivilegeEscalation") is False:
        if context.get("privileged") is True:
            message = "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
            errors.append((path, f"Invalid value: {_security_context_struct(context)}: {message}"))
        capabilities = context.get("capabilities")
        added = capabilities.get("add") if isinstance(capabilities, dict) else None
        for capability in added if isinstance(added, list) else []:
            if capability == "CAP_SYS_ADMIN":
                message = "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
                shown = _security_context_struct(context)
                errors.append((path, f"Invalid value: {shown}: {message}"))
    windows = context.get("windowsOptions")
    if windows is not None:
        errors += windows_options(windows, f"{path}.windowsOptions")
    apparmor = context.get("appArmorProfile")
    if apparmor is not None:
        errors += apparmor_profile(apparmor, f"{path}.appArmorProfile")
    return errors


_SYSCTL_SEGMENT = "[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL = f"^({_SYSCTL_SEGMENT}[\\./])*{_SYSCTL_SEGMENT}$"
_SYSCTL_RE = re.compile(_SYSCTL)
_SYSCTL_MESSAGE = f"must have at most 253 characters and match regex {_SYSCTL}"
# k8s.io/component-helpers node/util/sysctl: the namespaced sysctls
_IPC_SYSCTLS = frozenset(
    [
        "kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced",
        "kernel.shm", "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.msg",
    ]
)  # fmt: skip


def _sysctl_namespace(name: str) -> str:
    """GetNamespace, with NormalizeName (a/b/c written with slashes reads as a.b.c)."""
    separator = re.search(r"[./]", name)
    if separator is not None and separator.group() == "/":
        name = name.translate(str.maketrans("./", "/."))
    name = name.split("*", 1)[0]
    if name in _IPC_SYSCTLS:
        return "IPC"
    if name.startswith("net."):
        return "Net"
    if name.startswith("fs.mqueue."):
        return "IPC"
    return ""


def _sysctls(sysctls: list, spec: dict, path: str) -> Errors:
    """validateSysctls, ValidateHostSysctl."""
    errors: Errors = []
    seen: set[str] = set()
    for index, sysctl in enumerate(sysctls):
        if not isinstance(sysctl, dict):
            continue
        name = sysctl.get("name")
        name = name if isinstance(name, str) else ""
        where = f"{path}[{index}].name"
        if not name:
            errors.append((where, required()))
        elif len(name) > 253 or not _SYSCTL_RE.match(name):
            errors.append((where, invalid(name, _SYSCTL_MESSAGE)))
        elif name in seen:
            errors.append((where, f"Duplicate value: {go_quote(name)}"))
        namespace = _sysctl_namespace(name)
        if spec.get("hostNetwork") is True and namespace == "Net":
            errors.append((where, invalid(name, "may not be specified when 'hostNetwork' is true")))
        elif spec.get("hostIPC") is True and namespace == "IPC":
            errors.append((where, invalid(name, "may not be specified when 'hostIPC' is true")))
        seen.add(name)
    return errors


_FS_GROUP_CHANGE_POLICIES = ("Always", "OnRootMismatch")


def pod_security_context(spec: dict, path: str) -> Errors:
    """validatePodSpecSecurityContext (v1 keeps hostPID and shareProcessNamespace on the spec)."""
    context = spec.get("securityContext")
    context = context if isinstance(context, dict) else {}
    where = f"{path}.securityContext"
    errors: Errors = []
    if context:
        errors += _id_range(context, "fsGroup", where)
        errors += _id_range(context, "runAsUser", where)
        errors += _id_range(context, "runAsGroup", where)
        groups = context.get("supplementalGroups")
        for index, group in enumerate(groups if isinstance(groups, list) else []):
            value = as_int(group)
            if value is not None and not 0 <= value <= MAX_INT32:
                errors.append((f"{where}.supplementalGroups[{index}]", invalid(value, ID_RANGE)))
    if spec.get("shareProcessNamespace") is True and spec.get("hostPID") is True:
        message = "ShareProcessNamespace and HostPID cannot both be enabled"
        errors.append((f"{where}.shareProcessNamespace", invalid(True, message)))
    if not context:
        return errors
    sysctls = context.get("sysctls")
    if isinstance(sysctls, list) and sysctls:
        errors += _sysctls(sysctls, spec, f"{where}.sysctls")
    change = context.get("fsGroupChangePolicy")
    if isinstance(change, str) and change not in _FS_GROUP_CHANGE_POLICIES:
        errors.append(
            (f"{where}.fsGroupChangePolicy", not_supported(change, _FS_GROUP_CHANGE_POLICIES))
        )
    seccomp = context.get("seccompProfile")
    if seccomp is not None:
        errors += seccomp_profile(seccomp, f"{where}.seccompProfile")
    windows = context.get("windowsOptions")
    if windows is not None:
        errors += windows_options(windows, f"{where}.windowsOptions")
    apparmor = context.get("appArmorProfile")
    if apparmor is not None:
        errors += apparmor_profile(apparmor, f"{where}.appArmorProfile")
    return errors


def _containers_with_paths(spec: dict, path: str):
    """VisitContainersWithPath: init containers, containers, ephemeral containers."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        listed = spec.get(key)
        if isinstance(listed, list):
            for index, container in enumerate(listed):
                if isinstance(container, dict):
                    yield container, f"{path}.{key}[{index}]"


_WINDOWS_POD_FORBIDDEN = (
    "appArmorProfile", "seLinuxOptions", "seccompProfile", "fsGroup", "fsGroupChangePolicy",
)  # fmt: skip
_WINDOWS_CONTAINER_FORBIDDEN = (
    "appArmorProfile", "seLinuxOptions", "seccompProfile", "capabilities",
    "readOnlyRootFilesystem", "privileged", "allowPrivilegeEscalation", "procMount", "runAsUser",
    "runAsGroup",
)  # fmt: skip
_WINDOWS = "cannot be set for a windows pod"
_OS_NAMES = ("linux", "windows")


def pod_os(spec: dict, path: str) -> Errors:
    """validateOS, then validateLinux or validateWindows."""
    os = spec.get("os")
    if not isinstance(os, dict):
        return []
    name = os.get("name")
    name = name if isinstance(name, str) else ""
    if not name:
        return [(f"{path}.os.name", required("cannot be empty"))]
    if name not in _OS_NAMES:
        return [(f"{path}.os", not_supported(name, _OS_NAMES))]
    errors: Errors = []
    context = spec.get("securityContext")
    context = context if isinstance(context, dict) else {}
    if name == "linux":
        message = forbidden("windows options cannot be set for a linux pod")
        if context.get("windowsOptions") is not None:
            errors.append((f"{path}.securityContext.windowsOptions", message))
        for container, where in _containers_with_paths(spec, path):
            inner = container.get("securityContext")
            if isinstance(inner, dict) and inner.get("windowsOptions") is not None:
                errors.append((f"{where}.securityContext.windowsOptions", message))
        return errors
    for key in _WINDOWS_POD_FORBIDDEN[:2]:
        if context.get(key) is not None:
            errors.append((f"{path}.securityContext.{key}", forbidden(_WINDOWS)))
    for key in ("hostPID", "hostIPC"):
        if spec.get(key) is True:
            errors.append((f"{path}.{key}", forbidden(_WINDOWS)))
    for key in _WINDOWS_POD_FORBIDDEN[2:]:
        if context.get(key) is not None:
            errors.append((f"{path}.securityContext.{key}", forbidden(_WINDOWS)))
    sysctls = context.get("sysctls")
    if isinstance(sysctls, list) and sysctls:
        errors.append((f"{path}.securityContext.sysctls", forbidden(_WINDOWS)))
    if spec.get("shareProcessNamespace") is not None:
        errors.append((f"{path}.shareProcessNamespace", forbidden(_WINDOWS)))
    for key in ("runAsUser", "runAsGroup", "supplementalGroups"):
        if context.get(key) is not None:
            errors.append((f"{path}.securityContext.{key}", forbidden(_WINDOWS)))
    for container, where in _containers_with_paths(spec, path):
        inner = container.get("securityContext")
        if not isinstance(inner, dict):
            continue
        for key in _WINDOWS_CONTAINER_FORBIDDEN:
            if inner.get(key) is not None:
                errors.append((f"{where}.securityContext.{key}", forbidden(_WINDOWS)))
    return errors


def windows_host_process(spec: dict, path: str) -> Errors:
    """validateWindowsHostProcessPod."""
    context = spec.get("securityContext")
    options = context.get("windowsOptions") if isinstance(context, dict) else None
    pod_value = options.get("hostProcess") if isinstance(options, dict) else None
    pod_value = pod_value if isinstance(pod_value, bool) else None
    errors: Errors = []
    count = host_process = 0
    for container, where in _containers_with_paths(spec, path):
        count += 1
        inner = container.get("securityContext")
        inner_options = inner.get("windowsOptions") if isinstance(inner, dict) else None
        value = inner_options.get("hostProcess") if isinstance(inner_options, dict) else None
        value = value if isinstance(value, bool) else None
        if pod_value is not None and value is not None and pod_value != value:
            message = f"pod hostProcess value must be identical if both are specified, was {str(pod_value).lower()}"
            errors.append(
                (f"{where}.securityContext.windowsOptions.hostProcess", invalid(value, message))
            )
        if value is True or (value is None and pod_value is True):
            host_process += 1
    if host_process:
        if host_process != count:
            message = "If pod contains any hostProcess containers then all containers must be HostProcess containers"
            errors.append((path, invalid("", message)))
        if spec.get("hostNetwork") is not True:
            message = "hostNetwork must be true if pod contains any hostProcess containers"
            errors.append((f"{path}.hostNetwork", invalid(False, message)))
    return errors
