"""resource.Quantity as the API server reads, rounds and prints it (k8s.io/apimachinery
pkg/api/resource: ParseQuantity, RoundUp, String, and Go's %#v of the struct), exactly: the
messages of core validation quote quantities in these forms ("must be equal to nvidia.com/gpu
limit of 8", "1500Mi is not positive integer multiple of hugepages-1Gi")."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache

DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"
# The decode errors (a quantity that does not parse fails the request before validation).
FORMAT_WRONG = (
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
)
SUFFIX_WRONG = "unable to parse quantity's suffix"
NUMERIC_WRONG = "unable to parse quantity's numeric part"

_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
_BINARY_SUFFIX = {exponent // 10: suffix for suffix, exponent in _BINARY.items()}
_DIGITS = frozenset("0123456789")
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_EXPONENT = re.compile(r"[+-]?[0-9]+")
_INT64_MAX = (1 << 63) - 1
_NANO = Fraction(1, 10**9)


class QuantityError(ValueError):
    """The error text the server's decoder reports."""


@dataclass(frozen=True, slots=True)
class Quantity:
    value: Fraction
    format: str
    # int64Amount(value, scale) when ParseQuantity's fast path held the amount, else None (an
    # inf.Dec); `s` is the cached string String() returns when set.
    amount: tuple[int, int] | None
    s: str = ""

    def string(self) -> str:
        """Quantity.String(): the cached string, else the canonical form."""
        return self.s or _canonical(self.value, self.format)

    def go_repr(self) -> str:
        """%#v of the struct, as field.Invalid prints a Quantity value (the address of an inf.Dec
        cannot be known: it is shown as 0x…)."""
        value, scale = self.amount if self.amount is not None else (0, 0)
        dec = "(*inf.Dec)(nil)" if self.amount is not None else "(*inf.Dec)(0x…)"
        return (
            f"resource.Quantity{{i:resource.int64Amount{{value:{value}, scale:{scale}}}, "
            f"d:resource.infDecAmount{{Dec:{dec}}}, s:{json.dumps(self.s)}, Format:{json.dumps(self.format)}}}"
        )

    def milli_value(self) -> int:
        return _away_from_zero(self.value * 1000)

    def int_value(self) -> int:
        return _away_from_zero(self.value)


