"""Files in context: the config and the mirror are found from any folder, a file is checked in the
roots (and environment) that render it, and a missing mirror is one line, not dozens of findings."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import RESTRICTED_NAMESPACE, run_trainops, write_tree
from trainops.render import kustomization
from trainops.render import mirror as mirror_module

PRIVILEGED_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
  namespace: team
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: example.com/train:1.0
          securityContext:
            privileged: true
"""


def _environment(tmp_path: Path) -> Path:
    """A repository whose one environment has a platform layer (the restricted namespace) and a
    workloads layer (a privileged Job): the Job fails Pod Security only in its environment."""
    return write_tree(
        tmp_path,
        {
            "trainops.yaml": "roots:\n  - overlays/*/*\n",
            "base/kustomization.yaml": "resources:\n  - namespace.yaml\n",
            "base/namespace.yaml": RESTRICTED_NAMESPACE,
            "apps/kustomization.yaml": "resources:\n  - job.yaml\n",
            "apps/job.yaml": PRIVILEGED_JOB,
            "apps/notes.yaml": "kind: [\n",  # rendered by no root
            "overlays/dev/platform/kustomization.yaml": "resources:\n  - ../../../base\n",
            "overlays/dev/workloads/kustomization.yaml": "resources:\n  - ../../../apps\n",
        },
    )


def test_a_file_is_checked_with_its_environment(tmp_path):
    repo = _environment(tmp_path)
    done = run_trainops("validate", "--format", "json", "apps/job.yaml", cwd=repo)
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)
    assert {(f["rule"], f["file"]) for f in findings} == {("pod-security", "apps/job.yaml")}
    assert findings[0]["root"] == "overlays/dev/workloads"


def test_a_file_given_from_a_subfolder_finds_the_config(tmp_path):
    repo = _environment(tmp_path)
    done = run_trainops("validate", "--format", "json", "job.yaml", cwd=repo / "apps")
    assert done.returncode == 1, done.stderr
    assert {(f["rule"], f["file"]) for f in json.loads(done.stdout)} == {
        ("pod-security", "job.yaml")
    }
    # With no PATH, the config's roots are checked from anywhere in the repository too.
    everything = run_trainops("validate", "--format", "json", cwd=repo / "overlays" / "dev")
    assert {f["rule"] for f in json.loads(everything.stdout)} == {"pod-security"}


