"""CRD roots render for plain files only when an object may need their schemas (check/validate.py,
load_with_crd_roots): ten thousand Deployments need none, and a first run should not wait on
operators' renders for them."""

from __future__ import annotations

import pytest

from helpers import run_trainops, write_tree

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n"
# A CRD root that cannot render: whenever it is rendered, its failure is a finding.
BROKEN_CRD_ROOT = {
    "trainops.yaml": "kubernetesVersions: [v1.32]\ncrdRoots: [crds]\n",
    "crds/kustomization.yaml": "resources:\n  - missing.yaml\n",
}


def _validate(tmp_path, manifests: dict[str, str]):
    write_tree(tmp_path, {**BROKEN_CRD_ROOT, **manifests})
    env = {"TRAINOPS_CACHE_DIR": str(tmp_path / "cache")}
    done = run_trainops("validate", "manifests", cwd=tmp_path, env=env)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_built_in_kinds_alone_do_not_render_the_crd_roots(tmp_path):
    done = _validate(tmp_path, {"manifests/cm.yaml": CONFIG_MAP})
    assert done.returncode == 0, done.stdout
    assert "0 of 0 render(s)" in done.stdout and "render-failed" not in done.stdout


@pytest.mark.parametrize(
    "held",
    [
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: p}\nspec: {}\n",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        "metadata: {name: widgets.example.com}\nspec: {}\n",
        "apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: d}\nspec: {}\n",
    ],
    ids=["custom-resource", "crd", "kind-no-version-serves"],
)
def test_an_object_that_may_need_their_schemas_renders_them(tmp_path, held):
    done = _validate(tmp_path, {"manifests/cm.yaml": CONFIG_MAP, "manifests/held.yaml": held})
    assert done.returncode == 1
    assert "error [render-failed]" in done.stdout and "missing.yaml" in done.stdout


def test_a_crd_root_read_for_its_schemas_alone_is_rendered_without_origins(tmp_path, monkeypatch):
    # Origins name the files of a root's objects for findings; a CRD root read only for its
    # CRDs' schemas has none, and origins cost most of a build of an operator's base.
    from trainops.check.validate import Root, validate
    from trainops.model.config import load_config
    from trainops.render.kustomize import find_kustomize
    from trainops.render.renderer import Renderer
    from trainops.rules import RULES

    widget_crd = (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
        "metadata: {name: widgets.example.com}\nspec:\n  group: example.com\n"
        "  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}\n"
        "  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n"
        "      storage: true\n      schema:\n        openAPIV3Schema: {type: object, "
        "properties: {spec: {type: object, properties: {size: {type: integer}}}}}\n"
    )
    write_tree(
        tmp_path,
        {
            "trainops.yaml": "kubernetesVersions: [v1.32]\ncrdRoots: [crds]\n",
            "crds/kustomization.yaml": "resources:\n  - widgets.yaml\n",
            "crds/widgets.yaml": widget_crd,
            "manifests/w.yaml": "apiVersion: example.com/v1\nkind: Widget\n"
            "metadata: {name: w, namespace: default}\nspec: {size: big}\n",
        },
    )
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    asked: list[tuple[str, bool]] = []
    real = Renderer.output

    def output(self, directory, env, origins, values_only=False):
        asked.append((directory.name, origins))
        return real(self, directory, env, origins, values_only)

    monkeypatch.setattr(Renderer, "output", output)
    config = load_config(None, RULES)
    outcome = validate([Root(tmp_path / "manifests")], Renderer(find_kustomize()), config=config)
    assert asked == [("crds", False)]
    found = {(f.rule, f.path): f.message for f in outcome.findings}
    assert found[("schema", "spec.size")] == (
        '"big" is not of type "integer" (CRD widgets.example.com)'
    )


def test_crd_roots_load_from_the_first_parse_that_needs_them():
    # They start alongside the rest of the files, once: any later object only adds to the need.
    import threading

    from trainops.check.validate import _EarlyLoad
    from trainops.model.objects import parse_stream

    started = threading.Event()
    loads: list[str] = []

    def load():
        loads.append("crd roots")
        started.set()
        return ["loaded"]

    early = _EarlyLoad(load, lambda found: any(o.kind == "PyTorchJob" for o in found), None)
    assert early.result() is None  # never started: the caller loads them if it must
    early.seen([parse_stream(CONFIG_MAP, "cm.yaml")])
    assert not started.wait(0.2)
    job = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: p}\nspec: {}\n"
    early.seen([parse_stream(job, "job.yaml")])
    early.seen([parse_stream(job, "another.yaml")])
    assert started.wait(5)
    assert early.result() == ["loaded"] and loads == ["crd roots"]

    def fails():
        raise RuntimeError("the render's own error")

    failing = _EarlyLoad(fails, lambda found: True, None)
    failing.seen([])
    with pytest.raises(RuntimeError, match="the render's own error"):
        failing.result()
