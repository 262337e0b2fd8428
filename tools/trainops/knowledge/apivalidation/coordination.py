"""coordination.k8s.io Leases as kube-apiserver v1.32.13 decodes and validates them
(pkg/apis/coordination/validation/validation.go ValidateLeaseSpec; the MicroTime fields'
decoding: k8s.io/apimachinery pkg/apis/meta/v1/micro_time.go UnmarshalJSON, which parses with
RFC3339Micro, "2006-01-02T15:04:05.000000Z07:00": exactly six fractional digits)."""

from __future__ import annotations

import re

from trainops.knowledge.apivalidation.formats import Errors, invalid, is_int
from trainops.model.shape import mapping

RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00"
_MICRO = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}(Z|[+-]\d{2}:\d{2})")


def micro_time_error(value: object) -> str | None:
    """Why a MicroTime's JSON fails to decode (None when it decodes, or is null)."""
    if value is None:
        return None
    if not isinstance(value, str):
        return "json: cannot unmarshal into Go value of type string"
    match = _MICRO.fullmatch(value)
    if match is None:
        rest = value[19:] if re.match(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}", value) else value
        return f'parsing time "{value}" as "{RFC3339_MICRO}": cannot parse "{rest}" as ".000000"'
    month, day, hour, minute, second = (int(match.group(i)) for i in (2, 3, 4, 5, 6))
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 60):
        return f'parsing time "{value}": out of range'
    return None


def lease(doc: dict) -> Errors:
    """The decoding of acquireTime and renewTime, then ValidateLeaseSpec."""
    spec = mapping(doc.get("spec"))
    errors: Errors = []
    for key in ("acquireTime", "renewTime"):
        problem = micro_time_error(spec.get(key))
        if problem:
            # The body fails decoding: `Lease in version "v1" cannot be handled as a Lease: <why>`
            errors.append(
                (f"spec.{key}", f'Lease in version "v1" cannot be handled as a Lease: {problem}')
            )
    duration = spec.get("leaseDurationSeconds")
    if is_int(duration) and duration <= 0:
        errors.append(("spec.leaseDurationSeconds", invalid(duration, "must be greater than 0")))
    transitions = spec.get("leaseTransitions")
    if is_int(transitions) and transitions < 0:
        errors.append(
            ("spec.leaseTransitions", invalid(transitions, "must be greater than or equal to 0"))
        )
    return errors


# strategy and preferredHolder are alpha (CoordinatedLeaderElection, off): the server drops them.
LEFT_OUT = {"Lease": ""}
