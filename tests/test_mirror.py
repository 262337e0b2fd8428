"""The mirror shadow: git-usable without touching the mirror, and env-only configuration."""

from __future__ import annotations

import os
import subprocess

import pytest

from trainops.model.errors import CannotRun
from trainops.render import mirror as mirror_module


def test_shadow_points_at_the_mirror_objects_and_lists_its_tags(mirror):
    shadow = mirror_module.shadow_mirror(mirror)
    repo = shadow / "github.com" / "kubernetes-sigs" / "kueue.git"
    alternates = (repo / "objects" / "info" / "alternates").read_text().strip()
    assert alternates == str(mirror / "github.com" / "kubernetes-sigs" / "kueue.git" / "objects")
    tags = subprocess.run(
        ["git", "-C", str(repo), "tag"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert {"v0.18.6", "v0.19.2"} <= set(tags)
    assert mirror_module.mirror_tags(mirror, "kubernetes-sigs/kueue") == tags
    assert mirror_module.mirror_tags(mirror, "nobody/nothing") is None


def test_shadow_is_refreshed_without_rewriting_unchanged_files(mirror):
    shadow = mirror_module.shadow_mirror(mirror)
    files = sorted(p for p in shadow.rglob("*") if p.is_file())
    before = {p: p.stat().st_mtime_ns for p in files}
    assert mirror_module.shadow_mirror(mirror) == shadow
    assert {p: p.stat().st_mtime_ns for p in files} == before
    # A changed file is brought back in line with the mirror.
    packed = shadow / "github.com" / "kubernetes-sigs" / "kueue.git" / "packed-refs"
    packed.write_text("stale\n")
    mirror_module.shadow_mirror(mirror)
    assert (
        packed.read_bytes()
        == (mirror / "github.com" / "kubernetes-sigs" / "kueue.git" / "packed-refs").read_bytes()
    )


def test_threads_of_one_run_build_a_fresh_shadow_at_once(mirror, tmp_path, monkeypatch):
    """Renders in threads each refresh the shadow: their temporary files must not collide (as
    found: one thread's os.replace took the other's file, whose own replace then failed)."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    replace = os.replace

    def slow_replace(source, target):  # widens the window in which the threads overlap
        time.sleep(0.002)
        replace(source, target)

    monkeypatch.setattr(mirror_module.os, "replace", slow_replace)
    for attempt in range(3):
        monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / str(attempt)))
        with ThreadPoolExecutor(8) as pool:
            shadows = set(pool.map(lambda _: mirror_module.shadow_mirror(mirror), range(16)))
        [shadow] = shadows
        assert (shadow / "github.com" / "kubernetes-sigs" / "kueue.git" / "HEAD").is_file()


def test_git_environment_appends_to_existing_git_config_entries(mirror):
    base = {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "core.autocrlf",
        "GIT_CONFIG_VALUE_0": "false",
    }
    env = mirror_module.git_environment(mirror, base)
    # The user's entry, the settings that lock git down, then the mirror URL.
    last = 1 + len(mirror_module.LOCKED_SETTINGS)
    assert env["GIT_CONFIG_COUNT"] == str(last + 1)
    assert env["GIT_CONFIG_KEY_0"] == "core.autocrlf"
    assert env[f"GIT_CONFIG_KEY_{last}"].startswith("url.file://")
    assert env[f"GIT_CONFIG_KEY_{last}"].endswith("/github.com/.insteadOf")
    assert env[f"GIT_CONFIG_VALUE_{last}"] == "https://github.com/"
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert "GIT_CONFIG_COUNT" not in os.environ or os.environ["GIT_CONFIG_COUNT"] != str(last + 1)


def test_without_a_mirror_git_keeps_the_users_settings_but_no_location_and_no_local_repository():
    hook = {"PATH": "/bin", "GIT_DIR": "/repo/.git", "GIT_INDEX_FILE": "/repo/.git/index.lock"}
    env = mirror_module.git_environment(None, {**hook, "GIT_SSH_COMMAND": "ssh -i key"})
    assert env == {
        "PATH": "/bin",
        "GIT_SSH_COMMAND": "ssh -i key",  # the user's own, for their private remotes
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "protocol.file.allow",
        "GIT_CONFIG_VALUE_0": "never",
    }


def test_missing_mirror_folder(tmp_path):
    with pytest.raises(CannotRun, match="mirror folder does not exist"):
        mirror_module.shadow_mirror(tmp_path / "absent")
