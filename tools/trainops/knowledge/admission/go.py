"""What the operators' Go code prints when it parses a label or an annotation: strconv's error
texts (Go 1.24 strconv/atoi.go and atob.go), shared by every operator's port."""

from __future__ import annotations

import re

from trainops.knowledge.apivalidation.formats import go_quote

_DIGITS = re.compile(r"[+-]?[0-9]+")


def atoi(text: str, bits: int = 64) -> int | str:
    """strconv.Atoi (ParseInt(text, 10, bits)): the number, or the error's text."""
    name = "Atoi" if bits == 64 else "ParseInt"
    if not _DIGITS.fullmatch(text):
        return f"strconv.{name}: parsing {go_quote(text)}: invalid syntax"
    value = int(text)
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        return f"strconv.{name}: parsing {go_quote(text)}: value out of range"
    return value


_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def parse_bool(text: str) -> bool | str:
    """strconv.ParseBool: the value, or the error's text."""
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return f"strconv.ParseBool: parsing {go_quote(text)}: invalid syntax"
