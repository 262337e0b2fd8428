"""`validate FILE…` (what the pre-commit hook runs) fails exactly when `validate` of the whole
repository does, whatever file the change is in and wherever its findings are filed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import REPO, run_trainops, write_tree


def _copy_repository(target: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if name.startswith(("tools/", "tests/", "bench/")) or not source.is_file():
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name)
    return target


def _edit(file: Path, old: str, new: str) -> None:
    text = file.read_text()
    assert old in text, (file, old)
    file.write_text(text.replace(old, new))


# The edits the issue found the hook passing; each breaks objects of the repository, several of
# them in another file than the one edited. The last breaks nothing.
EDITS = {
    "dashboard port": ("base/network-policies.yaml", "8265", "8266"),
    "init container capability": (
        "operators/training-operator/pytorch-init-container.yaml",
        'drop: ["ALL"]',
        'drop: ["ALL"]\n      add: ["NET_ADMIN"]',
    ),
    "Prune=false": (
        "workloads/bookstore-ml/pytorchjob.yaml",
        "argocd.argoproj.io/sync-options: Replace=true,Force=true",
        "argocd.argoproj.io/sync-options: Prune=false",
    ),
    "labels: 42": (
        "workloads/bookstore-ml/job.yaml",
        "  labels:\n    kueue.x-k8s.io/queue-name: bookstore-ml-lq\n"
        "    # Scheduled retraining: the low class, which an ad-hoc run may preempt (base/kueue.yaml).\n"
        "    kueue.x-k8s.io/priority-class: bookstore-ml-scheduled\n"
        "    app.kubernetes.io/name: recommender-train\nspec:",
        "  labels: 42\nspec:",
    ),
    "a comment": (
        "workloads/bookstore-ml/job.yaml",
        "apiVersion: batch/v1",
        "# note\napiVersion: batch/v1",
    ),
}


@pytest.fixture(scope="module")
def repository(tmp_path_factory) -> Path:
    return _copy_repository(tmp_path_factory.mktemp("repository"))


def _findings(done: subprocess.CompletedProcess) -> list[dict]:
    """The errors and warnings, less the repository's standing ones: its notes (kinds not judged)
    and the placeholder owner trainops.yaml acknowledges (provenance.placeholder) until
    `trainops adopt`."""
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return [
        f
        for f in json.loads(done.stdout)
        if f["severity"] != "note" and (f["rule"], f["severity"]) != ("provenance", "warning")
    ]


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_the_file_mode_fails_exactly_when_the_whole_run_does(mirror, repository, edit):
    file, old, new = EDITS[edit]
    original = (repository / file).read_text()
    _edit(repository / file, old, new)
    try:
        alone = run_trainops("validate", "--format", "json", file, cwd=repository)
        whole = run_trainops("validate", "--format", "json", cwd=repository)
    finally:
        (repository / file).write_text(original)
    assert alone.returncode == whole.returncode == (0 if edit == "a comment" else 1), (
        alone.stdout + alone.stderr
    )
    assert _findings(alone) == _findings(whole)
    assert f"note: {file}: checked in every root of trainops.yaml, 33 root(s)" in alone.stderr


def test_a_malformed_object_is_reported_at_its_own_file_and_field(mirror, repository):
    file, old, new = EDITS["labels: 42"]
    original = (repository / file).read_text()
    _edit(repository / file, old, new)
    try:
        done = run_trainops("validate", "--format", "json", file, cwd=repository)
    finally:
        (repository / file).write_text(original)
    [finding] = _findings(done)
    line = new.splitlines()[0]
    edited = original.replace(old, new).splitlines()
    assert (finding["rule"], finding["file"], finding["line"], finding["path"]) == (
        "malformed-object",
        file,
        edited.index(line) + 1,
        "metadata.labels",
    )
    assert finding["environments"] == ["cloud", "gpu", "kind", "mpi", "volcano"]


def test_standard_input_ignore_and_output(tmp_path):
    job = (REPO / "tests/rules/fixtures/api-validation/bad.yaml").read_text()
    from_file = run_trainops(
        "validate", "--format", "json", "bad.yaml", cwd=write_tree(tmp_path, {"bad.yaml": job})
    )
    report = tmp_path / "report.json"
    done = run_trainops(
        "validate", "--format", "json", "-o", str(report), "-", input=job, cwd=tmp_path
    )
    assert done.returncode == 1 and done.stdout == "", done.stderr
    piped = json.loads(report.read_text())
    assert {f["file"] for f in piped} == {"<stdin>"}
    assert [(f["rule"], f["line"], f["path"]) for f in piped] == [
        (f["rule"], f["line"], f["path"]) for f in json.loads(from_file.stdout)
    ]
    ignored = run_trainops(
        "validate",
        "--format",
        "json",
        "--ignore",
        "api-validation,partial-scope",
        "--ignore",
        "network-reachability",
        "bad.yaml",
        cwd=tmp_path,
    )
    assert {f["rule"] for f in _findings(ignored)} == {f["rule"] for f in piped} - {
        "api-validation",
        "partial-scope",
        "network-reachability",
    }
    refused = run_trainops("validate", "--ignore", "yaml-syntax", "bad.yaml", cwd=tmp_path)
    assert refused.returncode == 2
    assert "--ignore yaml-syntax: cannot be ignored" in refused.stderr
    unknown = run_trainops("validate", "--ignore", "no-such-rule", "bad.yaml", cwd=tmp_path)
    assert unknown.returncode == 2 and "no-such-rule" in unknown.stderr
    unwritable = run_trainops(
        "validate", "-o", str(tmp_path / "none" / "r.txt"), "bad.yaml", cwd=tmp_path
    )
    assert unwritable.returncode == 2
    assert "cannot write the report: No such file or directory" in unwritable.stderr
    not_utf8 = run_trainops("validate", "-", input=b"\xff\xfe", cwd=tmp_path)
    assert not_utf8.returncode == 2 and "standard input: not UTF-8" in not_utf8.stderr


def test_the_documented_ignore_example_is_valid_and_ignores(mirror, repository):
    page = (REPO / "docs" / "checking.md").read_text()
    block = page[page.index("```yaml\nignore:\n") + len("```yaml\n") :]
    example = block[: block.index("```")]
    config = repository / "trainops.yaml"
    original = config.read_text()
    pvc = repository / "workloads/bookstore-ml/pvc.yaml"
    claim = pvc.read_text()
    job = repository / "workloads/bookstore-ml/job.yaml"
    job_text = job.read_text()
    # The Job runs as another user than the other pods sharing the claim: a storage finding.
    job.write_text(job_text.replace("runAsUser: 65532", "runAsUser: 1000", 1))
    try:
        found = run_trainops("validate", "--format", "json", "--select", "storage", cwd=repository)
        assert {f["file"] for f in _findings(found)} == {"workloads/bookstore-ml/pvc.yaml"}
        config.write_text(original + "\n" + example)
        ignored = run_trainops(
            "validate", "--format", "json", "--select", "storage", cwd=repository
        )
        assert ignored.returncode == 0, ignored.stdout + ignored.stderr
        assert _findings(ignored) == []
    finally:
        config.write_text(original)
        pvc.write_text(claim)
        job.write_text(job_text)


# As found: a file in a subfolder of a kustomization (`extra/lq.yaml`), or one whose name the
# kustomization spells with a YAML escape, was "not checked" by the hook (exit 0), while the whole
# run failed on it.
def test_a_file_in_a_subfolder_however_it_is_named_is_checked(mirror, repository):
    folder = repository / "workloads" / "bookstore-ml"
    kustomization = (folder / "kustomization.yaml").read_text()
    spelled = '  - extra/bad.yaml\n  - "./extra//worse\\x2eyaml"\n'
    _edit(folder / "kustomization.yaml", "  - pvc.yaml\n", f"  - pvc.yaml\n{spelled}")
    bad = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n  namespace: bookstore-ml\n"
    write_tree(
        folder,
        {
            "extra/bad.yaml": bad.format("bad") + "data:\n  retries: 3\n",
            "extra/worse.yaml": bad.format("worse") + "data:\n  retries: 4\n",
        },
    )
    files = ["workloads/bookstore-ml/extra/bad.yaml", "workloads/bookstore-ml/extra/worse.yaml"]
    try:
        alone = run_trainops("validate", "--format", "json", *files, cwd=repository)
        whole = run_trainops("validate", "--format", "json", cwd=repository)
    finally:
        (folder / "kustomization.yaml").write_text(kustomization)
        shutil.rmtree(folder / "extra")
    assert alone.returncode == whole.returncode == 1, alone.stdout + alone.stderr
    assert "not checked" not in alone.stderr
    assert _findings(alone) == _findings(whole)
    assert {f["file"] for f in _findings(alone)} == set(files)


def test_the_config_file_is_checked_with_every_root(mirror, repository):
    # As found in review: `validate trainops.yaml` (which the hook passes when it changes) said
    # "not checked" and exited 0, while a registry changed there failed the whole run.
    config = repository / "trainops.yaml"
    original = config.read_text()
    assert "registry: " in original
    config.write_text(original.replace("registry: ", "registry: other.example/", 1))
    try:
        alone = run_trainops("validate", "--format", "json", "trainops.yaml", cwd=repository)
        whole = run_trainops("validate", "--format", "json", cwd=repository)
    finally:
        config.write_text(original)
    assert "not checked" not in alone.stderr
    assert alone.returncode == whole.returncode == 1, whole.stdout
    assert _findings(alone) == _findings(whole)
