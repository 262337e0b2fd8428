"""Helpers the per-kind ports share, each after the Go it follows: field error texts
(k8s.io/apimachinery/pkg/util/validation/field), Go's printing of the values they carry, int-or-
string values (apimachinery intstr), label selectors (apimachinery meta/v1/validation and labels),
IP addresses and CIDRs (k8s.io/utils/net's "sloppy" parsers) and quantities (apimachinery
api/resource). What the JSON decoder does with base64 and JSON text is go_decode.py's.

Every function is pure and never raises on wrong-typed input; paths and messages are built only
for an error.
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache
from typing import TypeGuard

from trainops.knowledge.apivalidation import go_quantity as quantities
from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.go_quantity import Quantity

Errors = list[tuple[str, str]]


# --- values as Go prints them (field.Error.ErrorBody) --------------------------------------


def go_quote(value: str) -> str:
    """strconv.Quote: printable characters as they are, the rest escaped."""
    if value.isprintable() and '"' not in value and "\\" not in value:
        return f'"{value}"'
    out = ['"']
    for char in value:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif char.isprintable():
            out.append(char)
        elif char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


_ESCAPES = {
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def shown(value: object) -> str:
    """A value as ErrorBody prints it: strings quoted, numbers and booleans plain, nil as null,
    a []string in %#v form; a value already rendered as Go syntax (GoValue) as it is."""
    if isinstance(value, GoValue):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return go_quote(value)
    if value is None:
        return "null"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "[]string{" + ", ".join(go_quote(v) for v in value) + "}"
    return str(value)


class GoValue:
    """Text already in Go's %#v syntax (a struct, a map, a slice)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def invalid(value: object, detail: str) -> str:
    """field.Invalid."""
    return (
        f"Invalid value: {shown(value)}: {detail}" if detail else f"Invalid value: {shown(value)}"
    )


def not_supported(value: object, supported: tuple[str, ...] | list[str]) -> str:
    """field.NotSupported: the value, then the supported ones quoted, in the order given."""
    quoted = ", ".join(go_quote(s) for s in supported)
    return f"Unsupported value: {shown(value)}: supported values: {quoted}"


def required(detail: str = "") -> str:
    return f"Required value: {detail}" if detail else "Required value"


def forbidden(detail: str) -> str:
    return f"Forbidden: {detail}"


def duplicate(value: object) -> str:
    return f"Duplicate value: {shown(value)}"


def not_found(value: object) -> str:
    return f"Not found: {shown(value)}"


def too_many(actual: int, most: int) -> str:
    return f"Too many: {actual}: must have at most {most} items"


def too_long(most: int) -> str:
    return f"Too long: may not be more than {most} bytes"


def is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def go_map(labels: object) -> GoValue:
    """A map[string]string as %#v prints it (keys sorted)."""
    if not isinstance(labels, dict):
        return GoValue("map[string]string(nil)")
    items = ", ".join(
        f"{go_quote(str(k))}:{go_quote(str(v))}" for k, v in sorted(labels.items(), key=str)
    )
    return GoValue(f"map[string]string{{{items}}}")


def go_strings(values: object, type_name: str = "string") -> GoValue:
    """A []string (or a slice of a named string type) as %#v prints it."""
    if not isinstance(values, list):
        return GoValue(f"[]{type_name}(nil)")
    return GoValue(f"[]{type_name}{{{', '.join(go_quote(str(v)) for v in values)}}}")


def go_ints(values: object, type_name: str = "int32") -> GoValue:
    if not isinstance(values, list):
        return GoValue(f"[]{type_name}(nil)")
    return GoValue(f"[]{type_name}{{{', '.join(str(v) for v in values)}}}")


def go_selector(selector: object) -> GoValue:
    """A metav1.LabelSelector as %#v prints it."""
    selector = selector if isinstance(selector, dict) else {}
    expressions = selector.get("matchExpressions")
    if isinstance(expressions, list):
        items = ", ".join(
            "v1.LabelSelectorRequirement{"
            f"Key:{go_quote(str(e.get('key') or ''))}, "
            f"Operator:{go_quote(str(e.get('operator') or ''))}, "
            f"Values:{go_strings(e.get('values')).text}}}"
            for e in expressions
            if isinstance(e, dict)
        )
        shown_expressions = f"[]v1.LabelSelectorRequirement{{{items}}}"
    else:
        shown_expressions = "[]v1.LabelSelectorRequirement(nil)"
    labels = selector.get("matchLabels")
    return GoValue(
        f"v1.LabelSelector{{MatchLabels:{go_map(labels).text}, MatchExpressions:{shown_expressions}}}"
    )


# --- int-or-string (apimachinery intstr, apps validation) -----------------------------------


