"""One root rendered: its objects, or why it could not be rendered or read."""

from __future__ import annotations

from dataclasses import dataclass, field

from trainops.objects import K8sObject, Problem


@dataclass
class Rendered:
    root: str
    objects: list[K8sObject] = field(default_factory=list)
    failure: Problem | None = None
    syntax_errors: list[Problem] = field(default_factory=list)
    malformed: list[Problem] = field(default_factory=list)

    @property
    def loaded(self) -> bool:
        """Rendered and read without error, so an empty object list means an empty render."""
        return self.failure is None and not self.syntax_errors and not self.malformed
