"""Live against git, object by object, as `kubectl diff` compares them.

kubectl diff (k8s.io/kubectl pkg/cmd/diff) sends each object as a server-side-apply dry run and
compares the object the server would store with the one it stores: defaults, status and what other
managers own are on both sides and never differ, so what differs is what applying git would change.
`metadata.managedFields`, `resourceVersion` and `generation` change with any apply and are left out.
Before comparing, the `ignoreDifferences` of the layer's Argo CD Application are removed from both.
An object marked for recreation whose change the server refuses as immutable is compared field by
field where git sets a field (the new object replaces the live one).

Also found: objects of git missing from the cluster, and objects the layer's GitOps tool owns
(Argo CD's tracking, Flux's labels) that git no longer has, which its next prune would delete.
"""

from __future__ import annotations

import copy
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from trainops.live import ignore_differences
from trainops.live.client import ReadOnlyClient, Reply
from trainops.live.discovery import Discovery, Resource, discover
from trainops.live.dry_run import ACCEPTED, RECREATED, WAITING, Installs, ask, layer_installs
from trainops.live.layers import Layer, Plan, render
from trainops.model.objects import K8sObject
from trainops.model.rendered import Rendered
from trainops.model.shape import mapping, mappings
from trainops.render.renderer import Renderer
from trainops.review.compare import ObjectChange, compare_objects

# Written by the server on every apply; differences in them say nothing about the object.
_VOLATILE = ("managedFields", "resourceVersion", "generation")
# Never tracked by a GitOps tool, and the largest lists of a cluster.
_NOT_LISTED = {("", "Event"), ("events.k8s.io", "Event")}
METADATA_LIST = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"

CHANGED, MISSING, EXTRA = "changed", "missing", "extra"


@dataclass
class ObjectDrift:
    drift: str  # CHANGED, MISSING (git has it, the cluster not), EXTRA (owned, not in git)
    change: ObjectChange
    why: str = ""  # what the object's drift depends on (recreation, the pruning owner)


@dataclass
class LayerDrift:
    layer: str
    owners: list[str]
    objects: list[ObjectDrift] = field(default_factory=list)
    unappliable: list[tuple[str, str]] = field(default_factory=list)  # (object, server's message)

    @property
    def in_sync(self) -> bool:
        return not self.objects and not self.unappliable


@dataclass
class Drift:
    environment: str | None
    layers: list[LayerDrift]
    seconds: float
    notes: list[str] = field(default_factory=list)

    def count(self, drift: str) -> int:
        return sum(o.drift == drift for layer in self.layers for o in layer.objects)

    @property
    def drifted(self) -> bool:
        return any(not layer.in_sync for layer in self.layers)


