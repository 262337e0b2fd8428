"""capacity: the kind environment as the repository had it (envs/found: the node's 4 CPUs as
quota, though kube-system and the operators already request 2.15 of them) and as fixed
(envs/fixed); a quota that fits the nodes' sum but not their fragments (envs/fragmented); and
queues of more sets than are placed one by one, whose worst case flags jobs (envs/crowded) or
clears them (envs/roomy); the volcano environment as shipped, a Volcano Job outside Kueue's quota
in a Volcano Queue the size of the node beside a quota of all the node has left
(envs/volcano-found), and as fixed (envs/volcano-fixed)."""

from __future__ import annotations

import json

import pytest

from helpers import RULE_FIXTURES, findings_by_object, run_trainops

RULE = "capacity"


@pytest.fixture(scope="module")
def found() -> dict[tuple[str, str], list[tuple[str, str]]]:
    return findings_by_object(RULE)


def test_quota_above_what_system_and_operator_pods_leave(found):
    assert found[("found", "ClusterQueue/bookstore-ml-cq")] == [
        (
            "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
            "flavor default-flavor has cpu nominal quota 4, more than its pools "
            "(kind-control-plane) have left once the system and operator pods run (1.85): "
            "Kueue admits jobs the nodes cannot hold",
        ),
        (
            "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota",
            "flavor default-flavor has memory nominal quota 8Gi, more than its pools "
            "(kind-control-plane) have left once the system and operator pods run (6.34Gi): "
            "Kueue admits jobs the nodes cannot hold",
        ),
    ]


def test_a_gang_admitted_alone_that_the_node_cannot_hold(found):
    [(path, message)] = found[("found", "RayJob/recommender-train-ray")]
    assert path == "spec"
    assert message.startswith(
        "Kueue may admit it into flavor default-flavor (its gang: cpu 2.2, memory 4.25Gi)"
    )
    assert "only 2 of its 3 pods fit" in message
    assert "left for jobs: default-flavor on kind-control-plane: cpu 1.85, memory 6.34Gi" in message


def test_no_wait_for_pods_ready_where_a_gang_runs_in_part(found):
    [(path, message)] = found[("found", "ConfigMap/kueue-controller-config")]
    assert path == "data.controller_manager_config.yaml"
    assert "(RayJob recommender-train-ray), and its configuration has no waitForPodsReady" in (
        message
    )


def test_fragments_a_quota_equal_to_the_nodes_cannot_use(found):
    # Two 1500m pods take a node each; the 1-CPU pod Kueue admits with them fits neither.
    [(_, message)] = found[("fragmented", "Job/narrow")]
    assert message.startswith("Kueue may admit it together with Job wide")
    assert "only 0 of its 1 pods fit" in message
    assert ("fragmented", "ClusterQueue/team-cq") not in found
    assert ("fragmented", "ConfigMap/kueue-controller-config") in found


def test_a_volcano_job_outside_the_quota_takes_from_what_kueue_may_admit(found):
    # The Volcano Job's 1 CPU and 2Gi run beside Kueue's 1800m and 6Gi on a node with 1850m
    # and 6494Mi left: the quota is more than is left once the Volcano Job runs.
    quota = found[("volcano-found", "ClusterQueue/bookstore-ml-cq")]
    assert [path for path, _ in quota] == [
        "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota",
        "spec.resourceGroups[0].flavors[0].resources[1].nominalQuota",
    ]
    assert quota[0][1] == (
        "flavor default-flavor has cpu nominal quota 1.8, more than its pools "
        "(kind-control-plane) have left once the system and operator pods and the jobs outside "
        "Kueue's quota (Volcano Job bookstore-ml/recommender-train-volcano) run (850m): Kueue admits "
        "jobs the nodes cannot hold"
    )


def test_a_volcano_queue_the_size_of_the_node_beside_kueues_quota(found):
    queue = found[("volcano-found", "Queue/bookstore-ml")]
    assert [path for path, _ in queue] == ["spec.capability.cpu", "spec.capability.memory"]
    assert queue[0][1] == (
        "Volcano Queue bookstore-ml runs jobs outside Kueue's quota (Volcano Job "
        "bookstore-ml/recommender-train-volcano) with capability cpu 4, more than the nodes' "
        "room beside the system and operator pods less Kueue's nominal quota (cpu 1.8, memory "
        "6Gi) leaves (50m): Volcano and Kueue together admit what the nodes cannot hold"
    )


def test_volcano_fixed_is_clean(found):
    assert not [key for key in found if key[0] == "volcano-fixed"]


