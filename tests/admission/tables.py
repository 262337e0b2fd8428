"""Upstream webhook unit-test tables transcribed as data (tests/admission/<operator>/*.yaml),
and how a port's errors are held to them.

Each file names its source (repository, tag, commit, test file and function), the port it
judges, the feature gates the test sets, and how the test compares: "type-field" (the type and
field of every error, then the first error's detail and bad value where the case names them, as
tests that ignore Detail and BadValue do), "full" (type, field and detail of every error) or
"contains" (each expected line is in the error's text, as tests that match substrings do).
Each case: its upstream name, the object, and `want`: [type, field] or [type, field, detail]
(a line of text for "contains").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import load_yaml

HERE = Path(__file__).resolve().parent

# field.ErrorType as its message begins (k8s.io/apimachinery/pkg/util/validation/field).
_TYPES = {
    "Invalid value": "Invalid",
    "Unsupported value": "NotSupported",
    "Duplicate value": "Duplicate",
    "Required value": "Required",
    "Forbidden": "Forbidden",
    "Too many": "TooMany",
    "Too long": "TooLong",
    "Not found": "NotFound",
}


def cases(operator: str) -> list:
    """pytest params, one a case, named file::case."""
    params = []
    for path in sorted((HERE / operator).glob("*.yaml")):
        table = load_yaml(path.read_text())
        for case in table["cases"]:
            params.append(pytest.param(table, case, id=f"{path.stem}::{case['name']}"))
    return params


def error_type(message: str) -> str:
    for prefix, name in _TYPES.items():
        if message.startswith(prefix):
            return name
    return message


def judge(errors: list[tuple[str, str]], table: dict, case: dict) -> None:
    if table["compare"] == "contains":
        # Each expected line is in the webhook's error text; no line, no error.
        text = "\n".join(f"{path}: {message}" for path, message in errors)
        assert bool(errors) == bool(case["want"]), errors
        for line in case["want"]:
            assert line in text, (line, errors)
        return
    got = [[error_type(message), path] for path, message in errors]
    want = case["want"]
    assert got == [w[:2] for w in want], errors
    for (_, message), expected in zip(errors, want, strict=True):
        if len(expected) > 2:
            assert message.endswith(expected[2]), (message, expected[2])
    if table["compare"] == "type-field" and errors:
        if "detail" in case:
            assert errors[0][1].endswith(": " + case["detail"]), errors[0]
        if "bad_value" in case:
            assert case["bad_value"] in errors[0][1], errors[0]
