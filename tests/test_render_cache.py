"""The render cache: a root renders once until something it reads changes; entries that fail
verification are rendered again, never trusted; the cache stays within its bound. Remote bases
are read from their checkout, and origins still name the remote."""

from __future__ import annotations

import hashlib
import io
import json
import marshal
import shutil
import time
from pathlib import Path

import pytest

from helpers import REPO, WIDGET_CRD, load_docs, run_trainops, write_tree
from trainops.check.validate import Progress
from trainops.model import cache, objects
from trainops.model.errors import CannotRun
from trainops.model.objects import parse_stream
from trainops.render import mirror as mirror_module
from trainops.render import remote_bases, render_cache
from trainops.render.kustomize import find_kustomize
from trainops.render.renderer import Renderer

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata: {{a: '{value}'}}\n"


@pytest.fixture
def private_cache(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def two_roots(tmp_path) -> Path:
    """Two roots sharing a base; only `b` includes the file `b/extra.yaml`."""
    return write_tree(
        tmp_path / "tree",
        {
            "base/kustomization.yaml": "resources: [cm.yaml]\n",
            "base/cm.yaml": CM.format(name="shared", value="1"),
            "a/kustomization.yaml": "resources: [../base]\n",
            "b/kustomization.yaml": "resources: [../base, extra.yaml]\n",
            "b/extra.yaml": CM.format(name="extra", value="1"),
        },
    )


def _entries(folder: Path) -> list[Path]:
    return sorted((folder / render_cache.FOLDER).glob("*.entry"))


def test_a_root_renders_once_until_a_file_it_reads_changes(renderer, private_cache, two_roots):
    first = {name: renderer.render(two_roots / name) for name in "ab"}
    assert not any(output.cached for output in first.values())
    again = {name: renderer.render(two_roots / name) for name in "ab"}
    assert all(output.cached for output in again.values())
    assert {n: o.text for n, o in again.items()} == {n: o.text for n, o in first.items()}

    # Only the root that reads the edited file renders again, and sees the edit.
    (two_roots / "b" / "extra.yaml").write_text(CM.format(name="extra", value="2"))
    assert renderer.render(two_roots / "a").cached
    edited = renderer.render(two_roots / "b")
    assert not edited.cached
    assert {"a": "2"} in [doc.get("data") for doc in load_docs(edited.text)]

    # A file of the shared base: both render again.
    (two_roots / "base" / "cm.yaml").write_text(CM.format(name="shared", value="3"))
    assert not renderer.render(two_roots / "a").cached
    assert not renderer.render(two_roots / "b").cached


def test_a_copy_of_the_tree_elsewhere_reuses_the_render_with_origins_in_the_copy(
    renderer, private_cache, two_roots, tmp_path
):
    """`trainops diff` renders the base revision in a temporary worktree, CI in a fresh clone:
    the same files at another place are the same render, and origins name the copy's files."""
    original = renderer.render(two_roots / "b")
    copy = tmp_path / "elsewhere" / "deeper"
    shutil.copytree(two_roots, copy)
    moved = renderer.render(copy / "b")
    assert moved.cached and moved.text == original.text
    files = {moved.origins(origin) for origin in _origins(moved.text)}
    assert files == {
        (str(copy / "base" / "cm.yaml"), str(copy / "base" / "cm.yaml")),
        (str(copy / "b" / "extra.yaml"), str(copy / "b" / "extra.yaml")),
    }

    # Another root reading the same files the same way is the same render too, with origins
    # in its own folder; where the files sit relative to the root is part of the key.
    shutil.copytree(copy / "b", copy / "c")
    sibling = renderer.render(copy / "c")
    assert sibling.cached and sibling.text == original.text
    assert {sibling.origins(origin)[1] for origin in _origins(sibling.text)} == {
        str(copy / "base" / "cm.yaml"),
        str(copy / "c" / "extra.yaml"),
    }
    shutil.copytree(copy / "b", copy / "c" / "deeper")
    (copy / "c" / "deeper" / "kustomization.yaml").write_text(
        "resources: [../../base, extra.yaml]\n"
    )
    assert not renderer.render(copy / "c" / "deeper").cached


def test_a_tampered_or_foreign_entry_is_rendered_again(
    renderer, private_cache, two_roots, monkeypatch
):
    rendered = renderer.render(two_roots / "a").text
    [entry] = _entries(private_cache)
    digest, _, payload = entry.read_bytes().partition(b"\n")
    # Rendered again as the first time, with kustomize's origin annotations (not the origins
    # that build kept: tests/test_kept_origins.py): the same text.
    monkeypatch.setattr(render_cache, "load_kept", lambda key: None)

    entry.write_bytes(digest + b"\n" + payload.replace(b"shared", b"forged"))
    output = renderer.render(two_roots / "a")
    assert not output.cached and output.text == rendered

    foreign = json.dumps({"text": 1}).encode()
    entry.write_bytes(hashlib.sha256(foreign).hexdigest().encode() + b"\n" + foreign)
    output = renderer.render(two_roots / "a")
    assert not output.cached and output.text == rendered

    entry.write_bytes(b"torn")
    assert not renderer.render(two_roots / "a").cached
    assert renderer.render(two_roots / "a").cached


def test_the_cache_stays_within_its_bound(private_cache, monkeypatch):
    monkeypatch.setenv("TRAINOPS_CACHE_MAX_MB", "1")
    for number in range(5):
        cache.store("bounded", f"key-{number}", b"x" * 400_000)
    kept = list((private_cache / "bounded").glob("*.entry"))
    assert sum(p.stat().st_size for p in kept) <= 2**20
    assert cache.load("bounded", "key-4") == b"x" * 400_000  # the newest stays
    assert cache.load("bounded", "key-0") is None  # the oldest went


def _a_new_run() -> None:
    cache.record_ledgers()  # as the process ends
    cache._folder_bytes.clear()


def test_a_folder_is_listed_only_when_its_count_is_missing_old_or_over_the_bound(
    private_cache, monkeypatch
):
    # Listing a folder of small entries near its bound took a second a run: the count is kept.
    monkeypatch.setenv("TRAINOPS_CACHE_MAX_MB", "1")
    listed: list[int] = []
    real = cache._evict
    monkeypatch.setattr(cache, "_evict", lambda d, limit: listed.append(1) or real(d, limit))
    cache.store("counted", "a", b"x" * 1000)
    assert len(listed) == 1  # no count yet
    _a_new_run()
    cache.store("counted", "b", b"x" * 1000)
    assert len(listed) == 1  # the ledger's count, and what was written since
    _a_new_run()
    ledger = cache._ledger(private_cache / "counted")
    total = sum(p.stat().st_size for p in (private_cache / "counted").glob("*.entry"))
    assert int(ledger.read_text().split()[0]) == total
    ledger.write_text(f"{total} {time.time() - 2 * cache._RECOUNT_SECONDS}\n")
    cache.store("counted", "c", b"x" * 1000)
    assert len(listed) == 2  # an old count is made again
    cache.store("counted", "d", b"x" * 2**20)
    assert len(listed) == 3  # over the bound: listed, and the oldest evicted
    assert cache.load("counted", "a") is None


def test_a_run_leaves_each_folder_it_wrote_to_counted(tmp_path, two_roots):
    # The CLI ends without exit handlers (cli.run): what it wrote is recorded before it ends.
    cached = tmp_path / "cache"
    done = run_trainops(
        "validate",
        str(two_roots / "a"),
        str(two_roots / "b"),
        env={"TRAINOPS_CACHE_DIR": str(cached)},
    )
    assert done.returncode == 0, done.stderr
    folders = [f for f in cached.iterdir() if f.is_dir() and list(f.glob("*.entry"))]
    assert folders
    for folder in folders:
        total = sum(p.stat().st_size for p in folder.glob("*.entry"))
        assert int(cache._ledger(folder).read_text().split()[0]) == total, folder.name


def test_units_shared_by_renders_are_given_back_before_plain_files_are_read(
    renderer, private_cache, two_roots, monkeypatch
):
    # A CRD root read for its schemas alone leaves its documents to be freed: the units kept
    # for renders to share are dropped once the renders are over.
    from trainops.check.validate import Root, load_roots

    big = "".join(CM.format(name=f"c{n}", value=n) + "---\n" for n in range(600))
    (two_roots / "base" / "cm.yaml").write_text(big)  # its render is kept as a unit
    (two_roots / "plain.yaml").write_text(CM.format(name="plain", value="1"))
    during: list[int] = []
    real = objects.forget_units
    monkeypatch.setattr(
        objects, "forget_units", lambda: during.append(len(objects._units)) or real()
    )
    load_roots([Root(two_roots / "a"), Root(two_roots / "plain.yaml")], renderer, jobs=2)
    assert during and during[0] > 0
    assert objects._units == {}


def test_a_ledger_that_cannot_be_read_is_counted_again(private_cache):
    cache.store("counted", "a", b"x" * 1000)
    _a_new_run()
    ledger = cache._ledger(private_cache / "counted")
    ledger.write_text("not a count\n")
    cache.store("counted", "b", b"x" * 1000)
    _a_new_run()
    total = sum(p.stat().st_size for p in (private_cache / "counted").glob("*.entry"))
    assert int(ledger.read_text().split()[0]) == total


def test_the_package_digest_is_kept_by_its_files_identities_and_follows_an_edit(
    private_cache, tmp_path, monkeypatch
):
    package = write_tree(tmp_path / "pkg", {"model/cache.py": "a = 1\n", "rules/x.py": "b = 2\n"})
    monkeypatch.setattr(cache, "__file__", str(package / "model" / "cache.py"))

    def digest() -> str:
        cache.package_digest.cache_clear()  # a new run
        return cache.package_digest()

    first = digest()
    read = Path.read_bytes

    def source_unread(path: Path) -> bytes:
        if package in path.parents:
            pytest.fail(f"{path} read again")
        return read(path)

    monkeypatch.setattr(Path, "read_bytes", source_unread)
    assert digest() == first  # the same identities: kept, nothing read
    monkeypatch.undo()
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(private_cache))
    monkeypatch.setattr(cache, "__file__", str(package / "model" / "cache.py"))
    (package / "rules" / "x.py").write_text("b = 3\n")
    edited = digest()
    assert edited != first
    shutil.rmtree(private_cache)
    assert digest() == edited  # what reading every file gives
    cache.package_digest.cache_clear()


