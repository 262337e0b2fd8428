"""Flux: what kustomize-controller v1.9.4 refuses in a Kustomization before it applies anything
(kustomize_controller.py)."""

from __future__ import annotations

from trainops.knowledge.admission import CHECKS, AdmissionCheck
from trainops.knowledge.admission.flux import kustomize_controller

_KUSTOMIZATION = (("kustomize.toolkit.fluxcd.io", "Kustomization"),)
_OPERATOR = "kustomize-controller v1.9.4"

CHECKS.extend(
    [
        AdmissionCheck(
            _OPERATOR,
            _KUSTOMIZATION,
            "fluxcd/pkg runtime v0.110.1 runtime/cel/status_reader.go NewStatusReader",
            "controller",
            kustomize_controller.health_check_exprs,
            left_out=(
                "expressions in CEL's optional syntax (.?, [?, {?) are taken as parsed; type "
                "errors show only at evaluation, as upstream"
            ),
        ),
        AdmissionCheck(
            _OPERATOR,
            _KUSTOMIZATION,
            "internal/controller/kustomization_controller.go evalReadyExpr",
            "controller",
            kustomize_controller.ready_exprs,
            left_out=(
                "the type check of cel.WithCompile (names other than self and dep, a result "
                "that is not bool): only parse errors are judged"
            ),
        ),
    ]
)