def go_intstr(value: object) -> GoValue:
    if isinstance(value, str):
        return GoValue(f"intstr.IntOrString{{Type:1, IntVal:0, StrVal:{go_quote(value)}}}")
    return GoValue(f'intstr.IntOrString{{Type:0, IntVal:{value}, StrVal:""}}')


_PERCENT = re.compile(r"[0-9]+%")
PERCENT_MESSAGE = (
    "a valid percent string must be a numeric string followed by an ending '%' "
    "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"
)


def is_percent(value: str) -> bool:
    return _PERCENT.fullmatch(value) is not None


def go_atoi(text: str) -> int | None:
    """strconv.Atoi: an optional sign and decimal digits, within int64; None when it fails."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    number = int(text)
    return number if -(2**63) <= number < 2**63 else None


def intstr_value(value: object) -> int:
    """apps getIntOrPercentValue: a percent's number, an int, or a string's integer (0 if none)."""
    if isinstance(value, str):
        if is_percent(value):
            return int(value[:-1])
        return go_atoi(value) or 0
    return value if is_int(value) else 0


def positive_int_or_percent(value: object, path: str) -> Errors:
    """apps ValidatePositiveIntOrPercent."""
    if isinstance(value, str):
        return [] if is_percent(value) else [(path, invalid(go_intstr(value), PERCENT_MESSAGE))]
    if is_int(value) and value < 0:
        return [(path, invalid(value, "must be greater than or equal to 0"))]
    return []


def not_more_than_100_percent(value: object, path: str) -> Errors:
    """apps IsNotMoreThan100Percent."""
    if isinstance(value, str) and is_percent(value) and int(value[:-1]) > 100:
        return [(path, invalid(go_intstr(value), "must not be greater than 100%"))]
    return []


def non_negative(spec: dict, key: str, path: str) -> Errors:
    """core ValidateNonnegativeField, for `key` when it is set."""
    value = spec.get(key)
    if is_int(value) and value < 0:
        return [(f"{path}.{key}", invalid(value, "must be greater than or equal to 0"))]
    return []


# --- names -----------------------------------------------------------------------------------


_LABEL_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_SUBDOMAIN_RE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def path_segment(value: str) -> list[str]:
    """apimachinery path.IsValidPathSegmentName."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


