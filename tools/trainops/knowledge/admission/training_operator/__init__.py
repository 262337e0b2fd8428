"""The Training Operator v1.8.1's validating webhooks (pkg/webhooks), for the kinds this
repository ships: PyTorchJob. (It serves TFJob, XGBoostJob, PaddleJob and MXJob webhooks too;
no environment here runs those kinds.)"""

from __future__ import annotations

from trainops.knowledge.admission.check import AdmissionCheck
from trainops.knowledge.admission.training_operator.webhooks import pytorch

OPERATOR = "Training Operator v1.8.1"

CHECKS: list[AdmissionCheck] = [
    AdmissionCheck(
        OPERATOR,
        (("kubeflow.org", "PyTorchJob"),),
        pytorch.UPSTREAM,
        "webhook",
        pytorch.validate_pytorch_job,
        "the deprecation warning for spec.elasticPolicy.nProcPerNode (a warning, not a refusal)",
    )
]
