"""The training zygote (tests/train_zygote.py): a run forked from it is what the interpreter would
have run, streams, exit status and signals included, and what it cannot run alike starts an
interpreter of its own."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from train_runs import TRAIN, Forked, Run, clean_env, python, run_python, spawn, wait_until


@pytest.mark.parametrize(
    "args",
    [["--help"], ["--shards", "0"], ["--no-such-flag"]],
    ids=["help", "bad value", "unknown flag"],
)
def test_a_forked_run_gives_what_the_interpreter_gives(args):
    env = clean_env()
    forked = run_python(python(str(TRAIN), *args), env, timeout=60)
    real = subprocess.run(
        python(str(TRAIN), *args), env=env, capture_output=True, text=True, timeout=60
    )
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        real.returncode,
        real.stdout,
        real.stderr,
    )
    assert real.stdout or real.stderr


def test_a_forked_run_ends_by_a_signal_as_a_process_does(tmp_path, runs):
    run = Run(
        python(str(TRAIN), "--model-dir", str(tmp_path), "--shard-delay", "1"),
        tmp_path / "log",
        clean_env(),
    )
    runs.append(run)
    assert isinstance(run.process, Forked)
    assert run.process.poll() is None
    wait_until(lambda: "[train]" in run.text(), "the run's first line", [run])
    run.process.send_signal(signal.SIGKILL)
    assert run.wait(timeout=30) == -signal.SIGKILL


@pytest.mark.parametrize(
    "changed",
    [{"PYTHONHASHSEED": "7"}, {"TORCH_CPP_LOG_LEVEL": "INFO"}],
    ids=["interpreter", "torch"],
)
def test_a_run_that_changes_what_starts_with_it_is_not_forked(tmp_path, changed):
    process = spawn(
        python(str(TRAIN), "--help"), clean_env(**changed), tmp_path / "out", tmp_path / "err"
    )
    assert isinstance(process, subprocess.Popen)
    assert process.wait(timeout=60) == 0
    assert "usage: train.py" in (tmp_path / "out").read_text()


def test_torchrun_is_not_forked(tmp_path):
    process = spawn(
        [sys.executable, "-m", "torch.distributed.run", "--help"],
        clean_env(),
        tmp_path / "out",
        tmp_path / "err",
    )
    assert isinstance(process, subprocess.Popen)
    assert process.wait(timeout=60) == 0
