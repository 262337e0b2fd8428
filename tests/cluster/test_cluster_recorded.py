"""trainops' capacity model agrees with what the real Kueue and kube-scheduler decided, as
recorded by cluster_harness.py (`python tests/cluster/cluster_harness.py record`): for each
scenario (every environment as rendered, kind over-committed by a Job Kueue does not admit, and
cloud split: gangs that fit only split between flavors, or not at all),
the objects applied are judged again here, with no cluster:

- Kueue made a Workload for exactly the jobs trainops counts as queued, of the same pod count;
- the jobs Kueue admitted at once are one of the sets trainops says its quota may admit, and no
  job left pending would have fit the quota beside them (trainops' sets say so too);
- where pods exist (the jobs whose controller runs here: batch Jobs, and Jobs Kueue does not
  admit), the pods the scheduler bound are the pods trainops places, and the capacity rule flags
  a job exactly when some of its pods stayed unschedulable;
- kueue-admission never says a job Kueue admitted waits forever.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import cluster_harness as harness  # noqa: E402

from helpers import REPO  # noqa: E402
from trainops.knowledge import capacity, webhooks  # noqa: E402
from trainops.model.config import load_config  # noqa: E402
from trainops.model.objects import K8sObject  # noqa: E402
from trainops.model.rendered import Cluster, Rendered  # noqa: E402
from trainops.rules import RULES  # noqa: E402
from trainops.rules import capacity as capacity_rule  # noqa: E402

# The scenarios recorded (each a test of its own), and those where the webhooks' reach was probed.
_RECORD = harness.recorded() if harness.RECORD.exists() else {}
RECORDED = sorted(_RECORD)
PROBED = sorted(name for name, decided in _RECORD.items() if "webhook_reach" in decided)


@pytest.fixture(scope="module")
def recorded() -> dict[str, dict]:
    return _RECORD


def _model(decided: dict) -> tuple[capacity.Model, Cluster]:
    config = load_config(REPO / "trainops.yaml", RULES)
    assert config is not None
    rendered = []
    for layer, docs in decided["layers"].items():  # layer: overlays/<environment>/<layer>
        objects = [K8sObject(doc, layer, i + 1) for i, doc in enumerate(docs)]
        rendered.append(Rendered(layer, path=REPO / layer, objects=objects))
    cluster = Cluster(rendered, None, config, rendered)
    model = capacity.model_of(cluster)
    assert model is not None
    return model, cluster


def test_every_scenario_is_recorded(recorded):
    assert set(recorded) == set(harness.scenarios())
    for name, decided in recorded.items():
        assert decided["workloads"], name  # Kueue made Workloads in each
        assert not decided["refused"], (name, decided["refused"])


@pytest.mark.parametrize("scenario", RECORDED)
def test_kueue_makes_a_workload_for_each_job_trainops_queues(recorded, scenario):
    decided = recorded[scenario]
    model, _ = _model(decided)
    made = {w["job"]: w["pods"] for w in decided["workloads"]}
    assert made == {job.label: job.pods for job in model.jobs}


@pytest.mark.parametrize("scenario", RECORDED)
def test_what_kueue_admits_is_a_set_trainops_admits_and_no_more_fits(recorded, scenario):
    decided = recorded[scenario]
    model, _ = _model(decided)
    queue_of = {job.label: job.queue.name for job in model.jobs}
    for queue in set(queue_of.values()):
        mine = [w for w in decided["workloads"] if queue_of.get(w["job"]) == queue]
        admitted = frozenset(w["job"] for w in mine if w["admitted"])
        sets = {
            frozenset(job.label for job, _ in a.jobs)
            for a in model.admissions
            if a.queue.name == queue
        }
        search = next(s for s in model.searches if s.queue.name == queue)
        assert search.complete
        assert not admitted or admitted in sets, (queue, sorted(admitted))
        for waiting in mine:
            if waiting["admitted"]:
                continue
            assert admitted | {waiting["job"]} not in sets, waiting
            assert "insufficient" in waiting["message"], waiting


@pytest.mark.parametrize("scenario", RECORDED)
def test_the_pods_the_scheduler_binds_are_those_trainops_places(recorded, scenario):
    decided = recorded[scenario]
    model, cluster = _model(decided)
    admitted = {w["job"] for w in decided["workloads"] if w["admitted"]}
    by_owner: dict[str, list[dict]] = {}
    for pod in decided["pods"]:
        by_owner.setdefault(pod["owner"], []).append(pod)
    admission = next(
        (a for a in model.admissions if {job.label for job, _ in a.jobs} == admitted),
        None,
    )
    flagged = {
        f"{f.object.kind} {f.object.name}"
        for rendered in cluster.roots
        for f in capacity_rule.check(rendered, cluster)
        if f.object is not None and f.message.startswith("Kueue may admit it")
    }
    for job in model.jobs:
        if job.label not in admitted or job.label not in by_owner:
            continue  # no pods here: its operator does not run
        bound = sum(1 for pod in by_owner[job.label] if pod["node"])
        assert admission is not None
        assert bound == admission.placed[job.label], (job.label, by_owner[job.label])
        unschedulable = [p for p in by_owner[job.label] if p["unschedulable"]]
        assert bool(unschedulable) == (job.label in flagged), (job.label, unschedulable)


def _waits_forever(cluster: Cluster) -> set[str]:
    """The jobs kueue-admission says Kueue never admits for want of quota."""
    return {
        f"{f.object.kind} {f.object.name}"
        for rendered in cluster.roots
        for f in RULES["kueue-admission"].check(rendered, cluster)
        if f.object is not None and "the job waits forever" in f.message
    }


@pytest.mark.parametrize("scenario", RECORDED)
def test_kueue_admission_never_says_waits_forever_of_a_job_kueue_admitted(recorded, scenario):
    decided = recorded[scenario]
    _, cluster = _model(decided)
    admitted = {w["job"] for w in decided["workloads"] if w["admitted"]}
    assert not _waits_forever(cluster) & admitted


def test_a_gang_kueue_admits_split_between_flavors_and_one_it_never_can(recorded):
    """cloud-split: Kueue gave `split`'s Master and Workers two flavors; `too-big` fits no
    assignment. kueue-admission says so of `too-big` alone, and the capacity model admits
    `split` as Kueue did."""
    decided = recorded["cloud-split"]
    model, cluster = _model(decided)
    flavors_of = {w["job"]: (w["admitted"], w["flavors"]) for w in decided["workloads"]}
    assert flavors_of["PyTorchJob split"] == (True, ["default-flavor", "spot"])
    assert flavors_of["PyTorchJob too-big"] == (False, [])
    assert _waits_forever(cluster) == {"PyTorchJob too-big"}
    [split] = [job for job in model.jobs if job.label == "PyTorchJob split"]
    assert {
        names for admission in model.admissions for job, names in admission.jobs if job is split
    } == {("default-flavor", "spot")}


def test_every_environment_had_its_webhooks_reach_probed():
    assert set(PROBED) == {name for name, s in harness.scenarios().items() if s.own_jobs}


@pytest.mark.parametrize("scenario", PROBED)
def test_a_stopped_kueue_blocks_the_batch_jobs_webhook_reach_says_it_reaches(recorded, scenario):
    """With Kueue stopped, the real API server refused a batch Job (the kind of Volcano's
    PreSync Job) in exactly the namespaces where trainops' webhook matching (knowledge/
    webhooks.py, which the webhook-reach rule uses) finds a fail-closed Kueue webhook, and named
    one of those webhooks: Kueue's job webhooks reach bookstore-ml alone, not the operators'
    namespaces nor one no layer names. Only Kueue's webhook configurations are applied there."""
    decided = recorded[scenario]
    _, cluster = _model(decided)
    objects = list(cluster.objects())
    resources = webhooks.Resources(objects)
    labels = {
        o.name: dict(o.doc.get("metadata", {}).get("labels") or {})
        for o in objects
        if o.kind == "Namespace" and o.group == ""
    }
    kueue = [
        hook
        for obj in objects
        for _, hook in webhooks.webhooks(obj)
        if webhooks.service_namespace(hook) == "kueue-system" and webhooks.fails_closed(hook)
    ]
    probed = decided["webhook_reach"]
    assert harness.ELSEWHERE in probed and "bookstore-ml" in probed
    for namespace, refused_by in probed.items():
        probe = K8sObject(harness.probe_job(namespace), "probe.yaml", 1)
        reaching = {
            hook.get("name")
            for hook in kueue
            if webhooks.reaches(hook, probe, resources.of(probe), labels.get(namespace))
        }
        if refused_by is None:
            assert not reaching, (namespace, reaching)
        else:
            assert refused_by in reaching, (namespace, refused_by, reaching)
    assert probed["bookstore-ml"] is not None  # Kueue manages it: its Jobs wait for Kueue
