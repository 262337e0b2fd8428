"""The helper process that serves pykustomize's renders: it gives its memory back when renders are
over, and each way it can fail (a library that does not load, a build that hangs, a crash) ends in
one clear message, never a hang."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from helpers import run_trainops, write_tree
from test_build import assert_one_line_error
from trainops.check.validate import Root, validate
from trainops.render.kustomize import InProcessKustomize, in_process, library_in
from trainops.render.kustomize_worker import Worker, WorkerFailed
from trainops.render.renderer import Renderer

# A helper that speaks the protocol and answers in order, one request at a time: "hang" never
# answers, "crash" dies with a Go-like message, anything else is "built <path>". It appends a
# line to the file named by its argument each time it starts.
STAND_IN = r"""
import json, os, sys, time
open(sys.argv[1], "a").write("started\n")
def answer(number, code, text):
    body = text.encode()
    sys.stdout.buffer.write(b"%d %d %d\n" % (number, code, len(body)) + body)
    sys.stdout.buffer.flush()
answer(-1, 0, "")
for line in sys.stdin:
    request = json.loads(line)
    if request["path"] == "hang":
        time.sleep(3600)
    if request["path"] == "crash":
        sys.stderr.write("fatal error: unexpected signal during runtime execution\n")
        sys.stderr.flush()
        os._exit(2)
    answer(request["id"], 0, "built " + request["path"])
