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


def _read(pids: Path) -> list[int]:
    return [int(line) for line in pids.read_text().split()] if pids.exists() else []
