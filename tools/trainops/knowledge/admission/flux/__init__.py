"""Flux: what kustomize-controller v1.9.4 refuses in a Kustomization, and helm-controller v1.6.3 in
a HelmRelease, before they apply anything (kustomize_controller.py: both call the same fluxcd/pkg
functions), and what source-controller v1.9.1 refuses in a GitRepository (source_controller.py)."""

from __future__ import annotations

from trainops.knowledge.admission.check import AdmissionCheck
from trainops.knowledge.admission.flux import kustomize_controller, source_controller

_KUSTOMIZATION = (("kustomize.toolkit.fluxcd.io", "Kustomization"),)
_HELM_RELEASE = (("helm.toolkit.fluxcd.io", "HelmRelease"),)
_OPERATOR = "kustomize-controller v1.9.4"
_HELM = "helm-controller v1.6.3"
_GIT_REPOSITORY = (("source.toolkit.fluxcd.io", "GitRepository"),)
_SOURCE = "source-controller v1.9.1"
_OPTIONAL_SYNTAX = (
    "expressions in CEL's optional syntax (.?, [?, {?) are taken as parsed; type errors show "
    "only at evaluation, as upstream"
)
_TYPE_CHECK = (
    "the type check of cel.WithCompile (names other than self and dep, a result that is not "
    "bool): only parse errors are judged"
)

CHECKS: list[AdmissionCheck] = [
    AdmissionCheck(
        _SOURCE,
        _GIT_REPOSITORY,
        "internal/controller/gitrepository_controller.go getAuthOpts",
        "controller",
        source_controller.github_provider,
    ),
    AdmissionCheck(
        _SOURCE,
        _GIT_REPOSITORY,
        "internal/controller/gitrepository_controller.go verifySignature",
        "controller",
        source_controller.verify_tag,
    ),
    AdmissionCheck(
        _HELM,
        _HELM_RELEASE,
        "internal/controller/helmrelease_controller.go Reconcile: fluxcd/pkg runtime v0.110.1 "
        "runtime/cel/status_reader.go NewStatusReader",
        "controller",
        kustomize_controller.health_check_exprs,
        left_out=_OPTIONAL_SYNTAX,
    ),
    AdmissionCheck(
        _HELM,
        _HELM_RELEASE,
        "internal/controller/helmrelease_controller.go evalReadyExpr",
        "controller",
        kustomize_controller.ready_exprs,
        left_out=_TYPE_CHECK,
    ),
    AdmissionCheck(
        _OPERATOR,
        _KUSTOMIZATION,
        "fluxcd/pkg runtime v0.110.1 runtime/cel/status_reader.go NewStatusReader",
        "controller",
        kustomize_controller.health_check_exprs,
        left_out=_OPTIONAL_SYNTAX,
    ),
    AdmissionCheck(
        _OPERATOR,
        _KUSTOMIZATION,
        "internal/controller/kustomization_controller.go evalReadyExpr",
        "controller",
        kustomize_controller.ready_exprs,
        left_out=_TYPE_CHECK,
    ),
]
