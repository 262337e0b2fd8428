"""KubeRay v1.2.2's own unit-test table (tests/admission/kuberay) judges its port in
trainops.knowledge.admission.kuberay."""

from __future__ import annotations

import pytest

from admission.tables import cases, judge
from trainops.knowledge.admission.kuberay.controllers import rayjob


@pytest.mark.parametrize(("table", "case"), cases("kuberay"))
def test_upstream_case(table, case):
    judge(rayjob.validate_ray_job_spec(case["object"]), table, case)


def test_the_later_checks_on_objects_that_reach_them():
    # Upstream's runtimeEnvYAML and backoffLimit cases stop at the missing cluster spec.
    spec = {"rayClusterSpec": {}, "runtimeEnvYAML": "invalid_yaml_str"}
    [(path, text)] = rayjob.validate_ray_job_spec({"spec": spec})
    assert path == "spec.runtimeEnvYAML"
    assert text.startswith("failed to unmarshal RuntimeEnvYAML: invalid_yaml_str: ")
    spec = {"rayClusterSpec": {}, "runtimeEnvYAML": "pip: [torch]", "backoffLimit": -1}
    assert rayjob.validate_ray_job_spec({"spec": spec}) == [
        ("spec.backoffLimit", "backoffLimit must be a positive integer")
    ]
    spec = {"rayClusterSpec": {}, "activeDeadlineSeconds": 0}
    assert rayjob.validate_ray_job_spec({"spec": spec}) == [
        ("spec.activeDeadlineSeconds", "activeDeadlineSeconds must be a positive integer")
    ]
