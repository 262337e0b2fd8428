"""Remote bases composed with their CRD schemas rendered once (render/crd_stubs.py) print exactly
what a full kustomize build prints: on every root of the repository, and on composed operators
whose local layers transform the base's CRDs in every way kustomize can. Where a layer touches a
CRD's versions, the render falls back to a full build and says so."""

from __future__ import annotations

import json
import marshal
import os
from pathlib import Path

import pytest
import yaml
import yaml_rs
from hypothesis import example, given
from hypothesis import strategies as st

from helpers import REPO, commit_slice, load_docs, write_tree
from trainops.model.objects import take_origin
from trainops.render import crd_stubs, kustomization
from trainops.render.kustomize import find_kustomize
from trainops.render.renderer import Output, Renderer

KUEUE = "https://github.com/kubernetes-sigs/kueue.git//config/default?ref=v0.18.6"
TRAINING = (
    "https://github.com/kubeflow/training-operator.git//manifests/overlays/standalone?ref=v1.8.1"
)


def _renderers(mirror: Path) -> tuple[Renderer, Renderer]:
    backend = find_kustomize()
    return (
        Renderer(backend, mirror, use_cache=False, compose=True),
        Renderer(backend, mirror, use_cache=False, compose=False),
    )


def _origins(output: Output) -> list[tuple[str, str, str | None]]:
    """Each object's identity and where trainops files it, from an origin-annotated render."""
    found = []
    for doc in load_docs(output.text):
        origin = take_origin(doc)
        where = output.origins(origin) if origin else ("", None)
        found.append((f"{doc['kind']}/{doc['metadata'].get('name')}", *where))
    return found


def _roots() -> list[Path]:
    tops = ["operators", "overlays", "gitops/crds", "components", "base", "workloads"]
    return sorted(
        {root for top in tops for root in kustomization.discover_roots(REPO / top)}
        | {REPO / "operators" / name for name in os.listdir(REPO / "operators")}
    )


class _EveryRoot:
    """The roots of the repository and the renders both proofs below read: each root's full
    build and its composed render, made when the first proof asks for them and given to the
    other (a full build of an operators layer is most of the proofs' cost; they ran 95 s of CPU
    apart, 71 s sharing). Each proof asks once per root; the second ask drops what was kept, so
    tens of MB of renders do not outlive the proofs. Their other renders are each proof's own.

    Full builds of every root cost over a minute of each run, most of it the operators layers:
    each run makes the comparisons of one of SLICES slices, chosen by the commit
    (helpers.commit_slice), and `make slices` makes them all. A root's two comparisons (its text,
    its objects' origins) are two cases, each one full build: the three operators layers with
    four or five remote bases make six cases of about 3.5 s, dealt to six slices of the twelve
    (a slice holding both of a layer's builds took twice that). Both proofs of a slice take about
    6.5 s here with one of those cases and 1.5 s without; of six slices, each took 7.5 to 9 s."""

    SLICES = 12

    def __init__(self, mirror: Path):
        self.composed, self.full = _renderers(mirror)
        # The roots compared in other slices are read from the suite's render cache (the same
        # renders `make validate` and the other tests make, keyed by this code and every input).
        self.cached = Renderer(self.composed.kustomize, mirror, use_cache=True, compose=True)
        self.all_roots = [r for r in _roots() if kustomization.kustomization_file(r) is not None]
        cases = [(root, check) for root in self.all_roots for check in ("text", "origins")]
        self.cases, self.slice = commit_slice(cases, self.SLICES, lambda c: _remote_entries(c[0]))
        # The values proof reads the roots whose text this slice compares (their full builds).
        self.roots = [root for root, check in self.cases if check == "text"]
        self._both = {root for root, check in self.cases if check == "origins"} & set(self.roots)
        self._full_builds: dict[Path, str] = {}
        self._composed_renders: dict[Path, Output] = {}

    def full_build(self, root: Path) -> str:
        return _made_once(self._full_builds, root, self.full.build)

    def composed_render(self, root: Path) -> Output:
        """Made once for the two proofs when both ask (the root's both cases are in the slice)."""
        if root not in self._both:
            return self.composed.render(root)
        return _made_once(self._composed_renders, root, self.composed.render)


