"""The Bookstore recommender training: deterministic, resumable after a kill, and distributed."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import joblib
import pytest
from train_runs import Run, needs, run_python

from helpers import REPO

TRAIN_DIR = REPO / "workloads" / "bookstore-ml" / "train"
TRAIN = TRAIN_DIR / "train.py"
# Many shards, each checkpointed; SLOW runs them over a couple of seconds, so that a kill after
# the first checkpoint lands mid-way (47 shards, 50 ms each, remain). The delay costs no CPU and
# does not change the model: the runs that are not killed leave it out (2-5 s each).
SHARDED = ["--shards", "48", "--checkpoint-every", "1"]
SLOW = [*SHARDED, "--shard-delay", "0.05"]


def train(*args: str, env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    full_env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("TRAIN_", "WORLD_SIZE", "RANK", "MASTER_"))
    }
    full_env.update(env or {})
    return run_python([sys.executable, str(TRAIN), *args], full_env, **kwargs)


def load_model(model_dir: Path):
    sys.path.insert(0, str(TRAIN_DIR))
    try:
        return joblib.load(model_dir / "model.joblib")
    finally:
        sys.path.remove(str(TRAIN_DIR))


@pytest.fixture(scope="module")
def default_model(tmp_path_factory) -> Path:
    model_dir = tmp_path_factory.mktemp("default")
    done = train("--model-dir", str(model_dir))
    assert done.returncode == 0, done.stderr
    return model_dir / "model.joblib"


def test_same_seed_gives_a_byte_identical_model_and_another_seed_differs(default_model, tmp_path):
    assert train("--model-dir", str(tmp_path / "again")).returncode == 0
    assert (tmp_path / "again" / "model.joblib").read_bytes() == default_model.read_bytes()
    assert train("--model-dir", str(tmp_path / "seed7"), "--seed", "7").returncode == 0
    assert (tmp_path / "seed7" / "model.joblib").read_bytes() != default_model.read_bytes()


def test_log_follows_the_pipeline(tmp_path):
    done = train("--model-dir", str(tmp_path))
    lines = done.stdout.splitlines()
    assert lines[0].startswith("[train] config=Config(")
    assert "[train] dataset: books=200 orders=5000" in done.stdout
    assert "[train] interactions: shape=(800, 200) nnz=" in done.stdout
    assert f"[train] wrote {tmp_path}/model.joblib (size=" in done.stdout
    assert lines[-1].startswith("[train] sample: neighbours(book_id=1) top-3 = [[")


def test_neighbours_are_sane(default_model):
    model = load_model(default_model.parent)
    assert model.n_books == 200
    for book_id in range(1, model.n_books + 1):
        neighbours = model.neighbours(book_id)
        assert len(neighbours) <= 10
        ids = [n for n, _ in neighbours]
        scores = [s for _, s in neighbours]
        assert book_id not in ids
        assert len(set(ids)) == len(ids)
        assert all(0 < s <= 1 for s in scores)
        assert scores == sorted(scores, reverse=True)
    assert len(model.neighbours(1, 3)) == 3
    with pytest.raises(KeyError, match="ids run from 1 to 200"):
        model.neighbours(201)


def test_environment_variables_are_fallbacks_for_flags(default_model, tmp_path):
    done = train(env={"TRAIN_MODEL_DIR": str(tmp_path), "TRAIN_SEED": "42"})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "model.joblib").read_bytes() == default_model.read_bytes()
    # A flag wins over its environment variable.
    done = train("--seed", "42", "--model-dir", str(tmp_path / "flag"), env={"TRAIN_SEED": "7"})
    assert (tmp_path / "flag" / "model.joblib").read_bytes() == default_model.read_bytes()


def test_bad_input_is_one_line_not_a_traceback(tmp_path):
    done = train("--model-dir", str(tmp_path), env={"TRAIN_TOP_K": "ten"})
    assert done.returncode == 1
    assert done.stderr.strip() == "[train] error: TRAIN_TOP_K='ten' is not a number"
    done = train("--model-dir", str(tmp_path), "--shards", "0")
    assert (
        done.returncode == 1
        and "--shards must be at least 1" in done.stderr
        and "Traceback" not in done.stderr
    )
    done = train("--model-dir", str(tmp_path), "--shard-delay", "-1")
    assert done.returncode == 1
    assert done.stderr.strip() == "[train] error: --shard-delay must not be negative, not -1.0"
    done = train("--model-dir", str(tmp_path), "--rendezvous-store", "master-0")
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "[train] error: --rendezvous-store must be HOST:PORT, not 'master-0'"
    )


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> bytes:
    """The model of SLOW's configuration, trained without interruption (and so without its delay)."""
    model_dir = tmp_path_factory.mktemp("whole")
    done = train("--model-dir", str(model_dir), *SHARDED)
    assert done.returncode == 0, done.stderr
    return (model_dir / "model.joblib").read_bytes()


