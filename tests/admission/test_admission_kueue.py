"""Kueue v0.18.6's own webhook unit-test tables (tests/admission/kueue) judge the Kueue ports in
trainops.knowledge.admission.kueue."""

from __future__ import annotations

import pytest

from admission.tables import cases, judge
from trainops.knowledge.admission.kueue import features
from trainops.knowledge.admission.kueue.jobs import (
    job,
    jobset,
    kubeflow,
    mpijob,
    raycluster,
    rayjob,
)
from trainops.knowledge.admission.kueue.webhooks import clusterqueue, cohort, resourceflavor

PORTS = {
    "clusterqueue": clusterqueue.validate_cluster_queue,
    "cohort": lambda doc, gates: cohort.validate_cohort(doc),
    "resourceflavor": lambda doc, gates: resourceflavor.validate_resource_flavor(doc),
    "job": job.validate_create,
    "jobset": jobset.validate_create,
    "kubeflow": lambda doc, gates: kubeflow.validate_create(doc, doc["kind"], gates),
    "mpijob": mpijob.validate_create,
    "raycluster": raycluster.validate_create,
    "rayjob": rayjob.validate_create,
}


@pytest.mark.parametrize(("table", "case"), cases("kueue"))
def test_upstream_case(table, case):
    gates = features.gates({**table.get("gates", {}), **case.get("gates", {})})
    judge(PORTS[table["port"]](case["object"], gates), table, case)
