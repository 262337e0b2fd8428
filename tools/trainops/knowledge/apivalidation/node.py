"""node.k8s.io RuntimeClass as kube-apiserver v1.32.13 validates it
(pkg/apis/node/validation/validation.go ValidateRuntimeClass)."""

from __future__ import annotations

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import Errors, invalid, required, validate_labels
from trainops.model.shape import mapping


def runtime_class(doc: dict) -> Errors:
    """ValidateRuntimeClass: the handler a DNS label (NameIsDNSLabel), the scheduling node
    selector's labels."""
    handler = doc.get("handler")
    errors: Errors = []
    if not isinstance(handler, str) or not handler:
        errors.append(("handler", required()))
    else:
        errors += [("handler", invalid(handler, m)) for m in names.is_dns1123_label(handler)]
    scheduling = mapping(doc.get("scheduling"))
    if scheduling.get("nodeSelector") is not None:
        errors += validate_labels(scheduling.get("nodeSelector"), "scheduling.nodeSelector")
    return errors


LEFT_OUT = {"RuntimeClass": "overhead.podFixed's resources, scheduling.tolerations"}
