"""Reading fields whose type the input does not promise.

Objects are checked against their schema before rules read them (the schema rule reports a
wrong-typed field at its path), but kinds without a schema, and fields a schema leaves open,
reach the rules as written. These read a field as the type a rule needs, or as empty.
"""

from __future__ import annotations


def mapping(value: object) -> dict:
    """`value` if it is a mapping, else {}."""
    return value if isinstance(value, dict) else {}


def sequence(value: object) -> list:
    """`value` if it is a list, else []."""
    return value if isinstance(value, list) else []


def mappings(value: object) -> list[dict]:
    """The mappings in a list (a list of containers, of flavors…), skipping anything else."""
    return [item for item in sequence(value) if isinstance(item, dict)]


def strings(value: object) -> list[str]:
    """The strings in a list (resource names, label values…), skipping anything else."""
    return [item for item in sequence(value) if isinstance(item, str)]


def indexed_mappings(value: object) -> list[tuple[int, dict]]:
    """(index, mapping) for the mappings in a list: indexes stay those of the list as written."""
    return [(index, item) for index, item in enumerate(sequence(value)) if isinstance(item, dict)]
