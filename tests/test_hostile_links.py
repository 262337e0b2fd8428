"""Nothing outside the repository is read through a root with remote bases, and no special file
in a kustomization's folder hangs a run or fills a disk.

As found: such a root rendered from a temporary copy of its tree made with `shutil.copytree`,
which follows symbolic links: `leak.txt -> ~/.ssh/id_rsa` named by a configMapGenerator (or a
linked patch) appeared in `build`, in `diff --format json` and `--format markdown` (the pull
request comment) and in cache entries; `zero -> /dev/zero` filled the temporary disk; a link loop
or a FIFO gave a traceback. kustomize refuses the same files in roots without remote bases.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import committed, git, run_trainops, write_tree
from test_hostile_git import _mirror_holding

SECRET = "PRIVATE-KEY-BYTES-do-not-show"
BASE = "https://github.com/evil/base//deploy?ref=v1.0.0"


def _repository(tmp_path: Path, extra: str = "", remote: bool = True) -> tuple[Path, Path, dict]:
    """A repository with a root `app` (a remote base when `remote`), its mirror, and the
    environment to run trainops in (a cache of its own, the mirror named on the command line's
    level)."""
    private = write_tree(tmp_path / "home" / ".ssh", {"id_rsa": SECRET + "\n"})
    mirror = _mirror_holding(
        tmp_path / "upstream",
        {
            "deploy/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "deploy/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\n"
            "  namespace: default\n",
        },
        {},
        tag="v1.0.0",
    )
    resources = f"  - {BASE}\n" if remote else "  - cm.yaml\n"
    repository = write_tree(
        tmp_path / "repo",
        {
            "trainops.yaml": "roots: [app]\n",
            "app/kustomization.yaml": f"namespace: default\nresources:\n{resources}{extra}",
            "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n",
        },
    )
    env = {"TRAINOPS_MIRROR": str(mirror), "TRAINOPS_CACHE_DIR": str(tmp_path / "cache")}
    return repository, private / "id_rsa", env


def _nothing_leaked(tmp_path: Path, *outputs: str) -> None:
    for output in outputs:
        assert SECRET not in output
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert SECRET.encode() not in path.read_bytes(), path


GENERATOR = "configMapGenerator:\n  - name: leaked\n    files:\n      - leak.txt\n"
PATCH = "patches:\n  - path: leak.yaml\n"


@pytest.mark.parametrize("remote", [True, False], ids=["remote-base", "local-only"])
@pytest.mark.parametrize(("extra", "link"), [(GENERATOR, "leak.txt"), (PATCH, "leak.yaml")])
def test_a_link_to_a_file_outside_is_refused_as_kustomize_refuses_it(tmp_path, remote, extra, link):
    repository, private, env = _repository(tmp_path, extra, remote)
    (repository / "app" / link).symlink_to(private)
    built = run_trainops("build", "app", cwd=repository, env=env, timeout=120)
    assert built.returncode == 2 and "Traceback" not in built.stderr, built.stderr
    assert "is not in or below" in built.stderr  # kustomize's own refusal, in both layouts
    validated = run_trainops("validate", "--format", "json", cwd=repository, env=env, timeout=120)
    assert validated.returncode == 1 and "render-failed" in validated.stdout
    _nothing_leaked(tmp_path, built.stdout, built.stderr, validated.stdout, validated.stderr)


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_a_review_of_a_change_adding_the_link_shows_nothing_of_the_file(tmp_path, fmt):
    repository, private, env = _repository(tmp_path)
    committed(repository, {})
    (repository / "app" / "kustomization.yaml").write_text(
        f"namespace: default\nresources:\n  - {BASE}\n{GENERATOR}"
    )
    (repository / "app" / "leak.txt").symlink_to(private)
    done = run_trainops("diff", "--format", fmt, cwd=repository, env=env, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "render-failed" in done.stdout or "does not render" in done.stdout
    _nothing_leaked(tmp_path, done.stdout, done.stderr)


def test_a_link_inside_the_folder_still_renders(tmp_path):
    repository, _, env = _repository(tmp_path, GENERATOR)
    write_tree(repository / "app", {"data/settings.txt": "mode: fast\n"})
    (repository / "app" / "leak.txt").symlink_to("data/settings.txt")
    built = run_trainops("build", "app", cwd=repository, env=env, timeout=120)
    assert built.returncode == 0, built.stderr
    assert "mode: fast" in built.stdout and "name: base" in built.stdout


@pytest.mark.parametrize("kind", ["zero", "loop", "dangling", "folder-loop"])
def test_unreferenced_links_are_left_unread(tmp_path, kind):
    repository, _, env = _repository(tmp_path)
    app = repository / "app"
    if kind == "zero":
        (app / "zero").symlink_to("/dev/zero")
    elif kind == "loop":
        (app / "loop").symlink_to("loop")
    elif kind == "dangling":
        (app / "gone").symlink_to(tmp_path / "nothing-here")
    else:
        (app / "sub").mkdir()
        (app / "sub" / "up").symlink_to("..")
    built = run_trainops("build", "app", cwd=repository, env=env, timeout=120)
    assert built.returncode == 0 and "Traceback" not in built.stderr, built.stderr
    assert "name: base" in built.stdout


def test_a_fifo_in_the_folder_is_a_finding_not_a_hang(tmp_path):
    repository, _, env = _repository(tmp_path)
    os.mkfifo(repository / "app" / "pipe")
    built = run_trainops("build", "app", cwd=repository, env=env, timeout=120)
    assert built.returncode == 2 and "Traceback" not in built.stderr
    assert "app/pipe" in built.stderr and "FIFO" in built.stderr
    validated = run_trainops("validate", cwd=repository, env=env, timeout=120)
    assert validated.returncode == 1 and "Traceback" not in validated.stderr
    assert "render-failed" in validated.stdout and "app/pipe" in validated.stdout


def test_the_tools_folder_name_in_the_tree_is_never_written_through(tmp_path):
    # The copy writes files read from the mirror into `.trainops-mirror/`; a link of that name in
    # the user's tree must not carry the write out of the copy.
    repository, _, env = _repository(tmp_path, "")
    raw = "https://raw.githubusercontent.com/evil/base/v1.0.0/deploy/cm.yaml"
    (repository / "app" / "kustomization.yaml").write_text(
        f"namespace: default\nresources:\n  - {raw}\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repository / "app" / ".trainops-mirror").symlink_to(elsewhere)
    built = run_trainops("build", "app", cwd=repository, env=env, timeout=120)
    assert built.returncode == 0, built.stderr
    assert "name: base" in built.stdout
    assert list(elsewhere.iterdir()) == []


def _outside(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "other-team",
        {
            "app/kustomization.yaml": "resources:\n  - secret.yaml\n",
            "app/secret.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n"
            f"data:\n  password: {SECRET}\n",
            "dup.yaml": f"a: 1\n{SECRET}: 1\n{SECRET}: 2\n",
        },
    )


# As found in review: kustomize renders a local base wherever it lies, so a pull request could
# show any kustomization of the reviewer's machine (with a remote base beside it, the whole
# outside folder was first copied to the temporary disk).
@pytest.mark.parametrize("remote", [True, False], ids=["remote-base", "local-only"])
def test_a_folder_outside_the_repository_is_not_rendered(tmp_path, remote):
    outside = _outside(tmp_path)
    climb = os.path.relpath(outside / "app", tmp_path / "repo" / "app")
    repository, _, env = _repository(tmp_path, f"  - {climb}\n", remote)
    git(repository, "init", "-q")
    built = run_trainops("build", "app", cwd=repository, env=env, timeout=120)
    assert built.returncode == 2 and "Traceback" not in built.stderr, built.stderr
    assert "app/kustomization.yaml:" in built.stderr
    assert f"{climb} is a folder outside the repository" in built.stderr
    validated = run_trainops("validate", "--format", "json", cwd=repository, env=env, timeout=120)
    assert validated.returncode == 1 and "render-failed" in validated.stdout
    _nothing_leaked(tmp_path, built.stdout, built.stderr, validated.stdout, validated.stderr)


# As found in review: a root that is a file, or a folder read file by file, followed a link to a
# file outside the repository, and diff's JSON and comment showed it.
def test_a_root_linked_outside_the_repository_is_not_read(tmp_path):
    outside = _outside(tmp_path)
    repository = committed(
        tmp_path / "repo", {"trainops.yaml": "roots: [plain]\n", "plain/ok.yaml": "a: 1\n"}
    )
    (repository / "plain" / "linked.yaml").symlink_to(outside / "app" / "secret.yaml")
    (repository / "root-app.yaml").symlink_to(outside / "app" / "secret.yaml")
    git(repository, "add", "-A")
    git(repository, "commit", "-qm", "links")
    for args in (("validate", "--format", "json"), ("diff", "--format", "json")):
        done = run_trainops(*args, cwd=repository, timeout=120)
        assert "Traceback" not in done.stderr and done.returncode == 1, done.stderr
        assert SECRET not in done.stdout + done.stderr
        assert "plain/linked.yaml" in done.stdout and "outside the repository" in done.stdout
    # Named as a root in trainops.yaml, the link is refused with the config's line.
    (repository / "trainops.yaml").write_text("roots: [plain, root-app.yaml]\n")
    done = run_trainops("validate", cwd=repository, timeout=120)
    assert done.returncode == 2 and "trainops.yaml:1" in done.stderr
    assert SECRET not in done.stdout + done.stderr


def test_the_preflight_reads_no_file_outside_the_folder(tmp_path):
    # As found in review: a linked file with a duplicated key had that key quoted in a finding.
    outside = _outside(tmp_path)
    repository, _, env = _repository(tmp_path, "  - leak.yaml\n", remote=False)
    (repository / "app" / "leak.yaml").symlink_to(outside / "dup.yaml")
    built = run_trainops("build", "app", cwd=repository, env=env, timeout=120)
    assert built.returncode == 2 and "is not in or below" in built.stderr
    assert SECRET not in built.stdout + built.stderr


def test_a_temporary_folder_behind_a_link_renders_a_linked_kustomization(tmp_path):
    # As found in review: with TMPDIR a link (macOS's default), the copy's own kustomization link
    # was taken for one leading outside.
    repository, _, env = _repository(tmp_path)
    app = repository / "app"
    os.rename(app / "kustomization.yaml", app / "k.yaml")
    (app / "kustomization.yaml").symlink_to("k.yaml")
    (tmp_path / "real-tmp").mkdir()
    (tmp_path / "linked-tmp").symlink_to(tmp_path / "real-tmp")
    built = run_trainops(
        "build", "app", cwd=repository, env={**env, "TMPDIR": str(tmp_path / "linked-tmp")}
    )
    assert built.returncode == 0, built.stderr
    assert "name: base" in built.stdout
