"""What the Pod spec port's modules share: the small checks several sections make
(pkg/apis/core/validation/validation.go); values are printed as field.Error prints them by
formats.py, whose printers this module passes on."""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from trainops.knowledge.apivalidation import go_quantity, names
from trainops.knowledge.apivalidation.formats import invalid, not_supported, required
from trainops.knowledge.apivalidation.meta import Errors

MAX_INT32 = 2147483647
# validation.go's messages
IS_NEGATIVE = "must be greater than or equal to 0"
NOT_POSITIVE = "must be greater than zero"
FILE_MODE = "must be a number between 0 and 0777 (octal), both inclusive"
PORT_RANGE = "must be between 1 and 65535, inclusive"
ID_RANGE = f"must be between 0 and {MAX_INT32}, inclusive"


def as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_str(value: object) -> str:
    """A string field as Go decodes it: absent or null is ""."""
    return value if isinstance(value, str) else ""


def dicts(value: object) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def strings(value: object) -> list[str]:
    return [v if isinstance(v, str) else "" for v in value] if isinstance(value, list) else []


def subdomain(path: str, value: str) -> Errors:
    """ValidateDNS1123Subdomain and the NameIsDNSSubdomain name checks."""
    return [(path, invalid(value, m)) for m in names.dns1123_subdomain(value)]


def label(path: str, value: str) -> Errors:
    """ValidateDNS1123Label."""
    return [(path, invalid(value, m)) for m in names.is_dns1123_label(value)]


def qualified(path: str, value: str) -> Errors:
    """ValidateQualifiedName / metav1 ValidateLabelName."""
    return [(path, invalid(value, m)) for m in names.qualified_name(value)]


def mask_trailing_dash(name: str) -> str:
    """apimachinery maskTrailingDash (a generateName-like name may end in a dash)."""
    return name[:-2] + "a" if len(name) > 1 and name.endswith("-") else name


def no_backsteps(path: str, target: str) -> Errors:
    """validatePathNoBacksteps."""
    if ".." in target.split("/"):  # filepath.ToSlash is the identity on Linux
        return [(path, invalid(target, "must not contain '..'"))]
    return []


def local_descending_path(path: str, target: str) -> Errors:
    """validateLocalDescendingPath: relative, and no '..' element."""
    errors: Errors = []
    if target.startswith("/"):
        errors.append((path, invalid(target, "must be a relative path")))
    return errors + no_backsteps(path, target)


def local_non_reserved_path(path: str, target: str) -> Errors:
    """ValidateLocalNonReservedPath: also not starting with '..'."""
    errors = local_descending_path(path, target)
    if target.startswith("..") and not target.startswith("../"):
        errors.append((path, invalid(target, "must not start with '..'")))
    return errors


def file_mode(path: str, value: object) -> Errors:
    mode = as_int(value)
    if mode is not None and not 0 <= mode <= 0o777:
        return [(path, invalid(mode, FILE_MODE))]
    return []


def key_to_path(item: dict, path: str) -> Errors:
    """validateKeyToPath: an item of a secret or configMap volume."""
    errors: Errors = []
    if not as_str(item.get("key")):
        errors.append((f"{path}.key", required()))
    target = as_str(item.get("path"))
    if not target:
        errors.append((f"{path}.path", required()))
    errors += local_non_reserved_path(f"{path}.path", target)
    return errors + file_mode(f"{path}.mode", item.get("mode"))


@lru_cache(maxsize=1024)
def is_ip(text: str) -> bool:
    """netutils.ParseIPSloppy: IPv4 (leading zeros allowed) or IPv6, no zone."""
    if "%" in text:
        return False
    if ":" not in text:
        return _ipv4_sloppy(text)
    head, _, tail = text.rpartition(":")
    if "." in tail:  # an IPv6 address ending in an IPv4 one
        if not _ipv4_sloppy(tail):
            return False
        text = f"{head}:{'.'.join(str(int(p)) for p in tail.split('.'))}"
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _ipv4_sloppy(text: str) -> bool:
    parts = text.split(".")
    return len(parts) == 4 and all(
        p and p.isascii() and p.isdigit() and int(p) <= 255 for p in parts
    )


QUANTITY_SYNTAX = go_quantity.FORMAT_WRONG


def quantity(value: object) -> go_quantity.Quantity | str:
    """A Quantity, or the decoder's error text."""
    text = go_quantity.text_of(value)
    if text is None:
        return QUANTITY_SYNTAX
    try:
        return go_quantity.parse(text)
    except go_quantity.QuantityError as error:
        return str(error)


# validContainerResourceFieldPathExpressions, sorted as sets.List lists them
RESOURCE_FIELD_EXPRESSIONS = (
    "limits.cpu", "limits.ephemeral-storage", "limits.memory",
    "requests.cpu", "requests.ephemeral-storage", "requests.memory",
)  # fmt: skip
_DIVISORS_BYTES = frozenset(
    ["1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"]
)
_DIVISOR_KINDS = {
    "limits.memory": "memory", "requests.memory": "memory",
    "limits.ephemeral-storage": "local ephemeral storage",
    "requests.ephemeral-storage": "local ephemeral storage",
}  # fmt: skip
_DIVISOR_BYTES_MESSAGE = (
    "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported "
    "with the {} resource"
)


