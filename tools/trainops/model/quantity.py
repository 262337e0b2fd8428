"""Kubernetes resource quantities: parse to numbers, and print them back for people."""

from __future__ import annotations

import re
from functools import lru_cache

_SUFFIXES = {
    "n": 1e-9,
    "u": 1e-6,
    "m": 1e-3,
    "": 1.0,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
    "Ei": 2.0**60,
}
_QUANTITY = re.compile(
    r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?)"
)


def parse(value) -> float:
    """A quantity (`500m`, `2Gi`, `4`, 2) as a number; ValueError when it is not one."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # an integer past any float: no quantity is that large
            raise ValueError(f"{value} is too large for a Kubernetes quantity") from None
    return _parse_text(str(value))


@lru_cache(maxsize=4096)  # every pod asks for the same few amounts
def _parse_text(text: str) -> float:
    match = _QUANTITY.fullmatch(text.strip())
    if not match:
        raise ValueError(f"{text!r} is not a Kubernetes quantity")
    return float(match.group(1)) * _SUFFIXES[match.group(2)]


def show(resource: str, amount: float) -> str:
    """An amount in the unit people use for the resource, in plain digits (1140Gi, not
    1.14e+03Gi)."""
    if resource == "memory" or resource.endswith("storage"):
        return f"{_plain(amount / 2**30, 3)}Gi"
    if resource == "cpu" and amount < 1:
        return f"{amount * 1000:.0f}m"
    return _plain(amount, 4)


def _plain(value: float, digits: int) -> str:
    """`value` to `digits` significant digits, or whole when it has more digits than that."""
    text = f"{value:.{digits}g}"
    return f"{value:.0f}" if "e" in text else text
