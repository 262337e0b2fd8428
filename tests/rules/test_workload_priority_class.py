"""workload-priority-class: a job naming a Kueue WorkloadPriorityClass that no layer defines is
never admitted (Kueue builds no Workload for it); an empty label names none."""

from __future__ import annotations

RULE = "workload-priority-class"


def test_good(findings_of):
    assert findings_of(RULE, "good.yaml") == []


def test_bad(findings_of):
    found = sorted(
        (f.object.name, f.line, f.severity.value, f.path, f.message, f.hint)
        for f in findings_of(RULE, "bad.yaml")
    )
    path = "metadata.labels.kueue.x-k8s.io/priority-class"
    assert found == [
        (
            "empty",
            68,
            "warning",
            path,
            "the kueue.x-k8s.io/priority-class label is empty: Kueue reads it as no class, and the "
            "priority comes from the pods' priorityClassName or the cluster's default",
            "remove the label, or name a WorkloadPriorityClass",
        ),
        (
            "typo",
            50,
            "error",
            path,
            "names WorkloadPriorityClass sheduled, which no layer of the environment defines: "
            "Kueue creates no Workload for the job, so it is never admitted",
            "label it with a defined class (adhoc, scheduled), or define the class",
        ),
    ]


def test_explained():
    from trainops.rules import get_rule

    rule = get_rule(RULE)
    assert rule.__doc__ and "GetPriorityFromWorkloadPriorityClass" in rule.__doc__
