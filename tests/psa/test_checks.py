"""Each Pod Security check, passing and failing, on both sides of each version boundary.

A case starts from a pod that passes `restricted` at every version and changes one thing.
"""

from __future__ import annotations

import copy

import pytest

from trainops.knowledge.psa.registry import checks_for, evaluate, parse_version


def compliant_pod() -> dict:
    return {
        "metadata": {"name": "p"},
        "spec": {
            "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
            **container(),
        },
    }


def merge(base: dict, change: dict) -> dict:
    result = copy.deepcopy(base)
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merge(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def container(**security) -> dict:
    return {
        "containers": [
            {
                "name": "app",
                "image": "app:1",
                "securityContext": {
                    "allowPrivilegeEscalation": False,
                    "capabilities": {"drop": ["ALL"]},
                    **security,
                },
            }
        ]
    }


def violations(
    level: str, version: str, spec_change: dict | None = None, metadata: dict | None = None
) -> dict[str, str]:
    pod = compliant_pod()
    spec = merge(pod["spec"], spec_change or {})
    found = evaluate(level, parse_version(version), merge(pod["metadata"], metadata or {}), spec)
    return {check: f"{v.reason} ({v.detail})" for check, v in found}


WINDOWS = {"os": {"name": "windows"}}
USER_NAMESPACE = {"hostUsers": False}

# (check id, level, change to the spec, versions where it is allowed, versions where it is forbidden)
BOUNDARIES = [
    ("privileged", "baseline", container(privileged=True), [], ["v1.0", "latest"]),
    ("hostNamespaces", "baseline", {"hostPID": True}, [], ["v1.0", "latest"]),
    (
        "hostPorts",
        "baseline",
        {
            "containers": [
                {"name": "app", "image": "a", "ports": [{"containerPort": 80, "hostPort": 80}]}
            ]
        },
        [],
        ["v1.0", "latest"],
    ),
    (
        "hostPathVolumes",
        "baseline",
        {"volumes": [{"name": "h", "hostPath": {"path": "/"}}]},
        [],
        ["v1.0", "latest"],
    ),
    (
        "capabilities_baseline",
        "baseline",
        container(capabilities={"add": ["SYS_ADMIN"]}),
        [],
        ["v1.0", "latest"],
    ),
    # Baseline allows DAC_OVERRIDE; restricted replaces that check from 1.22 and forbids it.
    (
        "capabilities_restricted",
        "restricted",
        container(capabilities={"drop": ["ALL"], "add": ["DAC_OVERRIDE"]}),
        ["v1.21"],
        ["v1.22", "latest"],
    ),
    ("capabilities_restricted", "restricted", container(capabilities={}), ["v1.21"], ["v1.22"]),
    (
        "capabilities_restricted",
        "restricted",
        {**WINDOWS, **container(capabilities={})},
        ["v1.25", "latest"],
        ["v1.24"],
    ),
    (
        "seccompProfile_baseline",
        "baseline",
        {"securityContext": {"seccompProfile": {"type": "Unconfined"}}},
        ["v1.18"],
        ["v1.19", "latest"],
    ),
    (
        "seccompProfile_restricted",
        "restricted",
        {"securityContext": {"runAsNonRoot": True, "seccompProfile": None}},
        ["v1.18"],
        ["v1.19", "latest"],
    ),
    (
        "seccompProfile_restricted",
        "restricted",
        {**WINDOWS, "securityContext": {"runAsNonRoot": True, "seccompProfile": None}},
        ["v1.25"],
        ["v1.24"],
    ),
    ("procMount", "baseline", container(procMount="Unmasked"), [], ["v1.0", "v1.34", "latest"]),
    (
        "procMount",
        "baseline",
        {**USER_NAMESPACE, **container(procMount="Unmasked")},
        ["v1.35", "latest"],
        ["v1.34"],
    ),
    (
        "procMount_restricted",
        "restricted",
        {**USER_NAMESPACE, **container(procMount="Unmasked")},
        [],
        ["v1.35", "latest"],
    ),
    (
        "sysctls",
        "baseline",
        {
            "securityContext": {
                "sysctls": [{"name": "net.ipv4.ip_local_reserved_ports", "value": "80"}]
            }
        },
        ["v1.27"],
        ["v1.26"],
    ),
    (
        "sysctls",
        "baseline",
        {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_keepalive_time", "value": "60"}]}},
        ["v1.29"],
        ["v1.28"],
    ),
    (
        "sysctls",
        "baseline",
        {"securityContext": {"sysctls": [{"name": "net.ipv4.tcp_rmem", "value": "4096"}]}},
        ["v1.32", "latest"],
        ["v1.31"],
    ),
    (
        "sysctls",
        "baseline",
        {
            "securityContext": {
                "sysctls": [{"name": "net.ipv4.tcp_notsent_lowat", "value": "16384"}]
            }
        },
        ["v1.37", "latest"],
        ["v1.36"],
    ),
    (
        "sysctls",
        "baseline",
        {"securityContext": {"sysctls": [{"name": "kernel.msgmax", "value": "1"}]}},
        [],
        ["v1.0", "latest"],
    ),
    (
        "appArmorProfile",
        "baseline",
        {"securityContext": {"appArmorProfile": {"type": "Unconfined"}}},
        [],
        ["v1.0", "latest"],
    ),
    (
        "seLinuxOptions",
        "baseline",
        container(seLinuxOptions={"type": "container_engine_t"}),
        ["v1.31", "latest"],
        ["v1.30"],
    ),
    (
        "seLinuxOptions",
        "baseline",
        container(seLinuxOptions={"user": "root"}),
        [],
        ["v1.0", "latest"],
    ),
    (
        "windowsHostProcess",
        "baseline",
        container(windowsOptions={"hostProcess": True}),
        [],
        ["v1.0", "latest"],
    ),
    (
        "hostProbesAndHostLifecycle",
        "baseline",
        {
            "containers": [
                {
                    "name": "app",
                    "image": "a",
                    "livenessProbe": {"httpGet": {"host": "10.0.0.1", "port": 80}},
                }
            ]
        },
        ["v1.33"],
        ["v1.34", "latest"],
    ),
    (
        "allowPrivilegeEscalation",
        "restricted",
        container(allowPrivilegeEscalation=True),
        ["v1.7"],
        ["v1.8", "latest"],
    ),
    (
        "allowPrivilegeEscalation",
        "restricted",
        {**WINDOWS, **container(allowPrivilegeEscalation=True)},
        ["v1.25"],
        ["v1.24"],
    ),
    (
        "runAsNonRoot",
        "restricted",
        {"securityContext": {"runAsNonRoot": None, "seccompProfile": {"type": "RuntimeDefault"}}},
        [],
        ["v1.0", "latest"],
    ),
    (
        "runAsNonRoot",
        "restricted",
        {**USER_NAMESPACE, "securityContext": {"runAsNonRoot": False}},
        ["v1.35", "latest"],
        ["v1.34"],
    ),
    (
        "runAsUser",
        "restricted",
        {"securityContext": {"runAsUser": 0}},
        ["v1.22"],
        ["v1.23", "latest"],
    ),
    (
        "runAsUser",
        "restricted",
        {**USER_NAMESPACE, "securityContext": {"runAsUser": 0}},
        ["v1.35"],
        ["v1.34"],
    ),
    (
        "restrictedVolumes",
        "restricted",
        {"volumes": [{"name": "n", "nfs": {"server": "s", "path": "/"}}]},
        [],
        ["v1.0", "latest"],
    ),
]


@pytest.mark.parametrize(
    ("check", "level", "change", "allowed", "forbidden"),
    BOUNDARIES,
    ids=[f"{b[0]}-{i}" for i, b in enumerate(BOUNDARIES)],
)
def test_version_boundaries(check, level, change, allowed, forbidden):
    for version in allowed:
        assert check not in violations(level, version, change), f"{check} should allow at {version}"
    for version in forbidden:
        assert check in violations(level, version, change), f"{check} should forbid at {version}"


def test_the_compliant_pod_passes_restricted_at_every_version():
    for minor in range(0, 38):
        assert violations("restricted", f"v1.{minor}") == {}, minor


def test_seccomp_annotations_count_before_1_19_and_fields_after():
    unconfined = {"annotations": {"seccomp.security.alpha.kubernetes.io/pod": "unconfined"}}
    assert violations("baseline", "v1.18", metadata=unconfined) == {
        "seccompProfile_baseline": 'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")'
    }
    assert violations("baseline", "v1.19", metadata=unconfined) == {}
    runtime_default = {
        "annotations": {"container.seccomp.security.alpha.kubernetes.io/app": "runtime/default"}
    }
    assert violations("baseline", "v1.18", metadata=runtime_default) == {}


def test_apparmor_annotations():
    bad = {"annotations": {"container.apparmor.security.beta.kubernetes.io/app": "unconfined"}}
    assert "appArmorProfile" in violations("baseline", "latest", metadata=bad)
    good = {
        "annotations": {"container.apparmor.security.beta.kubernetes.io/app": "localhost/profile"}
    }
    assert violations("baseline", "latest", metadata=good) == {}


def test_restricted_replaces_baseline_checks_rather_than_repeating_them():
    found = violations(
        "restricted", "latest", {"volumes": [{"name": "h", "hostPath": {"path": "/"}}]}
    )
    assert "restrictedVolumes" in found and "hostPathVolumes" not in found
    assert violations(
        "baseline", "latest", {"volumes": [{"name": "h", "hostPath": {"path": "/"}}]}
    ) == {"hostPathVolumes": 'hostPath volumes (volume "h")'}
    assert {c for c, _ in checks_for("restricted", None)} >= {
        "procMount_restricted",
        "capabilities_restricted",
    }
    assert "procMount" not in {c for c, _ in checks_for("restricted", None)}
    assert "procMount" in {c for c, _ in checks_for("restricted", 34)}


def test_pod_and_container_precedence():
    # A container may not undo the pod's runAsNonRoot, and the pod's seccomp covers containers.
    found = violations("restricted", "latest", container(runAsNonRoot=False))
    assert found == {
        "runAsNonRoot": 'runAsNonRoot != true (container "app" must not set securityContext.runAsNonRoot=false)'
    }
    container_only = {
        "securityContext": {"runAsNonRoot": None, "seccompProfile": None},
        **container(runAsNonRoot=True, seccompProfile={"type": "RuntimeDefault"}),
    }
    assert violations("restricted", "latest", container_only) == {}
    pod_unconfined = {
        "securityContext": {"seccompProfile": {"type": "Unconfined"}},
        **container(seccompProfile={"type": "RuntimeDefault"}),
    }
    assert violations("restricted", "latest", pod_unconfined) == {
        "seccompProfile_restricted": 'seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")'
    }


def test_init_and_ephemeral_containers_are_checked_with_exact_details():
    change = {
        "initContainers": [
            {"name": "setup", "image": "a", "securityContext": {"privileged": True}}
        ],
        "ephemeralContainers": [
            {"name": "debug", "image": "a", "securityContext": {"privileged": True}}
        ],
    }
    assert violations("baseline", "latest", change)["privileged"] == (
        'privileged (containers "setup", "debug" must not set securityContext.privileged=true)'
    )


def test_a_volume_with_no_source_is_defaulted_to_empty_dir():
    from trainops.knowledge.pod_templates import pod_templates

    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {**compliant_pod()["spec"], "volumes": [{"name": "scratch"}]},
    }
    [template] = pod_templates(pod)
    assert template.spec["volumes"] == [{"name": "scratch", "emptyDir": {}}]
    assert evaluate("restricted", None, template.metadata, template.spec) == []


def test_privileged_level_checks_nothing_and_latest_is_the_newest():
    assert violations("privileged", "latest", container(privileged=True)) == {}
    assert (
        checks_for("restricted", None)
        == checks_for("restricted", 37)
        != checks_for("restricted", 36)
    )
