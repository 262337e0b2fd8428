"""JobSet v0.12.0's validating webhook (pkg/webhooks/jobset_webhook.go), after its defaulting."""

from __future__ import annotations

from trainops.knowledge.admission.check import AdmissionCheck
from trainops.knowledge.admission.jobset.webhooks import jobset

OPERATOR = "JobSet v0.12.0"

CHECKS: list[AdmissionCheck] = [
    AdmissionCheck(
        OPERATOR,
        (("jobset.x-k8s.io", "JobSet"),),
        jobset.UPSTREAM,
        "webhook",
        jobset.validate_defaulted,
        "the volumeClaimPolicies checks (they read the namespace's existing PVCs); ValidateUpdate "
        "(a repository creates); the InPlaceRestart and RestartJob alpha gates' checks (off by "
        "default); the pod webhook (pods the controller creates)",
    )
]
