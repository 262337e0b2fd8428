"""`trainops schemas --out` as kubeconform reads it: the documented command (docs/checking.md) on
every root's render.

kubeconform is a local reference, never a requirement: `../shared/tools/kubeconform/build.sh`
builds v0.7.0 into ~/.cache/kubeconform-v0.7.0/kubeconform, which is used when none is on PATH;
without either the kubeconform test is skipped. The layout test needs no kubeconform: it fills the
documented templates the way kubeconform v0.7.0 does (pkg/registry/registry.go, schemaPath).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import jsonschema_rs
import pytest

from helpers import REPO, load_docs, run_trainops
from trainops.model.config import load_config
from trainops.model.objects import split_documents
from trainops.rules import RULES

BUILT = Path.home() / ".cache" / "kubeconform-v0.7.0" / "kubeconform"  # build.sh's default OUT
CONFIG = load_config(REPO / "trainops.yaml", RULES)
assert CONFIG is not None and CONFIG.roots is not None
VERSIONS = [v.removeprefix("v") + ".0" for v in CONFIG.kubernetes_versions]  # v1.32 -> 1.32.0


def _kubeconform() -> str | None:
    return shutil.which("kubeconform") or (str(BUILT) if os.access(BUILT, os.X_OK) else None)


def documented_command() -> list[str]:
    """The kubeconform command of the documentation's section on `trainops schemas --out` (in
    docs/checking.md), as argv."""
    page = (REPO / "docs" / "checking.md").read_text()
    section = page.partition("### Schemas for kubeconform")[2]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, "docs/checking.md: no sh block in the section on trainops schemas --out"
    lines = match.group(1).replace("\\\n", " ").splitlines()
    assert "trainops schemas --out DIR" in lines
    [command] = [line for line in lines if line.startswith("kubeconform ")]
    return shlex.split(command)


def command_for(out: Path, version: str, rendered: Path) -> list[str]:
    """The documented command, with DIR the export, its input the rendered roots, at `version`."""
    argv = documented_command()
    assert argv[-1] == "rendered.yaml" and argv[argv.index("-kubernetes-version") + 1] in VERSIONS
    argv[argv.index("-kubernetes-version") + 1] = version
    argv[-1] = str(rendered)
    return [re.sub(r"^DIR/", f"{out}/", arg) for arg in argv]


def templates() -> list[str]:
    argv = documented_command()
    return [argv[i + 1] for i, arg in enumerate(argv) if arg == "-schema-location"]


def schema_path(template: str, api_version: str, kind: str, version: str) -> str:
    """kubeconform's schemaPath under -strict (v0.7.0, pkg/registry/registry.go)."""
    group_parts = api_version.split("/")
    suffix = "-" + group_parts[0].split(".")[0].lower()
    if len(group_parts) > 1:
        suffix += "-" + group_parts[1].lower()
    values = {
        "NormalizedKubernetesVersion": "v" + version,
        "StrictSuffix": "-strict",
        "ResourceKind": kind.lower(),
        "ResourceAPIVersion": group_parts[-1],
        "Group": group_parts[0],
        "KindSuffix": suffix,
    }
    return re.sub(r"\{\{\s*\.(\w+)\s*\}\}", lambda m: values[m.group(1)], template)