def _remote_entries(root: Path) -> int:
    """How many remote bases a root reads, counted in each folder that lists one: what makes its
    full build long."""
    return sum(len(kustomization.remote_entries(f)) for f in kustomization.reachable(root))


def _made_once(kept: dict, root: Path, make):
    if root in kept:
        return kept.pop(root)
    kept[root] = made = make(root)
    return made


@pytest.fixture(scope="module")
def every_root(mirror) -> _EveryRoot:
    return _EveryRoot(mirror)


def test_every_root_of_the_repository_composes_byte_for_byte(every_root):
    composed, full, at = every_root.composed, every_root.full, every_root.slice
    remote = [r for r in every_root.all_roots if _remote_entries(r)]
    assert len(remote) >= 9  # each operator, each environment's operators layer, the GitOps CRDs
    # Each slice holds cases of roots with remote bases.
    assert set(remote) & {root for root, _ in every_root.cases}, at
    for root, check in every_root.cases:
        if check == "text":
            assert composed.build(root) == every_root.full_build(root), (root, at)
        else:
            composed_origins = _origins(every_root.composed_render(root))
            assert composed_origins == _origins(full.render(root)), (root, at)
    assert composed.notes == []  # nothing fell back: every root was composed


def _compose(tmp_path: Path, mirror: Path, files: dict[str, str]) -> tuple[str, list[str]]:
    root = write_tree(tmp_path / "tree", files) / "overlay"
    composed, full = _renderers(mirror)
    text = composed.build(root)
    assert text == full.build(root)
    return text, composed.notes


def _over_kueue(overlay: str) -> dict[str, str]:
    """A local operator root of Kueue's remote base, and `overlay` on top of it."""
    return {
        "operator/kustomization.yaml": f"resources: [{KUEUE}]\n",
        "overlay/kustomization.yaml": overlay,
    }


# Local layers that transform a remote base's CRDs without touching their versions: composed.
COMPOSED = {
    "prefix-namespace-labels": """
resources: [../operator]
namePrefix: team-
namespace: elsewhere
labels:
  - pairs: {owner: ml}
    includeSelectors: false
commonAnnotations: {note: composed}
""",
    "crd-metadata-patches": """
resources: [../operator]
patches:
  - target: {kind: CustomResourceDefinition}
    patch: |
      - op: add
        path: /metadata/labels/tier
        value: platform
  - target: {kind: CustomResourceDefinition, name: workloads.kueue.x-k8s.io}
    patch: |
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: workloads.kueue.x-k8s.io
        annotations: {patched: "yes"}
      spec:
        conversion:
          strategy: None
""",
    "crd-dropped": """
resources: [../operator]
patches:
  - patch: |
      $patch: delete
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: cohorts.kueue.x-k8s.io
""",
}

# Local layers that touch a CRD's versions: the render falls back to a full build.
FALLS_BACK = {
    "json-patch-into-versions": """
resources: [../operator]
patches:
  - target: {kind: CustomResourceDefinition, name: workloads.kueue.x-k8s.io}
    patch: |
      - op: replace
        path: /spec/versions/0/served
        value: false
""",
    "merge-patch-of-versions": """
resources: [../operator]
patches:
  - patch: |
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: cohorts.kueue.x-k8s.io
      spec:
        versions:
          - name: v1beta1
            served: false
""",
    "replacement-from-versions": """
resources: [../operator]
configMapGenerator:
  - name: versions
    literals: [first=unknown]
replacements:
  - source: {kind: CustomResourceDefinition, name: cohorts.kueue.x-k8s.io, fieldPath: spec.versions}
    targets:
      - select: {kind: ConfigMap, name: versions}
        fieldPaths: [data.first]
""",
}


@pytest.mark.parametrize("name", sorted(COMPOSED))
def test_layers_that_leave_versions_alone_are_composed(tmp_path, mirror, name):
    text, notes = _compose(
        tmp_path,
        mirror,
        _over_kueue(COMPOSED[name]),
    )
    assert notes == []
    assert "trainops-slot-" not in text
    assert "openAPIV3Schema" in text


