"""`trainops status` judges health once (trainops/live/health.py), and that one definition agrees
with both the Argo CD Lua health checks the repository ships (run in a real Lua 5.1, as
tests/gitops/test_health_checks.py runs them) and the Flux healthCheckExprs (run in a real CEL, as
tests/gitops/test_flux_health.py runs them): on every sample those tests hold, and on every state
the pinned operators can reach, enumerated here.

Flux cannot evaluate an expression over an object that has no `status` yet (CEL errors on the
missing variable); kustomize-controller reports it and keeps polling until the Kustomization's
timeout, which is what InProgress means, so an Error there is compared as InProgress.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from crd_statuses import STATUSES
from helpers import ENVIRONMENTS, REPO, rendered_docs
from trainops.live.health import ARGOCD_ORDER, Health, State, argocd_worst, flux_ready, judge

# The evaluators of the existing tests: a real Lua 5.1 and a real CEL, run as those tests run them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "gitops"))
from test_flux_health import SAMPLES as FLUX_SAMPLES  # noqa: E402
from test_flux_health import flux_status  # noqa: E402
from test_health_checks import SAMPLES as LUA_SAMPLES  # noqa: E402
from test_health_checks import run_health_check  # noqa: E402


@pytest.fixture(scope="module")
def scripts(renderer) -> dict[str, str]:
    """The Lua checks as Argo CD reads them: the keys of the rendered argocd-cm."""
    [config_map] = rendered_docs(renderer, REPO / "gitops" / "argocd" / "health-checks")
    return config_map["data"]


@pytest.fixture(scope="module")
def checks(renderer) -> dict[str, dict[str, dict]]:
    """env -> apiVersion/kind -> the healthCheckExprs entry each Flux entry point ships."""
    return {
        env: {
            f"{check['apiVersion']}/{check['kind']}": check
            for doc in rendered_docs(renderer, REPO / "gitops" / "flux" / env)
            for check in (doc.get("spec") or {}).get("healthCheckExprs") or []
        }
        for env in ENVIRONMENTS
    }


LUA_KEY = "resource.customizations.health."


def _api(key: str) -> tuple[str, str]:
    group, _, kind = key.removeprefix(LUA_KEY).rpartition("_")
    return group, kind


def _lua(scripts: dict, group: str, kind: str, obj: dict) -> dict:
    return run_health_check(scripts[f"{LUA_KEY}{group}_{kind}"], obj)


def _flux(check: dict, obj: dict) -> str:
    found = flux_status(check, obj)
    if found == "Error":
        assert "status" not in obj, "only a missing status may fail to evaluate"
        return "InProgress"
    return found


def _ours(obj: dict, api_version: str, kind: str):
    return judge(obj, api_version, kind)


# --- the samples of the existing tests -------------------------------------------------------

LUA_CASES = [(key, case) for key, cases in LUA_SAMPLES.items() for case in cases]


@pytest.mark.parametrize(
    ("key", "case"), LUA_CASES, ids=[f"{k.rsplit('.', 1)[-1]}-{c['name']}" for k, c in LUA_CASES]
)
def test_argocd_words_and_message_are_the_lua_checks(scripts, key, case):
    group, kind = _api(key)
    lua = _lua(scripts, group, kind, case["object"])
    ours = _ours(case["object"], f"{group}/v1", kind)
    assert (ours.argocd, ours.message) == (lua["status"], lua["message"] or "")


FLUX_CASES = [(key, case) for key, cases in FLUX_SAMPLES.items() for case in cases]


@pytest.mark.parametrize(
    ("key", "case"), FLUX_CASES, ids=[f"{k.rsplit('/', 1)[-1]}-{c['name']}" for k, c in FLUX_CASES]
)
def test_flux_words_are_the_health_check_expressions(checks, key, case):
    api_version, _, kind = key.rpartition("/")
    for env, by_kind in checks.items():
        if key in by_kind:
            expected = _flux(by_kind[key], case["object"])
            assert _ours(case["object"], api_version, kind).flux(case["object"]) == expected, env


# --- every state the pinned operators reach ---------------------------------------------------


def _both(scripts, checks, api_version: str, kind: str, obj: dict) -> None:
    """Our verdict, projected, is Lua's status and message and every environment's CEL status."""
    group = api_version.rpartition("/")[0]
    ours = _ours(obj, api_version, kind)
    lua = _lua(scripts, group, kind, obj)
    assert (ours.argocd, ours.message) == (lua["status"], lua["message"] or ""), obj
    shipped = [c[f"{api_version}/{kind}"] for c in checks.values() if f"{api_version}/{kind}" in c]
    assert shipped, f"no Flux check for {api_version}/{kind}"
    for check in shipped:
        assert ours.flux(obj) == _flux(check, obj), obj


# kuberay v1.2.2 rayjob_types.go: JobDeploymentStatus ("" is New) and the Ray JobStatus values.
RAY_DEPLOYMENT = ["", "Initializing", "Running", "Complete", "Failed", "Suspending", "Suspended"]
RAY_JOB = [None, "", "PENDING", "RUNNING", "STOPPED", "SUCCEEDED", "FAILED"]


@pytest.mark.parametrize(("deployment", "job"), list(itertools.product(RAY_DEPLOYMENT, RAY_JOB)))
def test_rayjob_every_deployment_and_job_status(scripts, checks, deployment, job):
    status = {"jobDeploymentStatus": deployment}
    if job is not None:
        status["jobStatus"] = job
    for detail in (None, "activeDeadlineSeconds deadline exceeded"):
        obj = {"status": {**status, **({"message": detail} if detail else {})}}
        _both(scripts, checks, "ray.io/v1", "RayJob", obj)


def _training_operator_runs(length: int):
    """The condition lists the Training Operator writes (training-operator v1.8.1
    pkg/util/status.go): `UpdateJobConditions` appends the new condition after removing the old
    one of its type; Running and Restarting replace each other; a Succeeded or Failed condition
    turns Running False; nothing changes once Failed. The controller (pkg/controller.v1/common/
    job.go) sets Created first; Suspended True and Running False when the job is suspended (Kueue
    suspends a queued or preempted job: its pods are deleted), Suspended False when resumed; and,
    only while not suspended, Running once its replicas run, Restarting when a running replica is
    restarted, Succeeded or Failed at the end, after which it reconciles the job no more
    (`IsFinished`). Every sequence of those events up to `length`."""

    def set_condition(conditions: list[dict], kind: str, status: str) -> list[dict]:
        if is_true(conditions, "Failed"):
            return conditions
        current = next((c for c in conditions if c["type"] == kind), None)
        if current is not None and current["status"] == status:
            return conditions
        kept = []
        for c in conditions:
            if {kind, c["type"]} == {"Running", "Restarting"} or c["type"] == kind:
                continue
            if kind in ("Succeeded", "Failed") and c["type"] == "Running":
                c = {**c, "status": "False"}
            kept.append(c)
        return [*kept, {"type": kind, "status": status, "message": f"{kind} {status}"}]

    def is_true(conditions: list[dict], kind: str) -> bool:
        return any(c["type"] == kind and c["status"] == "True" for c in conditions)

    def running(conditions: list[dict]) -> bool:
        return not is_true(conditions, "Suspended") and (
            is_true(conditions, "Running") or is_true(conditions, "Restarting")
        )

    events = {
        "suspend": (lambda c: True, [("Suspended", "True"), ("Running", "False")]),
        "resume": (lambda c: is_true(c, "Suspended"), [("Suspended", "False")]),
        "run": (lambda c: not is_true(c, "Suspended"), [("Running", "True")]),
        "restart": (
            lambda c: is_true(c, "Running") and not is_true(c, "Suspended"),
            [("Restarting", "True")],
        ),
        "succeed": (running, [("Succeeded", "True")]),
        "fail": (running, [("Failed", "True")]),
    }
    for sequence in itertools.product(events, repeat=length):
        conditions = [{"type": "Created", "status": "True", "message": "created"}]
        for event in sequence:
            possible, updates = events[event]
            finished = is_true(conditions, "Succeeded") or is_true(conditions, "Failed")
            if finished or not possible(conditions):
                continue  # the operator does not do this in this state
            for kind, status in updates:
                if status == "False" and not any(c["type"] == kind for c in conditions):
                    continue  # only an existing condition is turned False
                conditions = set_condition(conditions, kind, status)
        yield sequence, conditions


def test_pytorchjob_every_condition_history_up_to_four_events(scripts, checks):
    seen = 0
    for length in range(5):
        for _, conditions in _training_operator_runs(length):
            _both(
                scripts,
                checks,
                "kubeflow.org/v1",
                "PyTorchJob",
                {"status": {"conditions": conditions}},
            )
            seen += 1
    assert seen == sum(6**n for n in range(5))


@pytest.mark.parametrize("kind", ["ClusterQueue", "LocalQueue"])
def test_kueue_queues_every_active_condition(scripts, checks, kind):
    # kueue v0.18.6 writes Active as True or False (clusterqueue/localqueue controllers).
    for conditions in (
        None,
        [],
        [{"type": "Other", "status": "True"}],
        [{"type": "Active", "status": "True", "reason": "Ready", "message": "Can admit"}],
        [{"type": "Active", "status": "True", "reason": "Ready"}],
        [{"type": "Active", "status": "False", "reason": "FlavorNotFound", "message": "no flavor"}],
        [{"type": "Active", "status": "False", "reason": "Stopped", "message": ""}],
    ):
        status = {} if conditions is None else {"conditions": conditions}
        _both(scripts, checks, "kueue.x-k8s.io/v1beta2", kind, {"status": status})


VOLCANO_PHASES = [
    "Pending", "Aborting", "Aborted", "Running", "Restarting",
    "Completing", "Completed", "Terminating", "Terminated", "Failed",
]  # fmt: skip


def test_volcano_every_phase_and_queue_state(scripts, checks):
    for phase, detail in itertools.product(VOLCANO_PHASES, [{}, {"reason": "r"}, {"message": "m"}]):
        obj = {"status": {"state": {"phase": phase, **detail}}}
        _both(scripts, checks, "batch.volcano.sh/v1alpha1", "Job", obj)
    for state in ["Open", "Closing", "Closed", "Unknown"]:
        _both(
            scripts, checks, "scheduling.volcano.sh/v1beta1", "Queue", {"status": {"state": state}}
        )


def test_argocd_only_kinds_every_status(scripts):
    """RayCluster and Application have Lua checks only (no Flux expression ships); JobSet's Lua
    here, its Flux expression in test_jobset_every_condition."""
    for state in [None, "ready", "failed", "suspended", "unhealthy"]:
        obj = {"status": {} if state is None else {"state": state, "reason": "head pod crashed"}}
        ours = _ours(obj, "ray.io/v1", "RayCluster")
        lua = _lua(scripts, "ray.io", "RayCluster", obj)
        assert (ours.argocd, ours.message) == (lua["status"], lua["message"]), obj
    kinds = [
        "Completed",
        "Failed",
        "Suspended",
        "StartupPolicyInProgress",
        "StartupPolicyCompleted",
    ]
    for true in itertools.chain.from_iterable(itertools.combinations(kinds, n) for n in range(3)):
        obj = {"status": {"conditions": [{"type": k, "status": "True"} for k in true]}}
        ours, lua = (
            _ours(obj, "jobset.x-k8s.io/v1alpha2", "JobSet"),
            _lua(scripts, "jobset.x-k8s.io", "JobSet", obj),
        )
        assert (ours.argocd, ours.message) == (lua["status"], lua["message"]), obj
    for status in ARGOCD_ORDER:
        obj = {"status": {"health": {"status": status, "message": "m"}}}
        ours, lua = (
            _ours(obj, "argoproj.io/v1alpha1", "Application"),
            _lua(scripts, "argoproj.io", "Application", obj),
        )
        assert (ours.argocd, ours.message) == (lua["status"], lua["message"]), obj


def test_jobset_every_condition(scripts, checks):
    """Every combination of up to three of JobSet v0.12.0's conditions (JobSetConditionType), with
    Suspended True (queued) or False (resumed): Lua's status and message and every environment's
    Flux expression."""
    kinds = sorted(STATUSES[("jobset.x-k8s.io", "JobSet")][1])
    for true in itertools.chain.from_iterable(itertools.combinations(kinds, n) for n in range(4)):
        for resumed in (False, True):
            conditions = [{"type": k, "status": "True"} for k in true]
            if resumed and "Suspended" not in true:
                conditions.insert(0, {"type": "Suspended", "status": "False"})
            _both(
                scripts,
                checks,
                "jobset.x-k8s.io/v1alpha2",
                "JobSet",
                {"status": {"conditions": conditions}},
            )


# --- what only one tool has a rule for --------------------------------------------------------


def test_a_stale_observed_generation_is_in_progress_for_flux_only():
    obj = {
        "metadata": {"generation": 3},
        "status": {"observedGeneration": 2, "conditions": [{"type": "Active", "status": "True"}]},
    }
    health = judge(obj, "kueue.x-k8s.io/v1beta2", "ClusterQueue")
    assert (health.argocd, health.flux(obj)) == ("Healthy", "InProgress")


def test_queued_is_healthy_running_is_current_and_a_missing_object_is_missing():
    queued = {"status": {"conditions": [{"type": "Suspended", "status": "True", "message": "q"}]}}
    health = judge(queued, "kubeflow.org/v1", "PyTorchJob")
    assert (health.state, health.argocd, health.flux(queued)) == (
        State.SUSPENDED,
        "Suspended",
        "Current",
    )
    missing = judge(None, "kubeflow.org/v1", "PyTorchJob")
    assert (missing.state, missing.argocd) == (State.MISSING, "Missing")


def test_built_in_kinds_follow_gitops_engine():
    deployment = {
        "metadata": {"name": "d", "generation": 2},
        "spec": {"replicas": 2},
        "status": {
            "observedGeneration": 2,
            "replicas": 2,
            "updatedReplicas": 2,
            "availableReplicas": 1,
        },
    }
    assert judge(deployment, "apps/v1", "Deployment").message == (
        "Waiting for rollout to finish: 1 of 2 updated replicas are available..."
    )
    deployment["status"]["availableReplicas"] = 2
    assert judge(deployment, "apps/v1", "Deployment").state is State.HEALTHY
    deployment["metadata"]["generation"] = 3
    assert judge(deployment, "apps/v1", "Deployment").state is State.PROGRESSING
    held = {
        "spec": {"suspend": True},
        "status": {"conditions": [{"type": "Suspended", "status": "True"}]},
    }
    assert judge(held, "batch/v1", "Job").state is State.SUSPENDED  # Kueue holds it
    unseen = {"spec": {"suspend": True}, "status": {}}  # no job controller has looked at it yet
    assert judge(unseen, "batch/v1", "Job").state is State.PROGRESSING
    job = {"spec": {}, "status": {"startTime": "t", "active": 1}}
    # kustomize-controller's own Job reader (fluxcd/pkg runtime/statusreaders/job.go): a started
    # Job is InProgress until it completes, although Argo CD and the state call it running.
    assert judge(job, "batch/v1", "Job").flux(job) == "InProgress"
    assert judge(job, "batch/v1", "Job").argocd == "Progressing"
    done = {"status": {"startTime": "t", "conditions": [{"type": "Complete", "status": "True"}]}}
    assert judge(done, "batch/v1", "Job").flux(done) == "Current"
    assert judge(held, "batch/v1", "Job").flux(held) == "Current"  # spec.suspend: queued
    # A JobSet nobody has reconciled yet is not running (trainops status said "JobSet running").
    fresh = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"}}
    assert judge(fresh, "jobset.x-k8s.io/v1alpha2", "JobSet") == Health(
        State.PROGRESSING, "Not yet reconciled by the JobSet controller"
    )
    failed = {
        "status": {
            "conditions": [{"type": "Failed", "status": "True", "message": "BackoffLimitExceeded"}]
        }
    }
    assert judge(failed, "batch/v1", "Job").argocd == "Degraded"
    assert (
        judge({"status": {"phase": "Pending"}}, "v1", "PersistentVolumeClaim").argocd
        == "Progressing"
    )
    crd = {
        "status": {"conditions": [{"type": "NamesAccepted", "status": "False", "message": "clash"}]}
    }
    assert judge(crd, "apiextensions.k8s.io/v1", "CustomResourceDefinition").flux(crd) == "Failed"
    assert judge({"kind": "ConfigMap"}, "v1", "ConfigMap").state is State.HEALTHY


def test_layers_aggregate_as_each_tool_does():
    assert argocd_worst(["Healthy", "Suspended", "Progressing"]) == "Progressing"
    assert argocd_worst(["Healthy", "Degraded", "Missing"]) == "Degraded"
    assert flux_ready(["Current", "Current"]) == "Ready"
    assert flux_ready(["Current", "InProgress"]) == "InProgress"
    assert flux_ready(["InProgress", "Failed"]) == "Failed"


def test_no_input_makes_a_judgement_fail():
    for value in (None, 1, "x", [], {"a": 1}, [{"type": None}], {"conditions": "x"}):
        for group, kind in [
            ("kubeflow.org", "PyTorchJob"),
            ("apps", "Deployment"),
            ("batch", "Job"),
        ]:
            obj = {"metadata": {"generation": value}, "spec": {"replicas": value}, "status": value}
            judge(obj, f"{group}/v1" if group else "v1", kind)  # no exception
