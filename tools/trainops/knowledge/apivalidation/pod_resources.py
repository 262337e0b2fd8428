"""A container's requests and limits as the API server validates them (validation.go:
ValidateContainerResourceRequirements, validateResourceRequirements, validateContainerResourceName,
ValidateResourceQuantityValue, validateResourceQuantityHugePageValue), after SetDefaults_ResourceList
rounds every amount up to a thousandth (and, in a Pod, SetDefaults_Pod copies each limit to an
absent request)."""

from __future__ import annotations

from functools import lru_cache

from trainops.knowledge.apivalidation import go_quantity, names
from trainops.knowledge.apivalidation.formats import (
    forbidden,
    invalid,
    required,
)
from trainops.knowledge.apivalidation.meta import Errors
from trainops.knowledge.apivalidation.pod_common import (
    IS_NEGATIVE,
    QUANTITY_SYNTAX,
    quantity,
)

_STANDARD_RESOURCES = frozenset(
    [
        "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
        "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
        "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
        "persistentvolumeclaims", "storage", "requests.storage", "services.nodeports",
        "services.loadbalancers",
    ]
)  # fmt: skip
_INTEGER_RESOURCES = frozenset(
    [
        "pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "configmaps",
        "persistentvolumeclaims", "services.nodeports", "services.loadbalancers",
    ]
)  # fmt: skip
_CONTAINER_RESOURCES = frozenset(["cpu", "memory", "ephemeral-storage"])


@lru_cache(maxsize=1024)
def _resource_name(name: str) -> tuple[tuple[str, ...], bool, bool]:
    """validateContainerResourceName's messages; whether the resource counts in integers
    (IsIntegerResourceName) and may be overcommitted (IsOvercommitAllowed)."""
    problems = list(names.qualified_name(name))
    slash = "/" in name
    if (
        not problems
        and not slash
        and name not in _STANDARD_RESOURCES
        and not name.startswith(("hugepages-", "requests.hugepages-"))
    ):
        problems.append("must be a standard resource type or fully qualified")
    native = not slash or "kubernetes.io/" in name
    extended = (
        not native
        and not name.startswith("requests.")
        and not names.qualified_name("requests." + name)
    )
    if not slash:
        if name not in _CONTAINER_RESOURCES and not name.startswith("hugepages-"):
            problems.append("must be a standard resource for containers")
    elif not native and not extended:
        problems.append("doesn't follow extended resource name standard")
    integer = name in _INTEGER_RESOURCES or extended
    return tuple(problems), integer, native and not name.startswith("hugepages-")


@lru_cache(maxsize=4096)
def _amount(value: object) -> go_quantity.Quantity | str:
    """A request or limit after SetDefaults_ResourceList (rounded up to a thousandth), or the
    decoder's error."""
    parsed = quantity(value)
    return parsed if isinstance(parsed, str) else go_quantity.round_up_milli(parsed)


def _hugepage_divisible(name: str, amount: go_quantity.Quantity) -> bool:
    """IsHugePageResourceValueDivisible."""
    try:
        page = go_quantity.parse(name[len("hugepages-") :])
    except go_quantity.QuantityError:
        return False
    if page.value <= 0 or page.milli_value() % 1000:
        return False
    return amount.int_value() % page.int_value() == 0


def resources(resources: dict, path: str, default_requests: bool = False) -> Errors:
    """ValidateContainerResourceRequirements: names, quantities that decode, none negative,
    integers where counted in integers, hugepages in whole pages and beside cpu or memory, and
    requests within limits (equal to them where no overcommit is allowed)."""
    limits, requests = resources.get("limits"), resources.get("requests")
    limits = limits if isinstance(limits, dict) else {}
    requests = requests if isinstance(requests, dict) else {}
    if not limits and not requests:
        return []
    try:  # the same requests and limits recur in every object: their errors are cached
        key = (tuple(limits.items()), tuple(requests.items()), default_requests)
        found = _RESOURCE_ERRORS.get(key)
    except TypeError:  # an amount that is a list or a map: the schema reports it
        key = found = None
    if found is None:
        found = tuple(_resource_errors(limits, requests, default_requests))
        if key is not None and _all_strings(limits, requests):
            if len(_RESOURCE_ERRORS) >= _CACHE_SIZE:
                _RESOURCE_ERRORS.clear()
            _RESOURCE_ERRORS[key] = found
    return [(path + suffix, message) for suffix, message in found] if found else []


# Requests and limits -> their errors. Only amounts written as strings are kept: True and 1 are
# equal keys, and 1 and 1.0, but not equal amounts to the server's decoder.
_RESOURCE_ERRORS: dict[tuple, tuple] = {}
_CACHE_SIZE = 4096


def _all_strings(*mappings: dict) -> bool:
    return all(value.__class__ is str for m in mappings for value in m.values())


def _resource_errors(limits: dict, requests: dict, default_requests: bool) -> Errors:
    """validateResourceRequirements, its paths relative to the requirements."""
    defaulted: set = set()
    if default_requests and limits:  # SetDefaults_Pod: a request defaults to its limit
        defaulted = set(limits) - set(requests)
        requests = {**limits, **requests}
    errors: Errors = []
    parsed_limits: dict[str, go_quantity.Quantity] = {}
    cpu_or_memory = hugepages = False
    for bound, amounts in (("limits", limits), ("requests", requests)):
        for resource, value in amounts.items():
            name = str(resource)
            where = f".{bound}[{name}]"
            if value is None:  # a null quantity decodes as zero
                value = "0"
            amount = _amount(value) if isinstance(value, str | int | float) else QUANTITY_SYNTAX
            if isinstance(amount, str):
                if bound == "limits" or resource not in defaulted:
                    errors.append((where, amount))
                continue
            problems, integer, overcommit = _resource_name(name)
            if problems:
                errors += [(where, f"Invalid value: {name}: {m}") for m in problems]
            if amount.value < 0:
                errors.append((where, invalid(amount.string(), IS_NEGATIVE)))
            if integer and amount.milli_value() % 1000:
                errors.append((where, f"Invalid value: {amount.go_repr()}: must be an integer"))
            if bound == "limits":
                parsed_limits[name] = amount
            else:
                limit = parsed_limits.get(name)
                if limit is not None:
                    if amount.value != limit.value and not overcommit:
                        message = f"must be equal to {name} limit of {limit.string()}"
                        errors.append((".requests", invalid(amount.string(), message)))
                    elif amount.value > limit.value:
                        # upstream reports this at .requests; trainops names the resource too
                        message = f"must be less than or equal to {name} limit of {limit.string()}"
                        errors.append((where, invalid(amount.string(), message)))
                elif not overcommit:
                    message = "Limit must be set for non overcommitable resources"
                    errors.append((".limits", required(message)))
            if name.startswith("hugepages-"):
                hugepages = True
                if not _hugepage_divisible(name, amount):
                    shown = amount.string()
                    message = f"{shown} is not positive integer multiple of {name}"
                    errors.append((where, invalid(shown, message)))
            elif name in ("cpu", "memory"):
                cpu_or_memory = True
    if hugepages and not cpu_or_memory:
        errors.append(("", forbidden("HugePages require cpu or memory")))
    return errors
