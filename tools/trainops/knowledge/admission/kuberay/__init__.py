"""KubeRay v1.2.2: what its controllers refuse before acting. Its RayCluster admission webhook
(ray-operator/apis/ray/v1/raycluster_webhook.go) is served only by the default-with-webhooks
configuration, which no environment here deploys (operators/kuberay uses config/default): it is
not applied."""

from __future__ import annotations

from trainops.knowledge.admission.check import AdmissionCheck
from trainops.knowledge.admission.kuberay.controllers import rayjob

OPERATOR = "KubeRay v1.2.2"

CHECKS: list[AdmissionCheck] = [
    AdmissionCheck(
        OPERATOR,
        (("ray.io", "RayJob"),),
        rayjob.UPSTREAM,
        "controller",
        rayjob.validate_ray_job_spec,
        "the decoder's own words for an invalid runtimeEnvYAML; validateRayJobStatus (status); "
        "RayCluster and RayService: their controllers validate nothing more at v1.2.2, and the "
        "RayCluster webhook is not deployed here",
    )
]
