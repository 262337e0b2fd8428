"""SIGTERM (a cancelled CI job) stops kustomize children and leaves no temporary folders."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers import write_tree


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone in all but name; only a running child counts.
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return state != "Z"


def test_sigterm_stops_kustomize_and_removes_temporary_folders(tmp_path):
    pids = tmp_path / "pids"
    slow = tmp_path / "bin" / "kustomize"
    slow.parent.mkdir()
    slow.write_text(
        f'#!/bin/sh\n[ "$1" = version ] && {{ echo v5.5.0; exit 0; }}\necho $$ >> {pids}\n'
        "exec sleep 120\n"
    )
    slow.chmod(0o755)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    for name in ("a", "b", "c"):  # three different roots: the same files would be one render
        write_tree(tmp_path / "repo" / name, {"kustomization.yaml": f"# {name}\nresources: []\n"})
    env = dict(os.environ, TRAINOPS_KUSTOMIZE=str(slow), TMPDIR=str(scratch))
    env.pop("TRAINOPS_MIRROR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "trainops", "validate", "a", "b", "c", "--jobs", "2"],
        cwd=tmp_path / "repo",
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(_read(pids)) < 2:
        time.sleep(0.1)
    started = _read(pids)
    assert len(started) == 2, "kustomize was not started twice"
    assert any(scratch.iterdir()), "no temporary folder while rendering"
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)
    # As found: Python died at once; kustomize kept running and the folders stayed.
    assert process.returncode == 143, stderr
    assert "Traceback" not in stderr
    assert not [pid for pid in started if _alive(pid)]
    assert len(_read(pids)) == 2, "a queued render started after SIGTERM"
    assert list(scratch.iterdir()) == []


def _terminate(process: subprocess.Popen, within: float) -> None:
    """SIGTERM the run: it ends with 143, in `within` seconds, with no traceback."""
    process.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 143, stderr
    assert time.monotonic() - sent < within
    assert "Traceback" not in stderr


def _read(pids: Path) -> list[int]:
    return [int(line) for line in pids.read_text().split()] if pids.exists() else []


def _hold_every_render_lock(cache: Path) -> list:
    """Another run's locks, as one stuck on a render would hold them (all stripes)."""
    import fcntl

    from trainops.render import render_cache

    folder = cache / render_cache.FOLDER / "locks"
    folder.mkdir(parents=True)
    handles = []
    for stripe in range(256):
        handle = open(folder / f"{stripe:03d}.lock", "a+b")  # noqa: SIM115 - closed by the test
        fcntl.flock(handle, fcntl.LOCK_EX)
        handles.append(handle)
    return handles


def _start_validate(tmp_path: Path, **env: str) -> subprocess.Popen:
    write_tree(
        tmp_path / "repo" / "app",
        {
            "kustomization.yaml": "resources:\n  - cm.yaml\n",
            "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
        },
    )
    return subprocess.Popen(
        [sys.executable, "-m", "trainops", "validate", "app"],
        cwd=tmp_path / "repo",
        env={**os.environ, "TRAINOPS_CACHE_DIR": str(tmp_path / "cache"), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_run_waits_for_another_runs_lock_only_so_long(tmp_path):
    # As found: a run stuck on a FIFO held a render lock; unrelated runs waited 60-82 s.
    handles = _hold_every_render_lock(tmp_path / "cache")
    started = time.monotonic()
    process = _start_validate(tmp_path, TRAINOPS_LOCK_WAIT_SECONDS="1")
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stdout + stderr
    assert time.monotonic() - started < 30
    for handle in handles:
        handle.close()


def test_sigterm_ends_a_run_waiting_on_a_lock_within_two_seconds(tmp_path):
    handles = _hold_every_render_lock(tmp_path / "cache")
    process = _start_validate(tmp_path)
    time.sleep(3)  # started, and waiting for the lock (30 s by default)
    assert process.poll() is None
    _terminate(process, within=2)
    for handle in handles:
        handle.close()


def test_sigterm_stops_the_kustomize_helper_with_the_run(tmp_path):
    from trainops.model import processes
    from trainops.render.kustomize_worker import Worker

    # A helper that never answers, as one stuck in a build would be.
    worker = Worker(
        [
            sys.executable,
            "-c",
            "import sys, time; sys.stdout.write('-1 0 0\\n'); sys.stdout.flush(); time.sleep(120)",
        ]
    )
    process = worker._start(30)
    assert process in processes._running
    processes.stop_children()
    try:
        assert process.wait(timeout=2) is not None
    finally:
        processes._stopping.clear()
        processes.disown(process)


def _parse_workers_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid and (
            b"trainops.model.parse_worker" in command or b"trainops.check.unit_worker" in command
        ):
            found.append(int(entry.name))
    return found


def test_sigterm_stops_the_parse_workers_at_once(tmp_path):
    # Over 2 MiB of files the cold run parses in worker processes: SIGTERM kills them, and the
    # run parses nothing more itself (it would otherwise take the workers' units on).
    config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata: {k: %s}\n"
    write_tree(
        tmp_path / "m",
        {f"f{n:04d}.yaml": config_map % (n, "x" * 4000) for n in range(1500)},
    )
    env = dict(os.environ, TRAINOPS_CACHE_DIR=str(tmp_path / "cache"))
    process = subprocess.Popen(
        [sys.executable, "-m", "trainops", "validate", str(tmp_path / "m")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and not workers and process.poll() is None:
        workers = _parse_workers_of(process.pid)
        time.sleep(0.02)
    assert workers, "no parse worker was started"
    _terminate(process, within=5)
    assert not [pid for pid in workers if _alive(pid)]
