"""Volcano v1.15.1's validating webhooks (pkg/webhooks/admission), laid out as upstream: the
batch.volcano.sh Job (after the Job's mutating webhook), the Queue and the PodGroup."""

from __future__ import annotations

from trainops.knowledge.admission.check import AdmissionCheck
from trainops.knowledge.admission.volcano.jobs import validate as jobs
from trainops.knowledge.admission.volcano.podgroups import validate as podgroups
from trainops.knowledge.admission.volcano.queues import validate as queues

OPERATOR = "Volcano v1.15.1"

CHECKS: list[AdmissionCheck] = [
    AdmissionCheck(
        OPERATOR,
        (("batch.volcano.sh", "Job"),),
        jobs.UPSTREAM,
        "webhook",
        jobs.webhook_check,
        "the queue's checks (it exists, is Open, is not root and has no child queue: they read "
        "the cluster); validateJobUpdate (a repository creates); the bounds the CRD schema and "
        "Volcano's ValidatingAdmissionPolicy enforce at v1.15.1 instead of the webhook; "
        "ValidatePodTemplate (the API server's pod validation, applied to every pod template "
        "already)",
    ),
    AdmissionCheck(
        OPERATOR,
        (("scheduling.volcano.sh", "Queue"),),
        queues.UPSTREAM,
        "webhook",
        queues.webhook_check,
        "what reads other Queues: the parent exists, the depth limit, the parent's allocated "
        "pods, the ancestors' capability and the siblings' and children's guarantee and "
        "deserved sums, another Queue's hierarchy annotation under this one; the integer check "
        "of ValidateResourceQuantityValue; UPDATE and DELETE",
    ),
    AdmissionCheck(
        OPERATOR,
        (("scheduling.volcano.sh", "PodGroup"),),
        podgroups.UPSTREAM,
        "webhook",
        podgroups.webhook_check,
        "checkQueueState (the Queue exists and is Open: it reads the cluster)",
    ),
]
