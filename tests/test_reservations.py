"""The providers' reservation formulas (trainops/knowledge/reservations.py) against the numbers
their sources give, and profiles held to them."""

from __future__ import annotations

import pytest

from helpers import REPO, run_trainops, write_tree
from trainops.knowledge import reservations
from trainops.knowledge.profiles import profile_from
from trainops.model.config import load_config
from trainops.rules import RULES

MI, GI = 2.0**20, 2.0**30


@pytest.mark.parametrize(
    ("cloud", "cpu", "memory", "max_pods", "cpu_left", "memory_left_mi"),
    [
        # GKE plan-node-sizes: 6% + 1% + 2 x 0.5% + 4 x 0.25% of 8 cores = 90m; 25% of 4 GiB,
        # 20% of 4, 10% of 8, 6% of 16, plus 100 MiB eviction.
        ("gke", 8, 32, None, 7.91, 32768 - 1024 - 819.2 - 819.2 - 983.04 - 100),
        ("gke", 24, 96, None, 23.87, 98304 - 1024 - 819.2 - 819.2 - 0.06 * 80 * 1024 - 100),
        # EKS AMI nodeadm: 11 MiB x max pods + 255 MiB, 100 MiB eviction.
        ("eks", 8, 32, 58, 7.91, 32768 - 893 - 100),
        ("eks", 48, 192, 737, 47.81, 196608 - 8362 - 100),
        # AKS: 180m of 8 cores; 20 MB x 250 pods + 50 MB (4816 MiB), 100 MiB eviction.
        ("aks", 8, 32, 250, 7.82, 27852),
        ("aks", 48, 440, 250, 47.42, 450560 - 4816 - 100),
        ("kind", 4, 8, None, 4, 8192),
    ],
)
def test_formulas(cloud, cpu, memory, max_pods, cpu_left, memory_left_mi):
    left = reservations.allocatable(cloud, {"cpu": cpu, "memory": memory * GI}, max_pods)
    assert left["cpu"] == pytest.approx(cpu_left)
    assert left["memory"] / MI == pytest.approx(memory_left_mi)


def test_every_pool_of_the_repository_is_within_its_formula():
    config = load_config(REPO / "trainops.yaml", RULES)
    checked = 0
    for profile in config.profiles.values():
        for pool in profile["nodePools"]:
            if "capacity" in pool:
                profile_from("p", {**profile, "nodePools": [pool]})  # raises when over
                checked += 1
    assert checked >= 10


@pytest.mark.parametrize(
    ("pool", "said"),
    [
        (
            "capacity: {cpu: '8', memory: 32Gi}\n        maxPods: 58",
            "profiles.eks.nodePools[big]: allocatable is more than the eks reservation formula "
            "leaves of its capacity (cpu 8 > 7.91; memory 32Gi > 31Gi)",
        ),
        # A count that sizes the capacity model is bounded before it does (issue #45).
        ("maxNodes: 1000000000000", "maxNodes: 1000000000000 is greater than the maximum of"),
    ],
)
def test_a_pool_the_profile_cannot_promise_is_exit_2(tmp_path, pool, said):
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "roots: [env/*.yaml]\nenvironments: {env: eks}\nprofiles:\n"
            "  eks:\n    cloud: eks\n    storageClasses: {}\n    nodePools:\n"
            f"      - name: big\n        {pool}\n"
            "        allocatable: {cpu: '8', memory: 32Gi}\n",
            "env/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: n}\n",
        },
    )
    done = run_trainops("validate", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr
    assert "Traceback" not in done.stderr
