"""crd-header: the note is required, must be accurate, and `trainops fix` writes it idempotently."""

from __future__ import annotations

import json
import shutil

from helpers import REPO, run_trainops, write_tree

QUEUE = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: q, namespace: ns}\nspec: {clusterQueue: cq}\n"
FLAVOR = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n"
NOTE = (
    "# Custom resources in this file, and the folder that installs each one's CRD\n"
    "# (apply that layer first; until then `kubectl apply --dry-run=client` fails as shown):\n"
    "#   LocalQueue kueue.x-k8s.io/v1beta2 (operators/kueue):\n"
    '#     no matches for kind "LocalQueue" in version "kueue.x-k8s.io/v1beta2"\n'
)


def tree(tmp_path, manifest: str):
    """A repository with this one's Kueue operator folder (and the component it uses) as its CRD
    root: the same files in the same places, so its render comes from the cache."""
    for folder in ("operators/kueue", "components/server-side-crds"):
        shutil.copytree(REPO / folder, tmp_path / folder, dirs_exist_ok=True)
    return write_tree(
        tmp_path,
        {
            "trainops.yaml": "kubernetesVersions: [v1.32]\ncrdRoots: [operators/*]\n",
            "manifests/queues.yaml": manifest,
        },
    )


def header_findings(tmp_path) -> list[tuple[int, str]]:
    done = run_trainops(
        "validate", "--format", "json", "--select", "crd-header", "manifests", cwd=tmp_path
    )
    assert done.returncode in (0, 1), done.stderr
    return [(f["line"], f["message"]) for f in json.loads(done.stdout)]


def test_good(mirror, tmp_path):
    assert header_findings(tree(tmp_path, NOTE + "# my own comment\n" + QUEUE)) == []


def test_missing_note(mirror, tmp_path):
    assert header_findings(tree(tmp_path, QUEUE + "---\n" + FLAVOR)) == [
        (1, "no note for LocalQueue kueue.x-k8s.io/v1beta2, ResourceFlavor kueue.x-k8s.io/v1beta2")
    ]


def test_inaccurate_note(mirror, tmp_path):
    wrong = (
        NOTE.replace("operators/kueue", "operators/jobset")
        + "#   Cohort kueue.x-k8s.io/v1beta2 (operators/kueue):\n"
        '#     no matches for kind "Cohort" in version "kueue.x-k8s.io/v1beta2"\n'
    )
    assert sorted(header_findings(tree(tmp_path, wrong + QUEUE + "---\n" + FLAVOR))) == [
        (1, "the note names Cohort kueue.x-k8s.io/v1beta2, which this file does not hold"),
        (1, "the note omits ResourceFlavor kueue.x-k8s.io/v1beta2"),
        (
            1,
            "the note says LocalQueue kueue.x-k8s.io/v1beta2 comes from operators/jobset; its CRD comes from operators/kueue",
        ),
    ]


def test_a_file_of_core_kinds_needs_no_note(mirror, tmp_path):
    assert (
        header_findings(tree(tmp_path, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"))
        == []
    )


def test_fix_writes_the_note_keeps_the_rest_and_is_idempotent(mirror, tmp_path):
    body = "# my own comment\n" + QUEUE + "---\n" + FLAVOR
    tree(tmp_path, body)
    first = run_trainops("fix", "manifests", cwd=tmp_path)
    assert first.returncode == 0 and "1 file(s) changed" in first.stdout
    text = (tmp_path / "manifests" / "queues.yaml").read_text()
    assert text.endswith(body) and text.startswith(NOTE.split("#   ")[0])
    assert header_findings(tmp_path) == []
    second = run_trainops("fix", "manifests", cwd=tmp_path)
    assert "0 file(s) changed" in second.stdout
    assert (tmp_path / "manifests" / "queues.yaml").read_text() == text


def test_fix_check_and_diff_write_nothing_and_exit_1_when_a_file_would_change(mirror, tmp_path):
    body = QUEUE
    tree(tmp_path, body)
    checked = run_trainops("fix", "--check", "manifests", cwd=tmp_path)
    assert checked.returncode == 1, checked.stderr
    assert "manifests/queues.yaml: no note for LocalQueue kueue.x-k8s.io/v1beta2" in checked.stdout
    assert "1 file(s) would change" in checked.stdout
    diffed = run_trainops("fix", "--diff", "manifests", cwd=tmp_path)
    assert diffed.returncode == 1
    assert diffed.stdout.startswith("--- a/manifests/queues.yaml\n+++ b/manifests/queues.yaml\n")
    assert "+#   LocalQueue kueue.x-k8s.io/v1beta2 (operators/kueue):\n" in diffed.stdout
    assert (tmp_path / "manifests" / "queues.yaml").read_text() == body
    assert run_trainops("fix", "manifests", cwd=tmp_path).returncode == 0
    assert run_trainops("fix", "--check", "manifests", cwd=tmp_path).returncode == 0
