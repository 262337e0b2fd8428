"""The reports of `drift` and `status` from canned results: each format says what differs and
where, a Secret's values never appear, and names with control characters are escaped."""

from __future__ import annotations

import io
import json

from trainops.live.client import Reply
from trainops.live.diagnosis import Diagnosis
from trainops.live.drift import CHANGED, EXTRA, MISSING, Drift, LayerDrift, ObjectDrift
from trainops.live.dry_run import causes_of
from trainops.live.health import Health, State
from trainops.live.jobs import JobReport
from trainops.live.status import LayerHealth, ObjectHealth, Status
from trainops.model.objects import K8sObject
from trainops.model.rendered import Rendered
from trainops.report import drift_json, drift_markdown, drift_text, status_json, status_text
from trainops.review.compare import compare_objects

TARGET = "https://127.0.0.1:16443 (context local, kubeconfig k)"


def _changes(live: dict | None, git: dict | None):
    def one(doc):
        return Rendered("r", objects=[K8sObject(doc, "f", 1)]) if doc is not None else None

    return compare_objects(one(live), one(git))


def _drift() -> Drift:
    queue = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq\x1b[31m"},
    }
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "ml"}}
    [changed] = _changes({**queue, "spec": {"cpu": "16"}}, {**queue, "spec": {"cpu": "4"}})
    [secret_change] = _changes(
        {**secret, "data": {"token": "TElWRQ=="}}, {**secret, "data": {"token": "R0lU"}}
    )
    [missing] = _changes(
        None,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "new", "namespace": "ml"}},
    )
    [extra] = _changes(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "old", "namespace": "ml"}},
        None,
    )
    return Drift(
        "kind",
        [
            LayerDrift(
                "overlays/kind/platform",
                ["Argo CD Application trainops-kind-platform"],
                [
                    ObjectDrift(CHANGED, changed),
                    ObjectDrift(CHANGED, secret_change),
                    ObjectDrift(MISSING, missing),
                    ObjectDrift(
                        EXTRA, extra, "Flux Kustomization flux-system/p owns it and would prune it"
                    ),
                ],
                [("ConfigMap/ml/bad", 'ConfigMap "bad" is invalid')],
            ),
            LayerDrift("overlays/kind/workloads", []),
        ],
        1.25,
    )


def _written(write, result) -> str:
    out = io.StringIO()
    write(result, out, TARGET)
    return out.getvalue()


def test_drift_in_each_format():
    drift = _drift()
    text = _written(drift_text.write, drift)
    assert "~ kueue.x-k8s.io/v1beta2 ClusterQueue cq\\x1b[31m (differs from git)" in text
    assert "spec.cpu: 16 → 4" in text
    assert "+ v1 ConfigMap ml/new (missing from the cluster)" in text
    assert "- v1 ConfigMap ml/old (in the cluster, not in git; Flux Kustomization" in text
    assert "! ConfigMap/ml/bad git's version is rejected" in text
    assert "overlays/kind/workloads in sync" in text
    assert text.rstrip().endswith(
        "1 of 2 layer(s) drifted: 2 object(s) differ from git, 1 missing from the cluster, 1 not in git, "
        "1 git's version of which the server rejects (1.2s)"
    )
    markdown = _written(drift_markdown.write, drift)
    assert "<details open><summary><code>overlays/kind/platform</code>" in markdown
    assert "- `overlays/kind/workloads`: in sync" in markdown
    data = json.loads(_written(drift_json.write, drift))
    assert data["summary"] == {
        "changed": 2,
        "missing": 1,
        "extra": 1,
        "rejected": 1,
        "seconds": 1.25,
    }
    [queue, *_] = data["layers"][0]["objects"]
    assert queue["fields"] == [{"path": "spec.cpu", "change": "changed", "old": "16", "new": "4"}]
    for output in (text, markdown, json.dumps(data)):
        assert "TElWRQ==" not in output and "R0lU" not in output  # the Secret's values
    assert "(hidden; changed)" in text


