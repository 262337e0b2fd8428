"""Argo CD v3.5.1: what its application controller refuses in an Application (application.py)."""

from __future__ import annotations

from trainops.knowledge.admission.argocd import application
from trainops.knowledge.admission.check import AdmissionCheck

_APPLICATION = (("argoproj.io", "Application"),)
_OPERATOR = "Argo CD v3.5.1"

CHECKS: list[AdmissionCheck] = [
    AdmissionCheck(
        _OPERATOR,
        _APPLICATION,
        "util/argo/argo.go ValidatePermissions",
        "controller",
        application.validate_permissions,
        left_out=(
            "the AppProject's source repositories and destinations, and the cluster a "
            "destination name resolves to (they need Argo CD's settings)"
        ),
    ),
    AdmissionCheck(
        _OPERATOR,
        _APPLICATION,
        "util/argo/argo.go GetRefSources",
        "controller",
        application.ref_sources,
    ),
    AdmissionCheck(
        _OPERATOR,
        _APPLICATION,
        "pkg/apis/application/v1alpha1/types.go ApplicationSource.ExplicitType",
        "controller",
        application.source_types,
    ),
    AdmissionCheck(
        _OPERATOR,
        _APPLICATION,
        "pkg/apis/application/v1alpha1/types.go RetryStrategy.NextRetryAt",
        "controller",
        application.retry_backoff,
        left_out="Go's bound on a duration's size (about 290 years) is not checked",
    ),
]
