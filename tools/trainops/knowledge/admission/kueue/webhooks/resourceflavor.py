"""Kueue v0.18.6 pkg/webhooks/resourceflavor_webhook.go: ValidateResourceFlavor (its
validateTolerations is the one in workload_webhook.go)."""

from __future__ import annotations

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    go_quote,
    invalid,
    validate_labels,
)
from trainops.knowledge.apivalidation.pod_common import qualified
from trainops.model.shape import mapping, sequence

UPSTREAM = "pkg/webhooks/resourceflavor_webhook.go ValidateResourceFlavor, Kueue v0.18.6"


def validate_resource_flavor(doc: dict) -> Errors:
    spec = mapping(doc.get("spec"))
    errors = validate_labels(spec.get("nodeLabels"), "spec.nodeLabels")
    errors += _node_taints(sequence(spec.get("nodeTaints")), "spec.nodeTaints")
    for i, toleration in enumerate(sequence(spec.get("tolerations"))):
        key = mapping(toleration).get("key")
        if isinstance(key, str) and key:
            errors += qualified(f"spec.tolerations[{i}].key", key)
    return errors


def _node_taints(taints: list, path: str) -> Errors:
    """validateNodeTaints: a label-name key, a label value, unique by (key, effect)."""
    errors: Errors = []
    seen: dict[str, set[str]] = {}
    for i, taint in enumerate(taints):
        taint = mapping(taint)
        where = f"{path}[{i}]"
        key, value, effect = (str(taint.get(k) or "") for k in ("key", "value", "effect"))
        errors += qualified(f"{where}.key", key)
        if problems := names.label_value(value):
            errors.append((f"{where}.value", invalid(value, ";".join(problems))))
        if key in seen.get(effect, set()):
            shown_taint = GoValue(
                f"v1.Taint{{Key:{go_quote(key)}, Value:{go_quote(value)}, "
                f"Effect:{go_quote(effect)}, TimeAdded:<nil>}}"
            )
            detail = "taints must be unique by key and effect pair"
            errors.append((where, f"Duplicate value: {shown_taint.text}: {detail}"))
            continue
        seen.setdefault(effect, set()).add(key)
    return errors