def test_a_remote_base_is_read_from_its_checkout_and_its_origin_names_the_remote(
    mirror, private_cache
):
    renderer = Renderer(find_kustomize(), mirror)
    output = renderer.render(REPO / "operators" / "jobset")
    held = remote_bases.held_as(mirror, "kubernetes-sigs/jobset")
    checkouts = list((private_cache / "remotes" / held).iterdir())
    assert len(checkouts) == 1 and len(checkouts[0].name) == 40  # one commit, checked out once
    origins = {
        output.origins(json_origin)[0]
        for json_origin in _origins(output.text)
        if json_origin.get("path", "").endswith(".yaml")
    }
    assert any(
        origin.startswith("https://github.com/kubernetes-sigs/jobset.git//config/")
        and origin.endswith("?ref=v0.12.0")
        for origin in origins
    ), origins
    assert not any(str(private_cache) in origin for origin in origins)


def _origins(text: str) -> list[dict]:
    import yaml

    found = []
    for doc in load_docs(text):
        raw = (doc.get("metadata", {}).get("annotations") or {}).get("config.kubernetes.io/origin")
        if raw:
            found.append(yaml.safe_load(raw))
    return found


@pytest.mark.parametrize(
    "entry, expected",
    [
        (
            "https://github.com/kubernetes-sigs/kueue.git//config/default?ref=v0.18.6",
            (
                "https://github.com/kubernetes-sigs/kueue.git",
                "kubernetes-sigs/kueue",
                "config/default",
                "v0.18.6",
            ),
        ),
        (
            "github.com/ray-project/kuberay//ray-operator/config/default?ref=v1.2.2",
            (
                "github.com/ray-project/kuberay",
                "ray-project/kuberay",
                "ray-operator/config/default",
                "v1.2.2",
            ),
        ),
    ],
)
def test_remote_bases_pinned_on_github_are_recognised(entry, expected):
    base = remote_bases.parse(entry)
    assert base is not None
    assert (base.repo_url, base.owner_repo, base.path, base.ref) == expected


