"""Events, core/v1 and events.k8s.io/v1, as kube-apiserver v1.32.13 decodes and validates them on
create (pkg/apis/core/validation/events.go ValidateEventCreate, legacyValidateEvent,
validateV1EventSeries): an events.k8s.io Event is converted to the core one first, and checked
strictly; a core/v1 one only as the legacy rules say. Their MicroTimes (eventTime,
series.lastObservedTime) decode as a Lease's do (coordination.py)."""

from __future__ import annotations

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.coordination import micro_time_error
from trainops.knowledge.apivalidation.formats import Errors, invalid, required
from trainops.model.shape import mapping

_LIMIT = 128  # ReportingInstanceLengthLimit, ActionLengthLimit, ReasonLengthLimit
_NOTE_LIMIT = 1024  # NoteLengthLimit


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _decoding(doc: dict, keys: tuple[str, ...], version: str) -> Errors:
    errors: Errors = []
    series = mapping(doc.get("series"))
    for key, value in [(k, doc.get(k)) for k in keys] + [
        ("series.lastObservedTime", series.get("lastObservedTime"))
    ]:
        problem = micro_time_error(value)
        if problem:
            message = f'Event in version "{version}" cannot be handled as a Event: {problem}'
            errors.append((key, message))
    return errors


def core_event(doc: dict) -> Errors:
    """A core/v1 Event: legacyValidateEvent (the strict checks are events.k8s.io's)."""
    errors = _decoding(doc, ("eventTime",), "v1")
    if errors:
        return errors
    return _legacy(doc, "reportingComponent", mapping(doc.get("involvedObject")), "message")


def _legacy(doc: dict, controller_key: str, involved: dict, message_key: str) -> Errors:
    errors: Errors = []
    namespace = _text(mapping(doc.get("metadata")).get("namespace"))
    theirs = _text(involved.get("namespace"))
    where = "involvedObject.namespace"
    if not doc.get("eventTime"):
        if not theirs:
            if namespace not in ("", "default"):
                errors.append((where, invalid(theirs, "does not match event.namespace")))
        elif namespace != theirs:
            errors.append((where, invalid(theirs, "does not match event.namespace")))
        return errors
    if not theirs and namespace not in ("default", "kube-system"):
        errors.append((where, invalid(theirs, "does not match event.namespace")))
    controller = _text(doc.get(controller_key))
    if not controller:
        errors.append((controller_key, required()))
    errors += [(controller_key, invalid(controller, m)) for m in names.qualified_name(controller)]
    for key in ("reportingInstance", "action", "reason"):
        value = _text(doc.get(key))
        if not value:
            errors.append((key, required()))
        if len(value) > _LIMIT:
            errors.append((key, invalid("", f"can have at most {_LIMIT} characters")))
    if len(_text(doc.get(message_key))) > _NOTE_LIMIT:
        errors.append(("message", invalid("", f"can have at most {_NOTE_LIMIT} characters")))
    return errors


def events_event(doc: dict) -> Errors:
    """An events.k8s.io/v1 Event: legacyValidateEvent on its core form, then the strict checks."""
    errors = _decoding(doc, ("eventTime",), "v1")
    if errors:
        return errors
    errors = _legacy(doc, "reportingController", mapping(doc.get("regarding")), "note")
    series = doc.get("series")
    if isinstance(series, dict):
        count = series.get("count")
        if isinstance(count, int) and count < 2:
            errors.append(("series.count", invalid("", "should be at least 2")))
        if not series.get("lastObservedTime"):
            errors.append(("series.lastObservedTime", required()))
    if not doc.get("eventTime"):
        errors.append(("eventTime", required()))
    kind = _text(doc.get("type"))
    if kind not in ("Normal", "Warning"):
        errors.append(("type", invalid("", f"has invalid value: {kind}")))
    for key, shown in (
        ("deprecatedFirstTimestamp", "deprecatedFirstTimestamp"),
        ("deprecatedLastTimestamp", "deprecatedLastTimestamp"),
        ("deprecatedCount", "deprecatedCount"),
    ):
        if doc.get(key):
            errors.append((shown, invalid("", "needs to be unset")))
    source = mapping(doc.get("deprecatedSource"))
    if source.get("component") or source.get("host"):
        errors.append(("deprecatedSource", invalid("", "needs to be unset")))
    return errors


LEFT_OUT = {
    "Event": (
        "events.k8s.io: the metadata's strict checks beyond the name; core/v1: nothing more "
        "(the legacy rules are all there is)"
    )
}
