"""model.bounded and the cache's use of it: what is not a regular file under its bound is never
read, and an entry of that kind is removed so the next store heals it."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from trainops.model import bounded, cache


def test_a_regular_file_under_the_bound_is_read_whole(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 100)
    assert bounded.read_regular(tmp_path / "f", 100) == b"x" * 100


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda p: os.mkfifo(p), bounded.NotRegular),  # opened without blocking, then refused
        (lambda p: p.mkdir(), bounded.NotRegular),
        (lambda p: p.symlink_to("/dev/zero"), bounded.NotRegular),
        (lambda p: p.write_bytes(b"x" * 101), bounded.TooLarge),
    ],
    ids=["fifo", "folder", "device", "too large"],
)
def test_what_is_no_regular_file_under_the_bound_is_refused(tmp_path, make, error):
    make(tmp_path / "f")
    with pytest.raises(error):
        bounded.read_regular(tmp_path / "f", 100)


def test_a_link_is_refused_where_links_are_not_followed(tmp_path):
    (tmp_path / "target").write_bytes(b"x")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    assert bounded.read_regular(tmp_path / "link", 10) == b"x"
    with pytest.raises(OSError):
        bounded.read_regular(tmp_path / "link", 10, follow=False)


@pytest.mark.parametrize("kind", ["fifo", "link", "folder", "garbage"])
def test_an_unusable_entry_is_a_miss_said_in_the_notes_and_removed(tmp_path, monkeypatch, kind):
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path))
    cache.store("things", "k" * 64, b"payload")
    entry = cache.entry_path("things", "k" * 64)
    assert cache.load("things", "k" * 64) == b"payload"
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "link":
        (tmp_path / "elsewhere").write_bytes(hashlib.sha256(b"p").hexdigest().encode() + b"\np")
        entry.symlink_to(tmp_path / "elsewhere")
    elif kind == "folder":
        entry.mkdir()
    else:
        entry.write_bytes(b"not a hash\npayload")
    notes: list[str] = []
    assert cache.load("things", "k" * 64, notes) is None
    assert len(notes) == 1 and str(entry) in notes[0]
    if kind != "garbage":  # a torn entry is overwritten by the next store; the rest removed
        assert not entry.exists() and not entry.is_symlink()
    cache.store("things", "k" * 64, b"payload")
    assert cache.load("things", "k" * 64) == b"payload"


def test_unmarshal_refuses_what_marshal_did_not_write():
    assert cache.unmarshal(cache.marshal.dumps([1, "a"])) == [1, "a"]
    for garbage in (b"", b"\xfe", b"[\x02\x00\x00\x00i"):
        with pytest.raises(ValueError):  # marshal.loads raises EOFError, TypeError…: all one
            cache.unmarshal(garbage)


def test_unmarshal_refuses_a_list_too_large_to_make():
    # A list of 2**31 - 1 items declared and none there: under a memory limit (a container's)
    # making it fails at once (MemoryError). Without one, this machine would hand out the 16 GiB
    # and the test would spend seconds giving them back, which is no part of what it shows.
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (2**31, 2**31))\n"
        "from trainops.model import cache\n"
        "try:\n    cache.unmarshal(b'[\\xff\\xff\\xff\\x7f')\n"
        "except ValueError as error:\n    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "not an entry marshal wrote (MemoryError)\n"


def test_sweep_removes_the_folders_of_ended_processes_only(tmp_path):
    mine = cache.scratch(tmp_path, "trainops-x-")
    ended = tmp_path / "trainops-x-999999999-abc"  # no such pid
    other = tmp_path / "trainops-x-notapid"
    for folder in (ended, other):
        folder.mkdir()
    cache.sweep(tmp_path, "trainops-x-")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, other.name])
