"""`trainops fix` loses nothing: line endings, mode, owner, files outside, read-only, concurrent edits."""

from __future__ import annotations

import os
import stat

import pytest

from helpers import run_trainops, write_tree
from rules.test_crd_header import NOTE, QUEUE, tree
from trainops.commands import fix
from trainops.model.errors import CannotRun


def _queues(tmp_path):
    return tmp_path / "manifests" / "queues.yaml"


def test_a_crlf_file_stays_crlf(mirror, tmp_path):
    # As found: the whole file came back with LF line endings.
    tree(tmp_path, "")
    _queues(tmp_path).write_bytes(QUEUE.replace("\n", "\r\n").encode())
    done = run_trainops("fix", "manifests", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = _queues(tmp_path).read_bytes()
    assert written.count(b"\n") == written.count(b"\r\n") > QUEUE.count("\n")
    assert written.endswith(QUEUE.replace("\n", "\r\n").encode())
    assert run_trainops("fix", "--check", "manifests", cwd=tmp_path).returncode == 0


def test_a_byte_order_mark_stays_first_and_the_note_after_it_is_read(mirror, tmp_path):
    """A file opening with a BOM parses (go-yaml reads past it); the note goes after the mark,
    not before it where it would push the mark into the YAML, and is then found there."""
    tree(tmp_path, "")
    _queues(tmp_path).write_bytes(b"\xef\xbb\xbf" + QUEUE.encode())
    done = run_trainops("fix", "manifests", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert _queues(tmp_path).read_bytes() == b"\xef\xbb\xbf" + (NOTE + QUEUE).encode()
    assert run_trainops("fix", "--check", "manifests", cwd=tmp_path).returncode == 0
    checked = run_trainops("validate", "--select", "crd-header", "manifests", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout


def test_mode_and_owner_are_kept(mirror, tmp_path):
    # As found: a 0600 file became 0644.
    tree(tmp_path, QUEUE)
    _queues(tmp_path).chmod(0o600)
    if os.geteuid() == 0:
        os.chown(_queues(tmp_path), 4321, 4321)
    before = _queues(tmp_path).stat()
    assert run_trainops("fix", "manifests", cwd=tmp_path).returncode == 0
    after = _queues(tmp_path).stat()
    assert _queues(tmp_path).read_text().startswith(NOTE.split("#   ")[0])
    assert stat.S_IMODE(after.st_mode) == 0o600
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)


def test_a_read_only_file_is_refused_with_one_line(mirror, tmp_path):
    # As found: it was overwritten (os.replace ignores the file's own mode).
    tree(tmp_path, QUEUE)
    _queues(tmp_path).chmod(0o444)
    done = run_trainops("fix", "manifests", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "queues.yaml: read-only" in done.stderr
    assert _queues(tmp_path).read_text() == QUEUE


def test_a_file_outside_the_repository_reached_through_a_base_is_refused(mirror, tmp_path):
    # As found: a kustomization including the base ../../outside had its file rewritten.
    outside = tmp_path / "outside"
    write_tree(outside, {"queues.yaml": QUEUE, "kustomization.yaml": "resources: [queues.yaml]\n"})
    repo = tmp_path / "repo"
    tree(repo, QUEUE)
    write_tree(repo, {"app/kustomization.yaml": "resources:\n  - ../../outside\n"})
    (repo / "trainops.yaml").write_text(
        "kubernetesVersions: [v1.32]\ncrdRoots: [operators/*]\nroots: [app]\n"
    )
    done = run_trainops("fix", cwd=repo)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "outside the repository" in done.stderr
    assert (outside / "queues.yaml").read_text() == QUEUE
    # --check says what fix would do: refuse, not rewrite (the note is still wrong: exit 1).
    checked = run_trainops("fix", "--check", cwd=repo)
    assert checked.returncode == 1, checked.stderr
    assert "— `trainops fix` would refuse it: outside the repository" in checked.stdout
    assert "would rewrite" not in checked.stdout
    shown = run_trainops("fix", "--diff", cwd=repo)
    assert shown.returncode == 1 and "+++ b/" in shown.stdout
    assert "note: " in shown.stderr and "outside the repository" in shown.stderr
    assert (outside / "queues.yaml").read_text() == QUEUE


def test_a_file_changed_while_fix_ran_is_not_overwritten(tmp_path):
    # As found: the edit made between reading and writing was lost.
    file = tmp_path / "queues.yaml"
    file.write_text(QUEUE)
    original = fix.Original.read(str(file))
    file.write_text(QUEUE + "# an edit made meanwhile\n")
    with pytest.raises(CannotRun, match="changed while `trainops fix` ran"):
        fix._write(original, NOTE + QUEUE)
    assert file.read_text().endswith("# an edit made meanwhile\n")
    assert [p.name for p in tmp_path.iterdir()] == ["queues.yaml"]


def test_fix_check_escapes_control_characters_in_file_names(mirror, tmp_path):
    # As found: `fix --check` wrote a file's name to the terminal raw.
    tree(tmp_path, "")
    (tmp_path / "manifests" / "q\x1b[2J.yaml").write_text(QUEUE)
    done = run_trainops("fix", "--check", "manifests", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "q\\x1b[2J.yaml" in done.stdout and "\x1b" not in done.stdout + done.stderr


def test_fix_check_diff_escapes_control_characters_in_file_names(mirror, tmp_path):
    # As found: the diff's ---/+++ lines named the file raw.
    tree(tmp_path, "")
    (tmp_path / "manifests" / "q\x1b[2J.yaml").write_text(QUEUE)
    done = run_trainops("fix", "--check", "--diff", "manifests", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "+++ b/manifests/q\\x1b[2J.yaml" in done.stdout
    assert "\x1b" not in done.stdout + done.stderr
