"""Refs, paths and hosts from a kustomization never reach git as options, or the network offline."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import committed, git, run_trainops, write_tree
from trainops.render import mirror as mirror_module

RAW = "https://raw.githubusercontent.com/volcano-sh/volcano/{ref}/{path}"


def test_a_raw_file_ref_that_is_a_git_option_writes_nothing(mirror, tmp_path):
    # As found: the "ref" reached `git show` as `--output=a:/../../victim.txt`, which git
    # resolves from its working folder (through a folder named `a:`) to a file outside.
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    url = RAW.format(ref="--output=a", path="/../../victim.txt")
    write_tree(tmp_path, {"app/kustomization.yaml": f"resources:\n  - {url}\n"})
    (tmp_path / "app" / "a:").mkdir()
    done = run_trainops("validate", ".", cwd=tmp_path / "app")
    assert victim.read_text() == "precious\n"
    assert done.returncode == 1, done.stderr
    assert "render-failed" in done.stdout and "is not a tag or branch name" in done.stdout
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "path", ["../../etc/passwd", "-p", "a/../../b", "/etc/passwd", "a//b", "a\nb"]
)
def test_raw_file_paths_outside_the_repository_are_refused(mirror, path):
    with pytest.raises(mirror_module.MirrorMiss, match="not a plain relative path"):
        mirror_module.mirror_file(mirror, "volcano-sh/volcano", "v1.15.1", path)


@pytest.mark.parametrize("ref", ["--output=x", "-n", "a..b", "HEAD@{1}", "v1 2", "v1/", ""])
def test_refs_git_would_misread_are_refused(ref):
    assert mirror_module.unsafe_ref(ref) is not None


@pytest.mark.parametrize("ref", ["v1.15.1", "release-1.8", "feature/x", "v0.1.0+build"])
def test_plain_tags_and_branches_pass(ref):
    assert mirror_module.unsafe_ref(ref) is None


def test_a_remote_base_ref_that_is_a_git_option_is_refused(tmp_path):
    entry = "https://github.com/kubernetes-sigs/kueue//config/default?ref=--upload-pack=touch%20x"
    write_tree(tmp_path, {"kustomization.yaml": f"resources:\n  - {entry}\n"})
    done = run_trainops("build", str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "kustomization.yaml:2" in done.stderr and "is not a tag or branch name" in done.stderr


@pytest.mark.parametrize(
    "entry",
    [
        "ssh://git@example.invalid/owner/repo//deploy?ref=v1",
        "git@example.invalid:owner/repo//deploy?ref=v1",
        "https://gitlab.example.invalid/owner/repo//deploy?ref=v1",
        "https://example.invalid/manifest.yaml",
    ],
)
def test_offline_only_github_remote_bases_render(mirror, tmp_path, entry):
    # As found: kustomize ran `git fetch` against the other host, in mirror mode.
    write_tree(tmp_path, {"kustomization.yaml": f"resources:\n  - {entry}\n"})
    done = run_trainops("build", str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "only https://github.com/ remote bases render offline" in done.stderr


def test_git_in_mirror_mode_may_not_use_any_network_protocol(mirror):
    env = mirror_module.git_environment(mirror, {})
    settings = {
        env[f"GIT_CONFIG_KEY_{i}"]: env[f"GIT_CONFIG_VALUE_{i}"]
        for i in range(int(env["GIT_CONFIG_COUNT"]))
    }
    assert settings["protocol.allow"] == "never"
    assert settings["protocol.file.allow"] == "user"  # never for a submodule


# As found: a remote base whose path after `//` climbed out with `../..` rendered a folder outside
# the mirror's checkout; `build` printed it and `diff --format json` carried it into a comment.
@pytest.mark.parametrize(
    "entry",
    [
        "https://github.com/kubernetes-sigs/kueue//../../../../etc?ref=v0.18.6",
        "https://github.com/kubernetes-sigs/kueue//config/../../..?ref=v0.18.6",
        "https://github.com/../x//config?ref=v0.18.6",
    ],
)
def test_a_remote_base_path_may_not_leave_its_repository(mirror, tmp_path, entry):
    refusal = "is not a plain URL: no `.` or `..` segment"
    write_tree(tmp_path / "app", {"kustomization.yaml": f"resources:\n  - {entry}\n"})
    built = run_trainops("build", str(tmp_path / "app"))
    assert built.returncode == 2 and built.stdout == "" and "Traceback" not in built.stderr
    assert "kustomization.yaml:2" in built.stderr and refusal in built.stderr
    done = run_trainops("validate", str(tmp_path / "app"))
    assert done.returncode == 1 and "render-failed" in done.stdout and refusal in done.stdout


def _mirror_holding(
    tmp_path: Path, files: dict[str, str], links: dict[str, str], tag: str = "v1"
) -> Path:
    """A mirror with github.com/evil/base.git holding `files` and symbolic `links` at `tag`."""
    work = write_tree(tmp_path / "work", files)
    for name, target in links.items():
        (work / name).symlink_to(target)
    git(work, "init", "-q")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "base")
    git(work, "tag", tag)
    mirror = tmp_path / "mirror"
    (mirror / "github.com" / "evil").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(work), str(mirror / "github.com/evil/base.git"))
    return mirror


@pytest.mark.parametrize("how", ["dot-dot", "symlink"])
def test_a_remote_bases_own_kustomization_may_not_include_a_folder_outside_it(tmp_path, how):
    outside = write_tree(
        tmp_path / "private",
        {
            "kustomization.yaml": "resources:\n  - secret.yaml\n",
            "secret.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: private\n"
            "data:\n  key: TOP-SECRET\n",
        },
    )
    climb = "../" * 64 + str(outside).lstrip("/")  # past the top, then down to it
    entry = climb if how == "dot-dot" else "link"
    mirror = _mirror_holding(
        tmp_path,
        {"deploy/kustomization.yaml": f"resources:\n  - {entry}\n"},
        {"deploy/link": str(outside)} if how == "symlink" else {},
    )
    write_tree(
        tmp_path / "app",
        {"kustomization.yaml": "resources:\n  - https://github.com/evil/base//deploy?ref=v1\n"},
    )
    built = run_trainops("build", "--mirror", str(mirror), str(tmp_path / "app"))
    assert "TOP-SECRET" not in built.stdout + built.stderr
    assert built.returncode == 2, built.stderr
    assert "leads outside the repository evil/base" in built.stderr


# As found: `mirror:` in trainops.yaml named a folder of the repository under review, whose
# kueue.git/config set `core.fsmonitor`; trainops copied that config into its shadow repository
# and git ran the command on `validate`. Every key of git-config(1) that names a program is set
# here, in the mirror's config, in a file it includes, as hooks, and in the user's global config.
_PROGRAM_KEYS = (
    "core.fsmonitor",
    "core.pager",
    "core.askPass",
    "core.sshCommand",
    "core.gitProxy",
    "core.editor",
    "core.alternateRefsCommand",
    "credential.helper",
    "diff.external",
    "diff.evil.textconv",
    "filter.evil.smudge",
    "filter.evil.clean",
    "filter.evil.process",
    "merge.evil.driver",
    "gpg.program",
    "sequence.editor",
    "uploadpack.packObjectsHook",
    "remote.origin.uploadpack",
    "pager.show",
    "pager.tag",
)
_HOOKS = (
    "post-checkout",
    "post-merge",
    "reference-transaction",
    "fsmonitor-watchman",
    "post-index-change",
)


def _booby_trap(mirror: Path, marks: Path, home: Path) -> None:
    """Arm every program-running setting of git in `mirror` and in `home`'s global config: each
    writes a file named after itself into `marks` when run."""
    program = marks.parent / "evil.sh"
    program.write_text(f'#!/bin/sh\ntouch "{marks}/$1"\ncat >/dev/null 2>&1 || true\n')
    program.chmod(0o755)
    hooks = marks.parent / "hooks"
    hooks.mkdir()
    for hook in _HOOKS:
        (hooks / hook).write_text(f"#!/bin/sh\n{program} hook-{hook}\n")
        (hooks / hook).chmod(0o755)
    included = marks.parent / "included.gitconfig"
    included.write_text(f"[core]\n\tfsmonitor = {program} included\n")
    settings = [(key, f"{program} {key}") for key in _PROGRAM_KEYS] + [
        ("core.hooksPath", str(hooks)),
        ("filter.evil.required", "true"),
        ("protocol.ext.allow", "always"),
        ("include.path", str(included)),
    ]
    for repository in (mirror / "github.com").glob("*/*.git"):
        for key, value in settings:
            git(repository, "config", key, value)
        for hook in _HOOKS:
            (repository / "hooks" / hook).write_text((hooks / hook).read_text())
            (repository / "hooks" / hook).chmod(0o755)
    home.mkdir()
    for key, value in settings:
        git(home, "config", "--file", str(home / ".gitconfig"), key, value)


@pytest.mark.parametrize("command", ["validate", "build"])
def test_no_git_configuration_of_a_mirror_in_the_repository_runs_a_program(tmp_path, command):
    marks = tmp_path / "marks"
    marks.mkdir()
    repository = tmp_path / "repo"
    mirror = _mirror_holding(
        repository,
        {
            "deploy/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "deploy/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: base\n"
            "  namespace: default\n",
            ".gitattributes": "* filter=evil diff=evil merge=evil\n",
        },
        {},
        tag="v1.0.0",
    )
    _booby_trap(mirror, marks, tmp_path / "home")
    write_tree(
        repository,
        {
            "trainops.yaml": "roots: [app, options]\nmirror: mirror\n",
            # Checked out by trainops (pinned), and fetched by kustomize's own git (an option
            # trainops leaves to kustomize).
            "app/kustomization.yaml": "resources:\n  - https://github.com/evil/base//deploy?ref=v1.0.0\n",
            "options/kustomization.yaml": "resources:\n"
            "  - https://github.com/evil/base//deploy?ref=v1.0.0&timeout=30s\n",
        },
    )
    env = {"TRAINOPS_MIRROR": "", "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": ""}
    for root in (["app"], ["options"]) if command == "build" else [[]]:
        done = run_trainops(command, *root, cwd=repository, env=env)
        assert "Traceback" not in done.stderr
        assert sorted(p.name for p in marks.iterdir()) == []
        assert done.returncode == 0, done.stdout + done.stderr
        # The user is told that the repository chose the mirror.
        assert f"remote bases are read from {mirror}, the mirror" in done.stderr


def test_the_shadow_keeps_nothing_of_the_mirrors_config_but_its_object_format(mirror, tmp_path):
    armed = tmp_path / "config"
    armed.write_text('[core]\n\tfsmonitor = "touch x"\n\tbare = true\n')
    assert b"fsmonitor" not in mirror_module.shadow_config(armed)
    armed.write_text(
        "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectFormat = sha256\n"
    )
    assert b"objectformat = sha256" in mirror_module.shadow_config(armed)
    assert mirror_module.shadow_config(tmp_path / "absent") == mirror_module.shadow_config(
        tmp_path / "config.missing"
    )
    shadow = mirror_module.shadow_mirror(mirror)
    for config in (shadow / "github.com").glob("*/*.git/config"):
        assert config.read_bytes() == b"[core]\n\trepositoryformatversion = 0\n\tbare = true\n"


def test_git_on_a_mirror_reads_no_configuration_file_and_no_location_from_the_environment():
    env = mirror_module.locked_environment(
        {
            "PATH": "/bin",
            "GIT_DIR": "/elsewhere",
            "GIT_INDEX_FILE": "/elsewhere/index",
            "GIT_SSH_COMMAND": "touch x",
            "GIT_CONFIG_PARAMETERS": "'core.fsmonitor'='touch x'",
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "core.autocrlf",
            "GIT_CONFIG_VALUE_0": "false",
        }
    )
    assert {"GIT_DIR", "GIT_INDEX_FILE", "GIT_SSH_COMMAND", "GIT_CONFIG_PARAMETERS"}.isdisjoint(env)
    assert env["GIT_CONFIG_NOSYSTEM"] == "1" and env["GIT_CONFIG_GLOBAL"] == os.devnull
    settings = [
        (env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"])
        for i in range(int(env["GIT_CONFIG_COUNT"]))
    ]
    assert settings[0] == ("core.autocrlf", "false")  # the user's own, first: ours win
    assert settings[1:] == list(mirror_module.LOCKED_SETTINGS)
    # A count git would refuse (entries missing) is dropped rather than passed on.
    broken = mirror_module.locked_environment({"GIT_CONFIG_COUNT": "3"})
    assert broken["GIT_CONFIG_KEY_0"] == mirror_module.LOCKED_SETTINGS[0][0]


def test_a_submodule_of_a_mirror_repository_may_not_clone_a_repository_of_this_machine(tmp_path):
    # kustomize's own fetch (a remote base with options trainops leaves to it) runs
    # `git submodule update --init --recursive`; with file:// allowed for submodules
    # (CVE-2022-39253), a .gitmodules naming a local repository copied it into the render.
    private = write_tree(
        tmp_path / "private",
        {
            "secret.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: private\n"
            "data:\n  key: TOP-SECRET\n"
        },
    )
    git(private, "init", "-q")
    git(private, "add", "-A")
    git(private, "commit", "-qm", "private")
    work = write_tree(
        tmp_path / "work",
        {"deploy/kustomization.yaml": "resources:\n  - sub/secret.yaml\n"},
    )
    git(work, "init", "-q")
    git(
        work,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        private.as_uri(),
        "deploy/sub",
    )
    git(work, "add", "-A")
    git(work, "commit", "-qm", "base")
    git(work, "tag", "v1.0.0")
    mirror = tmp_path / "mirror"
    (mirror / "github.com" / "evil").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(work), str(mirror / "github.com/evil/base.git"))
    write_tree(
        tmp_path / "app",
        {
            "kustomization.yaml": "resources:\n"
            "  - https://github.com/evil/base//deploy?ref=v1.0.0&timeout=30s\n"
        },
    )
    built = run_trainops("build", "--mirror", str(mirror), str(tmp_path / "app"))
    assert "TOP-SECRET" not in built.stdout + built.stderr
    assert built.returncode == 2 and "Traceback" not in built.stderr, built.stderr
    assert "transport 'file' not allowed" in built.stderr


def _victim(tmp_path: Path) -> Path:
    """A git repository of this machine, not the one under review, holding a secret."""
    return committed(
        tmp_path / "victim",
        {
            "app/kustomization.yaml": "resources:\n  - secret.yaml\n",
            "app/secret.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n"
            "data:\n  password: OTHER-REPO-PASSWORD\n",
        },
    )


# As found in review: the options made trainops leave the entry to kustomize, whose fetch, sent to
# the shadow's file:// URL, climbed out of it to any repository of the machine; online, a file://
# entry did the same.
@pytest.mark.parametrize(
    ("entry", "refusal", "offline"),
    [
        (
            "https://github.com/../../../../../../../../../..{victim}//app?ref=master&timeout=60s",
            "is not a plain URL",
            True,
        ),
        ("https://github.com/%2e%2e/x//app?ref=master&timeout=60s", "is not a plain URL", True),
        ("file://{victim}//app?ref=master", "a file:// remote reads a repository", False),
        ("git::file://{victim}//app?ref=master", "a file:// remote reads a repository", False),
    ],
)
def test_a_remote_entry_may_not_reach_a_repository_of_this_machine(
    mirror, tmp_path, entry, refusal, offline
):
    victim = _victim(tmp_path)
    write_tree(
        tmp_path / "app", {"kustomization.yaml": f"resources:\n  - {entry.format(victim=victim)}\n"}
    )
    env = {} if offline else {"TRAINOPS_MIRROR": ""}
    built = run_trainops("build", str(tmp_path / "app"), env=env, cwd=tmp_path)
    assert "OTHER-REPO-PASSWORD" not in built.stdout + built.stderr
    assert built.returncode == 2 and "Traceback" not in built.stderr, built.stderr
    assert refusal in built.stderr


def test_a_mirror_is_its_plain_repositories_only(tmp_path):
    # As found in review: a mirror the repository names linked github.com/acme/private.git to
    # another repository of the machine, whose refs and objects the shadow then served.
    victim = _victim(tmp_path)
    mirror = _mirror_holding(tmp_path / "upstream", {"a.yaml": "a: 1\n"}, {})
    (mirror / "github.com" / "acme").mkdir()
    (mirror / "github.com" / "acme" / "private.git").symlink_to(victim / ".git")
    (mirror / "github.com" / "linked").symlink_to(mirror / "github.com" / "evil")
    borrowed = tmp_path / "borrowed.git"
    git(tmp_path, "clone", "-q", "--bare", str(tmp_path / "upstream" / "work"), str(borrowed))
    (borrowed / "objects" / "info" / "alternates").write_text(f"{victim / '.git' / 'objects'}\n")
    os.rename(borrowed, mirror / "github.com" / "evil" / "borrowed.git")
    assert mirror_module.mirror_repositories(mirror) == [mirror / "github.com/evil/base.git"]


def test_checkouts_and_renders_are_kept_by_mirror_as_well_as_by_commit(mirror, tmp_path):
    # As found in review: a mirror the repository named held the real commit with one object
    # forged; its checkout, kept by commit alone, was then read by runs from the user's mirror.
    from trainops.render import remote_bases, render_cache

    copy = tmp_path / "copy"
    shutil.copytree(
        mirror / "github.com" / "kubernetes-sigs" / "jobset.git",
        copy / "github.com" / "kubernetes-sigs" / "jobset.git",
    )
    commit = remote_bases.commit_of(mirror, "kubernetes-sigs/jobset", "v0.12.0")
    assert commit is not None and commit == remote_bases.commit_of(
        copy, "kubernetes-sigs/jobset", "v0.12.0"
    )
    assert remote_bases.held_as(mirror, "kubernetes-sigs/jobset") != remote_bases.held_as(
        copy, "kubernetes-sigs/jobset"
    )
    app = write_tree(
        tmp_path / "app",
        {
            "kustomization.yaml": "resources:\n  - https://github.com/kubernetes-sigs/jobset.git//config/default?ref=v0.12.0\n"
        },
    )
    assert render_cache.inputs(app, mirror).parts != render_cache.inputs(app, copy).parts


@pytest.mark.parametrize("how", ["huge", "linked"])
def test_a_mirrors_refs_are_read_as_bounded_regular_files(tmp_path, how):
    # A mirror the repository names may hold anything where git's files should be: a packed-refs
    # of gigabytes, a HEAD that links elsewhere.
    mirror = _mirror_holding(tmp_path / "upstream", {"deploy/kustomization.yaml": ""}, {})
    repository = mirror / "github.com" / "evil" / "base.git"
    if how == "huge":
        with open(repository / "packed-refs", "ab") as grown:
            grown.truncate(65 * 2**20)  # sparse: its size, not its bytes, is what is refused
    else:
        (tmp_path / "elsewhere").write_text("ref: refs/heads/master\n")
        (repository / "HEAD").unlink()
        (repository / "HEAD").symlink_to(tmp_path / "elsewhere")
    write_tree(
        tmp_path / "app",
        {"kustomization.yaml": "resources:\n  - https://github.com/evil/base//deploy?ref=v1\n"},
    )
    built = run_trainops("build", "--mirror", str(mirror), str(tmp_path / "app"), timeout=120)
    assert built.returncode == 2 and "Traceback" not in built.stderr, built.stderr
    assert "not a mirror's file" in built.stderr
