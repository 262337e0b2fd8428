"""Hostile YAML costs bounded time and memory, and ends in one finding or one line, never a traceback."""

from __future__ import annotations

import os
import subprocess

import pytest

from helpers import run_trainops, run_trainops_unprivileged, write_tree

LEVELS = "abcdefghi"
BOMB = "".join(
    f"{name}: &{name} [{','.join([f'*{LEVELS[i - 1]}'] * 9 if i else ['lol'] * 9)}]\n"
    for i, name in enumerate(LEVELS)
)  # ~400 bytes that alias-expand to 9**9 strings


def _indented(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line + "\n" for line in text.splitlines())


def _limited(*args: str, seconds: float = 120, **kwargs) -> subprocess.CompletedProcess:
    """The CLI, stopped if it runs away: a hang or a blow-up fails the test instead of the machine."""
    kwargs.setdefault("cwd", kwargs.pop("cwd", None) or args[-1].rsplit("/", 1)[0])
    try:
        return run_trainops(*args, **kwargs, timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"trainops {' '.join(args)} ran past {seconds}s")


def test_an_alias_bomb_in_a_manifest_is_one_finding(tmp_path):
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n  labels:\n"
    write_tree(tmp_path, {"bomb.yaml": manifest + _indented(BOMB, 4)})
    done = _limited("validate", str(tmp_path / "bomb.yaml"))
    assert done.returncode == 1, done.stderr
    assert "malformed-object" in done.stdout and "excessive aliasing" in done.stdout
    assert "Traceback" not in done.stderr


def test_an_alias_bomb_in_a_kustomization_never_reaches_kustomize(tmp_path):
    write_tree(tmp_path, {"kustomization.yaml": "resources: []\nlabels:\n" + _indented(BOMB, 2)})
    done = _limited("validate", str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "render-failed" in done.stdout and "excessive aliasing" in done.stdout
    assert "goroutine" not in done.stdout and "out of memory" not in done.stdout


# An anchor whose own value holds its alias: libyaml builds a structure that contains itself, and
# a walk that did not notice went round forever (a `yes` sent the document to libyaml); yaml-rs
# reads the alias as null, and the object passed. Kubernetes' go-yaml refuses the document.
SELF_CONTAINING = "data: &loop {again: *loop, flag: yes}\n"


@pytest.mark.parametrize("document", [SELF_CONTAINING, "data: &loop {again: *loop}\n"])
def test_a_document_that_contains_itself_is_one_finding(tmp_path, document):
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: loop}\n" + document
    write_tree(tmp_path, {"loop.yaml": manifest})
    done = _limited("validate", str(tmp_path / "loop.yaml"), seconds=30)
    assert done.returncode == 1, done.stderr
    assert "malformed-object" in done.stdout
    assert "alias at data.again refers to a node that contains it" in done.stdout


def test_a_kustomization_or_config_that_contains_itself_is_refused(tmp_path):
    write_tree(tmp_path / "k", {"kustomization.yaml": "resources: []\n" + SELF_CONTAINING})
    done = _limited("validate", str(tmp_path / "k"), seconds=30)
    assert done.returncode == 1 and "refers to a node that contains it" in done.stdout
    write_tree(tmp_path / "c", {"trainops.yaml": SELF_CONTAINING})
    done = _limited("validate", cwd=tmp_path / "c", seconds=30)
    assert done.returncode == 2 and "refers to a node that contains it" in done.stderr


def test_ten_thousand_deep_nesting_is_one_finding(tmp_path):
    deep = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata: " + "[" * 10000
    write_tree(tmp_path, {"deep.yaml": deep + "]" * 10000 + "\n"})
    done = _limited("validate", str(tmp_path / "deep.yaml"))
    assert done.returncode == 1, done.stderr
    assert "nests more than 200 levels deep" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [("validate",), ("psa", "--level", "restricted")])
def test_a_fifo_named_yaml_is_refused_without_blocking(tmp_path, command):
    os.mkfifo(tmp_path / "pipe.yaml")
    done = _limited(*command, str(tmp_path / "pipe.yaml"), seconds=60)
    assert done.returncode in (1, 2), done.stderr
    assert "not a regular file" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_a_fifo_in_a_folder_is_refused_without_blocking(tmp_path):
    write_tree(tmp_path, {"ok.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"})
    os.mkfifo(tmp_path / "pipe.yaml")
    done = _limited("validate", str(tmp_path), seconds=60)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "1 object(s) checked" in done.stdout  # ok.yaml still read, the pipe skipped


