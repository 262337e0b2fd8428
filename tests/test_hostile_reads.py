"""Reads that cannot run on: every file trainops reads is a regular file of bounded size, and a
stream is held to the YAML bounds before any parser sees it. Each case as found ran out of memory,
hung or aborted; each now ends in a finding or a one-line error, under a 1 GiB address-space limit
and a timeout (never a timed assertion of speed)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

import helpers
from helpers import RULE_FIXTURES, run_trainops, write_tree
from trainops.model.objects import MAX_FILE_BYTES
from trainops.model.yaml_bounds import MAX_DOCUMENT_BYTES, MAX_DOCUMENTS

GiB = 2**30
TIMEOUT = 300  # far past any of these runs; a hang fails the test instead of the suite


def run_bounded(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """trainops in a process of its own limited to 1 GiB of address space."""
    done = run_trainops(
        *args,
        cwd=cwd,
        timeout=TIMEOUT,
        limit=GiB,
        env={"TRAINOPS_CACHE_DIR": str(cwd / ".cache")},
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert "MemoryError" not in done.stderr, done.stderr
    return done


def test_a_bounded_run_is_under_its_bound(tmp_path):
    # Each test here means something only if its run is bounded: a run under a bound is forked
    # from a zygote started under it (helpers.run_trainops), and a fork keeps the bound.
    done = run_bounded("version", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    zygote = helpers._zygote(GiB)
    assert zygote is not None
    limits = Path(f"/proc/{zygote.process.pid}/limits").read_text()
    assert re.search(rf"^Max address space\s+{GiB}\s+{GiB}\s+bytes", limits, re.M), limits


def _script_fixture(tmp_path: Path) -> Path:
    top = tmp_path / "repo"
    fixture = RULE_FIXTURES / "shared-volume-writers"
    for path in fixture.rglob("*"):
        if path.is_file():
            target = top / path.relative_to(fixture)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    return top


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "too large", "not UTF-8"])
def test_a_training_script_that_is_no_readable_file_is_a_finding(tmp_path, kind):
    # As found: /dev/zero grew the run to a MemoryError at 2.4 GB; a FIFO hung it.
    top = _script_fixture(tmp_path)
    script = top / "scripts" / "pid_named.py"
    script.unlink()
    if kind == "/dev/zero":
        script.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(script)
    elif kind == "too large":
        script.write_bytes(b"#" * (5 * 2**20))
    else:
        script.write_bytes(b"print('\xff')\n")
    done = run_bounded("validate", "--select", "shared-volume-writers", "--format", "json", cwd=top)
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)
    assert finding["file"].endswith("scripts/pid_named.py")
    assert "cannot be read (" in finding["message"]
    assert "names it writes to the shared claim are not checked" in finding["message"]
    assert "regular UTF-8 file" in finding["hint"]


@pytest.mark.parametrize(
    ("field", "pattern", "line", "why"),
    [
        ("roots", "../../..", 3, "it names a folder"),
        ("crdRoots", "operators/../../x", 3, "it names a folder"),
        ("roots", "up", 3, "up leads"),
    ],
)
def test_roots_outside_the_repository_are_refused_with_the_line(
    tmp_path, field, pattern, line, why
):
    # As found: `roots: [../../..]` walked the whole filesystem.
    top = tmp_path / "repo"
    write_tree(top, {"trainops.yaml": f"kubernetesVersions: [v1.32]\n{field}:\n  - {pattern}\n"})
    (top / "up").symlink_to("/")
    done = run_bounded("validate", cwd=top)
    assert done.returncode == 2
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"trainops: error: trainops.yaml:{line}: ")
    assert f"pattern {pattern!r}: {why}" in done.stderr
    assert "outside the folder of trainops.yaml; name folders inside the repository" in done.stderr


def test_the_line_of_a_refused_pattern_is_the_lists_not_a_comments(tmp_path):
    top = tmp_path / "repo"
    text = (
        "# roots once named ../shared too\n"
        "kubernetesVersions: [v1.32]\n"
        "crdRoots: [crds]\n"
        "roots:\n"
        "  - env\n"
        "  - ../shared\n"
    )
    write_tree(top, {"trainops.yaml": text, "env/a.yaml": "", "crds/a.yaml": ""})
    (tmp_path / "shared").mkdir()
    done = run_bounded("validate", cwd=top)
    assert done.returncode == 2
    assert done.stderr.startswith("trainops: error: trainops.yaml:6: root pattern '../shared'")


def _plain_root(tmp_path: Path, text: str) -> Path:
    top = tmp_path / "repo"
    write_tree(top, {"trainops.yaml": "kubernetesVersions: [v1.32]\nroots: [env/*.yaml]\n"})
    (top / "env").mkdir()
    (top / "env" / "objects.yaml").write_text(text)
    return top


CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\n"


def test_a_scalar_over_the_bound_is_refused_before_any_parser(tmp_path):
    # As found: 500 MiB in one scalar aborted yaml-rs (exit 134, no report) under 4 GB.
    scalar = "x" * (MAX_DOCUMENT_BYTES + 1)
    text = CONFIG_MAP % "big" + f"data:\n  a: {scalar}\n---\n" + CONFIG_MAP % "small"
    top = _plain_root(tmp_path, text)
    done = run_bounded("validate", "--format", "json", cwd=top)
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)
    assert (finding["rule"], finding["line"]) == ("malformed-object", 1)
    assert finding["message"].startswith("the document is 16 MiB, over the 16 MiB bound: not read")


def test_a_million_documents_are_read_up_to_the_bound_and_the_rest_said(tmp_path):
    # As found: a million tiny documents took 88 s and 1.2 GB for JSON, more for text.
    top = _plain_root(tmp_path, "".join("---\n" + CONFIG_MAP % f"c{i}" for i in range(1_000_000)))
    done = run_bounded("validate", "--format", "text", cwd=top)
    assert done.returncode == 1, done.stderr
    done = run_bounded("validate", "--format", "json", cwd=top)
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)
    assert finding["line"] == 4 * MAX_DOCUMENTS + 1
    assert finding["message"].startswith(f"the stream holds more than {MAX_DOCUMENTS} documents")


def test_a_file_over_the_bound_is_not_given_to_kustomize(tmp_path):
    top = tmp_path / "repo"
    write_tree(
        top,
        {
            "trainops.yaml": "kubernetesVersions: [v1.32]\nroots: [app]\n",
            "app/kustomization.yaml": "configMapGenerator:\n  - name: data\n    files: [big.bin]\n",
        },
    )
    with open(top / "app" / "big.bin", "wb") as big:
        big.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk spent
    done = run_bounded("validate", "--format", "json", cwd=top)
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)
    assert finding["file"] == "app/kustomization.yaml" and finding["line"] == 3
    assert "big.bin is larger than 64 MiB: kustomize is not given it" in finding["message"]
