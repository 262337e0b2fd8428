"""Each layer's health, and the state of each training job, read from the cluster.

A layer's health is its objects' (`health`), aggregated as each tool aggregates: Argo CD's
application health is its worst resource's, a Flux Kustomization with `wait: true` is Ready when
every object is Current and Failed when one failed. A training job (a kind Kueue manages, or a
Volcano Job) also gets its Workload, pods, Warning events and a diagnosis (`jobs`, `diagnosis`).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from trainops.live.client import ReadOnlyClient
from trainops.live.discovery import Discovery, discover
from trainops.live.health import Health, State, argocd_worst, flux_ready, judge
from trainops.live.jobs import JobReport, is_training_job, read_namespace, report
from trainops.live.layers import Plan, render
from trainops.model.objects import K8sObject
from trainops.model.shape import mapping
from trainops.render.renderer import Renderer


@dataclass
class ObjectHealth:
    obj: K8sObject
    health: Health
    flux: str


@dataclass
class LayerHealth:
    layer: str
    objects: list[ObjectHealth]

    @property
    def argocd(self) -> str:
        return argocd_worst([o.health.argocd for o in self.objects])

    @property
    def flux(self) -> str:
        return flux_ready([o.flux for o in self.objects])

    @property
    def not_ready(self) -> list[ObjectHealth]:
        return [o for o in self.objects if o.health.state is not State.HEALTHY]


@dataclass
class Status:
    environment: str | None
    layers: list[LayerHealth]
    jobs: list[JobReport]
    seconds: float
    notes: list[str] = field(default_factory=list)

    @property
    def failing(self) -> bool:
        """Something no waiting will fix: a degraded or missing object, or a job's problem."""
        bad = {State.DEGRADED, State.MISSING, State.UNKNOWN}
        return any(o.health.state in bad for layer in self.layers for o in layer.objects) or any(
            job.problems for job in self.jobs
        )


def _live(client: ReadOnlyClient, discovery: Discovery, obj: K8sObject) -> tuple[dict | None, str]:
    resource = discovery.resource(obj.api_version, obj.kind)
    if resource is None:
        return None, "its kind is not served: the layer installing its CRD is not applied"
    if not obj.has_fixed_name:
        return None, "named by the server on create: not looked up"
    namespace = (obj.namespace or client.target.namespace) if resource.namespaced else None
    reply = client.get(resource.path(namespace, obj.name))
    if reply.status == 404:
        return None, "not in the cluster"
    return mapping(client.require(reply, f"read {obj.ref}")), ""


def status(client: ReadOnlyClient, plan: Plan, renderer: Renderer | None, workers: int) -> Status:
    started = time.perf_counter()
    rendering = render(plan, renderer)
    discovery = discover(client)
    objects = [
        (layer, obj)
        for layer, result in zip(plan.layers, rendering.rendered)
        for obj in result.objects
    ]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        lives = list(pool.map(lambda item: _live(client, discovery, item[1]), objects))
    layers = {layer.name: LayerHealth(layer.name, []) for layer in plan.layers}
    live_of: dict[int, dict | None] = {}
    for (layer, obj), (live, why) in zip(objects, lives):
        health = (
            judge(live, obj.api_version, obj.kind)
            if live is not None
            else Health(State.MISSING, why)
        )
        flux = health.flux(live) if live is not None else "NotFound"
        layers[layer.name].objects.append(ObjectHealth(obj, health, flux))
        live_of[id(obj)] = live
    training = [
        (obj, h)
        for layer in layers.values()
        for h in layer.objects
        if is_training_job(obj := h.obj)
    ]
    namespaces = sorted({obj.namespace or client.target.namespace for obj, _ in training})
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(namespaces)))) as pool:
        views = dict(
            zip(namespaces, pool.map(lambda ns: read_namespace(client, discovery, ns), namespaces))
        )
    jobs = [
        report(obj, live_of[id(obj)], h.health, views[obj.namespace or client.target.namespace])
        for obj, h in training
    ]
    return Status(
        plan.environment,
        list(layers.values()),
        jobs,
        time.perf_counter() - started,
        list(plan.notes),
    )
