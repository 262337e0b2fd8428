"""One object asked of the cluster: a server-side apply with dryRun=All, and what its answer means.

`kubectl apply --server-side --dry-run=server` asks the same: the server decodes the object against
the schema it serves, merges it with what is live, defaults it, runs admission (Pod Security,
webhooks, quota) and validation, and answers with the object it would store. Answers that are not
about the object are told apart from rejections:

- its kind is not served yet but an earlier layer (or this one) installs the CRD that serves it,
  or its namespace does not exist yet but a layer at or before this one creates it: the object is
  *waiting for its layer*, as a GitOps tool that applies CRDs and Namespaces first would see it
  (gitops-engine skips the dry run of a custom resource whose CRD is in the same sync);
- the server refuses a change to an immutable field of an object marked for recreation (Argo CD
  `Replace=true,Force=true`, Flux `kustomize.toolkit.fluxcd.io/force: enabled`): the GitOps tool
  deletes and recreates it, so the object is asked again as a dry-run create under a generated name.

Everything else the server refuses is a rejection, with the server's message and, where it names
one, the field: Status causes (422 Invalid), strict decoding (400 `unknown field`), and the typed
patch the apply could not build (500 `failed to create typed patch object`, whose path uses
structured-merge-diff's `[name="x"]` keys).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from trainops.live.client import ReadOnlyClient, Reply
from trainops.live.discovery import Discovery
from trainops.live.layers import Plan
from trainops.model.objects import K8sObject
from trainops.model.rendered import Rendered
from trainops.model.shape import mapping, mappings

ACCEPTED, REJECTED, WAITING, RECREATED = "accepted", "rejected", "waiting", "recreated"


@dataclass
class Answer:
    obj: K8sObject
    layer: str
    verdict: str
    message: str = ""
    causes: list[tuple[str | None, str]] = field(default_factory=list)  # (field path, message)
    warnings: list[str] = field(default_factory=list)
    result: dict | None = None  # the object as the server would store it


@dataclass
class Installs:
    """What the layers up to one layer install: CRD-served kinds and Namespaces, by layer."""

    kinds: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (group, version, kind)
    namespaces: dict[str, str] = field(default_factory=dict)

    def add(self, objects: list[K8sObject], layer: str) -> None:
        for obj in objects:
            if obj.kind == "Namespace" and obj.group == "":
                self.namespaces.setdefault(obj.name, layer)
            if obj.kind == "CustomResourceDefinition" and obj.group == "apiextensions.k8s.io":
                spec = mapping(obj.doc.get("spec"))
                kind = mapping(spec.get("names")).get("kind")
                for version in mappings(spec.get("versions")):
                    if version.get("served") is not False:
                        key = (str(spec.get("group")), str(version.get("name")), str(kind))
                        self.kinds.setdefault(key, layer)


def layer_installs(plan: Plan, rendered: list[Rendered]) -> list[Installs]:
    """For each layer, what it and the layers before it install."""
    cumulative, found = Installs(), []
    for layer, result in zip(plan.layers, rendered):
        cumulative.add(result.objects, layer.name)
        found.append(Installs(dict(cumulative.kinds), dict(cumulative.namespaces)))
    return found


def _comes_with(layer: str, own: str) -> str:
    return "this layer (applied first)" if layer == own else layer


def _recreated_on_change(obj: K8sObject) -> bool:
    annotations = mapping(obj.doc["metadata"].get("annotations"))
    argo = str(annotations.get("argocd.argoproj.io/sync-options", ""))
    options = {part.strip() for part in argo.split(",")}
    return {"Replace=true", "Force=true"} <= options or (
        annotations.get("kustomize.toolkit.fluxcd.io/force") == "enabled"
    )


_TYPED_PATCH_PATH = re.compile(r"^\s*(\.[^:\s]+(?:\[[^\]]*\][^:\s]*)*): (.+)$", re.MULTILINE)
_UNKNOWN_FIELD = re.compile(r'unknown field "([^"]+)"')
_SMD_KEY = re.compile(r'\[name="([^"]*)"\]')


def _smd_path(path: str) -> str:
    """structured-merge-diff's `.spec.containers[name="x"].image` as trainops writes paths."""
    return _SMD_KEY.sub(r"[\1]", path.lstrip("."))


# An immutable field's refusal carries a Go diff of the old and the new spec (apimachinery's
# `diff.ObjectDiff`), a `-` and a `+` line per changed field: `- \tAccessModes: []core.…`.
_DIFF_LINE = re.compile(r"^\s*[-+]\s+([A-Z]\w*):")


