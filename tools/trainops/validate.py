"""Render every root (in parallel), read the objects, and run every rule over them."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from trainops import kustomization, objects
from trainops.errors import CannotRun
from trainops.findings import Finding
from trainops.objects import Parsed, Problem
from trainops.render import Renderer, RenderFailure
from trainops.rendered import Cluster, Rendered
from trainops.rules import RULES
from trainops.config import DEFAULT_KUBERNETES_VERSIONS, Config
from trainops.schema.catalog import Catalog


def display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve())) or "."
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class Root:
    """What to check: a kustomization (rendered) or YAML files taken as they are."""

    path: Path

    @property
    def name(self) -> str:
        return display(self.path)

    @property
    def is_kustomization(self) -> bool:
        return self.path.is_dir() and kustomization.kustomization_file(self.path) is not None


def roots_from_arguments(paths: list[Path]) -> list[Root]:
    for path in paths:
        if not path.exists():
            raise CannotRun(f"{path}: no such file or folder")
    return [Root(path) for path in paths]


def _read_files(root: Root) -> Rendered:
    files = objects.yaml_files(root.path) if root.path.is_dir() else [root.path]
    rendered = Rendered(root.name, path=root.path)
    for file in files:
        try:
            text = file.read_text()
        except (OSError, UnicodeDecodeError) as error:
            rendered.syntax_errors.append(Problem(display(file), None, f"cannot read: {error}"))
            continue
        _absorb(rendered, objects.parse_stream(text, display(file)))
    return rendered


def _absorb(rendered: Rendered, parsed: Parsed) -> None:
    rendered.objects.extend(parsed.objects)
    rendered.syntax_errors.extend(parsed.syntax_errors)
    rendered.malformed.extend(parsed.malformed)


def load_root(root: Root, renderer: Renderer | None, env: dict[str, str] | None) -> Rendered:
    if not root.is_kustomization:
        return _read_files(root)
    assert renderer is not None
    rendered = Rendered(root.name, path=root.path)
    try:
        text, resolve_origin = renderer.render(root.path, env)
    except RenderFailure as failure:
        rendered.failure = Problem(display(failure.file), failure.line, failure.message)
        return rendered
    parsed = objects.parse_stream(text, root.name, lines=False)
    for obj in parsed.objects:
        _locate(obj, resolve_origin)
    _absorb(rendered, parsed)
    return rendered


def _locate(obj, resolve_origin) -> None:
    """Point a rendered object at the file (and line) it came from, per kustomize's origin."""
    origin = objects.take_origin(obj.doc)
    if origin is None:
        return
    shown, local = resolve_origin(origin)
    if local is None:
        obj.file = shown
        return
    obj.file = display(Path(local))
    obj.line = objects.source_line(local, obj.kind, obj.name) if "path" in origin else None


@dataclass
class Outcome:
    findings: list[Finding]
    rendered: list[Rendered]
    seconds: float
    render_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


def run_rules(rendered: Rendered, cluster: Cluster, selected: set[str] | None = None) -> list[Finding]:
    return [
        finding
        for rule_id, rule in RULES.items()
        if selected is None or rule_id in selected
        for finding in rule.check(rendered, cluster)
    ]


def clusters(rendered: list[Rendered]) -> dict[int, Cluster]:
    """Roots that are layers of one environment (siblings: overlays/<env>/<layer>) share a cluster."""
    by_folder: dict[Path | None, Cluster] = {}
    for result in rendered:
        folder = result.path.resolve().parent if result.path is not None else None
        by_folder.setdefault(folder, Cluster([])).roots.append(result)
    return {id(result): cluster for cluster in by_folder.values() for result in cluster.roots}


def crds_of(rendered: list[Rendered]) -> list[dict]:
    return [
        obj.doc
        for result in rendered
        for obj in result.objects
        if obj.kind == "CustomResourceDefinition" and obj.api_version == "apiextensions.k8s.io/v1"
    ]


def validate(
    roots: list[Root],
    renderer: Renderer | None,
    jobs: int | None = None,
    config: Config | None = None,
    selected: set[str] | None = None,
) -> Outcome:
    started = time.perf_counter()
    crd_roots = [Root(p) for p in (config.crd_root_paths() if config else [])]
    extra = [r for r in crd_roots if r.path.resolve() not in {root.path.resolve() for root in roots}]
    everything = roots + extra
    env = renderer.environment() if renderer and any(r.is_kustomization for r in everything) else None
    workers = max(1, min(len(everything), jobs or os.cpu_count() or 1))
    # kustomize runs as a subprocess, so threads render in parallel without contention.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        loaded = list(pool.map(lambda root: load_root(root, renderer, env), everything))
    # A CRD root that fails to render leaves its kinds without schemas: that failure is reported too.
    rendered = loaded[: len(roots)] + [r for r in loaded[len(roots):] if not r.loaded]
    schema_sources = loaded
    rendered_at = time.perf_counter()
    versions = config.kubernetes_versions if config else list(DEFAULT_KUBERNETES_VERSIONS)
    catalog = Catalog(versions, crds_of(schema_sources))
    cluster_of = clusters(rendered)
    for cluster in {id(c): c for c in cluster_of.values()}.values():
        cluster.catalog, cluster.config = catalog, config
    findings = [finding for result in rendered for finding in run_rules(result, cluster_of[id(result)], selected)]
    finished = time.perf_counter()
    return Outcome(findings, rendered, finished - started, rendered_at - started, catalog.notes)
