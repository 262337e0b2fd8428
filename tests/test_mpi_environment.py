"""The mpi environment (docs/operators.md, "MPI Operator"): the MPI Operator v0.8.0 beside the kind
operators with one MPIJob CRD, and an MPIJob whose launcher and workers run without root under
Pod Security `restricted`, admitted by Kueue, with train.py as the rank program."""

from __future__ import annotations

import pytest

from helpers import REPO, rendered_docs
from restricted import restricted_problems

JOB = "recommender-train-mpi"


@pytest.fixture(scope="module")
def layers(renderer) -> dict[str, list[dict]]:
    return {
        layer: rendered_docs(renderer, REPO / "overlays" / "mpi" / layer)
        for layer in ("operators", "platform", "workloads")
    }


def test_one_mpijob_crd_served_at_v2beta1_and_the_operator(layers):
    crds = [
        d
        for d in layers["operators"]
        if d["kind"] == "CustomResourceDefinition"
        and d["metadata"]["name"] == "mpijobs.kubeflow.org"
    ]
    [crd] = crds
    assert [v["name"] for v in crd["spec"]["versions"] if v["served"]] == ["v2beta1"]
    [operator] = [
        d
        for d in layers["operators"]
        if d["kind"] == "Deployment" and d["metadata"]["name"] == "mpi-operator"
    ]
    assert operator["metadata"]["namespace"] == "mpi-operator"
    assert restricted_problems(operator["spec"]["template"]["spec"]) == []


def test_the_mpijob_runs_without_root_under_restricted(layers):
    [job] = [d for d in layers["workloads"] if d["kind"] == "MPIJob"]
    assert job["apiVersion"] == "kubeflow.org/v2beta1"
    assert job["metadata"]["name"] == JOB
    spec = job["spec"]
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "bookstore-ml-lq"
    assert spec["runPolicy"]["cleanPodPolicy"] == "Running"
    assert spec["launcherCreationPolicy"] == "WaitForWorkersReady"
    launcher = spec["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]
    worker = spec["mpiReplicaSpecs"]["Worker"]["template"]["spec"]
    for pod in (launcher, worker):
        assert restricted_problems(pod) == []
        assert pod["securityContext"]["runAsUser"] == 65532
    # The workers' sshd: non-root on 2222, ready once it listens, keys where the job mounts them.
    [sshd] = worker["containers"]
    assert sshd["command"] == ["/usr/sbin/sshd"]
    args = sshd["args"]
    assert args[args.index("-p") + 1] == "2222"
    assert f"AuthorizedKeysFile={spec['sshAuthMountPath']}/authorized_keys" in args
    assert sshd["readinessProbe"]["tcpSocket"]["port"] == "ssh"
    # The launcher: mpirun over ssh to 2222, rank 0 (the hostfile's first host, worker 0) as
    # torch.distributed's master, train.py as the rank program.
    [mpirun] = launcher["containers"]
    assert mpirun["command"] == ["mpirun"]
    args = mpirun["args"]
    assert args[args.index("plm_rsh_args") + 1].startswith("-p 2222 ")
    assert f"MASTER_ADDR={JOB}-worker-0.{JOB}.bookstore-ml.svc" in args
    assert args[args.index("-n") + 1] == str(spec["mpiReplicaSpecs"]["Worker"]["replicas"])
    assert "/workspace/train.py" in args
    assert mpirun["image"] == sshd["image"] == "bookstore/recommender-train-mpi:dev"


def test_the_quota_leaves_room_for_the_mpi_operator(layers):
    [queue] = [d for d in layers["platform"] if d["kind"] == "ClusterQueue"]
    cpu = queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]
    assert cpu == {"name": "cpu", "nominalQuota": "1700m"}
