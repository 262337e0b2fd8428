"""Two operator roots of one environment install a CRD of the same name.

What it catches, in the roots of one environment (the layers `overlays/<env>/<layer>`):
- a layer that includes two operator roots (`crdRoots` entries) both installing a CRD of one name:
  kustomize refuses the layer ("may not add resource with an already registered id:
  CustomResourceDefinition…", also a `render-failed` finding); this names the CRD, the operator
  root kustomize met it in second, and the layer's other operator roots, one of which has it;
- two layers of one environment each installing a CRD of the same name: both render, and the one
  applied last replaces the other's CRD (its versions and schema), so the other operator's
  controller finds its kind gone or changed; under Argo CD or Flux the two Applications or
  Kustomizations overwrite it in turn.

Why it matters: a cluster holds one CRD of a name. The Training Operator v1.8.1 installs
`mpijobs.kubeflow.org` serving MPIJob v1 and the MPI Operator v0.8.0 installs `mpijobs.kubeflow.org`
serving v2beta1: with both, one of them runs without its kind (the Training Operator's MPIJob
controller exits when kubeflow.org/v1 MPIJob is not served).

How to fix: keep one operator's CRD. Drop the other's in its operator root with a
`$patch: delete` patch and turn off that operator's controller for the kind, as
operators/training-operator does for MPIJob v1 (its `--enable-scheme` flags name every other kind).

  # fails: overlays/mpi/operators includes both
  resources: [../../../operators/training-operator, ../../../operators/mpi-operator]
  # passes: operators/training-operator/kustomization.yaml drops its copy
  patches:
    - patch: |-
        $patch: delete
        apiVersion: apiextensions.k8s.io/v1
        kind: CustomResourceDefinition
        metadata: {name: mpijobs.kubeflow.org}
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.paths import display
from trainops.model.rendered import Cluster, Rendered
from trainops.render import kustomization

ID = "crd-clash"
SEVERITY = Severity.ERROR
SUMMARY = "no two operator roots of one environment install a CRD of the same name"

# kustomize v5's refusal of a second resource with an id it already holds (api/resmap), and the
# resource entry of the failing kustomization it was accumulating then (api/internal/target).
_REGISTERED = re.compile(
    r"already registered id: CustomResourceDefinition\.[^.]+\.apiextensions\.k8s\.io/([^\s\[]+?)\.\[noNs\]"
)
_ACCUMULATING = re.compile(r"accumulating resources from '([^']+)'")


def _crds(rendered: Rendered) -> Iterator[K8sObject]:
    for obj in rendered.objects:
        if obj.kind == "CustomResourceDefinition" and obj.group == "apiextensions.k8s.io":
            yield obj


def _where(obj: K8sObject) -> str:
    return f"{obj.file}:{obj.line}" if obj.line else obj.file


def _operator_roots(cluster: Cluster) -> list[Path]:
    config = cluster.config
    return [p.resolve() for p in config.crd_root_paths()] if config is not None else []


def _included(folder: Path, operator_roots: list[Path]) -> list[Path]:
    """The operator roots a kustomization folder includes (itself, when it is one), in order."""
    reached = [f.resolve() for f in kustomization.reachable(folder)]
    return [f for f in reached if f in operator_roots]


def _refused(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    failure = rendered.failure
    found = _REGISTERED.search(failure.message) if failure is not None else None
    if failure is None or found is None or rendered.path is None:
        return
    name = found.group(1)
    operator_roots = _operator_roots(cluster)
    entry = _ACCUMULATING.search(failure.message)
    second_folder = (rendered.path / entry.group(1)).resolve() if entry else None
    second = (
        _included(second_folder, operator_roots)
        if second_folder is not None and second_folder.is_dir()
        else []
    )
    if second_folder is not None and second_folder in operator_roots:
        second = [second_folder]
    others = [f for f in _included(rendered.path, operator_roots) if f not in second]
    named = display(second[0]) if second else (entry.group(1) if entry else "a resource")
    before = f" and {' or '.join(display(f) for f in others)}" if others else ""
    yield Finding(
        ID,
        SEVERITY,
        f"two operator roots of this layer install CRD {name}: {named}{before}; kustomize "
        "refuses the second, and a cluster holds one CRD of a name",
        rendered.root,
        file=failure.file,
        line=failure.line,
        hint="keep one operator's CRD: drop the other's with a `$patch: delete` patch in its "
        "operator root and turn off that operator's controller for the kind",
    )


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    yield from _refused(rendered, cluster)
    # Across layers: each CRD of this root that an earlier layer of the environment installs too.
    earlier: dict[str, K8sObject] = {}
    for other in cluster.roots:
        if other is rendered:
            break
        for crd in _crds(other):
            earlier.setdefault(crd.name, crd)
    else:
        return
    for crd in _crds(rendered):
        first = earlier.get(crd.name)
        if first is None:
            continue
        yield Finding(
            ID,
            SEVERITY,
            f"CRD {crd.name} is installed by this layer ({_where(crd)}) and by an earlier layer "
            f"of the environment ({_where(first)}): the one applied last replaces the other's "
            "versions and schema",
            rendered.root,
            file=crd.file,
            line=crd.line,
            object=crd.ref,
            hint="install each CRD from one operator root: drop the other copy with a "
            "`$patch: delete` patch and turn off that operator's controller for the kind",
        )
