"""One root rendered: its objects, or why it could not be rendered or read."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from trainops.objects import K8sObject, Problem


@dataclass
class Rendered:
    root: str
    path: Path | None = None
    objects: list[K8sObject] = field(default_factory=list)
    failure: Problem | None = None
    syntax_errors: list[Problem] = field(default_factory=list)
    malformed: list[Problem] = field(default_factory=list)

    @property
    def loaded(self) -> bool:
        """Rendered and read without error, so an empty object list means an empty render."""
        return self.failure is None and not self.syntax_errors and not self.malformed


@dataclass
class Cluster:
    """The roots applied to one cluster together (an environment's layers): what a rule may
    need to know beyond one root, such as namespaces' labels or an operator's configuration."""

    roots: list[Rendered]

    def objects(self):
        for rendered in self.roots:
            yield from rendered.objects

    def namespace_labels(self, name: str) -> dict[str, str] | None:
        """Labels of the Namespace `name` as this cluster defines it (None if it defines none)."""
        for obj in self.objects():
            if obj.kind == "Namespace" and obj.api_version == "v1" and obj.name == name:
                return dict(obj.doc["metadata"].get("labels") or {})
        return None
