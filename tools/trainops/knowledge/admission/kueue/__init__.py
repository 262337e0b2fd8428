"""Kueue v0.18.6's validating webhooks: its own kinds' (pkg/webhooks) and those of the job kinds
it manages (pkg/controller/jobs/<integration>, sharing pkg/controller/jobframework), as refused
on create, with Kueue's default feature gates (features.py)."""

from __future__ import annotations

from trainops.knowledge.admission.check import AdmissionCheck
from trainops.knowledge.admission.kueue import jobframework
from trainops.knowledge.admission.kueue.jobs import (
    job,
    jobset,
    kubeflow,
    mpijob,
    raycluster,
    rayjob,
)
from trainops.knowledge.admission.kueue.webhooks import clusterqueue, cohort, resourceflavor

OPERATOR = "Kueue v0.18.6"
_GROUP = "kueue.x-k8s.io"

# What every job webhook's port leaves out.
_JOBS_LEFT_OUT = (
    "update-only checks (queue-name, priority-class, prebuilt-workload and max-exec-time "
    "immutability while running: a repository creates); the default LocalQueue lookup; "
    "ValidatePodSetGroupingTopology and the podset-slice-required-topology-constraints "
    "annotation; the alpha AdmissionGatedBy annotation; the webhook runs whether or not the "
    "environment's Kueue configuration enables the integration"
)
_RAY_LEFT_OUT = (
    _JOBS_LEFT_OUT + "; the Kueue-managed checks run on objects carrying the queue-name label "
    "only (manageJobsWithoutQueueName is the cluster's setting)"
)

CHECKS: list[AdmissionCheck] = [
    AdmissionCheck(
        OPERATOR,
        ((_GROUP, "ClusterQueue"),),
        clusterqueue.UPSTREAM,
        "webhook",
        clusterqueue.validate_cluster_queue,
        "ValidateClusterQueueUpdate's checks against the stored queue; the alpha "
        "ConcurrentAdmission gate's checks (off by default)",
    ),
    AdmissionCheck(
        OPERATOR, ((_GROUP, "Cohort"),), cohort.UPSTREAM, "webhook", cohort.validate_cohort
    ),
    AdmissionCheck(
        OPERATOR,
        ((_GROUP, "ResourceFlavor"),),
        resourceflavor.UPSTREAM,
        "webhook",
        resourceflavor.validate_resource_flavor,
    ),
    AdmissionCheck(
        OPERATOR,
        (("batch", "Job"),),
        job.UPSTREAM,
        "webhook",
        job.validate_create,
        _JOBS_LEFT_OUT,
    ),
    AdmissionCheck(
        OPERATOR,
        (("jobset.x-k8s.io", "JobSet"),),
        jobset.UPSTREAM,
        "webhook",
        jobset.validate_create,
        _JOBS_LEFT_OUT,
    ),
    AdmissionCheck(
        OPERATOR,
        tuple(("kubeflow.org", kind) for kind in kubeflow.REPLICA_SPECS),
        kubeflow.UPSTREAM,
        "webhook",
        lambda doc: kubeflow.validate_create(doc, str(doc.get("kind"))),
        _JOBS_LEFT_OUT,
    ),
    AdmissionCheck(
        OPERATOR,
        (("kubeflow.org", "MPIJob"),),
        mpijob.UPSTREAM,
        "webhook",
        mpijob.validate_create,
        _JOBS_LEFT_OUT,
    ),
    AdmissionCheck(
        OPERATOR,
        (("ray.io", "RayCluster"),),
        raycluster.UPSTREAM,
        "webhook",
        raycluster.validate_create,
        _RAY_LEFT_OUT,
    ),
    AdmissionCheck(
        OPERATOR,
        (("ray.io", "RayJob"),),
        rayjob.UPSTREAM,
        "webhook",
        rayjob.validate_create,
        _RAY_LEFT_OUT,
    ),
]

__all__ = ["OPERATOR", "jobframework"]