@pytest.fixture(scope="module")
def exported(mirror, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("schemas") / "DIR"
    done = run_trainops("schemas", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def rendered(renderer, tmp_path_factory) -> Path:
    """Every distinct document the roots of trainops.yaml render to (or, for a file, hold), in one
    file, as kustomize prints it: the root the documentation builds by `trainops build`, the others
    by what that command prints (Renderer.build, with the suite's renderer: one kustomize helper
    for all of them, not one a command), shown here to be the same text on the documented root.
    Each document once: the environments render the same operators' CRDs (two thirds of the
    documents, and most of their bytes, are repeats), and kubeconform gives a document's bytes the
    same verdict wherever they come from."""
    folder = tmp_path_factory.mktemp("rendered")
    documented = REPO / "overlays" / "kind" / "workloads"
    documents: dict[str, None] = {}
    for root in CONFIG.expand(CONFIG.roots or [], "roots"):
        if root.is_file():
            text = root.read_text()
        else:
            text = renderer.build(root)
            if root == documented:
                done = run_trainops("build", str(root.relative_to(REPO)))
                assert done.returncode == 0, done.stderr
                assert done.stdout == text
        found = []
        for _, document in split_documents(text):
            document = document if document.startswith("---") else "---\n" + document
            lines = document.splitlines()[1:]  # after the document's marker
            if any(line.strip() and not line.startswith("#") for line in lines):
                found.append(document.rstrip("\n") + "\n")  # not only blanks and comments
        # Each object of the root is one of its documents here: none lost in the splitting.
        assert len(found) == len(load_docs(text)), root
        documents.update(dict.fromkeys(found))
    assert documents
    (folder / "rendered.yaml").write_text("".join(documents))
    return folder


@pytest.fixture(scope="module")
def rendered_objects(rendered) -> list[dict]:
    return load_docs((rendered / "rendered.yaml").read_text())


def test_every_rendered_object_has_a_schema_where_the_templates_look(exported, rendered_objects):
    locations = templates()
    kinds = {(obj["apiVersion"], obj["kind"]) for obj in rendered_objects}
    for version in VERSIONS:
        for api_version, kind in sorted(kinds):
            found = [
                path
                for path in (
                    Path(
                        schema_path(t, api_version, kind, version).replace("DIR", str(exported), 1)
                    )
                    for t in locations
                )
                if path.is_file()
            ]
            assert found, f"{version}: no schema for {api_version} {kind}"
            # kubeconform takes the first file found: it must be this apiVersion and kind's.
            properties = json.loads(found[0].read_text())["properties"]
            assert api_version in properties["apiVersion"]["enum"], found[0]
            if "enum" in properties["kind"]:
                assert properties["kind"]["enum"] == [kind], found[0]


def test_exported_files_are_named_by_the_templates_and_stand_alone(exported):
    core_folders = {f"v{version}-standalone-strict" for version in VERSIONS}
    crd_files = 0
    for path in sorted(exported.rglob("*.json")):
        relative = path.relative_to(exported)
        schema = json.loads(path.read_text())
        # kubeconform compiles with draft 4 unless told, and a schema that does not compile is
        # silently "not found" (validator.go, downloadSchema): each says its draft, and is one.
        assert schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema", relative
        jsonschema_rs.meta.validate(schema)
        # Standalone: every $ref points into the file itself, and there.
        for ref in re.findall(r'"\$ref":\s*"([^"]*)"', path.read_text()):
            assert ref.startswith("#/$defs/"), (relative, ref)
            assert ref.removeprefix("#/$defs/") in schema["$defs"], (relative, ref)
        if relative.parts[0] in core_folders:
            continue
        # A custom resource's file is where the CRD template puts its apiVersion and kind.
        crd_files += 1
        [api_version] = schema["properties"]["apiVersion"]["enum"]
        [kind] = schema["properties"]["kind"]["enum"]
        expected = schema_path(templates()[0], api_version, kind, VERSIONS[0])
        assert expected == f"DIR/{relative}", relative
    assert sorted(p.name for p in exported.iterdir() if p.name.startswith("v")) == sorted(
        core_folders
    )
    assert crd_files >= 50  # every operator's and GitOps tool's CRDs


@pytest.mark.skipif(
    _kubeconform() is None,
    reason="no kubeconform on PATH nor where ../shared/tools/kubeconform/build.sh puts it "
    f"({BUILT})",
)
def test_kubeconform_finds_and_accepts_every_rendered_object(
    exported, rendered, rendered_objects, tmp_path
):
    kubeconform = _kubeconform()
    assert kubeconform is not None
    # Every location is a local file: a proxy that refuses makes any fetch an error, not a wait.
    # Go's collector at 400 (as for trainops' kustomize helper): a fifth less of kubeconform's CPU
    # for the same output (its default, 100, collects the schemas' garbage again and again).
    env = {
        **os.environ,
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "",
        "GOGC": "400",
    }
    count = len(rendered_objects)
    for version in VERSIONS:
        argv = [kubeconform, *command_for(exported, version, rendered)[1:]]
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
        output = done.stdout + done.stderr
        assert "could not find schema" not in output, output
        assert done.returncode == 0, output
        assert (
            f"Summary: {count} resources found in 1 file - "
            f"Valid: {count}, Invalid: 0, Errors: 0, Skipped: 0"
        ) in output, output

    # Every custom resource's schema compiles in kubeconform, rendered or not (one that does not is
    # skipped as if absent, validator.go downloadSchema): a stub of each is found, valid or not.
    stubs = tmp_path / "stubs" / "stubs.yaml"
    stubs.parent.mkdir()
    crds = [
        json.loads(path.read_text())["properties"]
        for path in sorted(exported.glob("*.*/*.json"))
        if not path.parent.name.endswith("-standalone-strict")
    ]
    stubs.write_text(
        "".join(
            f"---\napiVersion: {p['apiVersion']['enum'][0]}\nkind: {p['kind']['enum'][0]}\n"
            "metadata: {name: stub}\n"
            for p in crds
        )
    )
    argv = [kubeconform, *command_for(exported, VERSIONS[0], stubs)[1:]]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert "could not find schema" not in done.stdout + done.stderr, done.stdout
    assert f"Summary: {len(crds)} resources found in 1 file" in done.stdout, done.stdout
    assert "Errors: 0, Skipped: 0" in done.stdout, done.stdout

    # And the schemas do refuse: an unknown field, in a core kind and in a custom resource.
    bad = tmp_path / "bad" / "bad.yaml"
    bad.parent.mkdir()
    bad.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replica: 1}\n"
        "---\napiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: train}\n"
        "spec: {pytorchReplicaSpecs: {}, bogus: 1}\n"
    )
    argv = [kubeconform, *command_for(exported, VERSIONS[0], bad)[1:]]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "additional properties 'replica' not allowed" in done.stdout
    assert "additional properties 'bogus' not allowed" in done.stdout
    assert "Valid: 0, Invalid: 2, Errors: 0" in done.stdout


def test_only_names_a_crd_can_have_become_paths():
    from trainops.knowledge.schema.export import crd_file

    assert crd_file("kubeflow.org", "v1", "PyTorchJob") == "kubeflow.org/pytorchjob_v1.json"
    for group, version, kind in (
        ("../../etc", "v1", "Job"),
        ("batch", "v1", "Job"),  # no dot: a core group's name, never a CRD's
        ("kubeflow.org", "v1/..", "Job"),
        ("kubeflow.org", "v1", "../Job"),
        ("Kubeflow.org", "v1", "Job"),
    ):
        assert crd_file(group, version, kind) is None, (group, version, kind)