@pytest.mark.parametrize(
    "entry",
    [
        "https://github.com/kubernetes-sigs/kueue.git//config/default",  # unpinned
        "https://github.com/kubernetes-sigs/kueue.git//config?ref=v1&timeout=90s",  # options
        "https://gitlab.com/group/repo.git//config?ref=v1",  # another host
        "../local/folder",
    ],
)
def test_other_entries_are_left_to_kustomize(entry):
    assert remote_bases.parse(entry) is None


def test_a_tampered_parse_entry_is_parsed_again(private_cache):
    text = "".join(CM.format(name=f"c{n}", value=n) + "---\n" for n in range(1000))
    first = parse_stream(text, "big.yaml")
    [entry] = list((private_cache / objects.PARSED_FOLDER).glob("*.entry"))
    forged = marshal.dumps(([({"kind": 1}, 1, False)], [], []))  # hashed, but not an object
    entry.write_bytes(hashlib.sha256(forged).hexdigest().encode() + b"\n" + forged)
    again = parse_stream(text, "big.yaml")
    assert [o.doc for o in again.objects] == [o.doc for o in first.objects]
    assert [o.line for o in again.objects] == [o.line for o in first.objects]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_after_a_second_and_is_cleared():
    stream = _Terminal()
    progress = Progress(3, stream)
    progress.started -= 2
    progress.loaded(True)
    progress.loaded(False)
    progress.finish()
    assert "rendered 2/3 root(s), 1 from the cache" in stream.getvalue()
    assert stream.getvalue().endswith("\r\033[K")


