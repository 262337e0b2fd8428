"""The capacity model at any size (issue #45, item 3): replicas and nodes counted, never made one
by one; the sets Kueue may admit grown only within the quota, placed up to a bound and past it
held to a worst case that never says a gang fits when some set leaves it short."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
import yaml

from helpers import run_trainops, write_tree
from trainops.knowledge import capacity
from trainops.model.config import Config
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered

NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}
LOCAL_QUEUE = {
    "apiVersion": "kueue.x-k8s.io/v1beta2",
    "kind": "LocalQueue",
    "metadata": {"name": "lq", "namespace": "team"},
    "spec": {"clusterQueue": "cq"},
}


def _flavor(name: str, pool: str) -> dict:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": name},
        "spec": {"nodeLabels": {"pool": pool}},
    }


def _queue(quota: dict[str, tuple[float, float]]) -> dict:
    """A ClusterQueue with one resource group: flavor -> (cpu, memory in Gi) nominal quota."""
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {
                            "name": name,
                            "resources": [
                                {"name": "cpu", "nominalQuota": f"{round(cpu * 1000)}m"},
                                {"name": "memory", "nominalQuota": f"{round(memory * 1024)}Mi"},
                            ],
                        }
                        for name, (cpu, memory) in quota.items()
                    ],
                }
            ],
        },
    }


def _pod(cpu: float, memory: float) -> dict:
    requests = {"cpu": f"{round(cpu * 1000)}m", "memory": f"{round(memory * 1024)}Mi"}
    return {
        "spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "i:1", "resources": {"requests": requests}}],
        }
    }


def _job(name: str, pods: int, cpu: float, memory: float) -> dict:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": name,
            "namespace": "team",
            "labels": {"kueue.x-k8s.io/queue-name": "lq"},
        },
        "spec": {"parallelism": pods, "template": _pod(cpu, memory)},
    }


def _deployment(name: str, replicas: int, cpu: float, memory: float) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "ops"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, **_pod(cpu, memory)},
        },
    }


def _cluster(docs: list[dict], pools: list[tuple[str, float, float, int]]) -> Cluster:
    """An environment of these objects on a kind profile of these pools: (name, cpu, memory in
    Gi, nodes)."""
    folder = Path("/nonexistent/capacity")
    profile = {
        "cloud": "kind",
        "nodePools": [
            {
                "name": name,
                "labels": {"pool": name},
                "allocatable": {"cpu": f"{round(cpu * 1000)}m", "memory": f"{memory}Gi"},
                "maxNodes": nodes,
            }
            for name, cpu, memory, nodes in pools
        ],
    }
    config = Config(folder=folder, environments={"env": "p"}, profiles={"p": profile})
    objects = [K8sObject(doc, "env/objects.yaml", i + 1) for i, doc in enumerate(docs)]
    rendered = Rendered("env", path=folder / "env" / "objects.yaml", objects=objects)
    return Cluster([rendered], None, config, [rendered])


def _model(cluster: Cluster) -> capacity.Model:
    model = capacity.build(cluster)
    assert model is not None
    return model


# --------------------------------------------------------------------------- counted, not made


def test_two_billion_replicas_are_counted_not_placed_one_by_one():
    docs = [_deployment("huge", 2_000_000_000, 0.001, 1 / 1024)]
    model = _model(_cluster(docs, [("a", 4, 8, 1), ("b", 4, 8, 3)]))
    huge = [r for r in model.residents if r.owner == "Deployment ops/huge"]
    # 4000 a node by CPU on four nodes; the rest fit nowhere.
    assert [(r.pool, r.pods) for r in huge] == [("a", 4000), ("b", 12000), (None, 1999984000)]
    assert sum(r.pods for r in huge) == 2_000_000_000
    [a, b] = model.pools
    assert a.requested["cpu"] == pytest.approx(4) and b.requested["cpu"] == pytest.approx(12)


def test_a_million_nodes_are_one_run():
    model = _model(
        _cluster(
            [_deployment("ops", 3, 1, 1), NAMESPACE, _flavor("f", "big"), _queue({"f": (8, 8)})]
            + [LOCAL_QUEUE, _job("wide", 1_000_000, 2, 1)],
            [("big", 4, 8, 1_000_000)],
        )
    )
    assert [(r.pool, r.pods) for r in model.residents] == [("big", 3)]
    assert model.pools[0].allocatable["cpu"] == pytest.approx(4_000_000)
    # The quota refuses the job (2M CPUs are not within 8): nothing admitted, nothing placed.
    assert model.jobs == [] and model.admissions == []


def test_pods_first_fit_as_one_by_one_across_runs():
    """Two pod sets of one job: the first splits the pool's run, the second takes the rest."""
    docs = [NAMESPACE, _flavor("f", "p"), _queue({"f": (100, 100)}), LOCAL_QUEUE]
    docs.append(_job("a", 5, 1.5, 1))  # two a node on three nodes of 4 CPUs: 2, 2, 1
    docs.append(_job("b", 4, 1, 1))  # then: node 1 and 2 have 1 left, node 3 has 2.5
    model = _model(_cluster(docs, [("p", 4, 16, 3)]))
    together = next(a for a in model.admissions if len(a.jobs) == 2)
    assert together.placed == {"Job a": 5, "Job b": 4}
    alone_b = next(a for a in model.admissions if [j.label for j, _ in a.jobs] == ["Job b"])
    assert alone_b.placed == {"Job b": 4}


