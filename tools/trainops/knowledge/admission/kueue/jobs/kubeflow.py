"""Kueue v0.18.6 pkg/controller/jobs/kubeflow/kubeflowjob/kubeflowjob_controller.go:
KubeflowJob.ValidateOnCreate, run by the BaseWebhook (jobframework/base_webhook.go) for the
Training Operator's kinds, after ValidateJobOnCreate."""

from __future__ import annotations

from collections.abc import Mapping

from trainops.knowledge.admission.kueue import jobframework
from trainops.knowledge.admission.kueue.features import DEFAULTS
from trainops.knowledge.apivalidation.formats import Errors, is_int
from trainops.model.shape import mapping

UPSTREAM = (
    "pkg/controller/jobs/kubeflow/kubeflowjob/kubeflowjob_controller.go ValidateOnCreate, "
    "Kueue v0.18.6"
)

# (replica specs field, replica types in OrderedReplicaTypes' order) of each kind.
REPLICA_SPECS = {
    "PyTorchJob": ("pytorchReplicaSpecs", ("Master", "Worker")),
    "TFJob": ("tfReplicaSpecs", ("Chief", "Master", "PS", "Worker", "Evaluator")),
    "PaddleJob": ("paddleReplicaSpecs", ("Master", "Worker")),
    "XGBoostJob": ("xgbReplicaSpecs", ("Master", "Worker")),
    "JAXJob": ("jaxReplicaSpecs", ("Worker",)),
}


def validate_create(doc: dict, kind: str, gates: Mapping[str, bool] = DEFAULTS) -> Errors:
    errors = jobframework.validate_job_on_create(doc, "kubeflow.org", kind, gates)
    if not gates["TopologyAwareScheduling"] or kind not in REPLICA_SPECS:
        return errors
    field, order = REPLICA_SPECS[kind]
    specs = mapping(mapping(doc.get("spec")).get(field))
    pod_sets = [
        jobframework.PodSet(
            mapping(mapping(replica.get("template")).get("metadata")),
            f"spec.{field}[{replica_type}].template.metadata",
            replica["replicas"] if is_int(replica.get("replicas")) else 1,
        )
        for replica_type in order
        if isinstance(replica := specs.get(replica_type), dict)
    ]
    failed = jobframework.first_build_error(pod_sets)
    own: Errors = []
    for pod_set in pod_sets:
        own += jobframework.validate_tas_pod_set_request(pod_set.metadata, pod_set.path)
        if failed is None:
            own += jobframework.validate_slice_size_upper_bound(
                pod_set.metadata, pod_set.path, pod_set.count
            )
    if failed is not None and not own:
        return [failed]  # ValidateOnCreate's error is the BaseWebhook's whole answer
    return errors + own