def test_fixed_kind_is_clean(found):
    assert not [key for key in found if key[0] == "fixed"]


def test_the_command_prints_each_environment(mirror):
    done = run_trainops("capacity", "kind", "gpu")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "overlays/kind (profile kind, kind): fits"
    assert lines[1].split() == [
        "pool",
        "nodes",
        "allocatable",
        "already",
        "requested",
        "Kueue",
        "may",
        "admit",
        "verdict",
    ]
    assert lines[2].split()[:2] == ["kind-control-plane", "1"]
    assert "cpu 2.15, memory 1.66Gi" in lines[2]  # kube-system 950m + operators 1200m
    assert "default-flavor: cpu 1.8, memory 6Gi" in lines[2]
    assert "fits (cpu 1.85, memory 6.34Gi left)" in lines[2]
    assert any(line.startswith("overlays/gpu (profile eks, eks): fits") for line in lines)
    assert "waitForPodsReady: timeout 10m" in done.stdout


def test_the_command_says_over_and_exits_1():
    done = run_trainops(
        "capacity",
        "--config",
        str(RULE_FIXTURES / RULE / "trainops.yaml"),
        "envs/found",
        cwd=RULE_FIXTURES / RULE,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("envs/found (profile kind, kind): OVER-COMMITTED")
    assert "OVER: default-flavor cpu 4 > cpu 1.85 left" in done.stdout
    assert "gangs that do not fit: RayJob recommender-train-ray" in done.stdout
    json_done = run_trainops("capacity", "--format", "json", "envs/fixed", cwd=RULE_FIXTURES / RULE)
    assert json_done.returncode == 0, json_done.stderr
    [environment] = json.loads(json_done.stdout)
    assert environment["fits"] is True
    assert environment["pools"][0]["requested"]["cpu"] == pytest.approx(2.15)


def test_an_unknown_environment_is_exit_2():
    done = run_trainops("capacity", "nowhere")
    assert done.returncode == 2
    assert "no environment 'nowhere'" in done.stderr


def test_past_the_sets_placed_a_worst_case_bounds_the_rest_and_says_so(found):
    # envs/crowded: sets of up to three of its twelve jobs are placed; five are within the
    # quota and the fifth pod fits no node, which only the worst case sees.
    flagged = sorted(obj for env, obj in found if env == "crowded" and obj.startswith("Job/"))
    assert flagged == [f"Job/j{i:02}" for i in range(3, 12)]  # j03: pessimistic, said so
    [(path, message)] = found[("crowded", "Job/j11")]
    assert path == "spec"
    assert message.startswith(
        "Kueue may admit it into flavor default-flavor (its gang: cpu 400m, memory 0.25Gi) with "
        "other jobs of ClusterQueue team-cq, in more sets than trainops places one by one "
        "(524 placed, every set of up to 3 jobs)"
    )
    assert "as few as 0 of its 1 pods may fit" in message
    assert message.endswith("This is an approximation: it may be pessimistic, never optimistic")
    [(_, ready)] = found[("crowded", "ConfigMap/kueue-controller-config")]
    assert "(by a worst case, not a placement: Job j03, Job j04," in ready


def test_past_the_sets_placed_a_worst_case_that_clears_every_job_is_clean(found):
    assert not [key for key in found if key[0] == "roomy"]
    done = run_trainops("capacity", "envs/roomy", cwd=RULE_FIXTURES / RULE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "sets Kueue may admit at once: more than 524; placed pod by pod: every set of up to 3"
        in (done.stdout)
    )
    assert "which clears every job not shown short" in done.stdout


def test_the_command_says_which_sets_were_placed_and_what_the_worst_case_flags():
    # What only the worst case flags is a warning, as the rule has it: said, and exit 0.
    done = run_trainops("capacity", "envs/crowded", cwd=RULE_FIXTURES / RULE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(
        "envs/crowded (profile two-small-nodes, kind): fits, with a warning"
    )
    assert "WARNING: gangs a worst case cannot clear (not a placement): Job j03, Job j04," in (
        done.stdout
    )
    assert (
        "sets Kueue may admit at once: more than 524; placed pod by pod: every set of up to 3 "
        "jobs and 524 in all, 0 of which do not fit the nodes; every other set bounded by a "
        "worst case per job, which cannot clear Job j03, Job j04,"
    ) in done.stdout
    as_json = run_trainops("capacity", "--format", "json", "envs/crowded", cwd=RULE_FIXTURES / RULE)
    [environment] = json.loads(as_json.stdout)
    [search] = environment["searches"]
    assert (search["queue"], search["placed"], search["complete"]) == ("team-cq", 524, False)
    assert search["bounded"][-1] == {
        "job": "Job j11",
        "flavors": ["default-flavor"],
        "podsAtLeast": 0,
    }
    assert environment["fits"] is True  # what is bounded is listed, a warning


def test_residents_are_counted_by_pool_in_json():
    done = run_trainops("capacity", "--format", "json", "envs/fixed", cwd=RULE_FIXTURES / RULE)
    [environment] = json.loads(done.stdout)
    coredns = [r for r in environment["residents"] if r["owner"] == "system pod coredns"]
    assert coredns == [
        {
            "owner": "system pod coredns",
            "requests": {"cpu": 0.1, "memory": 70 * 2**20},
            "pool": "kind-control-plane",
            "perNode": False,
            "pods": 2,
        }
    ]
    [search] = environment["searches"]
    assert search["complete"] is True and search["bounded"] == []


def test_what_the_worst_case_flags_is_a_warning():
    # The bound may flag a gang that every set leaves room for: no error on an approximation.
    done = run_trainops("validate", "--format", "json", cwd=RULE_FIXTURES / RULE)
    bounded = [f for f in json.loads(done.stdout) if f["message"].endswith("never optimistic")]
    assert bounded and {f["severity"] for f in bounded} == {"warning"}


def test_a_job_outside_the_quota_is_said_so_among_the_residents_in_json():
    done = run_trainops(
        "capacity", "--format", "json", "envs/volcano-found", cwd=RULE_FIXTURES / RULE
    )
    [environment] = json.loads(done.stdout)
    owners = {r["owner"] for r in environment["residents"]}
    assert "Volcano Job bookstore-ml/recommender-train-volcano (outside Kueue's quota)" in owners
    assert "system pod coredns" in owners


def test_kueue_gives_each_pod_set_its_own_flavor(overlays):
    """The gpu environment's elastic PyTorchJob: its Master (the rendezvous store) tolerates no
    GPU taint and takes on-demand quota, its workers the GPU flavor. As it was, the model gave a
    gang one flavor for all its pod sets, found none for this one and left it out of the model
    (the real Kueue admitted it into both: tests/cluster/recorded, scenario gpu)."""
    from helpers import LAYERS, REPO
    from trainops.knowledge import capacity
    from trainops.model.config import load_config
    from trainops.model.objects import K8sObject
    from trainops.model.rendered import Cluster, Rendered
    from trainops.rules import RULES

    config = load_config(REPO / "trainops.yaml", RULES)
    rendered = [
        Rendered(
            f"overlays/gpu/{layer}",
            path=REPO / "overlays/gpu" / layer,
            objects=[
                K8sObject(doc, f"overlays/gpu/{layer}", i + 1)
                for i, doc in enumerate(overlays[("gpu", layer)])
            ],
        )
        for layer in LAYERS
    ]
    model = capacity.model_of(Cluster(rendered, None, config, rendered))
    assert model is not None
    [job] = [j for j in model.jobs if j.label == "PyTorchJob recommender-train-pt"]
    assert [(s.name, s.count) for s in job.pod_sets] == [("Master", 1), ("Worker", 2)]
    assert {capacity.flavor_names(choice) for choice in job.choices()} == {
        ("default-flavor", "gpu")
    }
    admitted = {names for a in model.admissions for j, names in a.jobs if j is job}
    assert admitted == {("default-flavor", "gpu")}


def test_a_gang_of_many_pod_sets_models_the_first_assignments_and_says_so():
    """Nine pod sets that may each take either of two flavors make 512 assignments: the model
    keeps the first 256 (every pod set in its first flavor first, as Kueue tries them) and says
    the job's choices are not all there, so its queue's search is incomplete."""
    from trainops.knowledge import capacity
    from trainops.model.objects import K8sObject

    job = K8sObject({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}}, "j", 1)
    sets = tuple(capacity.PodSet(f"s{i}", 1, {}, {"cpu": 1.0}) for i in range(9))
    groups = ((frozenset({"cpu"}), tuple(("on-demand", "spot") for _ in sets)),)
    gang = capacity.QueuedJob(job, job, sets, {"cpu": 9.0}, groups)
    choices = gang.choices()
    assert len(choices) == capacity.MOST_CHOICES and not gang.every_choice
    assert choices[0] == ("on-demand",) * 9
    assert capacity.QueuedJob(
        job, job, sets[:8], {}, ((groups[0][0], groups[0][1][:8]),)
    ).every_choice
