"""Facts about schema nodes worked out once a node: walks of objects along their schemas ask the
same node again for every object (a pod template's schema, for each of a thousand jobs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class PerNode:
    """`fact(node)`, kept for each node by its identity (the node is kept too, so its id is never
    another's)."""

    def __init__(self, fact: Callable[[Any], bool]) -> None:
        self._fact = fact
        self._known: dict[int, tuple[object, bool]] = {}

    def __call__(self, node: object) -> bool:
        known = self._known.get(id(node))
        if known is None:
            known = self._known[id(node)] = (node, self._fact(node))
        return known[1]
