"""One root rendered: its objects, or why it could not be rendered or read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from trainops.model.config import Config
from trainops.model.objects import K8sObject, Problem
from trainops.model.shape import mapping


@dataclass
class Rendered:
    root: str
    path: Path | None = None
    objects: list[K8sObject] = field(default_factory=list)
    failure: Problem | None = None
    syntax_errors: list[Problem] = field(default_factory=list)
    malformed: list[Problem] = field(default_factory=list)
    # Objects whose schema says a field has the wrong type: only the schema rule reads them.
    ill_shaped: list[K8sObject] = field(default_factory=list)

    @property
    def loaded(self) -> bool:
        """Rendered and read without error, so an empty object list means an empty render."""
        return self.failure is None and not self.syntax_errors and not self.malformed


@dataclass(frozen=True)
class NamespaceDefinition:
    """A Namespace as a file of the repository defines it, outside the roots checked together."""

    labels: dict[str, str]
    where: str  # file:line of its definition


@dataclass
class Cluster:
    """The roots applied to one cluster together (an environment's layers): what a rule may
    need to know beyond one root, such as namespaces' labels or an operator's configuration."""

    roots: list[Rendered]
    # The run's schemas, shared by every cluster of a run: a knowledge.schema.catalog.Catalog,
    # read through its catalog_of() (this package knows nothing of schemas).
    catalog: object = None
    config: Config | None = None
    everything: list[Rendered] = field(
        default_factory=list
    )  # every root of the run, for cross-root rules
    rule_ids: frozenset[str] = frozenset()  # every rule of the registry, for ignores naming them
    # The Namespaces the repository defines in any environment's layers, by name: asked (once a
    # run, when first needed) for a namespace these roots do not define, such as a file's
    # checked alone (`trainops validate pod.yaml`). None outside a repository.
    repository_namespaces: Callable[[], dict[str, NamespaceDefinition]] | None = None

    def memo(self, key: str, compute):
        """compute(self), once per cluster: for facts several objects ask about."""
        cache = self.__dict__.setdefault("_memo", {})
        if key not in cache:
            cache[key] = compute(self)
        return cache[key]

    def objects(self):
        for rendered in self.roots:
            yield from rendered.objects

    @cached_property
    def _namespaces(self) -> dict[str, dict[str, str]]:
        found: dict[str, dict[str, str]] = {}
        for obj in self.objects():
            if obj.kind == "Namespace" and obj.api_version == "v1":
                found.setdefault(obj.name, dict(mapping(obj.doc["metadata"].get("labels"))))
        return found

    def root_at(self, path: object) -> Rendered | None:
        """The root of this run at `path`, relative to the config file (a GitOps source path)."""
        if not isinstance(path, str) or not path or self.config is None:
            return None
        wanted = _resolved(self.config.folder, path.removeprefix("./"))
        return self.memo("roots by path", _roots_by_path).get(wanted)

    def namespace_labels(self, name: str) -> dict[str, str] | None:
        """Labels of the Namespace `name` as this cluster defines it (None if it defines none)."""
        return self._namespaces.get(name)

    def namespace_elsewhere(self, name: str) -> NamespaceDefinition | None:
        """The repository's definition of a Namespace this cluster does not define (None when
        it defines it, or the repository does not)."""
        if name in self._namespaces or self.repository_namespaces is None:
            return None
        return self.repository_namespaces().get(name)


@lru_cache(maxsize=1024)  # every root's GitOps objects name the same few paths
def _resolved(folder: Path, path: str) -> Path:
    return (folder / path).resolve()


def _roots_by_path(cluster: Cluster) -> dict[Path, Rendered]:
    found: dict[Path, Rendered] = {}
    for rendered in cluster.everything:
        if rendered.path is not None:
            found.setdefault(_resolved(rendered.path, "."), rendered)  # asked by each cluster
    return found
