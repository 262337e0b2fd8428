"""Which namespaced objects Volcano v1.15.1's webhooks see: installer/volcano-development.yaml
gives the jobs and podgroups webhooks a namespaceSelector that leaves volcano-system and
kube-system out (kubernetes.io/metadata.name NotIn). The Queue is cluster-scoped: always seen."""

from __future__ import annotations

from trainops.model.shape import mapping

EXEMPT_NAMESPACES = ("volcano-system", "kube-system")


def seen(doc: dict) -> bool:
    return mapping(doc.get("metadata")).get("namespace") not in EXEMPT_NAMESPACES
