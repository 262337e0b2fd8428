"""An environment's layers, in the order its GitOps entry points apply them, with what they declare.

The order is the one the entry points declare: Argo CD's Applications by sync wave
(`argocd.argoproj.io/sync-wave`, an integer, wave 0 when it is not one: gitops-engine
`syncwaves.Wave` uses `strconv.Atoi`; within a wave by name, as gitops-engine sorts tasks of one
kind), and Flux's Kustomizations after everything they `dependsOn`. The entry points of an
environment are the configured roots named after it outside its own folder (`gitops/argocd/<env>/apps`,
`gitops/flux/<env>`); an Application or Kustomization is a layer's when its source path is that
layer's folder. Without entry points the environment's configured roots are taken in the config's
order. Each layer keeps its Application (for `ignoreDifferences` and Argo CD's resource tracking)
and its Flux Kustomization (for the labels kustomize-controller puts on what it applies).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from trainops.check.validate import Progress, Root, load_or_fail, load_roots
from trainops.model.config import Config
from trainops.model.errors import CannotRun
from trainops.model.objects import K8sObject
from trainops.model.rendered import Rendered
from trainops.model.shape import mapping, mappings
from trainops.render import kustomization
from trainops.render.renderer import Renderer

SYNC_WAVE = "argocd.argoproj.io/sync-wave"
_INTEGER = re.compile(r"[+-]?[0-9]+")
# Argo CD's resource tracking: an annotation (the default since Argo CD 3.0) whose value starts
# with the Application's name, or the label of label tracking (argo-cd util/argo/resource_tracking.go).
ARGO_TRACKING_ID = "argocd.argoproj.io/tracking-id"
ARGO_INSTANCE = "app.kubernetes.io/instance"
# kustomize-controller labels every object it applies with its Kustomization's name and namespace
# (fluxcd/kustomize-controller internal/controller: `kustomize.toolkit.fluxcd.io/name`, `/namespace`).
FLUX_NAME = "kustomize.toolkit.fluxcd.io/name"
FLUX_NAMESPACE = "kustomize.toolkit.fluxcd.io/namespace"


@dataclass
class Layer:
    root: Root
    application: K8sObject | None = None
    kustomization: K8sObject | None = None

    @property
    def name(self) -> str:
        return self.root.name

    def ignore_differences(self) -> list[dict]:
        if self.application is None:
            return []
        return mappings(mapping(self.application.doc.get("spec")).get("ignoreDifferences"))

    def owners(self) -> list[str]:
        """The GitOps objects that sync this layer, named."""
        found = []
        if self.application is not None:
            found.append(f"Argo CD Application {self.application.name}")
        if self.kustomization is not None:
            flux = self.kustomization
            found.append(f"Flux Kustomization {flux.namespace or 'default'}/{flux.name}")
        return found

    def owner(self, metadata: dict) -> str | None:
        """Which of this layer's GitOps objects claims a live object (by its metadata), if any."""
        labels, annotations = mapping(metadata.get("labels")), mapping(metadata.get("annotations"))
        flux = self.kustomization
        if (
            flux is not None
            and labels.get(FLUX_NAME) == flux.name
            and labels.get(FLUX_NAMESPACE) == (flux.namespace or "default")
        ):
            return f"Flux Kustomization {flux.namespace or 'default'}/{flux.name}"
        app = self.application
        if app is not None:
            names = {app.name, f"{app.namespace}_{app.name}"}
            tracking = annotations.get(ARGO_TRACKING_ID)
            if (isinstance(tracking, str) and tracking.partition(":")[0] in names) or labels.get(
                ARGO_INSTANCE
            ) in names:
                return f"Argo CD Application {app.name}"
        return None


@dataclass
class Plan:
    environment: str | None
    layers: list[Layer]
    notes: list[str] = field(default_factory=list)


def environment_folder(config: Config, name: str) -> Path:
    folders = {Path(folder).name: folder for folder in config.environments}
    if name not in folders:
        known = ", ".join(folders) or "none"
        raise CannotRun(f"no environment {name!r} in {config.file} (environments: {known})")
    return (config.folder / folders[name]).resolve()


def _wave(app: K8sObject) -> int:
    text = mapping(app.doc["metadata"].get("annotations")).get(SYNC_WAVE, "0")
    return int(text) if isinstance(text, str) and _INTEGER.fullmatch(text) else 0


def _source_paths(app: K8sObject) -> list[str]:
    spec = mapping(app.doc.get("spec"))
    sources = [mapping(spec.get("source"))] + mappings(spec.get("sources"))
    return [s["path"] for s in sources if isinstance(s.get("path"), str)]


def _argo_order(apps: list[K8sObject], folder_of) -> list[tuple[Path, K8sObject]]:
    ordered = sorted(apps, key=lambda a: (_wave(a), a.name))
    return [(path, app) for app in ordered for path in map(folder_of, _source_paths(app)) if path]


