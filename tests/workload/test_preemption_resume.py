"""Preemption: SIGTERM mid-run checkpoints and exits 143, and the next run resumes to the same model.

The kubelet stops a container with SIGTERM (SIGKILL only after the grace period) when Kueue
preempts the job, a spot node is reclaimed or a pod is evicted, and torchrun's agent stops its
workers with SIGTERM when the elastic group changes. Each test signals a run only once a
checkpoint shows it under way, and compares the finished model with an uninterrupted run's byte
for byte. --shard-delay keeps the small default data set's run seconds long without the CPU a large
one would need; the resumed runs leave it out, as it does not change the model.
"""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path

import pytest
from train_runs import TRAIN, Run, clean_env, free_port, needs, python, sha256, wait_until

SHARDS = 100
ARGS = ["--shards", str(SHARDS), "--checkpoint-every", "4"]
# The elastic run's shards, at --shard-delay 0.2: enough that the survivor, training alone, is far
# from the end when the returning pod joins (it trained 9 shards alone, on a quiet machine and on
# one whose two cores were busy; about 40 are left it), and no more, as the shards after the
# rejoin are only waited out. The model is the same whatever the number of shards: the
# uninterrupted run's, of SHARDS.
ELASTIC_SHARDS = 48
TERMINATED = re.compile(
    r"terminated: (?:rank 0 )?checkpointed (\d+)/(\d+) shards to (\S+)"
    r"(?: \(SIGTERM reached another rank\))?, exiting 143"
)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    model_dir = tmp_path_factory.mktemp("uninterrupted")
    run = Run(
        python(str(TRAIN), "--model-dir", str(model_dir), *ARGS), model_dir / "log", clean_env()
    )
    assert run.wait() == 0, run.text()
    return model_dir / "model.joblib"


def shard_checkpoints(folder: Path) -> list[Path]:
    return sorted(folder.glob("cooccurrence-shard-*.npz"))


def stopped_at(run: Run, shards: int = SHARDS) -> int:
    """The number of shards the (last) SIGTERM line of a run says were checkpointed."""
    line = run.lines("terminated:")[-1]
    found = TERMINATED.search(line)
    assert found, line
    finished, total, path = int(found[1]), int(found[2]), Path(found[3])
    assert 0 < finished < total == shards, line
    assert path.name == f"cooccurrence-shard-{finished:05d}.npz" and path.exists(), line
    return finished


def evidence(run: Run, *markers: str) -> list[str]:
    return [line for line in run.text().splitlines() if any(m in line for m in markers)]


def report(title: str, lines: list[str], model: Path, reference: Path) -> None:
    """What the run showed, printed for `pytest -s` (and shown by pytest when the test fails)."""
    print(f"== {title}")
    for line in lines:
        print(f"   {line}")
    print(f"   sha256 resumed       {sha256(model)}")
    print(f"   sha256 uninterrupted {sha256(reference)}")


MARKERS = ("terminated:", "resuming", "joining", "wrote ")


# --------------------------------------------------------------------------- a: one process


def test_one_process_checkpoints_on_sigterm_and_resumes_to_the_same_model(
    uninterrupted, tmp_path, runs
):
    checkpoints, model_dir = tmp_path / "ckpt", tmp_path / "model"
    common = ["--model-dir", str(model_dir), "--checkpoint-dir", str(checkpoints), *ARGS]
    run = Run(python(str(TRAIN), *common, "--shard-delay", "0.1"), tmp_path / "a1.log", clean_env())
    runs.append(run)
    wait_until(lambda: shard_checkpoints(checkpoints), "a first checkpoint", [run])
    signalled = time.monotonic()
    run.process.send_signal(signal.SIGTERM)
    assert run.wait(timeout=60) == 143, run.text()
    took = time.monotonic() - signalled
    # The agreement that wrote checkpoint 4 came before it appeared: the stop is at shard 5 or
    # later, between the periodic checkpoints, and was written then, not at the next one.
    finished = stopped_at(run)
    assert finished > 4
    assert took < 10, f"SIGTERM to exit took {took:.1f}s: a pod has 30s before SIGKILL"
    assert not (model_dir / "model.joblib").exists()

    resumed = Run(python(str(TRAIN), *common), tmp_path / "a2.log", clean_env())
    runs.append(resumed)
    assert resumed.wait() == 0, resumed.text()
    assert (
        f"resuming from checkpoint cooccurrence-shard-{finished:05d}: shards {finished}/{SHARDS}"
        in resumed.text()
    )
    model = model_dir / "model.joblib"
    report(
        f"a. one process: SIGTERM, exit 143 {took:.2f}s later, then a second run",
        evidence(run, *MARKERS) + evidence(resumed, *MARKERS),
        model,
        uninterrupted,
    )
    assert model.read_bytes() == uninterrupted.read_bytes()


