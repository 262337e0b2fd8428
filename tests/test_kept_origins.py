"""Origins kept across an edit to a patch (render/renderer.py, _with_kept_origins): the render
without kustomize's origin annotations must place every object exactly where a full build with
them does, and anything else must fall back to that build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import MIRROR, REPO, write_tree
from trainops.check.validate import _locate
from trainops.model import objects
from trainops.render import render_cache
from trainops.render.kustomize import find_kustomize
from trainops.render.renderer import Renderer

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
        - name: main
          image: example.com/app:1
"""
SERVICE = (
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  ports: [{{port: 80}}]\n"
)


@pytest.fixture
def tree(tmp_path, monkeypatch, mirror) -> Path:
    """A root with a local file, a local base, a generator, a patch, and an operator root whose
    remote base (JobSet's, from the mirror) is what makes the annotations cost."""
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "cache"))
    for folder in ("operators/jobset", "components/server-side-crds"):
        shutil.copytree(REPO / folder, tmp_path / "t" / folder)
    write_tree(
        tmp_path / "t",
        {
            "root/kustomization.yaml": "resources:\n  - a.yaml\n  - ../base\n"
            "  - ../operators/jobset\n"
            "patches:\n  - path: patch.yaml\n    target: {kind: Deployment, name: web}\n"
            "configMapGenerator:\n  - name: settings\n    literals: [a=1]\n"
            "commonLabels: {team: a}\n",
            "root/a.yaml": "# first\n"
            + DEPLOYMENT.format(name="web")
            + "---\n"
            + SERVICE.format(name="web"),
            "root/patch.yaml": "- op: add\n  path: /spec/replicas\n  value: 2\n",
            "base/kustomization.yaml": "resources:\n  - b.yaml\n",
            "base/b.yaml": "\n\n" + DEPLOYMENT.format(name="worker"),
        },
    )
    return tmp_path / "t"


def _placed(renderer: Renderer, root: Path) -> tuple[dict, object]:
    """Each object's identity: (file, line) as validate places it (from the render's own parse
    when it hands one over, as validate reads it); and the render's origins."""
    output = renderer.render(root)
    assert (output.parsed is not None) == (output.origins.kept is not None and not output.cached)
    parsed = output.parsed or objects.parse_stream(output.text, "render", lines=False)
    placed = {}
    for obj in parsed.objects:
        _locate(obj, output.origins)
        placed[(obj.kind, obj.name)] = (obj.file, obj.line, obj.doc.get("spec"))
    return placed, output.origins


def _full(root: Path) -> dict:
    """What a build with kustomize's own origin annotations places, with no cache at all."""
    return _placed(Renderer(find_kustomize(), MIRROR, use_cache=False), root)[0]


def test_an_edited_patch_renders_without_annotations_and_places_alike(tree):
    root = tree / "root"
    renderer = Renderer(find_kustomize(), MIRROR)
    first, origins = _placed(renderer, root)
    assert origins.kept is None  # the first build asks kustomize, and keeps what it said
    assert first == _full(root)
    file, line, _ = first[("Deployment", "worker")]
    assert file.endswith("base/b.yaml") and line == 3

    (root / "patch.yaml").write_text((root / "patch.yaml").read_text().replace("2", "5"))
    objects.forget_parsed()
    again, origins = _placed(renderer, root)
    assert origins.kept is not None  # no annotations asked for: the kept origins placed them
    assert again == _full(root)
    assert again[("Deployment", "web")][2]["replicas"] == 5


def _renaming_patch(root: Path) -> None:
    # Only the patch file changes (the skeleton does not): the kept origins are found to be for
    # other objects, and the build asks kustomize again.
    (root / "patch.yaml").write_text("- op: replace\n  path: /metadata/name\n  value: renamed\n")


@pytest.mark.parametrize(
    "edit",
    [
        # The Service moves to another file: a resource file changed, so did the skeleton.
        lambda root: (
            (root / "a.yaml").write_text("# first\n" + DEPLOYMENT.format(name="web")),
            (root / "s.yaml").write_text(SERVICE.format(name="web")),
            (root / "kustomization.yaml").write_text(
                (root / "kustomization.yaml")
                .read_text()
                .replace("- a.yaml", "- a.yaml\n  - s.yaml")
            ),
        ),
        # The patch renames the Deployment: not the objects the origins were kept for.
        lambda root: _renaming_patch(root),
    ],
    ids=["resource-moved", "patch-renames"],
)
def test_other_edits_build_with_annotations_again(tree, edit):
    root = tree / "root"
    renderer = Renderer(find_kustomize(), MIRROR)
    _placed(renderer, root)
    edit(root)
    objects.forget_parsed()
    again, origins = _placed(renderer, root)
    assert origins.kept is None  # kustomize's annotations, not the kept origins
    assert again == _full(root)


def test_patch_only_files_are_the_patches_nothing_else_reads(tree):
    from trainops.render import kustomization

    root = tree / "root"
    folders = kustomization.reachable(root)
    patches = kustomization.patch_only_files(folders)
    assert (root / "patch.yaml").resolve() in patches
    assert (tree / "operators" / "jobset" / "deployment-patch.yaml").resolve() in patches
    assert not {(root / "a.yaml").resolve(), (tree / "base" / "b.yaml").resolve()} & patches
    (root / "kustomization.yaml").write_text(
        (root / "kustomization.yaml").read_text().replace("- a.yaml", "- a.yaml\n  - patch.yaml")
    )
    assert (root / "patch.yaml").resolve() not in kustomization.patch_only_files(
        kustomization.reachable(root)
    )


def test_a_kept_entry_of_another_shape_is_a_miss(tree):
    key = render_cache.skeleton_key(find_kustomize(), MIRROR, tree / "root")
    assert key is not None
    for payload in (b"[1]", b'[["v1", "Service", "", "s", "elsewhere", "x", true]]', b"{}"):
        from trainops.model import cache

        cache.store(render_cache.KEPT_FOLDER, key.digest, payload)
        assert render_cache.load_kept(key) is None


def test_the_repository_operator_layers_place_alike_after_a_patch_edit(
    tmp_path, monkeypatch, mirror
):
    # The case it is for: an operator root's local patch edited, every environment's operators
    # layer rendered again without annotations, each object placed as the full build places it.
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "cache"))
    copy = tmp_path / "repo"
    for folder in ("operators", "overlays", "components", "base"):
        shutil.copytree(REPO / folder, copy / folder)
    renderer = Renderer(find_kustomize(), mirror)
    root = copy / "overlays" / "kind" / "operators"
    _placed(renderer, root)
    patch = copy / "operators" / "training-operator" / "deployment-patch.yaml"
    patch.write_text(patch.read_text() + "\n# edited\n")
    objects.forget_parsed()
    again, origins = _placed(renderer, root)
    assert origins.kept is not None
    assert again == _placed(Renderer(find_kustomize(), mirror, use_cache=False), root)[0]
