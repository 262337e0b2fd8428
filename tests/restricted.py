"""A plain test-side reading of Pod Security `restricted` for pod specs, until the
pod-security rule exists. It checks the controls that our patches set; it is no substitute
for the admission library's exact semantics."""

from __future__ import annotations

_ALLOWED_VOLUMES = {
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
}


def restricted_problems(pod_spec: dict) -> list[str]:
    problems = []
    pod = pod_spec.get("securityContext") or {}
    for flag in ("hostNetwork", "hostPID", "hostIPC"):
        if pod_spec.get(flag):
            problems.append(f"{flag} is set")
    for volume in pod_spec.get("volumes") or []:
        kinds = set(volume) - {"name"}
        if not kinds <= _ALLOWED_VOLUMES:
            problems.append(f"volume {volume['name']} uses {sorted(kinds - _ALLOWED_VOLUMES)}")
    containers = (pod_spec.get("initContainers") or []) + pod_spec.get("containers", [])
    for container in containers:
        name = container["name"]
        ctx = container.get("securityContext") or {}
        if ctx.get("privileged"):
            problems.append(f"{name}: privileged")
        if ctx.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{name}: allowPrivilegeEscalation is not false")
        if "ALL" not in ((ctx.get("capabilities") or {}).get("drop") or []):
            problems.append(f"{name}: capabilities.drop lacks ALL")
        if set((ctx.get("capabilities") or {}).get("add") or []) - {"NET_BIND_SERVICE"}:
            problems.append(f"{name}: adds capabilities")
        if ctx.get("runAsNonRoot", pod.get("runAsNonRoot")) is not True:
            problems.append(f"{name}: runAsNonRoot is not true")
        if ctx.get("runAsUser", pod.get("runAsUser")) == 0:
            problems.append(f"{name}: runAsUser is 0")
        seccomp = (ctx.get("seccompProfile") or pod.get("seccompProfile") or {}).get("type")
        if seccomp not in ("RuntimeDefault", "Localhost"):
            problems.append(f"{name}: seccompProfile is {seccomp}")
    return problems