def _away_from_zero(value: Fraction) -> int:
    whole = value.numerator // value.denominator
    if whole != value and value > 0:
        return whole + 1
    if value < 0:
        whole = -((-value.numerator) // value.denominator)
        return whole - 1 if whole != value else whole
    return whole


def text_of(value: object) -> str | None:
    """The text the server parses: a string as written, a JSON number as a client sends it."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    return None


def _go_float(value: float) -> str:
    """encoding/json's float64 text, as kubectl sends a YAML number (1.0 as 1, 1e-07 as 1e-7)."""
    if value != value or value in (float("inf"), float("-inf")):
        return "NaN"  # json.Marshal refuses these; no quantity either way
    if value == 0 or 1e-6 <= abs(value) < 1e21:
        text = format(Decimal(repr(value)), "f")
        return text[:-2] if text.endswith(".0") else text
    mantissa, _, exponent = f"{value:e}".partition("e")
    digits = repr(value).partition("e")[0] if "e" in repr(value) else mantissa
    sign, number = exponent[0], exponent[1:].lstrip("0") or "0"
    return f"{digits.rstrip('0').rstrip('.')}e{sign}{number}"


def _split(text: str) -> tuple[bool, str, str, str, str]:
    """parseQuantityString: sign, the numeric text, numerator and denominator digits, suffix."""
    positive, pos, end = True, 0, len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1
    while True:  # leading zeros
        if pos >= end:
            return positive, "0", "0", "", ""
        if text[pos] != "0":
            break
        pos += 1
    i = pos
    while i < end and text[i] in _DIGITS:
        i += 1
    if i >= end:
        return positive, text, text[pos:end] or "0", "", ""
    num, pos = text[pos:i] or "0", i
    denom = ""
    if text[pos] == ".":
        pos += 1
        i = pos
        while i < end and text[i] in _DIGITS:
            i += 1
        if i >= end:
            return positive, text, num, text[pos:end], ""
        denom, pos = text[pos:i], i
    value = text[:pos]
    start = pos
    while pos < end and text[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(FORMAT_WRONG)
    return positive, value, num, denom, text[start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    if suffix in _DECIMAL:
        return 10, _DECIMAL[suffix], DECIMAL_SI
    if suffix in _BINARY:
        return 2, _BINARY[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE" and _EXPONENT.fullmatch(suffix[1:]):
        exponent = int(suffix[1:])
        if abs(exponent) <= _INT64_MAX:
            exponent = (exponent + 2**31) % 2**32 - 2**31  # int32(parsed)
            return 10, max(-400, min(400, exponent)), DECIMAL_EXPONENT
    raise QuantityError(SUFFIX_WRONG)


@lru_cache(maxsize=4096)
def parse(text: str) -> Quantity:
    """ParseQuantity; QuantityError with the decoder's message when the text is no quantity."""
    if not text:
        raise QuantityError(FORMAT_WRONG)
    if text == "0":
        return Quantity(Fraction(0), DECIMAL_SI, (0, 0), "0")
    positive, value, num, denom, suffix = _split(text)
    base, exponent, form = _interpret(suffix)
    scale, mantissa = 0, 1
    if form == BINARY_SI:
        if exponent >= 0 and not denom:
            mantissa = 1 << exponent
            precision = 15 - len(num) - (exponent * 3) // 10 - 1
        else:
            precision = -1
    else:
        scale = exponent
        precision = 18 - len(num) - len(denom)
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = num + denom
            result = int(shifted) * mantissa
            if result <= _INT64_MAX:
                if not positive:
                    result = -result
                if form == BINARY_SI:
                    canonical = exponent % 10 == 0 and int(shifted) & 7 != 0
                else:
                    canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                amount = Fraction(result) * Fraction(10) ** scale
                return Quantity(amount, form, (result, scale), text if canonical else "")
    if not any(c in _DIGITS for c in value):
        raise QuantityError(NUMERIC_WRONG)
    try:
        amount = Fraction(value.lstrip("+") if value[:1] == "+" else value)
    except ValueError:
        raise QuantityError(NUMERIC_WRONG) from None
    amount *= Fraction(base) ** exponent
    negative = amount < 0
    amount = abs(amount)
    if amount:
        amount = Fraction(_away_from_zero(amount / _NANO)) * _NANO
    if form == BINARY_SI and amount > _INT64_MAX:
        amount = Fraction(_INT64_MAX)
    if form == BINARY_SI and 0 < amount < 1:
        form = DECIMAL_SI
    return Quantity(-amount if negative else amount, form, None)


def round_up_milli(q: Quantity) -> Quantity:
    """Quantity.RoundUp(-3), as SetDefaults_ResourceList applies it to requests and limits."""
    if q.amount is not None and q.amount[1] >= -3:
        return q
    value = Fraction(_away_from_zero(q.value * 1000), 1000)
    if q.amount is not None:
        return Quantity(value, q.format, (int(value * 1000), -3))
    return Quantity(value, q.format, None)


def _canonical(value: Fraction, form: str) -> str:
    """CanonicalizeBytes."""
    if value == 0:
        return "0"
    if form == BINARY_SI and (-1024 < value < 1024 or value.denominator != 1):
        form = DECIMAL_SI
    if form == BINARY_SI:
        number, times = int(value), 0
        while abs(number) >= 1024 and number % 1024 == 0:
            number //= 1024
            times += 1
        return f"{number}{_BINARY_SUFFIX.get(times, '')}"
    exponent = 0
    while value.denominator != 1:
        value *= 10
        exponent -= 1
    number = int(value)
    while abs(number) >= 10 and number % 10 == 0:
        number //= 10
        exponent += 1
    while exponent % 3:
        number *= 10
        exponent -= 1
    if form == DECIMAL_SI:
        return f"{number}{_DECIMAL_SUFFIX.get(exponent, '')}"
    return f"{number}e{exponent}" if exponent else str(number)
