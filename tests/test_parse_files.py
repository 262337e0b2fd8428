"""Files parsed in units kept in the cache, by worker processes when cold (model/parse_files.py)."""

from __future__ import annotations

import hashlib
import marshal
import random
from pathlib import Path

import pytest

from helpers import run_trainops, write_tree
from trainops.model import objects, parse_files
from trainops.model.objects import PARSED_FOLDER, Unreadable
from trainops.model.yaml_bounds import _ANCHOR, anchored

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d{n}
  labels: {{app: d{n}, tier: "web"}}
spec:
  replicas: {n}
  selector: {{matchLabels: {{app: d{n}}}}}
  template:
    metadata: {{labels: {{app: d{n}}}}}
    spec:
      containers:
        - name: main
          image: registry.example.com/app:{n}
          args: ["--port=8080", "--flag"]
          env: [{{name: A, value: "1"}}, {{name: B, value: null}}]
"""


@pytest.fixture
def private_cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(folder))
    objects.forget_parsed()
    return folder


def _tree(folder: Path, count: int) -> list[Path]:
    """`count` small files (one a syntax error, one not an object, one with a YAML 1.1 scalar)
    and a large one."""
    files = {f"f{n:04d}.yaml": DEPLOYMENT.format(n=n) for n in range(count)}
    files["f0003.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c\n"
    files["f0004.yaml"] = "- just\n- a list\n"
    files["f0005.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\ndata: {a: yes}\n"
    files["large.yaml"] = "---\n".join(DEPLOYMENT.format(n=n) for n in range(200))
    write_tree(folder, files)
    return sorted(folder.glob("*.yaml"))


def _one_by_one(files: list[Path]) -> list[tuple]:
    """What parsing each file alone gives (no cache): objects, lines, problems."""
    return [_summary(objects._parse_stream(f.read_text(), str(f), True)) for f in files]


def _summary(parsed) -> tuple:
    return (
        [(o.doc, o.file, o.line, o.has_null) for o in parsed.objects],
        [(p.file, p.line, p.message) for p in parsed.syntax_errors],
        [(p.file, p.line, p.message) for p in parsed.malformed],
    )


def _entries(cache: Path) -> set[str]:
    return {p.name for p in (cache / PARSED_FOLDER).glob("*.entry")}


def test_small_files_are_kept_in_groups_and_read_back_as_parsed(private_cache, tmp_path):
    files = _tree(tmp_path / "m", 1200)
    expected = _one_by_one(files)
    first = parse_files.parse_files(files)
    assert [_summary(p) for p in first] == expected
    # ~480 KB of small files make two groups (256 KiB at most); the large file is its own.
    assert len(_entries(private_cache)) == 3
    sources = [o.source for p in first for o in p.objects]
    assert None not in sources and len(set(sources)) == len(sources)

    objects.forget_parsed()
    again = parse_files.parse_files(files)
    assert [_summary(p) for p in again] == expected
    assert [o.source for p in again for o in p.objects] == sources


def test_an_edit_parses_only_its_group_again(private_cache, tmp_path, monkeypatch):
    files = _tree(tmp_path / "m", 1200)
    parse_files.parse_files(files)
    before = _entries(private_cache)
    files[-2].write_text(DEPLOYMENT.format(n=9999))  # the last small file: the second group
    objects.forget_parsed()
    parsed_again: list[str] = []
    real = objects._parse_stream
    monkeypatch.setattr(
        objects, "_parse_stream", lambda text, *rest: parsed_again.append(text) or real(text, *rest)
    )
    result = parse_files.parse_files(files)
    assert result[-2].objects[0].doc["metadata"]["name"] == "d9999"
    assert 0 < len(parsed_again) < 1200 and DEPLOYMENT.format(n=9999) in parsed_again
    assert len(_entries(private_cache) - before) == 1


def test_worker_processes_parse_what_the_cache_lacks(private_cache, tmp_path, monkeypatch):
    files = _tree(tmp_path / "m", 1200)
    expected = _one_by_one(files)
    monkeypatch.setattr(parse_files, "WORKERS_FROM", 0)
    monkeypatch.setattr(parse_files, "_workers", lambda size: 2)
    in_this_process: list[str] = []
    real = objects._parse_stream
    monkeypatch.setattr(
        objects,
        "_parse_stream",
        lambda text, *rest: in_this_process.append(text) or real(text, *rest),
    )
    assert [_summary(p) for p in parse_files.parse_files(files)] == expected
    assert in_this_process == []  # every unit came back from a worker
    assert len(_entries(private_cache)) == 3  # and the workers kept them


def test_units_a_worker_cannot_give_back_are_parsed_here(private_cache, tmp_path, monkeypatch):
    files = _tree(tmp_path / "m", 1200)
    expected = _one_by_one(files)
    monkeypatch.setattr(parse_files, "WORKERS_FROM", 0)
    monkeypatch.setattr(parse_files, "_workers", lambda size: 2)
    # A worker that exits at once (as one killed or out of memory would).
    monkeypatch.setattr(parse_files, "WORKER", ["false"])
    assert [_summary(p) for p in parse_files.parse_files(files)] == expected
    monkeypatch.setattr(parse_files, "WORKER", ["/nonexistent/python"])  # one that cannot start
    objects.forget_parsed()
    for entry in (private_cache / PARSED_FOLDER).glob("*.entry"):
        entry.unlink()
    assert [_summary(p) for p in parse_files.parse_files(files)] == expected


def test_an_unreadable_file_is_said_in_its_place(private_cache, tmp_path):
    files = _tree(tmp_path / "m", 5)
    (tmp_path / "m" / "f0001.yaml").write_bytes(b"\xff\xfe not text")
    result = parse_files.parse_files(files)
    assert isinstance(result[1], Unreadable) and "not UTF-8" in str(result[1])
    assert not isinstance(result[0], Unreadable) and result[0].objects


def test_an_entry_marshal_cannot_read_is_parsed_again(private_cache, tmp_path):
    files = _tree(tmp_path / "m", 1200)
    expected = _one_by_one(files)
    parse_files.parse_files(files)
    for entry in (private_cache / PARSED_FOLDER).glob("*.entry"):
        for payload in (b"\x00garbage", marshal.dumps([1, 2]), marshal.dumps("text")):
            entry.write_bytes(hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
            objects.forget_parsed()
            assert [_summary(p) for p in parse_files.parse_files(files)] == expected


def test_the_quick_anchor_scan_agrees_with_its_pattern():
    rng = random.Random(7)
    alphabet = " \t\r\n[]{},&ab-:*"
    for _ in range(50_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        assert anchored(text) == (_ANCHOR.search(text) is not None), repr(text)


def test_a_folder_parsed_by_workers_validates_as_one_read_back(tmp_path):
    # Over WORKERS_FROM of small files: the cold run parses them in workers (given two cores),
    # the warm one reads its groups back; both report the same findings.
    padding = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{n}}}\ndata: {{text: %s}}\n"
    padding %= "x" * 1000
    write_tree(
        tmp_path / "m",
        {
            # Every hundredth with a finding: a negative replica count.
            f"f{n:04d}.yaml": (DEPLOYMENT + padding).format(n=n if n % 100 else -n)
            for n in range(1600)
        },
    )
    assert sum(p.stat().st_size for p in (tmp_path / "m").iterdir()) > parse_files.WORKERS_FROM
    env = {"TRAINOPS_CACHE_DIR": str(tmp_path / "cache")}
    outputs = []
    for _ in ("cold", "warm"):
        done = run_trainops("validate", str(tmp_path / "m"), env=env)
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
        outputs.append(done.stdout.rsplit("\n", 3)[0])  # without the summary (its timings)
    assert outputs[0] == outputs[1]
    assert "f1500.yaml" in outputs[0] and "f1501.yaml" not in outputs[0]