def resource_field_selector(selector: dict, path: str, volume: bool) -> Errors:
    """validateContainerResourceFieldSelector, with validateContainerResourceDivisor."""
    errors: Errors = []
    resource = as_str(selector.get("resource"))
    if volume and not as_str(selector.get("containerName")):
        errors.append((f"{path}.containerName", required()))
    elif not resource:
        errors.append((f"{path}.resource", required()))
    elif resource not in RESOURCE_FIELD_EXPRESSIONS and not resource.startswith(
        ("requests.hugepages-", "limits.hugepages-")
    ):
        errors.append((f"{path}.resource", not_supported(resource, RESOURCE_FIELD_EXPRESSIONS)))
    divisor = selector.get("divisor")
    if divisor is None:
        return errors
    parsed = quantity(divisor)
    if isinstance(parsed, str):
        return errors + [(f"{path}.divisor", parsed)]
    if parsed.value == 0:
        return errors
    shown_divisor = parsed.string()
    if resource in ("limits.cpu", "requests.cpu"):
        if shown_divisor not in ("1m", "1"):
            message = "only divisor's values 1m and 1 are supported with the cpu resource"
            errors.append((f"{path}.divisor", invalid(resource, message)))
    elif shown_divisor not in _DIVISORS_BYTES:
        kind = _DIVISOR_KINDS.get(resource)
        if kind is not None:
            errors.append(
                (f"{path}.divisor", invalid(resource, _DIVISOR_BYTES_MESSAGE.format(kind)))
            )
    if shown_divisor not in _DIVISORS_BYTES and resource.startswith(
        ("requests.hugepages-", "limits.hugepages-")
    ):
        message = _DIVISOR_BYTES_MESSAGE.format("hugepages")
        errors.append((f"{path}.divisor", invalid(resource, message)))
    return errors


# validEnvDownwardAPIFieldPathExpressions / validVolumeDownwardAPIFieldPathExpressions, sorted
ENV_FIELD_PATHS = (
    "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName",
    "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs",
)  # fmt: skip
VOLUME_FIELD_PATHS = (
    "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
    "metadata.uid",
)  # fmt: skip
# ConvertDownwardAPIFieldLabel (pkg/apis/core/pods/helpers.go): the labels a v1 Pod converts
_CONVERTIBLE = frozenset(
    [
        "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace",
        "metadata.uid", "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName",
        "spec.schedulerName", "status.phase", "status.hostIP", "status.hostIPs", "status.podIP",
        "status.podIPs",
    ]
)  # fmt: skip


def _split_subscript(field_path: str) -> tuple[str, str] | None:
    """fieldpath.SplitMaybeSubscriptedPath."""
    if not field_path.endswith("']"):
        return None
    head, sep, subscript = field_path[:-2].partition("['")
    if not sep or not head:
        return None
    return head, subscript


def object_field_selector(selector: dict, path: str, expressions: tuple[str, ...]) -> Errors:
    """validateObjectFieldSelector (apiVersion defaults to v1)."""
    version = selector.get("apiVersion")
    version = version if isinstance(version, str) and version else "v1"
    found = _field_selector(version, as_str(selector.get("fieldPath")), expressions)
    return [(path + suffix, message) for suffix, message in found] if found else []


@lru_cache(maxsize=1024)
def _field_selector(version: str, field_path: str, expressions: tuple[str, ...]) -> tuple:
    return tuple(_field_selector_errors(version, field_path, "", expressions))


def _field_selector_errors(
    version: str, field_path: str, path: str, expressions: tuple[str, ...]
) -> Errors:
    if not field_path:
        return [(f"{path}.fieldPath", required())]
    split = _split_subscript(field_path)
    problem = None
    if version != "v1":
        problem = f"unsupported pod version: {version}"
    elif split is not None and split[0] not in ("metadata.annotations", "metadata.labels"):
        problem = f"field label does not support subscript: {field_path}"
    elif split is None and field_path not in _CONVERTIBLE and field_path != "spec.host":
        problem = f"field label not supported: {field_path}"
    if problem is not None:
        message = f"error converting fieldPath: {problem}"
        return [(f"{path}.fieldPath", invalid(field_path, message))]
    if split is not None:
        head, subscript = split
        if head == "metadata.annotations":
            return qualified(path, subscript.lower())
        return qualified(path, subscript)
    internal = "spec.nodeName" if field_path == "spec.host" else field_path
    if internal not in expressions:
        return [(f"{path}.fieldPath", not_supported(internal, expressions))]
    return []


_MEMO_SIZE = 8192


def memoized(check):
    """`check(value, path, *args)`, remembered by the value's repr (JSON-like data: its repr
    tells values apart as the checks do, 1 from True from "1") and its other arguments: the same
    volumes, affinities and tolerations recur in every object. The errors are kept relative to
    the path and prefixed on each use."""
    cache: dict = {}

    def run(value: object, path: str, *args: object) -> Errors:
        key = (repr(value), args)
        found = cache.get(key)
        if found is None:
            if len(cache) >= _MEMO_SIZE:
                cache.clear()
            found = cache[key] = tuple(check(value, "", *args))
        return [(path + suffix, message) for suffix, message in found] if found else []

    return run