def _condensed(path: str | None, message: str) -> tuple[str | None, str]:
    """A multi-line message as one line (the diff's changed lines kept), at the field the diff
    names when it names exactly one."""
    lines = message.strip().splitlines()
    if len(lines) <= 1:
        return path, message
    changed = [
        (m.group(1), " ".join(line.split()).rstrip(","))
        for line in lines[1:]
        if (m := _DIFF_LINE.match(line))
    ]
    fields = {name for name, _ in changed}
    if path and len(fields) == 1:
        [name] = fields
        path = f"{path}.{name[0].lower()}{name[1:]}"
    detail = "; ".join(text for _, text in changed)
    return path, lines[0].strip() + (f" ({detail})" if detail else "")


def causes_of(reply: Reply) -> list[tuple[str | None, str]]:
    body = mapping(reply.body)
    found: list[tuple[str | None, str]] = []
    for cause in mappings(mapping(body.get("details")).get("causes")):
        path = cause.get("field")
        message = str(cause.get("message") or cause.get("reason") or "")
        path = path if isinstance(path, str) and path and path != "<nil>" else None
        found.append(_condensed(path, message))
    message = reply.message
    if not found and "failed to create typed patch object" in message:
        detail = message.partition("): ")[2] or message
        found = [(_smd_path(p), m) for p, m in _TYPED_PATCH_PATH.findall(detail)]
    if not found:
        found = [(path, f'unknown field "{path}"') for path in _UNKNOWN_FIELD.findall(message)]
    return found


def ask(
    client: ReadOnlyClient,
    discovery: Discovery,
    obj: K8sObject,
    layer: str,
    installs: Installs,
) -> Answer:
    """The server's answer to applying `obj` (layer `layer`; `installs`: the layers up to it)."""
    resource = discovery.resource(obj.api_version, obj.kind)
    if resource is None:
        return _not_served(discovery, obj, layer, installs)
    doc = copy.deepcopy(obj.doc)
    namespace = None
    if resource.namespaced:
        namespace = obj.namespace or client.target.namespace
    else:
        doc["metadata"].pop("namespace", None)  # kubectl drops it too; the server would refuse
    if obj.has_fixed_name:
        reply = client.dry_run_apply(resource.path(namespace, obj.name), doc)
    else:
        reply = client.dry_run_create(resource.path(namespace), doc)
    if reply.ok:
        return Answer(obj, layer, ACCEPTED, warnings=reply.warnings, result=mapping(reply.body))
    details = mapping(mapping(reply.body).get("details"))
    if reply.status == 404 and details.get("kind") == "namespaces":
        missing = str(details.get("name") or namespace)
        creator = installs.namespaces.get(missing)
        if creator is not None:
            return Answer(
                obj,
                layer,
                WAITING,
                f"its Namespace {missing} comes with {_comes_with(creator, layer)}",
            )
        return Answer(
            obj,
            layer,
            REJECTED,
            f"namespace {missing} does not exist and no layer creates it",
            [("metadata.namespace", f"namespace {missing} does not exist and no layer creates it")],
        )
    causes = causes_of(reply)
    if (
        reply.status == 422
        and causes
        and all("immutable" in message for _, message in causes)
        and _recreated_on_change(obj)
    ):
        return _as_recreated(client, resource.path(namespace), doc, obj, layer)
    return Answer(
        obj,
        layer,
        REJECTED,
        _condensed(None, reply.message)[1] or f"HTTP {reply.status}",
        causes,
        reply.warnings,
    )


def _as_recreated(
    client: ReadOnlyClient, path: str, doc: dict, obj: K8sObject, layer: str
) -> Answer:
    """The object as the create a recreation sends, under a generated name (the live one keeps
    its name, so a dry-run create of it would only say it exists)."""
    fresh = copy.deepcopy(doc)
    fresh["metadata"]["generateName"] = f"{fresh['metadata'].pop('name')[:52]}-"
    reply = client.dry_run_create(path, fresh)
    if reply.ok:
        return Answer(
            obj,
            layer,
            RECREATED,
            "an immutable field changes: it will be deleted and created again (marked for recreation)",
            warnings=reply.warnings,
        )
    return Answer(obj, layer, REJECTED, reply.message, causes_of(reply), reply.warnings)


def _not_served(discovery: Discovery, obj: K8sObject, layer: str, installs: Installs) -> Answer:
    group, _, version = obj.api_version.rpartition("/")
    installer = installs.kinds.get((group, version, obj.kind))
    if installer is not None:
        return Answer(obj, layer, WAITING, f"its CRD comes with {_comes_with(installer, layer)}")
    served = discovery.versions(group, obj.kind)
    if served:
        message = (
            f"the cluster serves {obj.kind} ({group}) at {', '.join(sorted(served))}, not {version}, "
            "and no layer installs a CRD serving it"
        )
        return Answer(obj, layer, REJECTED, message, [("apiVersion", message)])
    if group and "." in group:
        message = (
            f"the cluster has no {obj.kind} in {group}: no CRD serves it and no layer installs one"
        )
    else:
        message = f"the cluster does not serve {obj.api_version} {obj.kind}"
    return Answer(obj, layer, REJECTED, message, [("kind", message)])