@pytest.mark.parametrize("name", sorted(FALLS_BACK))
def test_layers_that_touch_versions_fall_back_to_a_full_build(tmp_path, mirror, name):
    _, notes = _compose(
        tmp_path,
        mirror,
        _over_kueue(FALLS_BACK[name]),
    )
    assert len(notes) == 1 and "rendered in full" in notes[0], notes


def test_two_remote_bases_in_one_layer(tmp_path, mirror):
    text, notes = _compose(
        tmp_path,
        mirror,
        {
            "operator/kustomization.yaml": f"resources: [{KUEUE}, {TRAINING}]\n",
            "overlay/kustomization.yaml": "resources: [../operator]\ncommonAnnotations: {two: bases}\n",
        },
    )
    assert notes == [] and "pytorchjobs.kubeflow.org" in text and "workloads.kueue.x-k8s.io" in text


def test_a_failed_build_reports_kustomizes_error_on_the_real_files(tmp_path, mirror):
    from trainops.render.renderer import RenderFailure

    root = write_tree(
        tmp_path / "tree",
        {
            "operator/kustomization.yaml": f"resources: [{KUEUE}]\n",
            "overlay/kustomization.yaml": "resources: [../operator]\npatches:\n  - path: missing.yaml\n",
        },
    )
    composed, _ = _renderers(mirror)
    with pytest.raises(RenderFailure) as failure:
        composed.build(root / "overlay")
    assert "missing.yaml" in failure.value.message


STUBBED = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: |
          Lines

          with a blank one.
        type: object
    served: true

  names:
    kind: Thing