_HTTP_PATH = re.compile(r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+")
_HTTP_PATH_MESSAGE = (
    "Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"
)


def domain_prefixed_path(value: str, path: str) -> Errors:
    """apimachinery IsDomainPrefixedPath (e.g. acme.io/foo)."""
    if not value:
        return [(path, required())]
    host, slash, rest = value.partition("/")
    if not slash or not host or not rest:
        return [(path, invalid(value, 'must be a domain-prefixed path (such as "acme.io/foo")'))]
    errors = [(path, invalid(host, m)) for m in names.dns1123_subdomain(host)]
    if not _HTTP_PATH.fullmatch(rest):
        errors.append((path, invalid(rest, _HTTP_PATH_MESSAGE)))
    return errors


# --- labels and label selectors (apimachinery meta/v1/validation) ---------------------------


def validate_labels(labels: object, path: str) -> Errors:
    """ValidateLabels: every key a qualified name, every value a label value; all at `path`."""
    if not isinstance(labels, dict):
        return []
    errors: Errors = []
    for key, value in labels.items():
        key = str(key)
        if problems := names.qualified_name(key):
            errors += [(path, invalid(key, m)) for m in problems]
        if isinstance(value, str) and (problems := names.label_value(value)):
            errors += [(path, invalid(value, m)) for m in problems]
    return errors


_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def validate_label_selector(selector: object, path: str) -> Errors:
    """ValidateLabelSelector (values held to label values). Its errors are also exactly the
    selectors LabelSelectorAsSelector cannot convert (labels.NewRequirement checks the same)."""
    if not isinstance(selector, dict):
        return []
    errors: Errors = []
    labels = selector.get("matchLabels")
    if labels:
        errors += validate_labels(labels, f"{path}.matchLabels")
    expressions = selector.get("matchExpressions")
    if not isinstance(expressions, list):
        return errors
    for index, expression in enumerate(expressions):
        if not isinstance(expression, dict):
            continue
        where = f"{path}.matchExpressions[{index}]"
        operator, values = expression.get("operator"), expression.get("values")
        values = values if isinstance(values, list) else []
        if operator in ("In", "NotIn"):
            if not values:
                message = "must be specified when `operator` is 'In' or 'NotIn'"
                errors.append((f"{where}.values", required(message)))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                message = "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                errors.append((f"{where}.values", forbidden(message)))
        else:
            shown_operator = operator if isinstance(operator, str) else ""
            errors.append(
                (f"{where}.operator", invalid(shown_operator, "not a valid selector operator"))
            )
        key = expression.get("key")
        key = key if isinstance(key, str) else ""
        errors += [(f"{where}.key", invalid(key, m)) for m in names.qualified_name(key)]
        for number, value in enumerate(values):
            if isinstance(value, str):
                errors += [
                    (f"{where}.values[{number}]", invalid(value, m))
                    for m in names.label_value(value)
                ]
    return errors


def selector_is_empty(selector: dict) -> bool:
    return not selector.get("matchLabels") and not selector.get("matchExpressions")


def selector_matches(selector: dict, labels: dict) -> bool:
    """labels.Selector.Matches of a LabelSelector that converts (an empty one matches all)."""
    match_labels = selector.get("matchLabels")
    if isinstance(match_labels, dict):
        for key, value in match_labels.items():
            if key not in labels or labels[key] != value:
                return False
    expressions = selector.get("matchExpressions")
    for expression in expressions if isinstance(expressions, list) else ():
        if not isinstance(expression, dict):
            continue
        key, operator = expression.get("key"), expression.get("operator")
        values = expression.get("values")
        values = values if isinstance(values, list) else []
        present = key in labels
        if operator == "In":
            if not present or labels[key] not in values:
                return False
        elif operator == "NotIn":
            if present and labels[key] in values:
                return False
        elif operator == "Exists":
            if not present:
                return False
        elif operator == "DoesNotExist" and present:
            return False
    return True


def does_not_match(labels: object) -> str:
    return invalid(go_map(labels), "`selector` does not match template `labels`")


# --- IP addresses and CIDRs (k8s.io/utils/net ParseIPSloppy, ParseCIDRSloppy) -------------


def _sloppy_v4(text: str) -> str | None:
    """An IPv4 address with leading zeros read as decimal (Go 1.16's net.ParseIP)."""
    parts = text.split(".")
    if len(parts) != 4:
        return None
    numbers = []
    for part in parts:
        if not part or not part.isascii() or not part.isdigit() or len(part) > 3:
            return None
        number = int(part)
        if number > 255:
            return None
        numbers.append(str(number))
    return ".".join(numbers)


@lru_cache(maxsize=4096)
def parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """netutils.ParseIPSloppy: None when the text is no IP address."""
    if ":" not in text:
        v4 = _sloppy_v4(text)
        return ipaddress.IPv4Address(v4) if v4 is not None else None
    if "%" in text or not text.isascii():
        return None  # Go's parser knows no zones
    head, _, tail = text.rpartition(":")
    if "." in tail:  # an IPv4 tail in an IPv6 address keeps the sloppy reading
        v4 = _sloppy_v4(tail)
        if v4 is None:
            return None
        text = f"{head}:{v4}"
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        return None
    return address


@lru_cache(maxsize=4096)
def parse_cidr(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """netutils.ParseCIDRSloppy: None when the text is no CIDR (host bits may be set)."""
    address, slash, bits = text.partition("/")
    if not slash or not bits.isascii() or not bits.isdigit():
        return None
    ip = parse_ip(address)
    if ip is None:
        return None
    if ip.version == 6 and ip.ipv4_mapped is not None and "." in address:
        pass  # Go keeps a ::ffff:a.b.c.d address in the IPv6 family
    length = int(bits)
    if length > ip.max_prefixlen:
        return None
    return ipaddress.ip_network(f"{ip}/{length}", strict=False)


IP_MESSAGE = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
CIDR_MESSAGE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"


def valid_cidr(value: object, path: str) -> Errors:
    """apimachinery IsValidCIDR."""
    if isinstance(value, str) and parse_cidr(value) is None:
        return [(path, invalid(value, CIDR_MESSAGE))]
    return []


# --- quantities (apimachinery api/resource: go_quantity.py holds the port) -------------------


def parse_quantity(value: object) -> Quantity | str | None:
    """A quantity as the API server decodes it: a Quantity, the decoding error's text, or None
    for a value of another type (the schema rule's)."""
    text = quantities.text_of(value)
    if text is None:
        return None
    try:
        return quantities.parse(text)
    except quantities.QuantityError as error:
        return str(error)


def go_quantity(quantity: Quantity, printed: bool = False) -> GoValue:
    """A resource.Quantity as %#v prints it: its int64Amount, and its cached string — the text
    ParseQuantity kept when it was canonical, or the canonical form once String() ran on it
    (printed: the message quotes the same quantity)."""
    cached = quantity.string() if printed else quantity.s
    if quantity.amount is None:
        amount, dec = "value:0, scale:0", "(*inf.Dec)(0xc000000000)"
    else:
        amount, dec = f"value:{quantity.amount[0]}, scale:{quantity.amount[1]}", "(*inf.Dec)(nil)"
    return GoValue(
        f"resource.Quantity{{i:resource.int64Amount{{{amount}}}, "
        f"d:resource.infDecAmount{{Dec:{dec}}}, s:{go_quote(cached)}, "
        f"Format:{go_quote(quantity.format)}}}"
    )