def test_sigterm_between_checkpoints_saves_the_shards_finished(tmp_path, monkeypatch):
    """In process, to choose the shard exactly: SIGTERM during shard 5 (counting from 0), with
    checkpoints every 4, stops after shard 6 with a checkpoint of 6, not the 4 before it."""
    monkeypatch.syspath_prepend(str(TRAIN.parent))
    import train as module

    compute = module.shard_cooccurrence

    def shard_then_signal(matrix, shard, shards):
        if shard == 5:
            signal.raise_signal(signal.SIGTERM)
        return compute(matrix, shard, shards)

    monkeypatch.setattr(module, "shard_cooccurrence", shard_then_signal)
    monkeypatch.setattr(module, "_terminate_requested", False)
    previous = signal.signal(signal.SIGTERM, module._on_sigterm)
    try:
        code = module.main(
            ["--model-dir", str(tmp_path / "m"), "--checkpoint-dir", str(tmp_path / "c"), *ARGS]
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert code == 143
    assert [p.name for p in shard_checkpoints(tmp_path / "c")] == [
        "cooccurrence-shard-00004.npz",
        "cooccurrence-shard-00006.npz",
    ]


# --------------------------------------------------------------------------- b: two gloo ranks


def start_ranks(tmp_path: Path, args: list[str], name: str, port: int) -> list[Run]:
    """Two ranks as the Training Operator starts a Master and a Worker (the env:// variables)."""
    return [
        Run(
            python(str(TRAIN), *args),
            tmp_path / f"{name}-rank{rank}.log",
            clean_env(
                MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE="2", RANK=str(rank)
            ),
        )
        for rank in (0, 1)
    ]


@pytest.mark.parametrize("signalled", [(0, 1), (1,)], ids=["job-preempted", "one-node-reclaimed"])
def test_two_gloo_ranks_stop_together_and_resume_to_the_same_model(
    uninterrupted, tmp_path, runs, signalled
):
    """Kueue preempting the job deletes every pod: each rank gets SIGTERM. A reclaimed spot node
    takes one pod: only its rank gets SIGTERM, and the other, which would otherwise wait in the
    next collective until the --dist-timeout, learns of it at the next shard and stops with it."""
    needs("torch.distributed")
    checkpoints, model_dir = tmp_path / "ckpt", tmp_path / "model"
    common = ["--model-dir", str(model_dir), "--checkpoint-dir", str(checkpoints), *ARGS]
    first = start_ranks(tmp_path, [*common, "--shard-delay", "0.1"], "first", free_port())
    runs.extend(first)
    wait_until(lambda: shard_checkpoints(checkpoints), "a first checkpoint", first)
    for rank in signalled:
        first[rank].process.send_signal(signal.SIGTERM)
    assert [r.wait(timeout=60) for r in first] == [143, 143], [r.text() for r in first]
    finished = {stopped_at(r) for r in first}
    assert len(finished) == 1, "the ranks stopped at different shards"
    assert first[1].lines("terminated: rank 0 checkpointed"), first[1].text()
    for rank in (0, 1):
        told_by_another = "(SIGTERM reached another rank)" in first[rank].text()
        assert told_by_another == (rank not in signalled), first[rank].text()

    second = start_ranks(tmp_path, common, "second", free_port())
    runs.extend(second)
    assert [r.wait() for r in second] == [0, 0], [r.text() for r in second]
    [finished] = finished
    assert f"resuming from checkpoint cooccurrence-shard-{finished:05d}" in second[0].text()
    model = model_dir / "model.joblib"
    report(
        f"b. two gloo ranks, SIGTERM to rank(s) {signalled}, then both restarted",
        [line for r in first + second for line in evidence(r, *MARKERS)],
        model,
        uninterrupted,
    )
    assert model.read_bytes() == uninterrupted.read_bytes()


# --------------------------------------------------------------------------- c: elastic torchrun


STORE = TRAIN.parent / "rendezvous_store.py"


def agent(tmp_path: Path, name: str, port: int, args: list[str]) -> Run:
    """One worker pod of the elastic PyTorchJob (components/spot-elastic): torchrun with the
    rendezvous settings the Training Operator v1.8.1 puts in PET_* variables (pkg/controller.v1/
    pytorch/elastic.go; minReplicas 1, maxReplicas 2, maxRestarts 10, the endpoint its rdzvHost
    and rdzvPort) and the component's args. The store is the Master's (rendezvous_store.py):
    is_host=0, as the component sets, makes every agent its client. The rendezvous conf shortens
    the waits for the test: an agent is taken for dead after 5s without a heartbeat, sent every
    1s (default 15s, every 5s), and a round closes 1s after its minimum (default 30s). Fewer than
    5 would be too few: a heartbeat is skipped when the last one is not a full interval old, and a
    live agent taken for dead splits the job in two. TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1: in
    torch 2.13 an agent that stays rank 0 publishes MASTER_ADDR and MASTER_PORT for the first
    round only (DynamicRendezvousHandler caches its _bootstrap_store_info), so a pod that joins a
    later round waits for them until the store's 60s timeout and both agents fail; with the
    variable each round publishes them again. components/spot-elastic needs the same variable
    for a reclaimed pod to rejoin.)"""
    endpoint = f"127.0.0.1:{port}"
    env = clean_env(
        PET_NNODES="1:2",
        PET_RDZV_BACKEND="c10d",
        PET_RDZV_ENDPOINT=endpoint,
        PET_MAX_RESTARTS="10",
        PET_RDZV_CONF="is_host=0,last_call_timeout=1,keep_alive_interval=1,keep_alive_max_attempt=5",
        TORCH_DISABLE_SHARE_RDZV_TCP_STORE="1",
    )
    return Run(
        python(
            "-m",
            "torch.distributed.run",
            "--nproc-per-node=1",
            str(TRAIN),
            *args,
            f"--rendezvous-store={endpoint}",
        ),
        tmp_path / f"{name}.log",
        env,
    )


def test_elastic_torchrun_loses_a_pod_and_regains_it_and_the_model_is_the_same(
    uninterrupted, tmp_path, runs
):
    """The rendezvous store runs on its own (the job's Master, off spot nodes); two agents (worker
    pods) train. Worker-0, the pod that hosted the store when no rdzvHost was set, gets SIGTERM
    (its spot node is reclaimed) and passes it to its worker; both workers stop at the same
    shard, rank 0 checkpoints, and the surviving agent restarts its worker alone (world size 1),
    which resumes: the rendezvous outlived worker-0. The pod comes back: the survivor's agent sees
    it waiting and stops its worker with SIGTERM (another checkpoint), and the two resume together
    and finish the model, byte for byte the uninterrupted one; rank 0 tells the store, which
    exits 0 (the Master succeeding is the job succeeding). (The first agent may also start alone
    and be joined, the same restart, before the test's steps begin.)"""
    needs("torch.distributed.run")
    checkpoints, model_dir = tmp_path / "ckpt", tmp_path / "model"
    args = [
        "--model-dir",
        str(model_dir),
        "--checkpoint-dir",
        str(checkpoints),
        "--dist-timeout=60",
        "--shards",
        str(ELASTIC_SHARDS),
        "--checkpoint-every",
        "4",
        "--shard-delay",
        "0.2",
    ]
    port = free_port()
    store = Run(
        python(str(STORE), f"--port={port}", "--linger=2", "--poll=0.2"),
        tmp_path / "master-0.log",
        clean_env(),
    )
    runs.append(store)
    wait_until(lambda: store.lines("serving on port"), "the store", [store])
    leaving = agent(tmp_path, "worker-0", port, args)
    survivor = agent(tmp_path, "worker-1", port, args)
    runs.extend([survivor, leaving])
    wait_until(lambda: leaving.lines("joining 2 processes"), "two ranks", [survivor, leaving])
    before = set(shard_checkpoints(checkpoints))
    wait_until(
        lambda: set(shard_checkpoints(checkpoints)) - before,
        "a checkpoint of two ranks",
        [survivor, leaving],
    )

    stops = len(survivor.lines("terminated:"))
    leaving.process.send_signal(signal.SIGTERM)  # the kubelet, to the pod's PID 1: the agent
    leaving.wait(timeout=60)
    left_at = stopped_at(leaving, ELASTIC_SHARDS)
    # The survivor's worker stopped at the same shard; its agent restarts it alone.
    wait_until(
        lambda: len(survivor.lines("terminated:")) > stops,
        "the survivor's worker to stop",
        [survivor],
    )
    assert stopped_at(survivor, ELASTIC_SHARDS) == left_at
    solo = f"[train] resuming from checkpoint cooccurrence-shard-{left_at:05d}"
    wait_until(lambda: survivor.lines(solo), "the survivor resuming alone", [survivor])

    back = agent(tmp_path, "worker-0-again", port, args)
    runs.append(back)
    assert survivor.wait() == 0, survivor.text()
    assert back.wait() == 0, back.text()
    assert store.wait(timeout=30) == 0, store.text()
    assert store.lines("model written"), store.text()

    # The survivor's solo worker was stopped for the rejoin with SIGTERM, and checkpointed;
    # the two ranks resumed from that checkpoint.
    after_solo = survivor.text().split(solo, 1)[1]
    rejoined = TERMINATED.search(after_solo)
    assert rejoined and "[train] terminated:" in after_solo, survivor.text()
    rejoined_at = int(rejoined[1])
    assert rejoined_at > left_at
    assert back.lines("joining 2 processes"), back.text()
    resumed = f"[train rank 0/2] resuming from checkpoint cooccurrence-shard-{rejoined_at:05d}"
    assert survivor.lines(resumed) or back.lines(resumed)
    model = model_dir / "model.joblib"
    report(
        "c. elastic torchrun (--nnodes=1:2, c10d, store on its own): worker-0 SIGTERMed, "
        "survivor alone, worker-0 back",
        [
            f"{r.log.stem}: {line}"
            for r in (store, survivor, leaving, back)
            # torchrun's own lines: the agent passing SIGTERM on, or stopping its worker for the rejoin
            for line in evidence(r, *MARKERS, "death signal", "closing signal", "store")
        ],
        model,
        uninterrupted,
    )
    assert model.read_bytes() == uninterrupted.read_bytes()