def test_a_kustomization_that_is_not_utf8_is_one_finding(tmp_path):
    (tmp_path / "kustomization.yaml").write_bytes(b"resources:\n  - \xff\xfe.yaml\n")
    done = _limited("validate", str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "render-failed" in done.stdout and "is not UTF-8 text" in done.stdout
    assert "Traceback" not in done.stderr


def test_an_unreadable_kustomization_is_one_finding(tmp_path):
    write_tree(tmp_path, {"kustomization.yaml": "resources: []\n"})
    (tmp_path / "kustomization.yaml").chmod(0)
    done = run_trainops_unprivileged("validate", str(tmp_path), cwd=tmp_path)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    assert (
        "kustomization.yaml: error [render-failed]: cannot be read: Permission denied"
        in done.stdout
    )


def test_unreadable_folders_are_findings_not_skipped(tmp_path):
    """A folder that cannot be listed may hold anything: saying clean would be a guess."""
    write_tree(
        tmp_path,
        {
            "manifests/ok.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n",
            "manifests/locked/bad.yaml": "kind: [\n",
            "sealed/kustomization.yaml": "resources: []\n",
        },
    )
    (tmp_path / "manifests" / "locked").chmod(0)
    (tmp_path / "sealed").chmod(0)
    try:
        done = run_trainops_unprivileged("validate", "manifests", "sealed", cwd=tmp_path)
    finally:
        (tmp_path / "manifests" / "locked").chmod(0o755)
        (tmp_path / "sealed").chmod(0o755)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stdout + done.stderr
    assert "manifests/locked: error [yaml-syntax]: cannot be read: Permission denied" in done.stdout
    assert "sealed: error [yaml-syntax]: cannot be read: Permission denied" in done.stdout


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("42\n", "document is a number, not a mapping"),
        ("true\n", "document is a boolean, not a mapping"),
        ("1.5\n", "document is a number, not a mapping"),
        ("just words\n", "document is a string, not a mapping"),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n7\n",
            "document is a number, not a mapping",
        ),
    ],
    ids=["int", "bool", "float", "string", "second-document"],
)
def test_a_scalar_document_is_one_finding(tmp_path, text, expected):
    write_tree(tmp_path, {"doc.yaml": text})
    for command in (["validate"], ["psa", "--level", "restricted"]):
        done = _limited(*command, str(tmp_path / "doc.yaml"))
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode in (1, 2), done.stderr
        assert expected in done.stdout + done.stderr


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "is empty: kustomize refuses an empty kustomization"),
        ("# only a comment\n", "is empty: kustomize refuses an empty kustomization"),
        ("42\n", "is a number, not a mapping of kustomization fields"),
        ("hello\n", "is a string, not a mapping of kustomization fields"),
        ("- a.yaml\n", "is a list, not a mapping of kustomization fields"),
    ],
    ids=["empty", "comment", "number", "word", "list"],
)
def test_a_kustomization_that_is_not_a_mapping_is_one_finding(tmp_path, text, expected):
    write_tree(tmp_path, {"app/kustomization.yaml": text})
    validated = _limited("validate", str(tmp_path / "app"))
    assert "Traceback" not in validated.stderr, validated.stderr
    assert validated.returncode == 1, validated.stderr
    assert f"app/kustomization.yaml: error [render-failed]: {expected}" in validated.stdout
    for command in (["build", "app"], ["pins"], ["fix", "--check"]):
        done = _limited(*command, cwd=tmp_path)
        assert "Traceback" not in done.stderr, (command, done.stderr)
    built = _limited("build", "app", cwd=tmp_path)
    assert built.returncode == 2 and expected in built.stderr


def test_a_byte_order_mark_is_read_past_as_kubernetes_does(tmp_path):
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: marked\n"
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "marked.yaml").write_bytes(b"\xef\xbb\xbf" + manifest.encode())
    (tmp_path / "app" / "kustomization.yaml").write_bytes(b"\xef\xbb\xbfresources: [marked.yaml]\n")
    for path in ("app/marked.yaml", "app"):
        done = _limited("validate", "--format", "json", str(tmp_path / path))
        assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stdout + done.stderr


