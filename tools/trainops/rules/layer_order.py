"""Custom resources are applied after their CRDs; large CRDs are applied server side.

What it catches:
- in an environment (`overlays/<env>/{operators,platform,workloads}`, in that order), a custom
  resource in a layer at or before the layer that installs its CRD;
- in an Argo CD app of apps, an Application whose objects include a custom resource whose CRD
  comes from an Application of the same or a later sync wave (or from the same Application);
- in Flux, a Kustomization holding a custom resource whose CRD comes from a Kustomization it does
  not depend on (`dependsOn`, transitively), or from itself;
- an Application whose `argocd.argoproj.io/sync-wave` is not an integer: Argo CD reads it as
  wave 0 (gitops-engine `syncwaves.Wave` parses it with `strconv.Atoi`);
- a CRD larger than 262144 bytes not marked for server-side apply
  (`argocd.argoproj.io/sync-options: ServerSideApply=true` or `trainops.dev/apply: server-side`).

Why it matters: the custom resource fails with `no matches for kind` (or Argo CD's dry run fails
the whole sync) until the CRD exists; a large CRD applied client side fails because its
last-applied-configuration annotation exceeds 262144 bytes.

How to fix: move the resource to a later layer, give its Application a later wave, add the
Flux dependency; include components/server-side-crds in the layer with the large CRDs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping, mappings

ID = "layer-order"
SEVERITY = Severity.ERROR
SUMMARY = "custom resources come after their CRDs; large CRDs apply server side"

LAYERS = ("operators", "platform", "workloads")
SYNC_WAVE = "argocd.argoproj.io/sync-wave"
_INTEGER = re.compile(r"[+-]?[0-9]+")
# A client-side apply keeps the whole object, as JSON, in its last-applied-configuration
# annotation, and the API server refuses annotations over 256 KiB in total
# (k8s.io/apimachinery pkg/api/validation/objectmeta.go: totalAnnotationSizeLimitB = 256 * (1 << 10)).
ANNOTATION_LIMIT = 262144


def _crd_kinds(rendered: Rendered) -> set[tuple[str, str]]:
    kinds = set()
    for crd in rendered.objects:
        if crd.kind == "CustomResourceDefinition":
            spec = mapping(crd.doc.get("spec"))
            group, kind = spec.get("group"), mapping(spec.get("names")).get("kind")
            if isinstance(group, str) and isinstance(kind, str):
                kinds.add((group, kind))
    return kinds


def _custom_resources(rendered: Rendered, crd_kinds: set[tuple[str, str]]):
    return [o for o in rendered.objects if (o.group, o.kind) in crd_kinds]


def _layer_findings(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    if rendered.path is None or rendered.path.name not in LAYERS:
        return
    position = LAYERS.index(rendered.path.name)
    installers = {}
    for root in cluster.roots:
        if root.path is not None and root.path.name in LAYERS:
            for kind in _crd_kinds(root):
                installers.setdefault(kind, []).append(LAYERS.index(root.path.name))
    for obj in rendered.objects:
        layers = installers.get((obj.group, obj.kind))
        if layers and min(layers) >= position:
            where = LAYERS[min(layers)]
            relation = "the same layer" if min(layers) == position else f"a later layer ({where})"
            yield Finding(
                ID,
                SEVERITY,
                f"{obj.kind} is applied in {rendered.path.name}, but its CRD comes in {relation}",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                "kind",
                "move it to a layer after the CRD's",
            )


def _argo_findings(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    apps = [o for o in rendered.objects if o.group == "argoproj.io" and o.kind == "Application"]
    sources = {}
    for app in apps:
        root = cluster.root_at((mapping((mapping(app.doc.get("spec"))).get("source"))).get("path"))
        text = mapping(app.doc["metadata"].get("annotations")).get(SYNC_WAVE, "0")
        # gitops-engine's syncwaves.Wave: strconv.Atoi, and wave 0 for what it cannot parse.
        wave = int(text) if isinstance(text, str) and _INTEGER.fullmatch(text) else 0
        if wave == 0 and text != "0":
            yield Finding(
                ID,
                SEVERITY,
                f"Application {app.name}: sync wave {text!r} is not an integer, so Argo CD "
                "applies it in wave 0",
                rendered.root,
                app.file,
                app.line,
                app.ref,
                f"metadata.annotations.{SYNC_WAVE}",
                'write the wave as a whole number, e.g. "1"',
            )
        if root is not None:
            sources[app.name] = (app, root, wave, _crd_kinds(root))
    for app, root, wave, _ in sources.values():
        for other, _other_root, other_wave, kinds in sources.values():
            clash = sorted({o.kind for o in _custom_resources(root, kinds)})
            if clash and other_wave >= wave:
                same = (
                    "the same Application"
                    if other is app
                    else f"Application {other.name} (wave {other_wave})"
                )
                yield Finding(
                    ID,
                    SEVERITY,
                    f"Application {app.name} (wave {wave}) applies {', '.join(clash)}, whose CRDs "
                    f"come from {same}",
                    rendered.root,
                    app.file,
                    app.line,
                    app.ref,
                    "spec.source.path",
                    "give the CRDs' Application an earlier sync wave",
                )


def _flux_findings(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    kustomizations = {
        o.name: o
        for o in rendered.objects
        if o.group == "kustomize.toolkit.fluxcd.io" and o.kind == "Kustomization"
    }

    def depends(name: str, seen=()) -> set[str]:
        found = set()
        for dependency in mappings(
            (mapping(kustomizations[name].doc.get("spec"))).get("dependsOn")
        ):
            other = dependency.get("name")
            if isinstance(other, str) and other in kustomizations and other not in seen:
                found |= {other} | depends(other, seen + (name,))
        return found

    roots = {
        name: cluster.root_at((mapping(k.doc.get("spec"))).get("path"))
        for name, k in kustomizations.items()
    }
    for name, kustomization in kustomizations.items():
        root = roots[name]
        if root is None:
            continue
        before = depends(name)
        for other, other_root in roots.items():
            if other_root is None or other in before:
                continue
            clash = sorted({o.kind for o in _custom_resources(root, _crd_kinds(other_root))})
            if clash:
                what = (
                    "itself"
                    if other == name
                    else f"Kustomization {other}, which it does not depend on"
                )
                yield Finding(
                    ID,
                    SEVERITY,
                    f"Kustomization {name} applies {', '.join(clash)}, whose CRDs come from {what}",
                    rendered.root,
                    kustomization.file,
                    kustomization.line,
                    kustomization.ref,
                    "spec.dependsOn",
                    f"add dependsOn: [{{name: {other}}}] (with wait: true)",
                )


def _server_side_findings(rendered: Rendered) -> Iterator[Finding]:
    for obj in rendered.objects:
        if obj.kind != "CustomResourceDefinition":
            continue
        metadata = mapping(obj.doc.get("metadata"))
        marked = (
            "ServerSideApply=true"
            in str(
                (mapping(metadata.get("annotations"))).get("argocd.argoproj.io/sync-options", "")
            )
            or (mapping(metadata.get("labels"))).get("trainops.dev/apply") == "server-side"
        )
        if marked:
            continue  # measured only when it matters: serializing a CRD is the rule's cost
        size = len(json.dumps(obj.doc, separators=(",", ":")))
        if size > ANNOTATION_LIMIT:
            yield Finding(
                ID,
                SEVERITY,
                f"CRD {obj.name} is {size} bytes, over the {ANNOTATION_LIMIT} a client-side apply can "
                "annotate, and is not marked for server-side apply",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                "metadata.annotations",
                "include components/server-side-crds in its layer",
            )


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    yield from _layer_findings(rendered, cluster)
    yield from _argo_findings(rendered, cluster)
    yield from _flux_findings(rendered, cluster)
    yield from _server_side_findings(rendered)