# --------------------------------------------------------------------------- many jobs


def _crowd(jobs: int) -> list[dict]:
    """Jobs in one queue with two flavors: the set Kueue may admit grows with the jobs."""
    docs = [NAMESPACE, _flavor("f", "p"), _flavor("g", "q"), LOCAL_QUEUE]
    docs.append(_queue({"f": (4, 8), "g": (4, 8)}))
    docs += [_job(f"small-{i}", 1, 0.1, 0.25) for i in range(jobs)]
    return docs


@pytest.mark.parametrize("jobs", [10, 200])
def test_many_small_jobs_place_a_bounded_number_of_sets(jobs):
    model = _model(_cluster(_crowd(jobs), [("p", 4, 16, 2), ("q", 4, 16, 2)]))
    [search] = model.searches
    assert not search.complete
    # Each job alone with each flavor, then no more than the bound.
    assert 2 * jobs <= len(model.admissions) <= 2 * jobs + capacity.MOST_SETS
    assert model.failing() == [] and model.bounded == []  # 80 small pods fit 16 CPUs


def test_a_queue_whose_jobs_never_fit_together_stops_trying_pairs():
    """No two of 250 jobs are within the quota together: trying every pair is quadratic, so the
    search stops after _MOST_TRIES and the worst case, held to the quota, clears them all."""
    docs = [NAMESPACE, _flavor("f", "p"), _queue({"f": (3, 8)}), LOCAL_QUEUE]
    docs += [_job(f"big-{i}", 1, 2, 1) for i in range(250)]
    model = _model(_cluster(docs, [("p", 4, 16, 1)]))
    [search] = model.searches
    assert not search.complete and search.size == 1
    assert len(model.admissions) == 250  # each alone; never a pair, which the quota refuses
    assert model.failing() == [] and model.bounded == []


def test_a_job_the_worst_case_cannot_clear_is_bounded_and_said_so():
    # Two nodes of 1 CPU, quota 2: five 400m pods are within the quota, the fifth fits no node.
    # Sets of five jobs are past what is placed, so only the worst case sees it.
    docs = [NAMESPACE, _flavor("f", "p"), _queue({"f": (2, 8)}), LOCAL_QUEUE]
    docs += [_job(f"j{i:02}", 1, 0.4, 0.25) for i in range(12)]
    model = _model(_cluster(docs, [("p", 1, 8, 2)]))
    [search] = model.searches
    assert not search.complete and search.size == 3
    assert model.failing() == []
    bounded = {b.job.label: b.at_least for b in model.bounded}
    assert "Job j00" not in bounded  # placed first in every set: always fits
    assert {f"Job j{i:02}" for i in range(4, 12)} <= set(bounded)
    assert set(bounded.values()) == {0}


# --------------------------------------------------------------------------- sound, exact


def _brute_force(
    model: capacity.Model, queue: K8sObject, cluster: Cluster
) -> list[tuple[tuple[str, tuple[str, ...]], ...]]:
    """Every (set, flavors) Kueue may admit, as the model enumerated them before it searched:
    every subset of the jobs, by size, times every flavor choice, kept when within the quota."""
    from trainops.knowledge import kueue

    jobs = [j for j in model.jobs if j.queue is queue]
    defined = kueue.Kueue(cluster)
    found = []
    for size in range(1, len(jobs) + 1):
        for subset in itertools.combinations(jobs, size):
            for choice in itertools.product(*(job.choices() for job in subset)):
                usage: dict[tuple[str, str], float] = {}
                for job, names in zip(subset, choice):
                    for (covered, _), name in zip(job.groups, names):
                        for res, amount in job.usage.items():
                            if res in covered:
                                usage[(name, res)] = usage.get((name, res), 0.0) + amount
                if all(
                    amount <= sum(defined.available(queue, *key)) + 1e-9
                    for key, amount in usage.items()
                ):
                    found.append(tuple((job.label, names) for job, names in zip(subset, choice)))
    return found