def _status() -> Status:
    job = K8sObject(
        {
            "apiVersion": "kubeflow.org/v1",
            "kind": "PyTorchJob",
            "metadata": {"name": "pt", "namespace": "ml"},
        },
        "pytorchjob.yaml",
        1,
    )
    queue = K8sObject(
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "ClusterQueue",
            "metadata": {"name": "cq"},
        },
        "q.yaml",
        1,
    )
    report = JobReport(
        job,
        Health(State.SUSPENDED, "PyTorchJob pt is suspended."),
        "lq",
        "pytorchjob-pt-1a2b3",
        [
            {
                "type": "QuotaReserved",
                "status": "False",
                "reason": "Pending",
                "message": "insufficient quota",
            }
        ],
        [
            {
                "name": "pt-worker-0",
                "phase": "Pending",
                "node": None,
                "scheduled": False,
                "detail": "0/1 nodes",
            }
        ],
        2,
        [
            {
                "time": "2026-01-01T00:00:00Z",
                "reason": "FailedCreate",
                "object": "PyTorchJob/pt",
                "message": "m",
                "count": 2,
            }
        ],
        [Diagnosis("waiting for quota", "insufficient quota (Pending)", problem=False)],
    )
    layers = [
        LayerHealth(
            "overlays/kind/platform",
            [ObjectHealth(queue, Health(State.DEGRADED, "no flavor"), "Failed")],
        ),
        LayerHealth("overlays/kind/workloads", [ObjectHealth(job, report.health, "Current")]),
    ]
    return Status("kind", layers, [report], 0.5)


def test_status_in_each_format():
    status = _status()
    assert status.failing  # the degraded queue
    text = _written(status_text.write, status)
    assert (
        "overlays/kind/platform: Argo CD Degraded, Flux Failed (1 object(s), 1 not healthy)" in text
    )
    assert "overlays/kind/workloads: Argo CD Suspended, Flux Ready" in text
    assert "PyTorchJob ml/pt (queue lq): suspended: PyTorchJob pt is suspended." in text
    assert "QuotaReserved=False (Pending): insufficient quota" in text
    assert "Pods: 1 of 2" in text and "pt-worker-0 Pending: 0/1 nodes" in text
    assert "2026-01-01T00:00:00Z FailedCreate PyTorchJob/pt ×2: m" in text
    assert "→ waiting for quota: insufficient quota (Pending)" in text
    data = json.loads(_written(status_json.write, status))
    assert data["layers"][1]["objects"][0] == {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "namespace": "ml",
        "name": "pt",
        "health": "suspended",
        "argocd": "Suspended",
        "flux": "Current",
        "message": "PyTorchJob pt is suspended.",
    }
    assert data["jobs"][0]["diagnoses"] == [
        {"shape": "waiting for quota", "detail": "insufficient quota (Pending)", "problem": False}
    ]


def test_an_immutable_fields_go_diff_becomes_one_line_at_that_field():
    message = (
        "Forbidden: spec is immutable after creation except resources.requests and "
        "volumeAttributesClassName for bound claims\n  core.PersistentVolumeClaimSpec{\n"
        '- \tAccessModes: []core.PersistentVolumeAccessMode{"ReadWriteOnce"},\n'
        '+ \tAccessModes: []core.PersistentVolumeAccessMode{"ReadWriteMany"},\n'
        "  \tSelector:    nil,\n  \t... // 6 identical fields\n  }\n"
    )
    reply = Reply(
        422, {"message": "x", "details": {"causes": [{"field": "spec", "message": message}]}}
    )
    assert causes_of(reply) == [
        (
            "spec.accessModes",
            "Forbidden: spec is immutable after creation except resources.requests and "
            'volumeAttributesClassName for bound claims (- AccessModes: []core.PersistentVolumeAccessMode{"ReadWriteOnce"}; '
            '+ AccessModes: []core.PersistentVolumeAccessMode{"ReadWriteMany"})',
        )
    ]