"""


def stand_in(tmp_path: Path, script: str = STAND_IN) -> tuple[Worker, Path]:
    starts = tmp_path / "starts"
    return Worker([sys.executable, "-c", script, str(starts)]), starts


def test_answers_come_back_to_the_build_that_asked(tmp_path):
    worker, starts = stand_in(tmp_path)
    results: dict[int, tuple[int, str]] = {}
    threads = [
        threading.Thread(target=lambda i=i: results.update({i: worker.build(f"root-{i}", 30)}))
        for i in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {i: (0, f"built root-{i}") for i in range(8)}
    assert starts.read_text().count("started") == 1
    worker.release()


def test_a_build_that_hangs_is_stopped_and_the_build_queued_behind_it_is_tried_again(tmp_path):
    worker, starts = stand_in(tmp_path)
    hung: list[tuple[int, str]] = []
    first = threading.Thread(target=lambda: hung.append(worker.build("hang", 2)))
    first.start()
    while not worker._pending:  # the hanging request is in the helper's hands
        time.sleep(0.01)
    queued = worker.build("after", 60)
    first.join()
    assert hung == [(-1, "kustomize (pykustomize) did not finish in 2 s")]
    assert queued == (0, "built after")
    assert starts.read_text().count("started") == 2
    worker.release()


def test_a_helper_that_crashes_twice_is_reported_with_its_last_words(tmp_path):
    worker, starts = stand_in(tmp_path)
    with pytest.raises(WorkerFailed, match="unexpected signal during runtime execution"):
        worker.build("crash", 30)
    assert starts.read_text().count("started") == 2
    assert worker.build("fine", 30) == (0, "built fine")  # and the next build starts afresh


def test_a_helper_that_cannot_load_the_library_says_why(tmp_path):
    why = b"wrong ELF class: ELFCLASS32"
    frame = b"-1 1 %d\n%s" % (len(why), why)
    script = f"import sys; sys.stdout.buffer.write({frame!r})"
    worker = Worker([sys.executable, "-c", script])
    with pytest.raises(WorkerFailed, match="does not load here: wrong ELF class: ELFCLASS32"):
        worker.build("root", 30)


def test_a_helper_warmed_ahead_serves_the_builds_and_is_started_once(tmp_path):
    worker, starts = stand_in(tmp_path)
    for _ in range(3):
        worker.warm(30)  # every render the cache lacks asks; one helper starts
    assert worker.build("root", 30) == (0, "built root")
    worker.warm(30)  # it runs: nothing more starts
    assert worker.build("again", 30) == (0, "built again")
    assert starts.read_text().count("started") == 1
    worker.release()


def test_a_helper_warmed_ahead_that_cannot_start_is_said_at_the_build(tmp_path):
    why = b"wrong ELF class: ELFCLASS32"
    frame = b"-1 1 %d\n%s" % (len(why), why)
    worker = Worker([sys.executable, "-c", f"import sys; sys.stdout.buffer.write({frame!r})"])
    worker.warm(30)
    with pytest.raises(WorkerFailed, match="does not load here: wrong ELF class: ELFCLASS32"):
        worker.build("root", 30)
    worker = Worker(["/nonexistent/helper"])
    worker.warm(30)
    with pytest.raises(OSError):
        worker.build("root", 30)


def test_a_helper_that_dies_before_it_is_ready_says_why(tmp_path):
    script = "import sys; sys.stderr.write('ImportError: no module named cffi\\n')"
    worker = Worker([sys.executable, "-c", script])
    with pytest.raises(WorkerFailed, match="does not load here: ImportError: no module named cffi"):
        worker.build("root", 30)


def test_the_cli_names_a_library_that_does_not_load_and_the_way_around_it(tmp_path):
    # A pykustomize whose library is found but fails to load, as a wheel for another libc would.
    fake = write_tree(
        tmp_path / "site",
        {
            "pykustomize/__init__.py": "",
            "pykustomize/_ffi.py": (
                "def get_library():\n    raise OSError('libpykustomize.so: wrong ELF class')\n"
            ),
        },
    )
    library = library_in(fake / "pykustomize")
    if library is None:
        pytest.skip("pykustomize has no build for this platform")
    library.parent.mkdir(parents=True)
    library.write_bytes(b"not a library")
    write_tree(tmp_path, {"k/kustomization.yaml": "resources: []\n"})
    done = run_trainops(
        "build",
        str(tmp_path / "k"),
        env={"PYTHONPATH": str(fake), "TRAINOPS_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert_one_line_error(
        done,
        "pykustomize's library does not load here: libpykustomize.so: wrong ELF class",
        "set TRAINOPS_KUSTOMIZE=process",
    )


needs_pykustomize = pytest.mark.skipif(
    in_process() is None, reason="pykustomize is not installed (make test installs it)"
)


def _library_loaded_here() -> bool:
    return "libpykustomize" in Path("/proc/self/maps").read_text()


@needs_pykustomize
def test_renders_run_in_the_helper_and_validate_ends_it(tmp_path, monkeypatch):
    write_tree(
        tmp_path,
        {
            "k/kustomization.yaml": "resources: [cm.yaml]\nnamePrefix: x-\n",
            "k/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
        },
    )
    backend = in_process()
    assert isinstance(backend, InProcessKustomize)
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "cache"))
    renderer = Renderer(backend)
    outcome = validate([Root(tmp_path / "k")], renderer)
    assert outcome.renders == 1
    assert [obj.name for obj in outcome.rendered[0].objects] == ["x-settings"]
    assert backend._worker._process is None  # ended once the renders were over
    assert not _library_loaded_here()


@needs_pykustomize
def test_a_request_the_library_cannot_take_is_answered_not_left_waiting():
    # A path no file system encoding can hold: without an answer its caller would wait until
    # the render timeout.
    worker = Worker()
    code, message = worker.build("/tmp/\ud800", 30)
    assert code != 0
    assert "pykustomize could not render '/tmp/\\ud800'" in message
    assert worker.build("/nonexistent-trainops-root", 30)[0] != 0  # the helper still serves
    worker.release()


def test_a_helper_that_answers_with_something_other_than_a_frame_is_treated_as_gone(tmp_path):
    script = (
        "import sys\n"
        "sys.stdout.buffer.write(b'-1 0 0\\n'); sys.stdout.buffer.flush()\n"
        "for line in sys.stdin:\n"
        "    sys.stderr.write('printed where answers go\\n'); sys.stderr.flush()\n"
        "    sys.stdout.buffer.write(b'Warning: deprecated field\\n'); sys.stdout.buffer.flush()\n"
        "    sys.stdin.read()\n"
    )
    worker = Worker([sys.executable, "-c", script])
    with pytest.raises(WorkerFailed, match="printed where answers go"):
        worker.build("root", 30)


def test_a_helper_that_never_gets_ready_is_given_up_on():
    worker = Worker([sys.executable, "-c", "import time; time.sleep(3600)"])
    with pytest.raises(WorkerFailed, match="did not start in 1 s"):
        worker.build("root", 1)


@needs_pykustomize
def test_the_helpers_address_space_is_bounded(tmp_path, monkeypatch):
    # The last line of defence behind render/preflight.py: an alias bomb given to the library
    # directly (past the checks) stops the helper at its bound, not the machine at 23 GB.
    levels = "abcdefghi"
    bomb = "".join(
        f"  {n}: &{n} [{','.join([f'*{levels[i - 1]}'] * 9 if i else ['lol'] * 9)}]\n"
        for i, n in enumerate(levels)
    )
    write_tree(
        tmp_path,
        {
            "kustomization.yaml": "resources:\n  - cm.yaml\n",
            "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\nlols:\n" + bomb,
        },
    )
    monkeypatch.setenv("TRAINOPS_HELPER_ADDRESS_SPACE_MB", "2048")
    worker = Worker()
    started = time.monotonic()
    # Go says "runtime: out of memory" or "fatal error: runtime: cannot allocate memory".
    with pytest.raises(WorkerFailed, match="(out of|cannot allocate) memory.*ADDRESS_SPACE_MB"):
        worker.build(str(tmp_path), 120)
    assert time.monotonic() - started < 60


# Answers each build with the Go collector target the helper was started with.
TELLS_GOGC = STAND_IN.replace('"built " + request["path"]', 'os.environ.get("GOGC", "unset")')


@pytest.mark.parametrize(("users", "expected"), [(None, "400"), ("100", "100"), ("off", "off")])
def test_the_helper_collects_less_often_unless_the_user_says(
    tmp_path, monkeypatch, users, expected
):
    """kustomize's garbage is collected at Go's GOGC=400 in the helper (a fifth of its CPU went to
    the collector at the default), and a GOGC the user set is kept."""
    if users is None:
        monkeypatch.delenv("GOGC", raising=False)
    else:
        monkeypatch.setenv("GOGC", users)
    worker, _ = stand_in(tmp_path, TELLS_GOGC)
    assert worker.build("root", 30) == (0, expected)
    worker.release()


def test_the_librarys_version_is_read_once_and_kept_by_the_files_identity(tmp_path, monkeypatch):
    """Finding the version reads the whole library (28 MB): a run after the first reads the
    cache instead, and a library replaced is read again."""
    from trainops.render import kustomize

    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "cache"))
    library = tmp_path / "libpykustomize.so"
    library.write_bytes(b"\x00go\tsigs.k8s.io/kustomize/api\tv0.21.3\th1:x=\n\x00")
    kustomize._library_version.cache_clear()
    assert kustomize._library_version(str(library)) == "v5.8.3 (api v0.21.3)"

    read = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda path: read.append(path) or read_bytes(path))
    kustomize._library_version.cache_clear()
    assert kustomize._library_version(str(library)) == "v5.8.3 (api v0.21.3)"
    assert library not in read

    library.write_bytes(b"\x00a newer build\tsigs.k8s.io/kustomize/api\tv0.20.1\th1:y=\n")
    kustomize._library_version.cache_clear()
    assert kustomize._library_version(str(library)) == "v5.7.1 (api v0.20.1)"
    assert library in read
    kustomize._library_version.cache_clear()
