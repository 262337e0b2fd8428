"""Evaluate objects' pod templates against a Pod Security level and version."""

from __future__ import annotations

from dataclasses import dataclass

from trainops.knowledge.pod_templates import PodTemplate, templates_of
from trainops.knowledge.psa.registry import evaluate
from trainops.model.objects import K8sObject


@dataclass(frozen=True)
class TemplateViolation:
    check: str
    reason: str
    detail: str
    paths: tuple[str, ...]  # JSON paths in the object of the offending fields

    @property
    def path(self) -> str:
        return self.paths[0]

    def as_dict(self) -> dict:
        return {
            "check": self.check,
            "reason": self.reason,
            "detail": self.detail,
            "path": self.path,
            "paths": list(self.paths),
        }


def evaluate_template(
    level: str, minor: int | None, template: PodTemplate
) -> list[TemplateViolation]:
    found = []
    for check_id, violation in evaluate(level, minor, template.metadata, template.spec):
        paths = tuple(template.child(p) for p in (violation.paths or ("spec",)))
        found.append(TemplateViolation(check_id, violation.reason, violation.detail, paths))
    return found


def evaluate_object(
    level: str, minor: int | None, obj: K8sObject
) -> list[TemplateViolation] | None:
    """Violations of all of an object's pod templates; None if the object runs no pods."""
    templates = templates_of(obj)
    if not templates:
        return None
    return [v for template in templates for v in evaluate_template(level, minor, template)]
