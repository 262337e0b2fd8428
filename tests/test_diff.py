"""`trainops diff` on a scratch git repository: a KubeRay pin bump (which bumps its CRDs and its
operator image, rendered from the offline mirror), an image change in an overlay, an edit to a
ConfigMap, and reordering/reformatting noise that must not show."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from helpers import git, run_trainops, write_tree
from trainops.commands.diff import FORMATS
from trainops.render.kustomize import find_kustomize
from trainops.render.renderer import Renderer
from trainops.render.revisions import resolve
from trainops.report.reviews import REVIEW_REPORTERS
from trainops.review.compare import review

KUBERAY = "https://github.com/ray-project/kuberay.git//ray-operator/config/default?ref={ref}"
APP_KUSTOMIZATION = """resources:
  - app.yaml
images:
  - name: example.com/web
    newTag: {tag}
"""
BASE_APP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: web
data:
  mode: fast
  retries: "3"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: example.com/web
          args: ["--port", "8080"]
        - name: sidecar
          image: example.com/sidecar:latest
"""
# The same Deployment with its keys, quoting and containers reordered (no change), the sidecar
# pinned (fixes a finding) and the ConfigMap's mode changed.
HEAD_APP = """apiVersion: v1
kind: ConfigMap
metadata:
  namespace: web
  name: settings
data:
  retries: '3'
  mode: safe
---
kind: Deployment
apiVersion: apps/v1
metadata: {name: web, namespace: web}
spec:
  template:
    spec:
      containers:
        - image: "example.com/sidecar:2.0"
          name: sidecar
        - name: web
          args:
            - --port
            - "8080"
          image: example.com/web
    metadata:
      labels:
        app: web
  selector:
    matchLabels:
      app: web
"""
SIDECAR = "spec.template.spec.containers[name=sidecar].image"
WEB = "spec.template.spec.containers[name=web].image"