def _random_environment(seed: int) -> Cluster:
    rng = random.Random(seed)
    pools = [
        (f"p{i}", rng.choice([1, 2, 3, 4]), rng.choice([2, 4, 8]), rng.choice([1, 2, 3, 20]))
        for i in range(rng.randint(1, 2))
    ]
    docs = [NAMESPACE, LOCAL_QUEUE]
    docs += [_flavor(f"f{i}", name) for i, (name, *_) in enumerate(pools)]
    docs.append(_queue({f"f{i}": (rng.choice([1, 2, 4, 6]), 8) for i in range(len(pools))}))
    if rng.random() < 0.5:
        docs.append(_deployment("ops", rng.randint(1, 3), rng.choice([0.25, 0.5]), 0.5))
    for j in range(rng.randint(2, 5)):
        docs.append(
            _job(f"j{j}", rng.randint(1, 3), rng.choice([0.1, 0.25, 0.4, 0.5, 0.75, 1, 1.5]),
                 rng.choice([0.25, 0.5, 1, 2]))
        )  # fmt: skip
    return _cluster(docs, pools)


@pytest.mark.parametrize("seed", range(300))
def test_the_worst_case_is_never_a_false_fit(seed, monkeypatch):
    """On small environments, placed in full, every set is the one the old enumeration made;
    the same environments with nothing but the jobs alone placed (the bound doing the rest)
    never clear a job some set leaves short, nor promise it more pods than that set places."""
    environment = _random_environment(seed)
    exact = _model(environment)
    for search in exact.searches:
        assert search.complete
        expected = _brute_force(exact, search.queue, environment)
        made = [
            tuple((job.label, names) for job, names in a.jobs)
            for a in exact.admissions
            if a.queue is search.queue
        ]
        assert made == expected
    monkeypatch.setattr(capacity, "MOST_SETS", 0)
    bounded = _model(_random_environment(seed))
    flagged = {b.job.label: b.at_least for b in bounded.bounded}
    flagged.update({j.label: 0 for a in bounded.failing() for j in a.short()})
    for admission in exact.admissions:
        for job in admission.short():
            assert job.label in flagged, (seed, admission.placed)
            assert flagged[job.label] <= admission.placed[job.label]


# --------------------------------------------------------------------------- the whole run


def test_the_issue_reproduction_runs_bounded(tmp_path):
    """200 Jobs in one queue and a Deployment of 2e9 replicas, through the CLI, within 1.5 GiB
    of address space and a timeout far above what it takes (it took over 120 s and 1.6 GB)."""

    # Its pods fit no node (100 CPUs each), yet each was placed, one by one, and kept.
    docs = [_deployment("huge", 2_000_000_000, 100, 1), *_crowd(200)]
    profile = {
        "cloud": "kind",
        "storageClasses": {},
        "nodePools": [
            {"name": n, "labels": {"pool": n}, "allocatable": {"cpu": "4", "memory": "16Gi"},
             "maxNodes": 2}
            for n in ("p", "q")
        ],
    }  # fmt: skip
    config = {
        "roots": ["env/*.yaml"],
        "environments": {"env": "kind"},
        "profiles": {"kind": profile},
    }
    write_tree(
        tmp_path,
        {"trainops.yaml": yaml.safe_dump(config), "env/objects.yaml": yaml.safe_dump_all(docs)},
    )
    done = run_trainops("capacity", "env", cwd=tmp_path, timeout=300, limit=1536 * 2**20)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sets Kueue may admit at once: more than" in done.stdout
    assert "which clears every job not shown short" in done.stdout


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cpu", "1e400"),  # parses to infinity
        ("cpu", 10**400),  # past any float
        ("cpu", "-1"),  # the API server refuses negative requests
        ("parallelism", 10**30),  # past int32: the API server refuses it
        ("parallelism", -3),
    ],
)
def test_numbers_no_api_server_accepts_leave_the_job_out(field, value):
    job = _job("odd", 1, 0.5, 1)
    if field == "cpu":
        job["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = value
    else:
        job["spec"][field] = value
    docs = [NAMESPACE, _flavor("f", "p"), _queue({"f": (4, 8)}), LOCAL_QUEUE, job]
    docs.append(_job("plain", 1, 0.5, 1))
    docs.append(_deployment("ops", 10**400, 0.5, 1))  # counted up to a bound, placed as one
    model = _model(_cluster(docs, [("p", 4, 16, 1)]))
    assert [j.label for j in model.jobs] == ["Job plain"]
    [placed, unplaced] = [r for r in model.residents if r.owner == "Deployment ops/ops"]
    assert (placed.pool, placed.pods) == ("p", 8)
    assert unplaced.pool is None and unplaced.pods == capacity._MOST_PODS - 8


def test_a_node_filled_to_its_last_pod_shows_nothing_left():
    assert capacity.show({"cpu": 0.3 - 3 * 0.1, "memory": 0.0}) == "cpu 0m, memory 0Gi"
