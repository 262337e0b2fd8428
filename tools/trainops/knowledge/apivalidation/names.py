"""Name and value syntax, worded as k8s.io/apimachinery/pkg/util/validation words it."""

from __future__ import annotations

import re
from functools import lru_cache

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
QUALIFIED_NAME_MAX = 63
LABEL_VALUE_MAX = 63

_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = _LABEL + r"(\." + _LABEL + ")*"
_DNS1035 = "[a-z]([-a-z0-9]*[a-z0-9])?"
_QUALIFIED = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = "(" + _QUALIFIED + ")?"
_ENV_NAME = "[-._a-zA-Z][-._a-zA-Z0-9]*"


def _full(pattern: str) -> re.Pattern:
    return re.compile(f"^(?:{pattern})$")


_LABEL_RE, _SUBDOMAIN_RE, _DNS1035_RE = _full(_LABEL), _full(_SUBDOMAIN), _full(_DNS1035)
_QUALIFIED_RE, _LABEL_VALUE_RE, _ENV_NAME_RE = (
    _full(_QUALIFIED),
    _full(_LABEL_VALUE),
    _full(_ENV_NAME),
)


def _too_long(limit: int) -> str:
    return f"must be no more than {limit} characters"


def _syntax(value: str, limit: int, pattern: re.Pattern, message: str) -> tuple[str, ...]:
    errors = (_too_long(limit),) if len(value) > limit else ()
    return errors + ((message,) if not pattern.match(value) else ())


# Each check returns its messages as a tuple, cached: they are pure functions of the text, and the
# same names recur in every object (containers, ports, labels, env vars).
_cached = lru_cache(maxsize=16384)


@_cached
def dns1123_label(value: str) -> tuple[str, ...]:
    return _syntax(
        value,
        DNS1123_LABEL_MAX,
        _LABEL_RE,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
        "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
        f"validation is '{_LABEL}')",
    )


@_cached
def dns1123_subdomain(value: str) -> tuple[str, ...]:
    return _syntax(
        value,
        DNS1123_SUBDOMAIN_MAX,
        _SUBDOMAIN_RE,
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
        "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
        f"validation is '{_SUBDOMAIN}')",
    )


@_cached
def dns1035_label(value: str) -> tuple[str, ...]:
    return _syntax(
        value,
        DNS1123_LABEL_MAX,
        _DNS1035_RE,
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
        "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
        f"regex used for validation is '{_DNS1035}')",
    )


@_cached
def qualified_name(value: str) -> tuple[str, ...]:
    """apimachinery IsQualifiedName (label and annotation keys): an optional DNS subdomain prefix
    and '/', then a name of at most 63; an empty prefix is reported and the name still checked."""
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors += [f"prefix part {e}" for e in dns1123_subdomain(prefix)]
    else:
        return (
            "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            f"validation is '{_QUALIFIED}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        )
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > QUALIFIED_NAME_MAX:
        errors.append(f"name part {_too_long(QUALIFIED_NAME_MAX)}")
    if not _QUALIFIED_RE.match(name):
        errors.append(
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
            "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            f"validation is '{_QUALIFIED}')"
        )
    return tuple(errors)


@_cached
def label_value(value: str) -> tuple[str, ...]:
    return _syntax(
        value,
        LABEL_VALUE_MAX,
        _LABEL_VALUE_RE,
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
        "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
        f"'12345', regex used for validation is '{_LABEL_VALUE}')",
    )


@_cached
def port_name(value: str) -> tuple[str, ...]:
    """IANA_SVC_NAME (RFC 6335), as container and Service port names must be."""
    errors = []
    if len(value) > 15:
        errors.append("must be no more than 15 characters")
    if not re.match(r"^[-a-z0-9]+$", value):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search(r"[a-z]", value):
        errors.append("must contain at least one letter (a-z)")
    if "--" in value:
        errors.append("must not contain consecutive hyphens")
    if value.startswith("-") or value.endswith("-"):
        errors.append("must not begin or end with a hyphen")
    return tuple(errors)


@_cached
def env_var_name(value: str, relaxed: bool) -> tuple[str, ...]:
    """Environment variable names: C-identifier-like before Kubernetes v1.32, any printable ASCII but '=' from it."""
    if relaxed:
        if not value or "=" in value or any(not (" " <= c <= "~") for c in value):
            return (
                "a valid environment variable name must consist only of printable ASCII characters other than '='",
            )
        return ()
    if not _ENV_NAME_RE.match(value):
        return (
            "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', "
            "and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used "
            f"for validation is '{_ENV_NAME}')",
        )
    return ()


# Go-exact forms of the checks above, for the Pod spec port (k8s.io/apimachinery
# pkg/util/validation): every message IsQualifiedName and IsDNS1123Label give, in their order.


@_cached
def is_dns1123_label(value: str) -> tuple[str, ...]:
    """IsDNS1123Label: a valid subdomain that is no label is told it has dots."""
    errors = (_too_long(DNS1123_LABEL_MAX),) if len(value) > DNS1123_LABEL_MAX else ()
    if _LABEL_RE.match(value):
        return errors
    if _SUBDOMAIN_RE.match(value):
        return (*errors, "must not contain dots")
    return errors + dns1123_label(value)[len(errors) :]


_CONFIG_KEY_RE = re.compile(r"^[-._a-zA-Z0-9]+$")


@_cached
def config_map_key(value: str) -> tuple[str, ...]:
    """IsConfigMapKey: a ConfigMap or Secret key (as env valueFrom and volume items name one)."""
    errors = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        errors.append(_too_long(DNS1123_SUBDOMAIN_MAX))
    if not _CONFIG_KEY_RE.match(value):
        errors.append(
            "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  "
            "or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
        )
    if value == ".":
        errors.append("must not be '.'")
    elif value == "..":
        errors.append("must not be '..'")
    elif value.startswith(".."):
        errors.append("must not start with '..'")
    return tuple(errors)


@_cached
def fully_qualified_name(value: str) -> tuple[str, ...]:
    """apimachinery IsFullyQualifiedName (a webhook's name, a CSI driver's): a DNS subdomain of at
    least three segments (the subdomain's messages joined by ",")."""
    found = dns1123_subdomain(value)
    if found:
        return (",".join(found),)
    if len(value.split(".")) < 3:
        return ("should be a domain with at least three segments separated by dots",)
    return ()


# isCELIdentifier (admissionregistration validation): a CEL identifier, reserved words apart.
CEL_IDENTIFIER = re.compile(r"[_a-zA-Z][_a-zA-Z0-9]*")