def _tree(ref: str, tag: str, app: str) -> dict[str, str]:
    return {
        "trainops.yaml": "roots: [operators/kuberay, apps]\ncrdRoots: [operators/kuberay]\n",
        # The repository's own kuberay folder patches a Deployment v1.7.0 renames; a namespace keeps it simple.
        "operators/kuberay/kustomization.yaml": f"namespace: ray-system\nresources:\n  - {KUBERAY.format(ref=ref)}\n",
        "apps/kustomization.yaml": APP_KUSTOMIZATION.format(tag=tag),
        "apps/app.yaml": app,
    }


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A git repository with two commits: `base`, and `head` (the bump)."""
    repo = tmp_path_factory.mktemp("scratch")
    git(repo, "init", "-q")
    write_tree(repo, _tree("v1.2.2", '"1.0"', BASE_APP))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "tag", "base")
    write_tree(repo, _tree("v1.7.0", "latest", HEAD_APP))
    git(repo, "commit", "-qam", "bump")
    git(repo, "tag", "head")
    return repo


@pytest.fixture(scope="module")
def reviewed(scratch, mirror):
    renderer = Renderer(find_kustomize(), mirror)
    return review(scratch, ".", resolve(scratch, "base"), resolve(scratch, "head"), None, renderer)


def _report(review_result, fmt: str) -> str:
    out = io.StringIO()
    REVIEW_REPORTERS[fmt](review_result, out)
    return out.getvalue()


def test_objects_and_field_paths(reviewed):
    data = json.loads(_report(reviewed, "json"))
    roots = {r["root"]: r for r in data["roots"]}
    apps = {(o["kind"], o["name"]): o for o in roots["apps"]["objects"]}
    # Reordered keys, containers and quoting are no change; only these fields changed.
    assert [(f["path"], f["old"], f["new"]) for f in apps[("ConfigMap", "settings")]["fields"]] == [
        ("data.mode", "fast", "safe")
    ]
    assert [(f["path"], f["old"], f["new"]) for f in apps[("Deployment", "web")]["fields"]] == [
        (WEB, "example.com/web:1.0", "example.com/web:latest"),
        (SIDECAR, "example.com/sidecar:latest", "example.com/sidecar:2.0"),
    ]
    kuberay = {(o["change"], o["kind"], o["name"]) for o in roots["operators/kuberay"]["objects"]}
    assert ("added", "CustomResourceDefinition", "raycronjobs.ray.io") in kuberay
    assert ("changed", "CustomResourceDefinition", "rayclusters.ray.io") in kuberay
    deployment = next(o for o in roots["operators/kuberay"]["objects"] if o["kind"] == "Deployment")
    image = next(
        f
        for f in deployment["fields"]
        if f["path"] == "spec.template.spec.containers[name=kuberay-operator].image"
    )
    assert (image["old"], image["new"]) == (
        "quay.io/kuberay/operator:v1.2.2",
        "quay.io/kuberay/operator:v1.7.0",
    )


def test_pins_images_breaking_changes_and_findings(reviewed):
    data = json.loads(_report(reviewed, "json"))
    assert data["pins"] == [
        {
            "kind": "remote base",
            "what": "https://github.com/ray-project/kuberay.git//ray-operator/config/default",
            "old": "v1.2.2",
            "new": "v1.7.0",
            "where": "operators/kuberay/kustomization.yaml:3",
        }
    ]
    images = {i["name"]: (i["old"], i["new"], i["where"]) for i in data["images"]}
    assert images == {
        "example.com/web": (["1.0"], ["latest"], "apps/kustomization.yaml:4"),
        "example.com/sidecar": (["latest"], ["2.0"], None),
        "quay.io/kuberay/operator": (["v1.2.2"], ["v1.7.0"], None),
    }
    breaking = {
        (c["crd"], c["version"], c["path"], c["message"])
        for c in data["crdChanges"]
        if c["breaking"]
    }
    assert (
        "rayservices.ray.io",
        "v1",
        "spec.rayClusterConfig",
        "field became required",
    ) in breaking
    assert (
        "rayclusters.ray.io",
        "v1",
        "spec.headGroupSpec.template.spec.resourceClaims[].source",
        "field removed",
    ) in breaking
    compatible = {(c["crd"], c["message"]) for c in data["crdChanges"] if not c["breaking"]}
    assert ("raycronjobs.ray.io", "CRD added, serving v1") in compatible
    introduced = {(f["rule"], f["file"], f["path"]) for f in data["findings"]["introduced"]}
    fixed = {(f["rule"], f["file"], f["path"]) for f in data["findings"]["fixed"]}
    assert ("pinned", "apps/app.yaml", "spec.template.spec.containers[1].image") in introduced
    assert (
        "pinned",
        "apps/app.yaml",
        "spec.template.spec.containers[1].image",
    ) in fixed  # the sidecar, first before
    # The CRD grew past the client-side apply limit: a finding the bump introduced, named at its new ref.
    assert any(
        f["rule"] == "layer-order" and "rayclusters.ray.io" in f["message"]
        for f in data["findings"]["introduced"]
    )
    assert data["summary"]["breaking"] == len(breaking)


def test_text_format(reviewed):
    text = _report(reviewed, "text")
    assert (
        "remote base https://github.com/ray-project/kuberay.git//ray-operator/config/default: v1.2.2 → v1.7.0"
        in text
    )
    assert "example.com/web: 1.0 → latest  (apps/kustomization.yaml:4)" in text
    assert "breaking rayservices.ray.io v1 spec.rayClusterConfig: field became required" in text
    assert "compatible raycronjobs.ray.io: CRD added, serving v1" in text
    assert "Findings introduced" in text and "Findings fixed" in text
    assert "data.mode: fast → safe" in text
    assert f"{WEB}: example.com/web:1.0 → example.com/web:latest" in text
    assert "\x1b[" not in text  # no colour when not a terminal


def test_markdown_format(reviewed):
    markdown = _report(reviewed, "markdown")
    assert markdown.startswith("### trainops diff: `base (")
    assert (
        "| remote base | https://github.com/ray-project/kuberay.git//ray-operator/config/default | v1.2.2 | v1.7.0 | operators/kuberay/kustomization.yaml:3 |"
        in markdown
    )
    assert "#### Breaking CRD changes" in markdown
    assert "| rayservices.ray.io | v1 | spec.rayClusterConfig | field became required |" in markdown
    assert "> [!CAUTION]" in markdown and "#### Findings introduced" in markdown
    # Each root folded, its changes in a diff block.
    assert "<details><summary><code>apps</code>: +0 −0 ~2</summary>" in markdown
    assert "<details><summary><code>operators/kuberay</code>:" in markdown
    assert f"  {WEB}:\n-     example.com/web:1.0\n+     example.com/web:latest" in markdown
    assert markdown.count("<details") == markdown.count("</details>")
    assert len(markdown) < 65536


def test_cli_exit_codes_and_json(scratch, mirror):
    done = run_trainops(
        "diff", "--base", "base", "--head", "head", "--format", "json", "apps", cwd=scratch
    )
    assert done.returncode == 1, done.stderr  # the change introduces a finding
    data = json.loads(done.stdout)
    assert [r["root"] for r in data["roots"]] == ["apps"]
    assert data["base"]["ref"] == "base" and len(data["base"]["commit"]) == 40
    # The working tree is the head by default; nothing changed since HEAD: exit 0.
    done = run_trainops("diff", ".", cwd=scratch / "apps")  # ROOT is relative to the working folder
    assert done.returncode == 0, done.stderr
    assert "0 of 1 root(s) changed" in done.stdout


def test_cli_cannot_run_is_one_line(scratch, tmp_path):
    cases = [
        (("diff", "--base", "no-such-ref", "apps"), scratch, "no-such-ref: not a commit in"),
        (("diff", "nowhere"), scratch, "nowhere: no such root at HEAD"),
        (("diff", "/"), scratch, "/: not inside the repository"),
        (("diff",), tmp_path, "not inside a git repository"),
        (("diff",), tmp_path / "fresh", "has no commits yet; commit, then compare"),
    ]
    (tmp_path / "fresh").mkdir()
    git(tmp_path / "fresh", "init", "-q")
    for args, cwd, expected in cases:
        done = run_trainops(*args, cwd=cwd)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        [line] = done.stderr.strip().splitlines()
        assert expected in line, line


def test_a_root_that_stops_rendering_is_reported_and_fails(tmp_path):
    write_tree(
        tmp_path,
        {
            "app/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
        },
    )
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    (tmp_path / "app" / "kustomization.yaml").write_text("resources:\n  - gone.yaml\n")
    done = run_trainops("diff", "--format", "json", "app", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    [root] = data["roots"]
    assert root["status"] == "failed" and "'gone.yaml' does not exist" in root["failure"]
    assert [f["rule"] for f in data["findings"]["introduced"]] == ["render-failed"]
    text = run_trainops("diff", "app", cwd=tmp_path).stdout
    assert "does not render: app/kustomization.yaml:2" in text


def test_the_formats_diff_offers_are_the_reporters_it_has():
    # Named in the command without importing the reporters (a `validate` run never needs them).
    assert tuple(sorted(REVIEW_REPORTERS)) == FORMATS


def _secret(name: str, values: dict[str, str], field: str = "stringData") -> str:
    items = "".join(f"  {key}: {value}\n" for key, value in values.items())
    return f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\n  namespace: web\n{field}:\n{items}"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_secrets_values_are_never_shown_only_which_keys_changed(tmp_path, fmt):
    # As found: `stringData.key: SUPERSECRET-ONE → SUPERSECRET-TWO`, in the markdown meant for a
    # pull-request comment too.
    write_tree(
        tmp_path,
        {
            "app/kustomization.yaml": "resources:\n  - kept.yaml\n  - gone.yaml\n",
            "app/kept.yaml": _secret(
                "kept", {"key": "SUPERSECRET-ONE", "same": "SUPERSECRET-SAME"}
            ),
            "app/gone.yaml": _secret("gone", {"key": "SUPERSECRET-GONE"}, "data"),
        },
    )
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    write_tree(
        tmp_path,
        {
            "app/kustomization.yaml": "resources:\n  - kept.yaml\n  - new.yaml\n",
            "app/kept.yaml": _secret(
                "kept",
                {
                    "key": "SUPERSECRET-TWO",
                    "same": "SUPERSECRET-SAME",
                    "added": "SUPERSECRET-ADDED",
                },
            ),
            "app/new.yaml": _secret("new", {"key": "SUPERSECRET-NEW"}),
        },
    )
    (tmp_path / "app" / "gone.yaml").unlink()
    done = run_trainops("diff", "--format", fmt, "app", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert "SUPERSECRET" not in done.stdout + done.stderr
    assert "(hidden; changed)" in done.stdout and "stringData.key" in done.stdout
    assert "stringData.same" not in done.stdout  # an unchanged value is no change