"""


def test_stub_text_replaces_only_the_versions_of_crds():
    text, slots, values = crd_stubs.stub_text(
        STUBBED + "---\nkind: ConfigMap\nspec:\n  versions:\n  - a\n", "f"
    )
    [(slot, name)] = slots.items()
    assert name == "things.example.com"
    assert f"  versions: {slot}\n\n  names:\n" in text  # the blank line is kept
    assert text.endswith("kind: ConfigMap\nspec:\n  versions:\n  - a\n")
    versions = yaml.safe_load(STUBBED)["spec"]["versions"]
    assert json.loads(values[slot]) == versions
    assert yaml.safe_load(f"versions: {values[slot]}")["versions"] == versions


@pytest.mark.parametrize("value", ["yes", "0644", "2024-06-01", "1_000", '"\\u2028"'], ids=repr)
def test_versions_that_yaml_1_1_reads_otherwise_have_no_values(value):
    text = STUBBED.replace("type: object", f"type: object\n        default: {value}")
    stubbed = crd_stubs.stub_text(text, "f")
    assert stubbed.slots and not stubbed.values


@pytest.mark.parametrize(
    "text",
    [
        STUBBED.replace("- name: v1", "- name: &v v1").replace("kind: Thing", "kind: *v"),
        STUBBED.replace("  versions:\n", "  versions: []\n  other:\n"),
        STUBBED.replace("kind: CustomResourceDefinition", "kind: Thing"),
        STUBBED.replace("spec:\n  group", "spec:\n  notes: |\n    versions:\n  group").replace(
            "  versions:\n  - name", "  vs:\n  - name"
        ),
    ],
    ids=["alias-of-an-anchor-inside", "flow-sequence", "not-a-crd", "in-a-block-scalar"],
)
def test_stub_text_leaves_what_it_cannot_replace_exactly(text):
    assert crd_stubs.stub_text(text, "f") == crd_stubs.StubbedText(text, {}, {})


def test_stub_text_keeps_comments_and_blank_lines_outside_versions():
    text, slots, _ = crd_stubs.stub_text(
        STUBBED.replace("\n  names:", "\n  # about names\n  names:"), "f"
    )
    [slot] = slots
    assert f"  versions: {slot}\n\n  # about names\n  names:\n" in text


def test_splice_refuses_a_moved_or_missing_placeholder():
    slot = crd_stubs.slot_of("f", "things.example.com")
    crd = f"kind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\nspec:\n  versions: {slot}\n"
    blocks = {slot: "  versions:\n  - name: v1"}
    assert crd_stubs.splice(crd, blocks, {"things.example.com"})[0] == crd.replace(
        f"  versions: {slot}", blocks[slot]
    )
    moved = f"kind: ConfigMap\ndata:\n  x: {slot}\n"
    assert crd_stubs.splice(moved, blocks, set())[0] is None
    assert crd_stubs.splice(crd, {}, set())[0] is None
    printed = crd.replace(f"versions: {slot}", "versions:\n  - name: v1")
    assert crd_stubs.splice(printed, blocks, {"things.example.com"})[0] is None


def test_every_root_read_for_its_objects_holds_the_values_of_a_full_build(every_root):
    """Read for its objects (validate, verify, drift), a root takes its remote CRDs' versions as
    the values the stub proved, without rendering the remote bases in full: the objects are
    those of the full build, value for value, and where they come from is the same."""
    as_values = 0
    for root in every_root.all_roots:
        if root not in every_root.roots:  # composed, but compared in another slice
            as_values += every_root.cached.render(root).text.count("\n  versions: [{")
            continue
        text = every_root.composed_render(root).text
        as_values += text.count("\n  versions: [{")
        assert _objects(text) == _objects(every_root.full_build(root)), (root, every_root.slice)
    assert as_values >= 100 and every_root.composed.notes == every_root.cached.notes == []


def _objects(text: str) -> list[dict]:
    from trainops.model.objects import parse_stream

    docs = [obj.doc for obj in parse_stream(text, "rendered", lines=False).objects]
    for doc in docs:
        take_origin(doc)
    return docs


def test_validate_says_under_verbose_which_roots_it_rendered_in_full(tmp_path, mirror):
    from helpers import run_trainops

    # In the suite's cache: the second run reads the first one's render, and says it all the same.
    root = write_tree(tmp_path / "tree", _over_kueue(FALLS_BACK["json-patch-into-versions"]))
    quiet = run_trainops("validate", "--select", "yaml-syntax", "overlay", cwd=root)
    assert "rendered in full" not in quiet.stderr
    done = run_trainops("validate", "-v", "--select", "yaml-syntax", "overlay", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "note: overlay: rendered in full, not composed" in done.stderr
    assert "the build failed with placeholders" in done.stderr


@pytest.mark.parametrize(
    ("text", "passes"),
    [
        ("resources: [../base]\n", True),
        (
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\n",
            True,
        ),
        ("resources: [../base]\nnamespace: other\n", False),
        ("resources: [../base, extra.yaml]\n", False),
        ("resources: [../base/cm.yaml]\n", False),
        (f"resources: [{KUEUE}]\n", False),
        (
            "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [../base]\n",
            False,
        ),
    ],
)
def test_a_kustomization_that_only_lists_one_folder_is_that_folders_render(tmp_path, text, passes):
    root = write_tree(
        tmp_path,
        {
            "base/kustomization.yaml": "resources: [cm.yaml]\n",
            "base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
            "layer/kustomization.yaml": text,
        },
    )
    found = kustomization.passed_through(root / "layer")
    assert (found is not None and found.resolve() == (root / "base").resolve()) == passes


@pytest.mark.parametrize(
    "files",
    [
        {"a/kustomization.yaml": "resources: [.]\n"},
        {
            "a/kustomization.yaml": "resources: [../b]\n",
            "b/kustomization.yaml": "resources: [../a]\n",
        },
    ],
    ids=["itself", "a-cycle"],
)
def test_kustomizations_that_list_each_other_fail_as_kustomize_says(tmp_path, mirror, files):
    from trainops.render.renderer import RenderFailure

    root = write_tree(tmp_path, files)
    composed, _ = _renderers(mirror)
    with pytest.raises(RenderFailure):
        composed.build(root / "a")


def _block_by_lines(chunk: str, first: int, indent: int) -> int:
    """Where a block under a key ends, line by line: the first line with content indented no
    more than the key, other than a sequence item (`- `, or `-` alone) at its indentation."""
    end = first
    while end < len(chunk):
        line_end = chunk.find("\n", end)
        line_end = len(chunk) if line_end < 0 else line_end + 1
        line = chunk[end:line_end].rstrip("\n")
        content = line.lstrip(" ")
        depth = len(line) - len(content)
        if content and not (depth > indent or (depth == indent and content[:2] in ("- ", "-"))):
            return end
        end = line_end
    return len(chunk)


@given(
    st.lists(st.sampled_from([" ", "  ", "\n", "- ", "-", "x", "-x", "\t", "\r", "a: 1"])),
    st.integers(1, 3),
)
@example(["  ", "-", "\n", "x"], 2)  # an item alone on its line, then the next key
@example(["  ", "-"], 2)
@example(["  ", "-x", "\n"], 2)
def test_a_block_ends_where_its_lines_say(pieces, indent):
    chunk = "k:\n" + "".join(pieces)
    assert crd_stubs._block_end(chunk, 3, indent) == _block_by_lines(chunk, 3, indent)


_THINGS_CRD = (
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
    "metadata: {name: things.example.com}\n"
    "spec:\n  group: example.com\n  versions:\n    - name: v1\n      served: true\n"
)


def _things_checkout(tmp_path: Path) -> Path:
    """A checkout whose one kustomization lists one CRD."""
    return write_tree(
        tmp_path / "checkout",
        {"config/crd.yaml": _THINGS_CRD, "config/kustomization.yaml": "resources: [crd.yaml]\n"},
    )


def test_the_stubbed_copy_links_the_checkout_and_never_writes_through_it(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "cache"))
    checkout = _things_checkout(tmp_path)
    stubbed = crd_stubs.stub_tree(checkout, "example/things", "a" * 40)
    assert stubbed is not None
    kept = stubbed.folder / "config" / "kustomization.yaml"
    assert os.path.samefile(kept, checkout / "config" / "kustomization.yaml")
    copy = stubbed.folder / "config" / "crd.yaml"
    assert not os.path.samefile(copy, checkout / "config" / "crd.yaml")
    assert "versions: " in copy.read_text() and "served: true" not in copy.read_text()
    assert (checkout / "config" / "crd.yaml").read_text() == _THINGS_CRD  # as it was


@pytest.mark.parametrize(
    "written", [b"", b"not marshal", marshal.dumps(["a list"]), marshal.dumps({"slot": 1})]
)
def test_kept_values_of_another_shape_are_none(tmp_path, monkeypatch, written):
    """The stubbed copy's values (marshal's format) are read once a run, and a file of another
    shape reads as no values: the root is then built in full, never spliced with them."""
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "cache"))
    checkout = _things_checkout(tmp_path)
    stubbed = crd_stubs.stub_tree(checkout, "example/things", "b" * 40)
    assert stubbed is not None
    [(slot, versions)] = stubbed.values().items()
    assert slot in stubbed.slots and json.loads(versions) == [{"name": "v1", "served": True}]
    stubbed.values_file.write_bytes(written)
    assert stubbed.values() == {}


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("versions:\n- name: v1\n  served: true\n", True),
        ("versions:\n- name: v1\n  minimum: 1.5\n  multipleOf: 0.01\n", True),
        ("versions:\n- name: v1\n  default: .nan\n", False),  # orjson would write null
        ("versions:\n- name: v1\n  maximum: -.inf\n", False),
        ("versions:\n- name: v1\n  1: numbered\n", False),  # a key that is no string
        ("versions:\n- name: v1\n  maximum: 123456789012345678901234567890\n", False),
    ],
)
def test_versions_are_written_as_json_only_where_it_reads_back_as_they_are(text, written):
    versions = yaml_rs.loads(text, parse_datetime=False)["versions"]
    line = crd_stubs._as_json(versions, text)
    assert (line is not None) is written
    if line is not None:
        assert "\n" not in line and json.loads(line) == versions
