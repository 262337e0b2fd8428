"""`trainops build` and `trainops version`: real kustomize, offline, and one-line errors."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import load_docs, run_trainops, run_trainops_unprivileged, write_tree
from trainops.render.kustomize import in_process

CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
REMOTE_KUEUE = "https://github.com/kubernetes-sigs/kueue.git//config/default?ref={ref}"


def assert_one_line_error(done, *expected: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    for text in expected:
        assert text in lines[0]


def test_build_prints_the_rendered_yaml(mirror):
    done = run_trainops("build", "operators/jobset")
    assert done.returncode == 0, done.stderr
    kinds = {doc["kind"] for doc in load_docs(done.stdout)}
    assert {"CustomResourceDefinition", "Deployment", "Namespace"} <= kinds


def test_build_renders_remote_bases_through_the_mirror_only(mirror, tmp_path):
    # No network here: if the mirror were not used, the remote base could not be fetched.
    write_tree(
        tmp_path, {"kustomization.yaml": f"resources:\n  - {REMOTE_KUEUE.format(ref='v0.19.2')}\n"}
    )
    done = run_trainops("build", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert any(d["kind"] == "CustomResourceDefinition" for d in load_docs(done.stdout))


def test_typo_in_a_resource_path(mirror, tmp_path):
    write_tree(
        tmp_path,
        {
            "kustomization.yaml": "resources:\n  - namespace.yaml\n  - deploymnt.yaml\n",
            "namespace.yaml": "",
        },
    )
    done = run_trainops("build", str(tmp_path))
    assert_one_line_error(
        done, f"{tmp_path}/kustomization.yaml:3:", "'deploymnt.yaml' does not exist"
    )


def test_typo_in_a_nested_kustomization_names_that_file(mirror, tmp_path):
    write_tree(
        tmp_path,
        {
            "overlay/kustomization.yaml": "resources:\n  - ../base\n",
            "base/kustomization.yaml": "resources:\n  - missing.yaml\n",
        },
    )
    done = run_trainops("build", str(tmp_path / "overlay"))
    assert_one_line_error(
        done, f"{tmp_path}/base/kustomization.yaml:2:", "'missing.yaml' does not exist"
    )


def test_remote_tag_the_mirror_lacks(mirror, tmp_path):
    write_tree(
        tmp_path, {"kustomization.yaml": f"resources:\n  - {REMOTE_KUEUE.format(ref='v9.9.9')}\n"}
    )
    done = run_trainops("build", str(tmp_path))
    assert_one_line_error(
        done, "kustomization.yaml:2:", "ref v9.9.9 is not in the mirror", "v0.18.6"
    )


def test_remote_repository_the_mirror_lacks(mirror, tmp_path):
    write_tree(
        tmp_path,
        {
            "kustomization.yaml": "resources:\n  - https://github.com/nobody/nothing.git//config?ref=v1\n"
        },
    )
    done = run_trainops("build", str(tmp_path))
    assert_one_line_error(done, "kustomization.yaml:2:", "has no repository nobody/nothing")


def test_yaml_syntax_error_names_the_file_and_line(mirror, tmp_path):
    bad = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: [1, 2\n  b: c\n"
    write_tree(tmp_path, {"kustomization.yaml": "resources:\n  - cm.yaml\n", "cm.yaml": bad})
    done = run_trainops("build", str(tmp_path))
    assert_one_line_error(done, f"{tmp_path}/cm.yaml:7:", "YAML syntax error")


def test_folder_without_kustomization(tmp_path):
    done = run_trainops("build", str(tmp_path))
    assert_one_line_error(done, str(tmp_path), "no kustomization.yaml")


def test_missing_folder(tmp_path):
    done = run_trainops("build", str(tmp_path / "nope"))
    assert_one_line_error(done, "nope: no such folder")


def test_a_file_or_an_unreadable_folder_is_named_as_what_it_is(tmp_path):
    write_tree(
        tmp_path, {"job.yaml": "kind: Job\n", "sealed/kustomization.yaml": "resources: []\n"}
    )
    done = run_trainops("build", "job.yaml", cwd=tmp_path)
    assert_one_line_error(done, "job.yaml: a file; `build` renders a kustomization's folder")
    (tmp_path / "sealed").chmod(0)
    try:
        done = run_trainops_unprivileged("build", "sealed", cwd=tmp_path)
    finally:
        (tmp_path / "sealed").chmod(0o755)
    assert_one_line_error(done, "sealed: cannot be read: Permission denied")


def test_mirror_that_is_not_a_mirror(tmp_path):
    write_tree(tmp_path, {"k/kustomization.yaml": "resources: []\n"})
    done = run_trainops("build", str(tmp_path / "k"), "--mirror", str(tmp_path))
    assert_one_line_error(done, "not a mirror", "github.com/")


def _path_without_kubectl(tmp_path: Path) -> str:
    # Keep git (kustomize needs it) but neither kubectl nor kustomize.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(shutil.which("git"), bin_dir / "git")
    return str(bin_dir)


def test_no_kubectl_or_kustomize_on_path(tmp_path):
    done = run_trainops(
        "build",
        "operators/kueue",
        env={"PATH": _path_without_kubectl(tmp_path), "TRAINOPS_KUSTOMIZE": "process"},
    )
    assert_one_line_error(done, "neither kustomize nor kubectl is on PATH")


needs_pykustomize = pytest.mark.skipif(
    in_process() is None, reason="pykustomize is not installed (make test installs it)"
)


@needs_pykustomize
def test_in_process_kustomize_needs_no_executable(tmp_path, mirror):
    # Remote bases are checked out of the mirror into the cache and read from there: no kubectl.
    cache = {"TRAINOPS_CACHE_DIR": str(tmp_path / "cache")}
    done = run_trainops(
        "build", "operators/jobset", env={"PATH": _path_without_kubectl(tmp_path), **cache}
    )
    assert done.returncode == 0, done.stderr
    with_kubectl = run_trainops(
        "build", "operators/jobset", env={"TRAINOPS_KUSTOMIZE": "kubectl", **cache}
    )
    assert with_kubectl.returncode == 0, with_kubectl.stderr
    assert load_docs(done.stdout) == load_docs(with_kubectl.stdout)


@needs_pykustomize
def test_version_names_the_in_process_backend_and_the_controllers_kustomize():
    done = run_trainops("version")
    assert done.returncode == 0, done.stderr
    assert "(pykustomize: " in done.stdout
    assert "kustomize v5.8." in done.stdout
    assert "Argo CD v3.5.1 builds with kustomize 5.8.1" in done.stdout
    assert "Flux kustomize-controller v1.9.4 builds with kustomize 5.8.1" in done.stdout


def test_a_kustomize_of_another_line_than_the_controllers_is_warned_about(tmp_path):
    write_tree(tmp_path, {"k/kustomization.yaml": "resources: [cm.yaml]\n", "k/cm.yaml": CM})
    done = run_trainops(
        "validate", "k", cwd=tmp_path, env={"TRAINOPS_KUSTOMIZE": "kubectl"}
    )  # outside the repository: its CRD roots would all render again with kubectl
    assert done.returncode == 0, done.stderr
    assert "warning: rendering with kustomize v5.5.0 (kubectl kustomize)" in done.stderr
    assert "Argo CD v3.5.1 builds with kustomize 5.8.1" in done.stderr


def test_version_names_the_kustomize_in_use():
    done = run_trainops("version")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("trainops ")
    assert lines[1].startswith("kustomize v5.")


def test_version_honours_trainops_kustomize(tmp_path):
    done = run_trainops("version", env={"TRAINOPS_KUSTOMIZE": "no-such-kustomize"})
    assert_one_line_error(done, "TRAINOPS_KUSTOMIZE=no-such-kustomize")


def test_help_lists_every_command():
    done = run_trainops("--help")
    assert done.returncode == 0
    for verb in ("build", "validate", "version"):
        assert verb in done.stdout


def test_every_option_of_every_command_says_what_it_does():
    from trainops.cli import parser

    commands = next(a for a in parser()._actions if a.dest == "==SUPPRESS==" or a.choices)
    silent = [
        f"{name} {action.option_strings or action.dest}"
        for name, command in commands.choices.items()
        for action in command._actions
        if not action.help
        and action.dest != "help"
        and not (action.option_strings == [] and action.nargs in ("*", "+") and action.metavar)
    ]
    assert silent == []


RAW_VOLCANO = "https://raw.githubusercontent.com/volcano-sh/volcano/{ref}/installer/{path}"


def test_a_raw_file_url_renders_from_the_mirror(mirror, tmp_path):
    write_tree(
        tmp_path,
        {
            "app/kustomization.yaml": "resources:\n  - ../base\n  - "
            + RAW_VOLCANO.format(ref="v1.15.1", path="volcano-development.yaml")
            + "\n",
            "base/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "base/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n",
        },
    )
    done = run_trainops("build", str(tmp_path / "app"))
    assert done.returncode == 0, done.stderr
    docs = load_docs(done.stdout)
    assert any(d["metadata"]["name"] == "jobs.batch.volcano.sh" for d in docs)
    assert any(d["metadata"]["name"] == "mine" for d in docs)
    # The render happened on a temporary copy; the repository is untouched.
    assert sorted(p.name for p in (tmp_path / "app").iterdir()) == ["kustomization.yaml"]


def test_a_raw_file_at_a_tag_the_mirror_lacks(mirror, tmp_path):
    url = RAW_VOLCANO.format(ref="v9.0.0", path="volcano-development.yaml")
    write_tree(tmp_path, {"kustomization.yaml": f"resources:\n  - {url}\n"})
    done = run_trainops("build", str(tmp_path))
    assert_one_line_error(
        done,
        "kustomization.yaml:2:",
        f"remote file {url}",
        "ref v9.0.0 is not in the mirror",
        "v1.15.1",
    )


def test_a_raw_file_the_mirror_lacks_at_its_tag(mirror, tmp_path):
    url = RAW_VOLCANO.format(ref="v1.15.1", path="no-such-file.yaml")
    write_tree(tmp_path, {"kustomization.yaml": f"resources:\n  - {url}\n"})
    done = run_trainops("build", str(tmp_path))
    assert_one_line_error(done, "has no file installer/no-such-file.yaml at v1.15.1")


def test_errors_in_a_copied_tree_name_the_real_files(mirror, tmp_path):
    url = RAW_VOLCANO.format(ref="v1.15.1", path="volcano-development.yaml")
    write_tree(tmp_path, {"kustomization.yaml": f"resources:\n  - {url}\n  - missing.yaml\n"})
    done = run_trainops("build", str(tmp_path))
    assert_one_line_error(
        done, f"{tmp_path}/kustomization.yaml:3:", "'missing.yaml' does not exist"
    )
    assert "trainops-render-" not in done.stderr


def test_fix_pins_and_schemas_stop_on_a_root_that_does_not_render(tmp_path):
    write_tree(
        tmp_path,
        {"k/kustomization.yaml": "resources:\n  - gone.yaml\n", "trainops.yaml": "crdRoots: [k]\n"},
    )
    for command in (["fix", "k"], ["pins", "k"], ["schemas", "--out", str(tmp_path / "out")]):
        done = run_trainops(*command, cwd=tmp_path)
        assert_one_line_error(done, "k/kustomization.yaml:2: 'gone.yaml' does not exist")


def _broken_pykustomize(tmp_path: Path) -> dict[str, str]:
    """An environment in which `import pykustomize` fails, as where its library cannot load."""
    package = tmp_path / "shadowing" / "pykustomize"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("raise OSError('cannot load libpykustomize.so')\n")
    return {"PYTHONPATH": str(package.parent)}


def test_without_a_loadable_pykustomize_kubectl_renders(tmp_path):
    done = run_trainops("version", env=_broken_pykustomize(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "(kubectl kustomize: " in done.stdout or "(kustomize: " in done.stdout


def test_asking_for_pykustomize_where_it_does_not_load_is_one_line(tmp_path):
    env = {**_broken_pykustomize(tmp_path), "TRAINOPS_KUSTOMIZE": "pykustomize"}
    done = run_trainops("version", env=env)
    assert_one_line_error(done, "TRAINOPS_KUSTOMIZE=pykustomize", "does not load")