def test_no_progress_when_stderr_is_not_a_terminal():
    stream = io.StringIO()
    progress = Progress(1, stream)
    progress.started -= 2
    progress.loaded(True)
    progress.finish()
    assert stream.getvalue() == ""


def test_the_summary_says_how_many_renders_came_from_the_cache(tmp_path, two_roots):
    env = {"TRAINOPS_CACHE_DIR": str(tmp_path / "cache")}
    roots = [str(two_roots / "a"), str(two_roots / "b")]
    first = run_trainops("validate", *roots, env=env, cwd=tmp_path)
    assert "0 of 2 render(s) from the cache" in first.stdout, first.stdout + first.stderr
    second = run_trainops("validate", *roots, env=env, cwd=tmp_path)
    assert "2 of 2 render(s) from the cache" in second.stdout


def test_a_changed_checkout_of_a_remote_base_is_checked_out_again(mirror, private_cache):
    commit = remote_bases.commit_of(mirror, "kubernetes-sigs/jobset", "v0.12.0")
    assert commit is not None
    checkout = remote_bases.tree(mirror, "kubernetes-sigs/jobset", commit)
    kustomization = checkout / "config" / "default" / "kustomization.yaml"
    original = kustomization.read_text()
    kustomization.write_text(original + "namePrefix: forged-\n")
    (checkout / "config" / "planted.yaml").write_text("kind: Forged\n")
    remote_bases._verified.clear()  # a new run verifies again
    assert remote_bases.tree(mirror, "kubernetes-sigs/jobset", commit) == checkout
    assert kustomization.read_text() == original
    assert not (checkout / "config" / "planted.yaml").exists()


