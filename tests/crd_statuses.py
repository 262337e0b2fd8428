"""Every status the pinned operators define for the custom kinds our health checks judge.

The Volcano CRDs enumerate theirs (read from ../shared/upstream, the pinned CRDs byte for byte);
the others leave the field a free string and define the values in their API types, cited below.
"""

from __future__ import annotations

from pathlib import Path

import yaml

UPSTREAM = Path(__file__).resolve().parents[1] / ".." / "shared" / "upstream"


def _enum(crd: str, *path: str) -> set[str]:
    # libyaml: the pure-Python loader takes seconds on these CRDs, in every test process.
    doc = yaml.load((UPSTREAM / crd).read_text(), Loader=yaml.CSafeLoader)
    [version] = [v for v in doc["spec"]["versions"] if v["storage"]]
    node = version["schema"]["openAPIV3Schema"]
    for name in path:
        node = node["properties"][name]
    return set(node["enum"])


def _conditions(obj: dict) -> set[str]:
    return {
        c["type"]
        for c in (obj.get("status") or {}).get("conditions") or []
        if c.get("status") == "True"
    }


# (group, kind) -> (the statuses a sample object shows, the statuses samples must cover)
STATUSES = {
    # training-operator v1.8.1 pkg/apis/kubeflow.org/v1/common_types.go: JobConditionType.
    ("kubeflow.org", "PyTorchJob"): (
        _conditions,
        {"Created", "Running", "Restarting", "Succeeded", "Suspended", "Failed"},
    ),
    # mpi-operator v0.8.0 pkg/apis/kubeflow/v2beta1/types.go: JobConditionType.
    ("kubeflow.org", "MPIJob"): (
        _conditions,
        {"Created", "Running", "Restarting", "Succeeded", "Suspended", "Failed"},
    ),
    # kuberay v1.2.2 ray-operator/apis/ray/v1/rayjob_types.go: JobDeploymentStatus ("" is New).
    ("ray.io", "RayJob"): (
        lambda o: {(o.get("status") or {}).get("jobDeploymentStatus", "")},
        {"", "Initializing", "Running", "Complete", "Failed", "Suspending", "Suspended"},
    ),
    # kuberay v1.2.2 ray-operator/apis/ray/v1/raycluster_types.go: ClusterState.
    ("ray.io", "RayCluster"): (
        lambda o: {(o.get("status") or {}).get("state", "")},
        {"", "ready", "failed", "suspended"},
    ),
    # kueue v0.18.6: the Active condition of ClusterQueue and LocalQueue.
    ("kueue.x-k8s.io", "ClusterQueue"): (
        lambda o: {c["status"] for c in (o.get("status") or {}).get("conditions") or []} or {""},
        {"", "True", "False"},
    ),
    ("kueue.x-k8s.io", "LocalQueue"): (
        lambda o: {c["status"] for c in (o.get("status") or {}).get("conditions") or []} or {""},
        {"", "True", "False"},
    ),
    # jobset v0.12.0 api/jobset/v1alpha2/jobset_types.go: JobSetConditionType.
    ("jobset.x-k8s.io", "JobSet"): (
        _conditions,
        {
            "Completed",
            "Failed",
            "Suspended",
            "RestartingJobSet",
            "StartupPolicyInProgress",
            "StartupPolicyCompleted",
        },
    ),
    ("batch.volcano.sh", "Job"): (
        lambda o: {((o.get("status") or {}).get("state") or {}).get("phase", "")},
        _enum("volcano/v1.15.1/crds/batch.volcano.sh_jobs.yaml", "status", "state", "phase"),
    ),
    ("scheduling.volcano.sh", "Queue"): (
        lambda o: {(o.get("status") or {}).get("state", "")},
        _enum("volcano/v1.15.1/crds/scheduling.volcano.sh_queues.yaml", "status", "state"),
    ),
}


def uncovered(kind: tuple[str, str], samples: list[dict]) -> set[str]:
    """The statuses of `kind` no sample object shows."""
    shows, values = STATUSES[kind]
    return values - {value for sample in samples for value in shows(sample)}
