"""The cache under faults: whatever lies in it, however a run ended, the next run's verdict is a
cold run's, with no traceback and no hang. Each fault is made on a cache a real run filled, in a
copy of the repository's kind environment with a defect put in (findings with lines to compare)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import helpers
from helpers import MIRROR, REPO, commit_slice
from trainops.render import kustomization

ROOTS = ["overlays/kind/operators", "overlays/kind/platform", "overlays/kind/workloads"]
# The operators the kind environment installs: the folders of operators/ its operators layer lists.
KIND_OPERATORS = [
    folder.name
    for folder in kustomization.local_folders(REPO / ROOTS[0])
    if folder.parent == REPO / "operators"
]
TIMEOUT = 300  # past any render timeout: a hang fails here, not the suite

pytestmark = pytest.mark.skipif(MIRROR is None, reason="needs the mirror at ../shared/mirror")


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    top = tmp_path_factory.mktemp("faults") / "repo"
    for folder in ("operators", "base", "workloads", "components", "overlays", "gitops"):
        shutil.copytree(REPO / folder, top / folder)
    # The CRD roots of the kind environment's operators only: the others' CRDs (Volcano, the MPI
    # Operator, the GitOps controllers) judge nothing here and cost each cold run a sixth more.
    config = (REPO / "trainops.yaml").read_text()
    every = "crdRoots:\n  - operators/*\n  - gitops/crds/*\n"
    assert every in config and KIND_OPERATORS
    kind = "".join(f"  - operators/{name}\n" for name in KIND_OPERATORS)
    (top / "trainops.yaml").write_text(config.replace(every, f"crdRoots:\n{kind}"))
    job = top / "workloads" / "bookstore-ml" / "job.yaml"
    job.write_text(job.read_text().replace("allowPrivilegeEscalation: false", "privileged: true"))
    return top


def command(*extra: str) -> list[str]:
    return [sys.executable, "-m", "trainops", "validate", *ROOTS, "--format", "json", *extra]


def run(
    repo: Path,
    cache: Path,
    *extra: str,
    env: dict[str, str] | None = None,
    limit: int | None = None,
    unprivileged: bool = False,
):
    """validate in a process of its own (forked from the suite's CLI zygote, under an
    address-space `limit` if given, or, bound by file modes even as root, an interpreter of its
    own); no traceback, whatever the cache holds."""
    if unprivileged:
        done = subprocess.run(
            helpers.unprivileged(command(*extra)),
            cwd=repo,
            env=_env(cache, env),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    else:
        argv = command(*extra)[3:]
        done = helpers.run_trainops(
            *argv, cwd=repo, env=_env(cache, env), timeout=TIMEOUT, limit=limit
        )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _env(cache: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, "TRAINOPS_CACHE_DIR": str(cache), "TRAINOPS_MIRROR": str(MIRROR)}
    return {**env, **(extra or {})}


def verdict(done: subprocess.CompletedProcess) -> tuple[int, list]:
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, sorted(json.dumps(f, sort_keys=True) for f in json.loads(done.stdout))


@pytest.fixture(scope="module")
def cold_run(repo, tmp_path_factory) -> tuple[Path, tuple[int, list]]:
    cache = tmp_path_factory.mktemp("cold-cache")
    return cache, verdict(run(repo, cache))


@pytest.fixture(scope="module")
def cold(cold_run) -> tuple[int, list]:
    """The verdict of a run with an empty cache: what every run after a fault must give."""
    found = cold_run[1]
    assert found[0] == 1 and any(json.loads(f)["line"] for f in found[1])
    return found


@pytest.fixture
def warm(cold_run, tmp_path) -> Path:
    """The cold run's cache copied whole, for faults made in place in the files of its checkouts
    (cut in a linked copy, they would cut the cold run's own): the copy's files are its own, the
    stubbed copies' files linked to their checkouts' as in the cache copied, and each stubbed
    copy's record of its files says their new inodes, as the run that made them here would have
    written it (otherwise every stubbed copy would be made again, whatever the fault)."""
    from trainops.render import crd_stubs

    cache = tmp_path / "cache"
    subprocess.run(["cp", "-a", str(cold_run[0]), str(cache)], check=True)
    records = list(cache.glob(f"crd-stubs-*/**/{crd_stubs._FILES}"))
    assert records
    for record in records:
        record.write_text(json.dumps(crd_stubs._identities(record.parent)))
    return cache


@pytest.fixture
def cold_copy(cold_run, tmp_path) -> Path:
    """The cold run's cache as a folder of its own, for faults made in its entries and folders:
    the checkouts and stubbed copies linked (the same inodes, so the copies are as intact as they
    were made), each entry a copy of its own, to be replaced or rewritten."""
    cache = tmp_path / "cache"
    subprocess.run(["cp", "-al", str(cold_run[0]), str(cache)], check=True)
    for entry in _entries(cache):
        _own(entry)
    return cache


def _own(path: Path) -> None:
    """`path` a file of its own (a copy in its place), with the same modification time."""
    copy = path.with_name(path.name + ".copy")
    shutil.copy2(path, copy)
    copy.replace(path)


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.entry"))


def test_a_fifo_in_place_of_every_entry_neither_hangs_nor_changes_the_verdict(
    repo, cold, cold_copy
):
    # As found: a FIFO where an entry was hung the run (and SIGTERM did not end it).
    entries = _entries(cold_copy)
    assert entries
    for entry in entries:
        entry.unlink()
        os.mkfifo(entry)
    assert verdict(run(repo, cold_copy)) == cold
    assert any(entry.is_file() for entry in _entries(cold_copy))  # those read were written anew


def test_garbage_with_a_valid_hash_in_every_entry_is_a_miss(repo, cold, cold_copy):
    # As found: MemoryError in marshal.loads (a list of 2**31 - 1 items declared, none there).
    payload = b"[" + (2**31 - 1).to_bytes(4, "little") + b"\0" * 16
    for entry in _entries(cold_copy):
        entry.write_bytes(hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
    done = run(repo, cold_copy, env={}, limit=4 * 2**30)
    assert verdict(done) == cold


def test_an_empty_read_only_cache_is_a_note_and_a_full_run(repo, cold, tmp_path):
    # As found: a traceback. Run without root's capabilities, whom a folder's mode binds.
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o555)
    done = run(repo, cache, unprivileged=True)
    assert verdict(done) == cold
    assert f"note: the cache {cache} cannot be written (" in done.stderr
    assert list(cache.iterdir()) == []


def test_a_read_only_cache_is_read(repo, cold, cold_copy):
    for folder in [cold_copy, *(p for p in cold_copy.rglob("*") if p.is_dir())]:
        folder.chmod(0o555)
    done = run(repo, cold_copy, "--verbose", unprivileged=True)
    assert verdict(done) == cold
    assert "cannot be written" in done.stderr


def _full_tmpfs(path: Path, size: str) -> Path:
    """A tmpfs of `size` at `path` (a full disk, as it is: ENOSPC); skips unless mount works."""
    path.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)])
    if mounted.returncode != 0:
        pytest.skip("mounting a small tmpfs (a full disk) needs root")
    return path


@pytest.mark.parametrize("filled", [True, False], ids=["full at start", "fills up during the run"])
def test_a_full_disk_is_a_note_and_an_uncached_run(repo, cold, tmp_path, filled):
    # As found: exit 2 on every run (a checkout could not be written).
    disk = _full_tmpfs(tmp_path / "disk", "2m")
    try:
        if filled:
            with open(disk / "filler", "wb") as filler, contextlib.suppress(OSError):
                while True:
                    filler.write(b"\0" * 65536)
        done = run(repo, disk / "cache")
        assert verdict(done) == cold
        assert f"note: the cache {disk / 'cache'} cannot be written (" in done.stderr
        assert not [p for p in Path(tempfile.gettempdir()).glob("trainops-cache-*")]
    finally:
        subprocess.run(["umount", "--lazy", str(disk)])  # whatever a worker still holds there


def test_git_failing_to_write_a_checkouts_index_is_a_write_failure(tmp_path):
    # As found (the test above, now and then): git died writing a checkout's index on the full
    # disk, "sha1 file '…' write error. Out of diskspace", taken for a broken mirror: exit 2.
    from trainops.model.errors import CannotRun
    from trainops.render.remote_bases import _write_failure

    found = "fatal: sha1 file '/c/remotes/x/.trainops-index.lock' write error. Out of diskspace"
    assert _write_failure(CannotRun(f"cannot check out a/b at c from the mirror: {found}"))
    assert _write_failure(CannotRun("cannot check out a/b at c: fatal: not a tree object")) is None
    if not (REPO / ".git").exists():
        pytest.skip("needs this repository's git folder")
    disk = _full_tmpfs(tmp_path / "disk", "16k")
    try:
        done = subprocess.run(
            ["git", "--git-dir", str(REPO / ".git"), "read-tree", "HEAD"],
            env={**os.environ, "GIT_INDEX_FILE": str(disk / "index")},
            capture_output=True,
            text=True,
        )
        assert done.returncode != 0, "the index fitted in 16 KiB"
        said = f"cannot check out a/b at c from the mirror: {done.stderr.strip()}"
        assert _write_failure(CannotRun(said)), done.stderr
    finally:
        subprocess.run(["umount", "--lazy", str(disk)])


def test_a_full_temporary_folder_is_one_line(repo, tmp_path):
    # As found: a traceback.
    disk = _full_tmpfs(tmp_path / "tmp", "64k")
    try:
        done = run(repo, tmp_path / "cache", env={"TMPDIR": str(disk)})
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("trainops: error: ") and done.stderr.count("\n") == 1
        assert "No space left on device" in done.stderr
    finally:
        subprocess.run(["umount", "--lazy", str(disk)])  # whatever a worker still holds there


# What a render of the kind environment reads of each operator's checkout (and the stubbed copy
# linked to it): truncated, each changed the verdict of the next run that rendered again.
def _checkout_files(cache: Path) -> list[Path]:
    """Kueue's files in its checkout and in the stubbed copy kustomize reads in its place (the
    checkout's files linked, its CRDs rewritten)."""
    return sorted(
        path
        for folder in ("remotes", "crd-stubs-v1")
        for path in (cache / folder).rglob("kueue/*/config/**/*.yaml")
        if path.stat().st_size > 512
    )


@pytest.mark.parametrize("where", ["remotes", "crd-stubs-v1"])
def test_a_truncated_file_in_a_checkout_is_found_and_checked_out_again(repo, cold, warm, where):
    # As found: two false findings from a CRD cut in half, undetected.
    files = [p for p in _checkout_files(warm) if f"/{where}/" in str(p)]
    assert files
    for path in files:
        with open(path, "r+b") as cut:
            cut.truncate(path.stat().st_size // 2)
    for entry in _entries(warm):  # so the roots render again, from the checkouts
        entry.unlink()
    assert verdict(run(repo, warm)) == cold


# Kill points spread over a cold run (a few seconds here): checking out, stubbing, rendering,
# parsing, writing entries. The same points every run; a machine faster or slower than this one
# moves what each interrupts, never what the next run must give. Each point costs a cold run and
# its rerun, so each run of the suite checks one point of each list, chosen by the commit
# (helpers.commit_slice, a slice a point), and `make slices` checks all.
KILL_AFTER_MS = [150, 400, 800, 1500, 3000, 6000]
SIGTERM_AFTER_MS = KILL_AFTER_MS[:4]


def _points(points: list[int]) -> tuple[list[int], str]:
    return commit_slice(points, len(points), lambda after: after)


def test_a_run_killed_at_any_point_leaves_what_gives_a_cold_runs_verdict(repo, cold, tmp_path):
    # As found: 2 of 64 reruns after SIGKILL had findings with `line: null`, duplicated or lost,
    # and the kills left temporary folders behind.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {"TMPDIR": str(scratch)}
    points, at = _points(KILL_AFTER_MS)
    assert points, at
    for after in points:
        cache = tmp_path / f"cache-{after}"
        killed = subprocess.Popen(
            command(),
            cwd=repo,
            env=_env(cache, env),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # kustomize and workers die with it (killpg)
        )
        with contextlib.suppress(subprocess.TimeoutExpired):
            killed.wait(timeout=after / 1000)  # a run over before the point is not waited on
        with contextlib.suppress(ProcessLookupError):
            os.killpg(killed.pid, signal.SIGKILL)
        killed.wait()
        assert verdict(run(repo, cache, env=env)) == cold, f"after a kill at {after} ms ({at})"
        left = [p.name for p in scratch.iterdir()]  # the killed run's, swept by the next
        assert not left, f"the run killed at {after} ms left {left} ({at})"


def test_sigterm_ends_a_run_promptly_at_any_point_and_leaves_no_temporary_folder(
    repo, cold, tmp_path
):
    # As found: a run blocked on a FIFO entry ignored SIGTERM; one ended by it left folders.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    points, at = _points(SIGTERM_AFTER_MS)
    assert points, at
    for after in points:
        cache = tmp_path / f"cache-{after}"
        stopped = subprocess.Popen(
            command(),
            cwd=repo,
            env=_env(cache, {"TMPDIR": str(scratch)}),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        with contextlib.suppress(subprocess.TimeoutExpired):
            stopped.wait(timeout=after / 1000)
        stopped.send_signal(signal.SIGTERM)  # nothing, to a run already over
        _, stderr = stopped.communicate(timeout=60)
        # -15: ended before its handler was set (while importing), with nothing to remove yet.
        assert stopped.returncode in (-15, 143, 0, 1), (stderr, at)
        assert "Traceback" not in stderr
        assert not list(scratch.iterdir()), f"SIGTERM at {after} ms left temporary folders ({at})"
        assert verdict(run(repo, cache)) == cold, f"after SIGTERM at {after} ms ({at})"


def test_a_stubbed_copy_whose_file_changed_is_not_taken(warm, monkeypatch):
    from trainops.render import crd_stubs, remote_bases

    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(warm))
    assert MIRROR is not None
    held = remote_bases.held_as(MIRROR, "kubernetes-sigs/kueue")
    kueue = next((warm / "remotes" / held).iterdir())
    assert crd_stubs.has_stub_tree(held, kueue.name)
    tree = crd_stubs._tree_folder(held, kueue.name)
    crd_stubs._intact_trees.discard(tree)  # as a new run finds it
    stubbed = next(p for p in tree.rglob("*.yaml") if p.stat().st_nlink == 1)
    with open(stubbed, "r+b") as cut:
        cut.truncate(stubbed.stat().st_size // 2)
    assert not crd_stubs.has_stub_tree(held, kueue.name)


@pytest.mark.parametrize("argv", [["version"], ["rules"], ["explain", "schema"]])
def test_a_command_that_reads_no_cache_does_not_probe_it(tmp_path, argv):
    # As found: every command wrote a megabyte into the cache first, and noted a cache it could
    # not write, `trainops version` too.
    blocked = tmp_path / "file"
    blocked.write_text("")
    done = helpers.run_trainops(*argv, env={"TRAINOPS_CACHE_DIR": str(blocked / "cache")})
    assert done.returncode == 0, done.stderr
    assert "cannot be written" not in done.stderr