def test_a_checkout_its_stubbed_copy_links_is_verified_without_checking_it_out_again(
    mirror, private_cache, monkeypatch
):
    # The stubbed copy links the checkout's files, which changes their status (not their
    # content): the next verification compares them by content and keeps them.
    from trainops.render import crd_stubs

    commit = remote_bases.commit_of(mirror, "kubernetes-sigs/jobset", "v0.12.0")
    assert commit is not None
    checkout = remote_bases.tree(mirror, "kubernetes-sigs/jobset", commit)
    kustomization = checkout / "config" / "default" / "kustomization.yaml"
    inode = kustomization.stat().st_ino
    assert crd_stubs.stub_tree(checkout, "kubernetes-sigs/jobset", commit) is not None
    assert kustomization.stat().st_nlink == 2
    checkouts: list[list[str]] = []
    real = remote_bases._git
    monkeypatch.setattr(
        remote_bases,
        "_git",
        lambda argv, **kw: (
            (checkouts.append(argv) if "read-tree" in argv else None) or real(argv, **kw)
        ),
    )
    for _ in range(2):
        remote_bases._verified.clear()  # a new run verifies again
        assert remote_bases.tree(mirror, "kubernetes-sigs/jobset", commit) == checkout
    assert checkouts == [] and kustomization.stat().st_ino == inode


def test_a_checkout_is_verified_only_where_kustomize_reads_it(mirror, private_cache, monkeypatch):
    # Reading only a root's values, kustomize reads a remote base's stubbed copy once it is made:
    # its checkout is then not verified (two git processes a run); a full build reads the
    # checkout itself, which is verified first.
    from trainops.render import raw_files
    from trainops.render.renderer import Renderer

    verified: list[str] = []
    real = remote_bases._unchanged
    monkeypatch.setattr(
        remote_bases, "_unchanged", lambda r, t: verified.append(t.name) or real(r, t)
    )
    renderer = Renderer(find_kustomize(), mirror)
    commit = remote_bases.commit_of(mirror, "kubernetes-sigs/jobset", "v0.12.0")
    root = REPO / "operators" / "jobset"
    composition = renderer._composition(None, values_only=True)
    with raw_files.offline_tree(root, mirror, composition):  # checks out and stubs the commit
        pass
    remote_bases._verified.clear()  # a new run
    verified.clear()
    with raw_files.offline_tree(root, mirror, renderer._composition(None, values_only=True)):
        pass
    assert verified == []
    with raw_files.offline_tree(root, mirror, renderer._composition(None, values_only=False)):
        pass
    with raw_files.offline_tree(root, mirror, None):
        pass
    assert verified == [commit]  # verified once a run, before the first read of it


_PINNED = "https://github.com/kubernetes-sigs/jobset.git//config/default?ref=v0.12.0"
_UNPINNED = "https://github.com/kubernetes-sigs/jobset.git//config/default"


@pytest.mark.parametrize(
    ("resources", "components", "fetches"),
    [
        ([_PINNED], [], False),  # read from its checkout
        ([_PINNED, _UNPINNED], [], True),  # one left as written, beside a copied tree
        ([_UNPINNED], [], True),  # nothing copied
        ([_PINNED], [_UNPINNED], True),  # left in another field
        (["local"], [], False),
    ],
)
def test_the_tree_kustomize_reads_says_whether_it_still_fetches(
    mirror, private_cache, tmp_path, resources, components, fetches
):
    # Whether the in-process library may render it (it fetches nothing: kustomize.py); said
    # from the files the copy was made of, not by reading the copy again.
    from trainops.render import raw_files

    write_tree(
        tmp_path,
        {
            "root/kustomization.yaml": json.dumps(
                {"resources": resources, "components": components}
            ),
            "root/local/kustomization.yaml": "resources: []\n",
        },
    )
    with raw_files.offline_tree(tmp_path / "root", mirror) as (_, paths):
        assert paths.fetches is fetches