def _flux_order(kustomizations: list[K8sObject], folder_of) -> list[tuple[Path, K8sObject]]:
    """Every Kustomization after those it depends on (its namespace unless one is named)."""
    by_key = {(k.namespace or "default", k.name): k for k in kustomizations}
    placed: list[K8sObject] = []
    visiting: set[tuple[str, str]] = set()

    def place(key: tuple[str, str]) -> None:
        if key in visiting or by_key[key] in placed:
            return  # a cycle: Flux would never apply it; the layer-order rule reports it
        visiting.add(key)
        for dependency in mappings(mapping(by_key[key].doc.get("spec")).get("dependsOn")):
            other = (str(dependency.get("namespace") or key[0]), str(dependency.get("name")))
            if other in by_key:
                place(other)
        visiting.discard(key)
        placed.append(by_key[key])

    for key in sorted(by_key):
        place(key)
    ordered = []
    for k in placed:
        path = folder_of(mapping(k.doc.get("spec")).get("path"))
        if path:
            ordered.append((path, k))
    return ordered


def plan_environment(name: str, config: Config, renderer: Renderer | None) -> Plan:
    folder = environment_folder(config, name)
    configured = kustomization.configured_roots(config)
    own = [r for r in configured if r.resolve().is_relative_to(folder)]
    top = config.folder.resolve()
    entry_points = [
        r
        for r in configured
        if not r.resolve().is_relative_to(folder)
        and r.resolve().is_relative_to(top)
        and name in r.resolve().relative_to(top).parts
    ]
    if not own:
        raise CannotRun(f"environment {name}: no root of {config.file} lies in {folder}")

    def folder_of(path: object) -> Path | None:
        if not isinstance(path, str) or not path:
            return None
        resolved = (config.folder / path.removeprefix("./")).resolve()
        return resolved if resolved.is_relative_to(folder) else None

    objects = [
        obj
        for result in load_or_fail([Root(r) for r in entry_points], renderer)
        for obj in result.objects
    ]
    argo = _argo_order(
        [o for o in objects if (o.group, o.kind) == ("argoproj.io", "Application")], folder_of
    )
    flux = _flux_order(
        [
            o
            for o in objects
            if (o.group, o.kind) == ("kustomize.toolkit.fluxcd.io", "Kustomization")
        ],
        folder_of,
    )
    notes = []
    argo_paths, flux_paths = [p for p, _ in argo], [p for p, _ in flux]
    if argo_paths and flux_paths and argo_paths != flux_paths:
        notes.append(
            f"Argo CD and Flux order {name}'s layers differently "
            f"({', '.join(p.name for p in argo_paths)} / {', '.join(p.name for p in flux_paths)}): "
            "following Argo CD's sync waves"
        )
    order = argo_paths or flux_paths or [r.resolve() for r in own]
    by_path = {r.resolve(): r for r in own}
    layers = []
    for path in dict.fromkeys(order):
        root = by_path.get(path)
        if root is None:
            notes.append(f"{path}: an entry point syncs it, but {config.file} lists no such root")
            root = path
        layers.append(
            Layer(
                Root(root),
                next((app for p, app in argo if p == path), None),
                next((k for p, k in flux if p == path), None),
            )
        )
    return Plan(name, layers, notes)


def plan_paths(paths: list[Path], config: Config | None, renderer: Renderer | None) -> Plan:
    """PATHs as layers in the order given; a PATH that is a layer of an environment keeps that
    layer's Application and Kustomization."""
    for path in paths:
        if not path.exists():
            raise CannotRun(f"{path}: no such file or folder")
    layers = [Layer(Root(path)) for path in dict.fromkeys(paths)]
    if config is None:
        return Plan(None, layers)
    environments = {
        Path(folder).name
        for folder in config.environments
        for path in paths
        if path.resolve().is_relative_to((config.folder / folder).resolve())
    }
    if len(environments) != 1:
        return Plan(None, layers)
    [environment] = environments
    known = {
        layer.root.path.resolve(): layer
        for layer in plan_environment(environment, config, renderer).layers
    }
    for layer in layers:
        match = known.get(layer.root.path.resolve())
        if match is not None:
            layer.application, layer.kustomization = match.application, match.kustomization
    return Plan(environment, layers)


@dataclass
class Rendering:
    rendered: list[Rendered]  # one per layer, in order
    seconds: float
    renders: int
    from_cache: int


def render(plan: Plan, renderer: Renderer | None) -> Rendering:
    """Every layer rendered (or read); a layer that does not render stops the command, since
    asking the cluster about the others alone would answer for a state no sync produces."""
    started = time.perf_counter()
    progress = Progress(len(plan.layers))
    rendered = load_roots([layer.root for layer in plan.layers], renderer, progress=progress)
    progress.finish()
    if renderer is not None:
        renderer.release()
    for result in rendered:
        problem = result.failure or next(iter(result.syntax_errors + result.malformed), None)
        if problem is not None:
            where = f"{problem.file}:{problem.line}" if problem.line else problem.file
            raise CannotRun(f"{where}: {problem.message}")
    return Rendering(rendered, time.perf_counter() - started, progress.renders, progress.cached)