def _comparable(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    metadata = mapping(doc.get("metadata"))
    for key in _VOLATILE:
        metadata.pop(key, None)
    return doc


def _projected(live: object, desired: object) -> object:
    """`live` cut down to the fields `desired` sets (named list items matched by name)."""
    if isinstance(live, dict) and isinstance(desired, dict):
        return {k: _projected(live[k], v) for k, v in desired.items() if k in live}
    if isinstance(live, list) and isinstance(desired, list):
        names = {i.get("name"): i for i in live if isinstance(i, dict) and "name" in i}
        if names and all(isinstance(i, dict) and "name" in i for i in desired):
            return [_projected(names[i["name"]], i) for i in desired if i["name"] in names]
        if len(live) == len(desired):
            return [_projected(a, b) for a, b in zip(live, desired)]
    return live


def _one(rendered_doc: dict, name: str) -> Rendered:
    return Rendered(name, objects=[K8sObject(rendered_doc, name, None)])


def compare(
    live: dict | None, desired: dict | None, layer: Layer
) -> tuple[list[ObjectChange], list[str]]:
    """The change from `live` to `desired` after the layer's ignoreDifferences."""
    notes: list[str] = []
    if live is not None and desired is not None:
        rules = ignore_differences.entries(layer.ignore_differences())
        live, desired, notes = ignore_differences.normalised(live, desired, rules)
    return (
        compare_objects(
            _one(_comparable(live), "live") if live is not None else None,
            _one(_comparable(desired), "git") if desired is not None else None,
        ),
        notes,
    )


def _live(client: ReadOnlyClient, resource: Resource, obj: K8sObject) -> dict | None:
    namespace = (obj.namespace or client.target.namespace) if resource.namespaced else None
    reply = client.get(resource.path(namespace, obj.name))
    if reply.status == 404:
        return None
    return mapping(client.require(reply, f"read {obj.ref}"))


def _object_drift(
    client: ReadOnlyClient, discovery: Discovery, obj: K8sObject, layer: Layer, installs: Installs
) -> tuple[list[ObjectDrift], tuple[str, str] | None, list[str]]:
    resource = discovery.resource(obj.api_version, obj.kind)
    live = _live(client, resource, obj) if resource is not None and obj.has_fixed_name else None
    if live is None:
        changes, _ = compare(None, obj.doc, layer)
        why = "its kind is not served yet" if resource is None else ""
        return [ObjectDrift(MISSING, c, why) for c in changes], None, []
    answer = ask(client, discovery, obj, layer.name, installs)
    if answer.verdict == ACCEPTED and answer.result is not None:
        changes, notes = compare(live, answer.result, layer)
        return [ObjectDrift(CHANGED, c) for c in changes], None, notes
    if answer.verdict == RECREATED:
        changes, notes = compare(_projected(live, obj.doc), obj.doc, layer)  # type: ignore[arg-type]
        why = "an immutable field changes: Argo CD and Flux delete and create it again"
        return [ObjectDrift(CHANGED, c, why) for c in changes], None, notes
    if answer.verdict == WAITING:
        return [], None, []
    return [], (str(obj.ref), answer.message), []


def _owned_extras(
    client: ReadOnlyClient, discovery: Discovery, plan: Plan, rendered: list[Rendered], workers: int
) -> tuple[dict[str, list[tuple[dict, str]]], list[str]]:
    """Per layer, live objects its Argo CD Application or Flux Kustomization owns that no layer
    of git renders, (live object, owner); and the kinds the caller may not list (not looked at)."""
    owning = [layer for layer in plan.layers if layer.application or layer.kustomization]
    if not owning:
        return {}, []
    in_git = {
        (obj.group, obj.kind, obj.namespace or "", obj.name)
        for result in rendered
        for obj in result.objects
    }
    listable = [r for r in discovery.listable() if (r.group, r.kind) not in _NOT_LISTED]

    def listed(resource: Resource) -> tuple[Resource, Reply]:
        # Metadata only (the garbage collector's way): no Secret's data, no CRD's schema.
        return resource, client.get(resource.path(), accept=METADATA_LIST, denial_answers=True)

    found: dict[str, list[tuple[dict, str]]] = {}
    denied: list[str] = []
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for resource, reply in pool.map(listed, listable):
            if reply.status == 403:
                denied.append(f"{resource.plural}.{resource.group}".rstrip("."))
            for item in mappings(mapping(reply.body).get("items")) if reply.ok else []:
                metadata = mapping(item.get("metadata"))
                if metadata.get("ownerReferences"):
                    continue  # made by a controller from an owned object, never applied itself
                key = (
                    resource.group,
                    resource.kind,
                    metadata.get("namespace") or "",
                    metadata.get("name"),
                )
                if key in in_git:
                    continue
                for layer in owning:
                    owner = layer.owner(metadata)
                    if owner is not None:
                        found.setdefault(layer.name, []).append(
                            (_whole(client, resource, metadata), owner)
                        )
                        break
    return found, denied


def _whole(client: ReadOnlyClient, resource: Resource, metadata: dict) -> dict:
    reply = client.get(resource.path(metadata.get("namespace"), str(metadata.get("name"))))
    if reply.ok and isinstance(reply.body, dict):
        return reply.body
    return {"apiVersion": resource.api_version, "kind": resource.kind, "metadata": metadata}


def drift(client: ReadOnlyClient, plan: Plan, renderer: Renderer | None, workers: int) -> Drift:
    started = time.perf_counter()
    rendering = render(plan, renderer)
    discovery = discover(client)
    installs = layer_installs(plan, rendering.rendered)
    work = [
        (obj, layer, installs[index])
        for index, (layer, result) in enumerate(zip(plan.layers, rendering.rendered))
        for obj in result.objects
    ]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        answers = list(pool.map(lambda item: _object_drift(client, discovery, *item), work))
        extras, denied = _owned_extras(client, discovery, plan, rendering.rendered, workers)
    layers = {layer.name: LayerDrift(layer.name, layer.owners()) for layer in plan.layers}
    notes = list(plan.notes)
    for (_, layer, _), (objects, unappliable, found_notes) in zip(work, answers):
        layers[layer.name].objects += objects
        if unappliable is not None:
            layers[layer.name].unappliable.append(unappliable)
        notes += found_notes
    by_name = {layer.name: layer for layer in plan.layers}
    for name, items in extras.items():
        for live, owner in items:
            changes, _ = compare(live, None, by_name[name])
            layers[name].objects += [
                ObjectDrift(EXTRA, c, f"{owner} owns it and would prune it") for c in changes
            ]
    if denied:
        notes.append(
            f"not allowed to list {', '.join(sorted(denied))}: objects of those kinds git no "
            "longer has are not looked for"
        )
    if not any(layer.application or layer.kustomization for layer in plan.layers):
        notes.append(
            "no Argo CD Application or Flux Kustomization syncs these layers: objects git no "
            "longer has are not looked for"
        )
    return Drift(
        plan.environment,
        list(layers.values()),
        time.perf_counter() - started,
        list(dict.fromkeys(notes)),
    )