def test_a_ref_resolved_once_is_kept_until_what_git_reads_for_it_changes(
    mirror, private_cache, monkeypatch
):
    asked: list[str] = []
    real = remote_bases._git
    monkeypatch.setattr(
        remote_bases, "_git", lambda argv, **kw: asked.append(argv[-1]) or real(argv, **kw)
    )

    def resolve() -> str | None:
        remote_bases._commits.clear()  # a new run
        return remote_bases.commit_of(mirror, "kubernetes-sigs/jobset", "v0.12.0")

    commit = resolve()
    assert commit is not None and asked == ["v0.12.0^{commit}"]
    assert resolve() == commit and len(asked) == 1  # from the cache: no git process
    shadow = mirror_module.shadow_mirror(mirror) / "github.com" / "kubernetes-sigs" / "jobset.git"
    loose = shadow / "refs" / "tags" / "v0.12.0"
    loose.parent.mkdir(parents=True)
    loose.write_text("0" * 40 + "\n")  # git reads a loose ref before the packed one
    assert resolve() is None and len(asked) == 2
    assert resolve() is None and len(asked) == 3  # never kept while a loose ref is there
    loose.unlink()
    loose.parent.rmdir()
    assert resolve() == commit and len(asked) == 3


def test_a_commit_the_mirror_lacks_is_an_error_naming_it_and_leaves_nothing_behind(
    mirror, private_cache
):
    missing = "0" * 40
    with pytest.raises(
        CannotRun, match=f"cannot check out kubernetes-sigs/jobset at {missing} from the mirror: .+"
    ):
        remote_bases.tree(mirror, "kubernetes-sigs/jobset", missing)
    held = remote_bases.held_as(mirror, "kubernetes-sigs/jobset")
    assert list((private_cache / "remotes" / held).iterdir()) == []


def test_a_cached_parse_or_render_is_keyed_by_the_code_that_made_it(
    renderer, private_cache, two_roots, monkeypatch
):
    """An upgraded trainops (or an edited parser) never reads back what an older one computed."""
    from trainops.model import objects
    from trainops.render import render_cache

    text = "".join(CM.format(name=f"c{n}", value=n) + "---\n" for n in range(1000))
    parse_stream(text, "big.yaml")
    renderer.render(two_roots / "a")
    assert renderer.render(two_roots / "a").cached
    monkeypatch.setattr(objects, "_PARSER", "another parser")
    monkeypatch.setattr(render_cache, "_RENDERER", "another renderer")
    assert not renderer.render(two_roots / "a").cached
    parse_stream(text, "big.yaml")
    assert len(list((private_cache / objects.PARSED_FOLDER).glob("*.entry"))) == 2


def test_unchanged_crd_roots_give_their_schemas_without_being_read(private_cache, tmp_path):
    """A file checked in a repository needs the schemas of every CRD root; while those roots'
    inputs are unchanged, the schemas come from one entry and the roots are not read at all."""
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "kubernetesVersions: [v1.32]\ncrdRoots: [crds]\n",
            "crds/kustomization.yaml": "resources: [widget.yaml]\n",
            "crds/widget.yaml": WIDGET_CRD,
            "apps/w.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"
            "spec: {size: big}\n",
        },
    )

    def size_findings() -> tuple[list[str], str]:
        done = run_trainops("validate", "--format", "json", "apps", cwd=tmp_path)
        assert done.returncode in (0, 1), done.stderr
        found = [f["message"] for f in json.loads(done.stdout) if f["path"] == "spec.size"]
        return found, done.stderr

    first, _ = size_findings()
    assert first and "integer" in first[0], first
    # The CRD root's render is gone from the cache: its schemas still come from the cache,
    # so the root was not rendered (nor its render read) to know them.
    shutil.rmtree(private_cache / render_cache.FOLDER)
    again, _ = size_findings()
    assert again == first
    assert not (private_cache / render_cache.FOLDER).exists()
    # Changed, the CRD root renders again and its new schema is the one used.
    crd = tmp_path / "crds" / "widget.yaml"
    crd.write_text(crd.read_text().replace("size: {type: integer}", "size: {type: string}"))
    changed, _ = size_findings()
    assert changed == []
    assert (private_cache / render_cache.FOLDER).exists()
