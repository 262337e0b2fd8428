"""Probes and lifecycle hooks as the API server validates them (validation.go: validateProbe with
validateLivenessProbe / validateReadinessProbe / validateStartupProbe, validateLifecycle,
validateHandler and its actions, ValidatePortNumOrName, validateSleepAction), after
SetDefaults_Probe (a 0 threshold or period is its default) and SetDefaults_HTTPGetAction."""

from __future__ import annotations

import re

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    forbidden,
    invalid,
    not_supported,
    required,
)
from trainops.knowledge.apivalidation.meta import Errors
from trainops.knowledge.apivalidation.pod_common import (
    IS_NEGATIVE,
    PORT_RANGE,
    as_int,
    as_str,
    dicts,
)

_SCHEMES = ("HTTP", "HTTPS")
_PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
_LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
_NONNEGATIVE_PROBE_FIELDS = (
    "initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"
)  # fmt: skip


def check_probe(probe: dict, path: str, probe_name: str, grace: int) -> Errors:
    """validateLivenessProbe / validateReadinessProbe / validateStartupProbe."""
    errors = _handler(probe, path, _PROBE_HANDLERS, grace)
    for key in _NONNEGATIVE_PROBE_FIELDS:
        value = as_int(probe.get(key))
        if value is not None and value < 0:
            errors.append((f"{path}.{key}", invalid(value, IS_NEGATIVE)))
    period = probe.get("terminationGracePeriodSeconds")
    seconds = as_int(period)
    if seconds is not None and seconds <= 0:
        errors.append(
            (f"{path}.terminationGracePeriodSeconds", invalid(seconds, "must be greater than 0"))
        )
    if probe_name == "readinessProbe":
        if period is not None:
            message = "must not be set for readinessProbes"
            errors.append(
                (
                    f"{path}.terminationGracePeriodSeconds",
                    invalid(seconds if seconds is not None else period, message),
                )
            )
    else:
        threshold = as_int(probe.get("successThreshold")) or 1  # SetDefaults_Probe: 0 is 1
        if threshold != 1:
            errors.append((f"{path}.successThreshold", invalid(threshold, "must be 1")))
    return errors


def check_lifecycle(lifecycle: dict, path: str, grace: int) -> Errors:
    errors: Errors = []
    for hook in ("postStart", "preStop"):
        handler = lifecycle.get(hook)
        if isinstance(handler, dict):
            errors += _handler(handler, f"{path}.{hook}", _LIFECYCLE_HANDLERS, grace)
    return errors


def _handler(handler: dict, path: str, kinds: tuple[str, ...], grace: int) -> Errors:
    """validateHandler: exactly one action, each checked."""
    errors: Errors = []
    counted = False
    for kind in kinds:
        action = handler.get(kind)
        if action is None:
            continue
        if counted:
            errors.append((f"{path}.{kind}", forbidden("may not specify more than 1 handler type")))
            continue
        counted = True
        if isinstance(action, dict):
            errors += _ACTIONS[kind](action, f"{path}.{kind}", grace)
    if not counted:
        errors.append((path, required("must specify a handler type")))
    return errors


def _exec(action: dict, path: str, grace: int) -> Errors:
    return [] if action.get("command") else [(f"{path}.command", required())]


def _http_get(action: dict, path: str, grace: int) -> Errors:
    errors = _port_number_or_name(action.get("port"), f"{path}.port")
    scheme = action.get("scheme")
    if isinstance(scheme, str) and scheme and scheme not in _SCHEMES:
        errors.append((f"{path}.scheme", not_supported(scheme, _SCHEMES)))
    for header in dicts(action.get("httpHeaders")):
        header_name = as_str(header.get("name"))
        if not _HTTP_HEADER.fullmatch(header_name):
            message = (
                "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. "
                "'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')"
            )
            errors.append((f"{path}.httpHeaders", invalid(header_name, message)))
    return errors


def _tcp_socket(action: dict, path: str, grace: int) -> Errors:
    return _port_number_or_name(action.get("port"), f"{path}.port")


def _grpc(action: dict, path: str, grace: int) -> Errors:
    port = as_int(action.get("port")) or 0
    return [] if 1 <= port <= 65535 else [(f"{path}.port", invalid(port, PORT_RANGE))]


def _sleep(action: dict, path: str, grace: int) -> Errors:
    """validateSleepAction (PodLifecycleSleepActionAllowZero is off in v1.32)."""
    seconds = as_int(action.get("seconds")) or 0
    if 0 < seconds <= grace:
        return []
    message = (
        f"must be greater than 0 and less than terminationGracePeriodSeconds ({grace}). "
        "Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep."
    )
    return [(path, invalid(seconds, message))]


def _port_number_or_name(port: object, path: str) -> Errors:
    """ValidatePortNumOrName: an int-or-string port (absent is 0)."""
    if isinstance(port, str):
        return [(path, invalid(port, m)) for m in names.port_name(port)]
    number = as_int(port) or 0
    return [] if 1 <= number <= 65535 else [(path, invalid(number, PORT_RANGE))]


_ACTIONS = {"exec": _exec, "httpGet": _http_get, "tcpSocket": _tcp_socket, "grpc": _grpc, "sleep": _sleep}  # fmt: skip


_HTTP_HEADER = re.compile(r"[-A-Za-z0-9]+")
