"""A CronJob's schedule as robfig/cron v3 parses it (cron.ParseStandard, parser.go), the parser
kube-apiserver v1.32.13 runs in batch validateScheduleFormat: five fields or a descriptor, each
field a comma list of `*`, `?`, numbers, names, ranges and steps; the error texts are its own."""

from __future__ import annotations

import re
import zoneinfo
from functools import lru_cache

from trainops.knowledge.apivalidation.formats import go_atoi, go_quote

# spec.go: the bounds of each field, and the names months and days of the week accept.
_MINUTES = (0, 59, None)
_HOURS = (0, 23, None)
_DOM = (1, 31, None)
_MONTHS = (
    1,
    12,
    {
        m: i + 1
        for i, m in enumerate(
            ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        )
    },
)
_DOW = (0, 6, {d: i for i, d in enumerate(["sun", "mon", "tue", "wed", "thu", "fri", "sat"])})
_FIELDS = (_MINUTES, _HOURS, _DOM, _MONTHS, _DOW)
_DESCRIPTORS = frozenset(
    ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"]
)
# Go's strings.Fields splits on Unicode white space (unicode.IsSpace).
_GO_SPACE = re.compile("[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+")


class _CronError(Exception):
    pass


def _int(expr: str) -> int:
    """mustParseInt: strconv.Atoi, then no negative numbers."""
    number = go_atoi(expr)
    if number is None:
        body = expr[1:] if expr[:1] in ("+", "-") else expr
        reason = "value out of range" if body.isascii() and body.isdigit() else "invalid syntax"
        raise _CronError(
            f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": {reason}'
        )
    if number < 0:
        raise _CronError(f"negative number ({number}) not allowed: {expr}")
    return number


def _int_or_name(expr: str, names: dict | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _int(expr)


def _range(expr: str, bounds: tuple) -> None:
    """getRange: `*`/`?`, N, N-M, each optionally /STEP; raises on what getRange refuses."""
    low_bound, high_bound, names = bounds
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    if low_and_high[0] in ("*", "?"):
        start, end = low_bound, high_bound
    else:
        start = _int_or_name(low_and_high[0], names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], names)
        else:
            raise _CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _int(range_and_step[1])
        if single:
            end = high_bound
    else:
        raise _CronError(f"too many slashes: {expr}")
    if start < low_bound:
        raise _CronError(f"beginning of range ({start}) below minimum ({low_bound}): {expr}")
    if end > high_bound:
        raise _CronError(f"end of range ({end}) above maximum ({high_bound}): {expr}")
    if start > end:
        raise _CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise _CronError(f"step of range should be a positive number: {expr}")


_DURATION = re.compile(r"[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+")


def _duration_error(text: str) -> str | None:
    """time.ParseDuration's error for `text`, or None."""
    if text in ("0", "+0", "-0") or _DURATION.fullmatch(text):
        return None
    body = text.lstrip("+-")
    if body and re.fullmatch(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)", body):
        return f"time: missing unit in duration {go_quote(text)}"
    unit = re.match(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)([^0-9.]+)", text)
    if unit and not re.fullmatch(r"ns|us|µs|μs|ms|s|m|h", unit.group(1)):
        return f"time: unknown unit {go_quote(unit.group(1))} in duration {go_quote(text)}"
    return f"time: invalid duration {go_quote(text)}"


def location_error(name: str) -> str | None:
    """time.LoadLocation's error for a zone name, or None."""
    if name in ("", "UTC", "Local"):
        return None
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        return f"unknown time zone {name}"
    return None


@lru_cache(maxsize=1024)
def schedule_error(spec: str) -> str | None:
    """cron.ParseStandard's error for a schedule, or None when it parses."""
    if not spec:
        return "empty spec string"
    if spec.startswith(("TZ=", "CRON_TZ=")):
        space, equals = spec.find(" "), spec.find("=")
        if space < 0:  # Go slices spec[eq+1:-1] and panics; the request fails
            return "runtime error: slice bounds out of range"
        location = spec[equals + 1 : space]
        if (reason := location_error(location)) is not None:
            return f"provided bad location {location}: {reason}"
        spec = spec[space:].strip()
    if spec.startswith("@"):
        if spec in _DESCRIPTORS:
            return None
        if spec.startswith("@every "):
            reason = _duration_error(spec[len("@every ") :])
            return None if reason is None else f"failed to parse duration {spec}: {reason}"
        return f"unrecognized descriptor: {spec}"
    fields = [f for f in _GO_SPACE.split(spec) if f]
    if len(fields) != 5:
        return f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]"
    try:
        for field, bounds in zip(fields, _FIELDS, strict=True):
            for expr in (e for e in field.split(",") if e):
                _range(expr, bounds)
    except _CronError as error:
        return str(error)
    return None