def test_a_dangling_or_looping_symbolic_link_is_named_as_one(tmp_path):
    (tmp_path / "loop.yaml").symlink_to("loop.yaml")
    (tmp_path / "gone.yaml").symlink_to("nowhere.yaml")
    for name in ("loop.yaml", "gone.yaml"):
        done = _limited("validate", str(tmp_path / name))
        assert done.returncode == 2 and done.stdout == "", done.stdout
        assert "a symbolic link to nothing readable (missing or a loop)" in done.stderr


# As found: a bomb in a *resource* reached kustomize unchecked; the in-process kustomize grew to
# 23 GB in 40 s. Every local file kustomize parses is bounded first (render/preflight.py).
@pytest.mark.parametrize(
    ("kustomization", "bad_file"),
    [
        ("resources:\n  - bomb.yaml\n", "bomb.yaml"),
        ("resources:\n  - ok.yaml\npatches:\n  - path: bomb.yaml\n", "bomb.yaml"),
        ("resources:\n  - ok.yaml\ncomponents:\n  - part\n", "part/bomb.yaml"),
    ],
)
def test_an_alias_bomb_in_a_file_kustomize_reads_never_reaches_it(
    tmp_path, kustomization, bad_file
):
    manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\ndata:\n  x: y\n"
    bomb = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\nlols:\n" + _indented(BOMB, 2)
    write_tree(
        tmp_path,
        {
            "app/kustomization.yaml": kustomization,
            "app/ok.yaml": manifest,
            f"app/{bad_file}": bomb,
            "app/part/kustomization.yaml": (
                "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"
                "patches:\n  - path: bomb.yaml\n"
            ),
        },
    )
    done = _limited("validate", str(tmp_path / "app"), seconds=60)
    assert done.returncode == 1, done.stderr
    assert f"{bad_file}:1: error [render-failed]" in done.stdout
    assert "excessive aliasing; kustomize is not given it" in done.stdout


