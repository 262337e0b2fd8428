"""What a check found: one problem, where it is, and how to fix it."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from enum import Enum

from trainops.model.objects import K8sObject, ObjectRef, Problem


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    # What a run could not judge, or what to declare so that it can: said, never a failure
    # (exit codes count errors alone), and no part of the warnings either.
    NOTE = "note"


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: Severity
    message: str
    root: str
    file: str | None = None
    line: int | None = None
    object: ObjectRef | None = None
    path: str | None = None
    hint: str | None = None
    # Every root the finding was found in (the same object in several environments' layers is
    # one finding), and the environments (trainops.yaml `environments`) those roots belong to.
    roots: tuple[str, ...] = ()
    environments: tuple[str, ...] = ()

    @property
    def where_found(self) -> str:
        """`in kind (overlays/kind/workloads), cloud (overlays/cloud/workloads)`, for people."""
        roots = self.roots or (self.root,)
        return (
            "in "
            + ", ".join(roots)
            + (
                f" (environment{'s' if len(self.environments) > 1 else ''} "
                f"{', '.join(self.environments)})"
                if self.environments
                else ""
            )
        )

    def as_dict(self) -> dict:
        data = asdict(self)
        data["severity"] = self.severity.value
        data["roots"] = list(self.roots or (self.root,))
        data["environments"] = list(self.environments)
        if self.object is not None:
            data["object"] = {
                "apiVersion": self.object.api_version,
                "kind": self.object.kind,
                "namespace": self.object.namespace,
                "name": self.object.name,
            }
        return data


def from_problems(
    rule: str, severity: Severity, root: str, problems: Iterable[Problem]
) -> Iterator[Finding]:
    """One finding per problem the loader recorded (a file and line, no object)."""
    for problem in problems:
        yield Finding(rule, severity, problem.message, root, file=problem.file, line=problem.line)


def on_object(
    rule: str,
    severity: Severity,
    root: str,
    obj: K8sObject,
    message: str,
    path: str | None,
    hint: str | None,
) -> Finding:
    """A finding filed at `obj`'s source file and line, in `root`."""
    return Finding(rule, severity, message, root, obj.file, obj.line, obj.ref, path, hint)


def placed(
    rule: str,
    severity: Severity,
    root: str,
    obj: K8sObject | None,
    message: str,
    path: str | None,
    hint: str | None,
    file: str | None = None,
    line: int | None = None,
) -> Finding:
    """A finding about `obj` filed at `file`:`line` when given (where a user changes what it
    says, e.g. an overlay's `images:` entry), else at the object's own file and line."""
    if file is None and obj is not None:
        file, line = obj.file, obj.line
    return Finding(rule, severity, message, root, file, line, obj.ref if obj else None, path, hint)
