"""The reachability data for PyTorch, checked against the connections two real gloo ranks open.

Two ranks of train.py join over torch.distributed (gloo, as the PyTorchJob runs them), and the
test watches their TCP sockets in /proc while they train: every connection from one rank to a
port the other (or the same) rank listens on must be one that trainops/knowledge/network/traffic.py says
a distributed job needs, and that the repository's NetworkPolicies let through between the
PyTorchJob's Master and Worker pods. The store on MASTER_PORT alone would not do: gloo connects
the ranks on other, ephemeral ports, which is what this test shows happening.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

from train_runs import Run, needs

from helpers import REPO
from trainops.knowledge.network import netpol, traffic
from trainops.model.objects import parse_stream

TRAIN = REPO / "workloads" / "bookstore-ml" / "train" / "train.py"
# Long enough that the ranks stay connected for a few seconds (gloo's connections live from the
# join to the end), each poll of /proc seeing them: 24 rounds of two shards, each followed by a
# collective and a 0.1 s sleep, on the small default data: asleep, not computing a large data
# set, whose size does not change which ports gloo opens.
BUSY = ["--shards", "48", "--shard-delay", "0.1"]
LISTEN, ESTABLISHED = "0A", "01"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _socket_inodes(pid: int) -> set[str]:
    found = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                found.add(target[8:-1])
    except OSError:
        pass
    return found


def _tcp_table() -> list[tuple[int, int, str, str]]:
    """(local port, remote port, state, inode) of every TCP socket, IPv4 and IPv6."""
    rows = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, remote, state, inode = fields[1], fields[2], fields[3], fields[9]
            rows.append(
                (int(local.rsplit(":", 1)[1], 16), int(remote.rsplit(":", 1)[1], 16), state, inode)
            )
    return rows


def observe(pids: dict[int, int], until) -> set[tuple[int, int, int]]:
    """(rank that connected, rank that accepted, port) for every connection seen while `until()` is false."""
    seen: set[tuple[int, int, int]] = set()
    while not until():
        inodes = {rank: _socket_inodes(pid) for pid, rank in pids.items()}
        table = _tcp_table()
        listening = {
            local: rank
            for local, _, state, inode in table
            if state == LISTEN
            for rank, own in inodes.items()
            if inode in own
        }
        for local, remote, state, inode in table:
            if state != ESTABLISHED or local in listening:
                continue  # an accepted socket: its peer's row says who connected
            for rank, own in inodes.items():
                if inode in own and remote in listening:
                    seen.add((rank, listening[remote], remote))
        time.sleep(0.01)
    return seen


def _repository_pods() -> tuple[netpol.Cluster, netpol.Endpoint, netpol.Endpoint]:
    """The platform's NetworkPolicies, and the PyTorchJob's Master and Worker as the operator creates them."""
    policies = parse_stream(
        (REPO / "base" / "network-policies.yaml").read_text(), "base/network-policies.yaml"
    ).objects
    job = parse_stream(
        (REPO / "workloads" / "bookstore-ml" / "pytorchjob.yaml").read_text(), "pytorchjob.yaml"
    ).objects[0]
    pods = {p.role: p.endpoint for p in traffic.pods_of(job)}
    return (
        netpol.Cluster([netpol.Policy(p) for p in policies if p.kind == "NetworkPolicy"], {}),
        pods["Master"],
        pods["Worker"],
    )


def test_every_connection_two_gloo_ranks_open_is_one_the_data_and_the_policies_admit(
    tmp_path, runs
):
    needs("torch.distributed")
    master_port = _free_port()
    ranks = {}
    for rank in (0, 1):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAIN_")}
        env.update(
            MASTER_ADDR="127.0.0.1", MASTER_PORT=str(master_port), WORLD_SIZE="2", RANK=str(rank)
        )
        args = ["--model-dir", str(tmp_path / str(rank)), "--dist-timeout", "60", *BUSY]
        run = Run([sys.executable, str(TRAIN), *args], tmp_path / f"rank{rank}.log", env)
        runs.append(run)
        ranks[run.process.pid] = (rank, run)
    started = time.monotonic()
    seen = observe(
        {pid: rank for pid, (rank, _) in ranks.items()},
        lambda: (
            all(run.process.poll() is not None for _, run in ranks.values())
            or time.monotonic() - started > 180
        ),
    )
    codes = [run.wait(timeout=60) for _, run in ranks.values()]
    assert codes == [0, 0], {rank: run.text() for rank, run in ranks.values()}

    between_ranks = {(a, b, port) for a, b, port in seen if a != b}
    assert (1, 0, master_port) in seen, seen  # rank 1 joins the store rank 0 serves on MASTER_PORT
    gloo = {port for _, _, port in between_ranks if port != master_port}
    assert gloo, f"no connection between the ranks on a port other than MASTER_PORT: {seen}"

    cluster, master, worker = _repository_pods()
    for source, destination, port in between_ranks:
        needed = netpol.PortSet.of("TCP", port)
        assert not needed - traffic.TORCH_DISTRIBUTED, (
            f"rank {source} → rank {destination} on TCP {port} is not in the data"
        )
        # Rank 0 is the Master's pod, rank 1 the Worker's.
        pods = {0: master, 1: worker}
        allowed = cluster.allowed(pods[source], pods[destination]).ports
        assert not needed - allowed, (
            f"base/network-policies.yaml blocks rank {source} → rank {destination} on TCP {port}"
        )


def test_the_policy_as_it_was_blocks_what_gloo_opens():
    """Only the rendezvous port between the ranks, as base/network-policies.yaml had it: gloo's ports are cut."""
    old = """
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: allow-pytorch-rendezvous, namespace: bookstore-ml}
spec:
  podSelector: {matchLabels: {bookstore-ml/network: pytorch}}
  policyTypes: [Ingress, Egress]
  ingress:
    - from: [{podSelector: {matchLabels: {bookstore-ml/network: pytorch}}}]
      ports: [{protocol: TCP, port: 23456}]
  egress:
    - to: [{podSelector: {matchLabels: {bookstore-ml/network: pytorch}}}]
      ports: [{protocol: TCP, port: 23456}]
"""
    _, master, worker = _repository_pods()
    policy = netpol.Policy(parse_stream(old, "old.yaml").objects[0])
    allowed = netpol.Cluster([policy], {}).allowed(worker, master).ports
    assert allowed == netpol.PortSet.of("TCP", 23456)
    assert traffic.TORCH_DISTRIBUTED - allowed