def test_deep_nesting_in_a_resource_is_refused_at_its_line(tmp_path):
    deep = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  a: " + "[" * 50000
    write_tree(
        tmp_path,
        {"kustomization.yaml": "resources:\n  - deep.yaml\n", "deep.yaml": deep + "]" * 50000},
    )
    done = _limited("validate", str(tmp_path), seconds=60)
    assert done.returncode == 1, done.stderr
    assert "deep.yaml:6: error [render-failed]: the document nests more than 200" in done.stdout


# As found: 50,000 nested brackets crashed libyaml's recursive composer (exit 139, no message) in
# validate and psa; nesting is measured from the parser's events first, and never recursively.
@pytest.mark.parametrize("command", [("validate",), ("psa", "--level", "restricted")])
@pytest.mark.parametrize("opener", ["[", "{a: ", "- "])
def test_fifty_thousand_deep_nesting_is_a_finding_at_its_line(tmp_path, command, opener):
    closer = {"[": "]", "{a: ": "}", "- ": ""}[opener]
    value = opener * 50000 + "x" + closer * 50000
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  a:\n    " + value
    write_tree(tmp_path, {"deep.yaml": text + "\n"})
    done = _limited(*command, str(tmp_path / "deep.yaml"), seconds=60)
    assert done.returncode in (1, 2), done.stderr
    assert done.returncode != -11 and "Traceback" not in done.stderr
    assert "deep.yaml:7" in done.stdout + done.stderr
    assert "nests more than 200 levels deep" in done.stdout + done.stderr


def test_deep_nesting_in_a_kustomization_or_config_is_refused(tmp_path):
    deep = "[" * 50000 + "]" * 50000
    write_tree(tmp_path / "k", {"kustomization.yaml": f"resources: []\nlabels:\n  - {deep}\n"})
    done = _limited("validate", str(tmp_path / "k"), seconds=30)
    assert done.returncode == 1 and "kustomization.yaml:3" in done.stdout
    assert "nests more than 200 levels deep" in done.stdout
    write_tree(tmp_path / "c", {"trainops.yaml": f"roots: {deep}\n"})
    done = _limited("validate", cwd=tmp_path / "c", seconds=30)
    assert done.returncode == 2 and "trainops.yaml:1: the document nests more than" in done.stderr


@pytest.mark.parametrize(
    ("kustomization", "entry"),
    [
        ("resources:\n  - pipe.yaml\n", "pipe.yaml"),
        ("resources: []\npatches:\n  - path: pipe.yaml\n", "pipe.yaml"),
        ("configMapGenerator:\n  - name: c\n    files:\n      - key=pipe.yaml\n", "key=pipe.yaml"),
    ],
)
def test_a_fifo_kustomize_would_read_is_a_finding_not_a_hang(tmp_path, kustomization, entry):
    write_tree(tmp_path, {"kustomization.yaml": kustomization})
    os.mkfifo(tmp_path / "pipe.yaml")
    done = _limited("validate", str(tmp_path), seconds=60)
    assert done.returncode == 1, done.stderr
    assert f"{entry} is a FIFO: kustomize would wait on it forever" in done.stdout
    assert "kustomization.yaml:" in done.stdout


def test_bounds_allow_what_real_manifests_do():
    from trainops.model.yaml_bounds import bounds_problem, nesting_problem

    shallow = "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 150)) + "  " * 150 + "v\n"
    assert nesting_problem(shallow) is None
    assert nesting_problem("a: " + "[" * 199 + "]" * 199) is None  # 200 with the mapping
    assert nesting_problem("a: " + "[" * 200 + "]" * 200) == (
        0,
        "the document nests more than 200 levels deep",
    )
    assert bounds_problem("a: &x [1, 2]\nb: [*x, *x]\n") is None
    assert bounds_problem("a: &x 1\nb: *nowhere\n") is None  # not YAML: the parse says so


@pytest.mark.parametrize(
    "text",
    [
        "".join(" " * i + f"k{i}:\n" for i in range(250)) + " " * 250 + "v\n",  # indentation
        "- " * 250 + "x\n",  # block sequences opened on the first line
        "a:\n  " + "- " * 250 + "x\n",  # ... on a later line
    ],
    ids=["indented", "first-line", "later-line"],
)
def test_block_nesting_past_the_bound_is_found_without_brackets(text):
    # The quick bound reads only the leading characters of each line; deeper block nesting must
    # still reach the exact count from the parser's events.
    from trainops.model.yaml_bounds import nesting_problem

    found = nesting_problem(text)
    assert found is not None and found[1] == "the document nests more than 200 levels deep"


DUPLICATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  name: c\n"


@pytest.mark.parametrize(
    "extra",
    ["", "flag: yes\n", "labels: &l {a: b}\nannotations: *l\n"],
    ids=["yaml-rs", "yaml-1.1-scalar", "anchored"],
)
def test_a_duplicate_key_is_one_finding_at_its_line_in_a_plain_file(tmp_path, extra):
    # As found: read file by file, the last of the two keys won and the file was clean. Each
    # way a document is read (yaml-rs; libyaml for YAML 1.1 scalars or anchors) finds it.
    write_tree(tmp_path, {"cm.yaml": DUPLICATE + extra})
    done = _limited("validate", str(tmp_path / "cm.yaml"), seconds=30)
    assert done.returncode == 1, done.stdout
    assert (
        'cm.yaml:5: error [yaml-syntax]: YAML syntax error: mapping key "name" already defined at line 4'
        in done.stdout
    )


@pytest.mark.parametrize("anchor", ["", "  labels: &l {a: b}\n  annotations: *l\n"])
def test_a_duplicate_key_in_a_resource_is_named_at_its_file_and_line(tmp_path, anchor):
    # As found: kustomize's error named neither the file nor the line; it was filed at the root.
    text = DUPLICATE.replace("  name: b\n", "  name: b\n" + anchor) if anchor else DUPLICATE
    line = text.splitlines().index("  name: c") + 1
    write_tree(
        tmp_path,
        {
            "app/kustomization.yaml": "resources:\n  - base\n",
            "app/base/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "app/base/cm.yaml": text,
        },
    )
    done = _limited("validate", str(tmp_path / "app"), seconds=60)
    assert done.returncode == 1, done.stdout
    assert (
        f"base/cm.yaml:{line}: error [render-failed]: YAML syntax error: mapping key" in done.stdout
    )
    plain = _limited("validate", str(tmp_path / "app" / "base" / "cm.yaml"), seconds=30)
    assert f"cm.yaml:{line}: error" in plain.stdout and "already defined at line 4" in plain.stdout