def test_a_file_is_checked_with_the_whole_repository_and_unrendered_files_are_a_note(tmp_path):
    """Making the namespace restricted breaks the Job in another file: the hook run on the
    namespace's file fails as `validate` with no PATH does, at the Job's file."""
    repo = _environment(tmp_path)
    done = run_trainops(
        "validate", "--format", "json", "base/namespace.yaml", "apps/notes.yaml", cwd=repo
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert {(f["rule"], f["file"]) for f in json.loads(done.stdout)} == {
        ("pod-security", "apps/job.yaml")
    }
    assert "apps/notes.yaml: no root in trainops.yaml renders this file; not checked" in done.stderr
    assert (
        "note: base/namespace.yaml: checked in every root of trainops.yaml, 2 root(s), "
        "since a change to one file can break objects filed in others"
    ) in done.stderr
    everything = run_trainops("validate", "--format", "json", cwd=repo)
    assert json.loads(everything.stdout) == json.loads(done.stdout)


def test_a_file_of_a_plain_folder_root_is_checked_in_it(tmp_path):
    """A root with no kustomization is read file by file, its subfolders included: each of
    those files is that root's, as much as a kustomization's resources are."""
    repo = write_tree(
        tmp_path,
        {
            "trainops.yaml": "roots:\n  - manifests\n",
            "manifests/namespace.yaml": RESTRICTED_NAMESPACE,
            "manifests/jobs/job.yaml": PRIVILEGED_JOB,
            "manifests/README.md": "not YAML\n",
        },
    )
    done = run_trainops("validate", "--format", "json", "manifests/jobs/job.yaml", cwd=repo)
    assert done.returncode == 1, done.stderr
    assert {(f["rule"], f["file"]) for f in json.loads(done.stdout)} == {
        ("pod-security", "manifests/jobs/job.yaml")
    }
    # A file the root does not read (not YAML) is still a note.
    other = run_trainops("validate", "manifests/README.md", cwd=repo)
    assert "manifests/README.md: no root in trainops.yaml renders this file" in other.stderr


def test_a_config_without_roots_checks_every_top_kustomization_and_an_empty_list_nothing(
    tmp_path,
):
    repo = _environment(tmp_path)
    for config in ("", "# settings to come\n", "kubernetesVersions: [v1.32]\n"):
        (repo / "trainops.yaml").write_text(config)
        done = run_trainops("validate", "--format", "json", cwd=repo / "apps")
        assert done.returncode == 1, (config, done.stderr)
        found = {
            (f["rule"], f["root"].rpartition("/overlays/")[2]) for f in json.loads(done.stdout)
        }
        assert found == {("pod-security", "dev/workloads")}
    (repo / "trainops.yaml").write_text("roots: []\n")
    done = run_trainops("validate", cwd=repo)
    assert done.returncode == 2 and "nothing to do" in done.stderr


def test_discovery_finds_top_kustomizations_skips_tool_folders_and_reads_any_checkout(tmp_path):
    """Without configured roots: every kustomization no other includes, none that is a Component,
    none inside .venv, .git or node_modules, and a checkout that itself lives under a folder
    named .cache still has its roots."""
    repo = tmp_path / ".cache" / "checkout"
    write_tree(
        repo,
        {
            "app/kustomization.yaml": "resources: [../base]\n",
            "base/kustomization.yaml": "resources: []\n",
            "other/Kustomization": "resources: []\n",
            "parts/kustomization.yaml": "kind: Component\n",
            ".venv/lib/site/kustomization.yaml": "resources: []\n",
            "node_modules/x/kustomization.yaml": "resources: []\n",
        },
    )
    found = kustomization.discover_roots(repo)
    assert [p.relative_to(repo.resolve()).as_posix() for p in found] == ["app", "other"]


def test_the_mirror_is_found_in_order(tmp_path, monkeypatch):
    repository, beside = tmp_path / "repo", tmp_path / "shared" / "mirror"
    (beside / "github.com").mkdir(parents=True)
    monkeypatch.delenv(mirror_module.MIRROR_ENV, raising=False)
    assert mirror_module.find_mirror(None, None, repository) == beside
    assert (
        mirror_module.find_mirror(None, tmp_path / "configured", repository)
        == tmp_path / "configured"
    )
    monkeypatch.setenv(mirror_module.MIRROR_ENV, str(tmp_path / "env"))
    assert mirror_module.find_mirror(None, tmp_path / "configured", repository) == tmp_path / "env"
    assert mirror_module.find_mirror(tmp_path / "flag", None, repository) == tmp_path / "flag"
    monkeypatch.setenv(mirror_module.MIRROR_ENV, "")  # what make exports when there is no mirror
    assert mirror_module.find_mirror(None, None, tmp_path / "elsewhere" / "repo") is None


def test_a_config_mirror_entry_is_used(mirror, tmp_path):
    write_tree(
        tmp_path,
        {
            "trainops.yaml": f"roots: [app]\nmirror: {mirror}\n",
            "app/kustomization.yaml": "resources:\n  - https://github.com/kubernetes-sigs/jobset.git//config/default?ref=v0.12.0\n",
        },
    )
    done = run_trainops("build", "app", cwd=tmp_path, env={"TRAINOPS_MIRROR": ""})
    assert done.returncode == 0, done.stderr
    assert "kind: CustomResourceDefinition" in done.stdout


def test_without_mirror_or_network_validate_says_so_in_one_line(tmp_path):
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "roots: [app]\n",
            "app/kustomization.yaml": "resources:\n  - https://github.com/kubernetes-sigs/jobset.git//config/default?ref=v0.12.0\n",
        },
    )
    # No network, simulated without touching it: git's HTTPS goes to a closed local port.
    offline = {
        "TRAINOPS_MIRROR": "",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "https_proxy": "http://127.0.0.1:9",
    }
    done = run_trainops("validate", cwd=tmp_path, env=offline)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert "no mirror is configured and git cannot reach GitHub" in line
    assert "--mirror DIR" in line and "TRAINOPS_MIRROR=DIR" in line
