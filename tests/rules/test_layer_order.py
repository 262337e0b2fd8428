"""layer-order on the repository's own environments, and on CRD size."""

from __future__ import annotations

import json
import shutil
import subprocess

from helpers import REPO, rendered_docs, run_trainops, write_tree

ROOTS = [
    "overlays/kind/operators",
    "overlays/kind/platform",
    "overlays/kind/workloads",
    "gitops/argocd/kind/apps",
    "gitops/flux/kind",
]


def copy_repository(target):
    """The working tree's files (tracked, and new ones not ignored), as validate sees them."""
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    for name in files:
        if not (REPO / name).is_file():
            continue  # deleted in the working tree
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target / name)
    return target


def layer_findings(repo):
    done = run_trainops("validate", "--format", "json", "--select", "layer-order", *ROOTS, cwd=repo)
    assert done.returncode in (0, 1), done.stderr
    return sorted((f["file"], f["message"]) for f in json.loads(done.stdout))


def test_good_the_repository_applies_every_crd_first(mirror, tmp_path):
    assert layer_findings(copy_repository(tmp_path)) == []


def _edit(repo, edits: dict[str, tuple[str, str]]) -> None:
    for name, (old, new) in edits.items():
        path = repo / name
        assert old in path.read_text(), name
        path.write_text(path.read_text().replace(old, new))


def test_bad_layers_waves_and_dependencies(mirror, tmp_path):
    repo = copy_repository(tmp_path)
    _edit(
        repo,
        {
            "gitops/argocd/kind/apps/platform.yaml": (
                'argocd.argoproj.io/sync-wave: "1"',
                'argocd.argoproj.io/sync-wave: "0"',
            ),
            "gitops/flux/kind/layers.yaml": ("  dependsOn:\n    - name: trainops-platform\n", ""),
            "overlays/kind/platform/kustomization.yaml": (
                "resources:\n  - ../../../base\n",
                "resources:\n  - ../../../base\n  - ../../../operators/jobset\n",
            ),
        },
    )
    messages = [message for _, message in layer_findings(repo)]
    assert (
        "Application trainops-kind-platform (wave 0) applies ClusterQueue, LocalQueue, ResourceFlavor, WorkloadPriorityClass, whose CRDs come from Application trainops-kind-operators (wave 0)"
        in messages
    )
    assert (
        "Kustomization trainops-workloads applies JobSet, PyTorchJob, RayJob, whose CRDs come from Kustomization trainops-operators, which it does not depend on"
        in messages
    )
    # JobSet's CRD now also comes in the platform layer: nothing there uses it, so no layer finding;
    # but the Kueue objects of the platform layer stay after their CRD (operators): no finding either.
    assert not any("is applied in platform" in m for m in messages)
    assert not any("server-side" in m for m in messages)


def test_the_real_rayjob_crd_without_its_server_side_marks_fails(renderer, tmp_path):
    # KubeRay's RayJob CRD, as the pinned release ships it, is past the client-side apply limit:
    # without the marks components/server-side-crds gives it, layer-order fails it. (From the
    # render the suite shares: the KubeRay root edited would be rendered again for this alone.)
    [crd] = [
        doc
        for doc in rendered_docs(renderer, REPO / "operators" / "kuberay")
        if doc["kind"] == "CustomResourceDefinition" and doc["metadata"]["name"] == "rayjobs.ray.io"
    ]
    del crd["metadata"]["labels"]["trainops.dev/apply"]
    del crd["metadata"]["annotations"]["argocd.argoproj.io/sync-options"]
    write_tree(
        tmp_path,
        {"trainops.yaml": "kubernetesVersions: [v1.32]\n", "crds/rayjobs.yaml": json.dumps(crd)},
    )
    done = run_trainops(
        "validate", "--format", "json", "--select", "layer-order", "crds", cwd=tmp_path
    )
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)
    assert finding["message"].startswith("CRD rayjobs.ray.io is ")
    assert "not marked for server-side apply" in finding["message"]


def test_a_large_crd_needs_the_server_side_marker(tmp_path):
    big = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "bigs.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Big", "plural": "bigs"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "description": "x" * 270000}},
                }
            ],
        },
    }
    write_tree(
        tmp_path,
        {"trainops.yaml": "kubernetesVersions: [v1.32]\n", "crds/big.yaml": json.dumps(big)},
    )
    done = run_trainops(
        "validate", "--format", "json", "--select", "layer-order", "crds", cwd=tmp_path
    )
    [finding] = json.loads(done.stdout)
    assert (
        finding["message"].startswith("CRD bigs.example.com is 27")
        and "not marked for server-side apply" in finding["message"]
    )
    big["metadata"]["labels"] = {"trainops.dev/apply": "server-side"}
    (tmp_path / "crds" / "big.yaml").write_text(json.dumps(big))
    done = run_trainops(
        "validate", "--format", "json", "--select", "layer-order", "crds", cwd=tmp_path
    )
    assert json.loads(done.stdout) == []


def test_a_sync_wave_argo_cd_cannot_parse_is_wave_0(findings_of):
    [finding] = findings_of("layer-order", "bad-wave.yaml")
    assert (finding.line, finding.path) == (9, "metadata.annotations.argocd.argoproj.io/sync-wave")
    assert finding.message == (
        "Application trainops-platform: sync wave '1.5' is not an integer, so Argo CD applies it "
        "in wave 0"
    )