def _start_and_stop_after_a_checkpoint(tmp_path: Path, sig: int) -> subprocess.Popen:
    checkpoints = tmp_path / "ckpt"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRAIN_")}
    process = subprocess.Popen(
        [
            sys.executable,
            str(TRAIN),
            "--model-dir",
            str(tmp_path / "resumed"),
            "--checkpoint-dir",
            str(checkpoints),
            *SLOW,
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(checkpoints.glob("cooccurrence-shard-*.npz")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no checkpoint within 60s"
        time.sleep(0.02)
    process.send_signal(sig)
    process.wait(timeout=60)
    return process


# SIGTERM, with one process, two ranks and elastic torchrun: test_preemption_resume.py.
def test_killed_run_resumes_to_the_same_model(uninterrupted, tmp_path):
    killed = _start_and_stop_after_a_checkpoint(tmp_path, signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL
    assert not (tmp_path / "resumed" / "model.joblib").exists(), (
        "the kill came too late to test resuming"
    )

    done = train(
        "--model-dir",
        str(tmp_path / "resumed"),
        "--checkpoint-dir",
        str(tmp_path / "ckpt"),
        *SHARDED,
    )
    assert done.returncode == 0, done.stderr
    assert "resuming from checkpoint cooccurrence-shard-" in done.stdout
    assert (tmp_path / "resumed" / "model.joblib").read_bytes() == uninterrupted


def test_a_corrupt_checkpoint_is_skipped_with_a_warning(default_model, tmp_path):
    checkpoints = tmp_path / "ckpt"
    args = (
        "--model-dir",
        str(tmp_path / "m"),
        "--checkpoint-dir",
        str(checkpoints),
        "--checkpoint-every",
        "1",
    )
    assert train(*args).returncode == 0
    (checkpoints / "neighbours.npz").write_bytes(b"PK\x03\x04 truncated")
    cooccurrence = checkpoints / "cooccurrence.npz"
    cooccurrence.write_bytes(cooccurrence.read_bytes()[:-100])

    done = train(*args)
    assert done.returncode == 0, done.stderr
    assert "warning: skipping checkpoint" in done.stdout and "neighbours.npz" in done.stdout
    assert "cooccurrence.npz" in done.stdout
    assert (tmp_path / "m" / "model.joblib").read_bytes() == default_model.read_bytes()


def test_a_finished_run_resumes_at_the_model_and_other_configs_are_not_trusted(
    default_model, tmp_path
):
    checkpoints = str(tmp_path / "ckpt")
    assert (
        train("--model-dir", str(tmp_path / "a"), "--checkpoint-dir", checkpoints).returncode == 0
    )
    again = train("--model-dir", str(tmp_path / "b"), "--checkpoint-dir", checkpoints)
    assert "resuming: similarity phase already complete" in again.stdout
    assert (tmp_path / "b" / "model.joblib").read_bytes() == default_model.read_bytes()

    other = train(
        "--model-dir", str(tmp_path / "c"), "--checkpoint-dir", checkpoints, "--seed", "7"
    )
    assert "written for another configuration" in other.stdout
    assert (tmp_path / "c" / "model.joblib").read_bytes() != default_model.read_bytes()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_gloo_processes_give_the_single_process_model(default_model, tmp_path, runs):
    needs("torch.distributed")
    port = str(_free_port())
    for rank in (0, 1):
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRAIN_")}
        env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, WORLD_SIZE="2", RANK=str(rank))
        args = [sys.executable, str(TRAIN), "--model-dir", str(tmp_path), "--dist-timeout", "60"]
        stdout, stderr = tmp_path / f"rank{rank}.out", tmp_path / f"rank{rank}.err"
        runs.append(Run(args, stdout, env, stderr=stderr))
    codes = [run.wait(timeout=120) for run in runs]
    assert codes == [0, 0], [(run.text(), run.log.with_suffix(".err").read_text()) for run in runs]
    assert "[train rank 1/2] done: rank 0 writes the model" in runs[1].text()  # its stdout
    assert (tmp_path / "model.joblib").read_bytes() == default_model.read_bytes()


def test_a_rank_that_cannot_reach_the_master_fails_clearly(tmp_path):
    needs("torch.distributed")
    env = {
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(_free_port()),
        "WORLD_SIZE": "2",
        "RANK": "1",
    }
    started = time.monotonic()
    done = train("--model-dir", str(tmp_path), "--dist-timeout", "1", env=env, timeout=60)
    assert done.returncode == 1
    assert time.monotonic() - started < 30
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("[train rank 1/2] error: rank 1 could not join the group at 127.0.0.1:")


def test_distributed_without_master_variables(tmp_path):
    done = train("--model-dir", str(tmp_path), env={"WORLD_SIZE": "2"})
    assert done.returncode == 1
    assert "MASTER_ADDR, MASTER_PORT, RANK not set" in done.stderr


def test_ray_tasks_give_the_single_process_model_and_resume_its_checkpoints(
    default_model, tmp_path
):
    """--ray (the RayJob's entrypoint) runs the shards as tasks on a real local Ray instance."""
    needs("ray")
    env = {"RAY_USAGE_STATS_ENABLED": "0"}
    checkpoints = tmp_path / "checkpoints"
    done = train(
        "--ray",
        "--model-dir",
        str(tmp_path / "ray"),
        "--checkpoint-dir",
        str(checkpoints),
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "[train] ray: " in done.stdout
    assert (tmp_path / "ray" / "model.joblib").read_bytes() == default_model.read_bytes()
    # Its checkpoints are the sequential run's: that run resumes at the finished phase.
    resumed = train("--model-dir", str(tmp_path / "resumed"), "--checkpoint-dir", str(checkpoints))
    assert "resuming: similarity phase already complete" in resumed.stdout
    assert (tmp_path / "resumed" / "model.joblib").read_bytes() == default_model.read_bytes()


def test_ray_under_torchrun_is_refused(tmp_path):
    done = train("--ray", "--model-dir", str(tmp_path), env={"WORLD_SIZE": "2"})
    assert done.returncode == 1
    assert "--ray spreads the work over Ray tasks" in done.stderr


def test_a_rendezvous_store_that_cannot_be_told_is_one_line(tmp_path, monkeypatch):
    """Rank 0 tells the elastic job's store (rendezvous_store.py) that the model is written; a
    store that does not answer is an error naming it, not a traceback."""
    pytest.importorskip("torch")
    monkeypatch.syspath_prepend(str(TRAIN_DIR))
    import train as module

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with pytest.raises(module.TrainingError) as raised:
        module.tell_rendezvous_store(f"127.0.0.1:{port}", tmp_path / "model.joblib", 0.3)
    assert str(raised.value).startswith(
        f"the model is written, but the rendezvous store at 127.0.0.1:{port} could not be told "
        "(timeout 0.3s): "
    )


def test_the_rendezvous_store_refuses_a_port_it_cannot_serve(capsys):
    sys.path.insert(0, str(TRAIN_DIR))
    try:
        import rendezvous_store as store
    finally:
        sys.path.remove(str(TRAIN_DIR))
    assert store.main(["--port", "0"]) == 1
    assert capsys.readouterr().err == "[rendezvous-store] error: port 0 is not a TCP port\n"
    pytest.importorskip("torch")
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert store.main(["--port", str(port)]) == 1
    assert capsys.readouterr().err.startswith(
        f"[rendezvous-store] error: cannot serve port {port}: "
    )


def test_the_rendezvous_store_ends_when_the_run_is_closed_before_the_model(monkeypatch):
    """torchrun closes a run when an agent ends for another reason than a signal; in the Master's
    store that run would refuse every agent that joins after, so the store exits 1 (the Master
    restarts empty). Its state is read from torch's own pickled _RendezvousState, never loaded."""
    pytest.importorskip("torch")
    import base64
    import pickle
    import threading

    from torch.distributed import TCPStore
    from torch.distributed.elastic.rendezvous.dynamic_rendezvous import _RendezvousState

    monkeypatch.syspath_prepend(str(TRAIN_DIR))
    import rendezvous_store as store

    state = _RendezvousState()
    assert not store.run_closed(base64.b64encode(pickle.dumps(state)))
    state.closed = True
    closed = base64.b64encode(pickle.dumps(state))
    assert store.run_closed(closed)
    for garbage in (b"Y2FuaW1hZGFt", b"not base64!", base64.b64encode(b"\x80\x04junk"), b""):
        assert not store.run_closed(garbage)  # torch's sentinel, and what any client may write

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ended: list[int] = []
    server = threading.Thread(target=lambda: ended.append(store.serve(port, 0, 0.05, "job-1")))
    server.start()
    client = TCPStore("127.0.0.1", port, is_master=False, timeout=timedelta(seconds=10))
    client.set("torch.rendezvous.other-run", closed)  # another run's state is not this one's
    client.set("torch.rendezvous.job-1", base64.b64encode(pickle.dumps(_RendezvousState())))
    time.sleep(0.2)
    assert server.is_alive()
    client.set("torch.rendezvous.job-1", closed)
    server.join(timeout=10)
    assert ended == [1]


def test_nccl_on_cuda_and_gloo_on_cpu():
    sys.path.insert(0, str(TRAIN_DIR))
    try:
        import train as module
    finally:
        sys.path.remove(str(TRAIN_DIR))
    assert module.backend_for(True) == "nccl"
    assert module.backend_for(False) == "gloo"
    torch = pytest.importorskip("torch")
    assert module.torch_cuda_available() == torch.cuda.is_available()


def test_two_writers_of_one_volume_with_the_same_pid_do_not_collide(tmp_path, monkeypatch):
    """The Job and the Volcano master each run train.py as pid 1 in their own pods and write the
    model to one volume. As it was, both named the temporary file by pid: the second writer
    truncated the first's file and renamed it away, and the first's rename then failed."""
    monkeypatch.syspath_prepend(str(TRAIN_DIR))
    import train as module

    monkeypatch.setattr(module.os, "getpid", lambda: 1)
    target = tmp_path / "model.joblib"

    def first(handle):
        handle.write(b"first half, ")
        module._atomic_write(target, lambda other: other.write(b"the other pod's model"))
        handle.write(b"second half")

    module._atomic_write(target, first)
    assert target.read_bytes() == b"first half, second half"
    assert [p.name for p in tmp_path.iterdir()] == ["model.joblib"]
    assert target.stat().st_mode & 0o777 == 0o644
