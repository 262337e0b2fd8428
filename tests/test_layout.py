"""The tool's tree keeps its shape: packages by stage, each importing only the stages below it, and
no import cycle anywhere (a package and its own modules included, which import-linter's
acyclic_siblings contract does not look at). `make lint` checks the contracts in pyproject.toml;
these tests read the same graph, grimp's, and show that the contracts can fail."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp
import pytest

from helpers import REPO

PACKAGE = REPO / "tools" / "trainops"


def _layers() -> list[str]:
    settings = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    [contract] = [c for c in settings["contracts"] if c["type"] == "layers"]
    return contract["layers"]


def _graph() -> dict[str, set[str]]:
    graph = grimp.build_graph("trainops", cache_dir=None)  # type-checking imports count too
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(edges.get(successor, ())))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_cycle_and_a_self_contained_graph_has_none():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_the_import_graph_has_no_cycles():
    assert _cycles(_graph()) == []


def test_no_module_imports_a_stage_above_its_own():
    layers = _layers()

    def stage(module: str) -> int | None:
        parts = module.split(".")
        return layers.index(parts[1]) if len(parts) > 1 and parts[1] in layers else None

    upward = [
        f"{importer} -> {imported}"
        for importer, imports in _graph().items()
        for imported in imports
        if (a := stage(importer)) is not None and (b := stage(imported)) is not None and b < a
    ]
    assert upward == []


def test_every_package_says_its_job_and_what_it_may_import():
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        docstring = ast.get_docstring(ast.parse(init.read_text())) or ""
        assert "import" in docstring, f"{init.relative_to(REPO)}: say what the package may import"
    assert {p.parent.name for p in PACKAGE.glob("*/__init__.py")} == set(_layers()) - {"cli"}


def _lint_imports(copy: Path) -> subprocess.CompletedProcess:
    lint = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"]
    environment = {"PYTHONPATH": str(copy / "tools"), "PATH": "/usr/bin:/bin"}
    return subprocess.run(lint, cwd=copy, env=environment, capture_output=True, text=True)


@pytest.fixture(scope="module")
def untouched_copy(tmp_path_factory) -> Path:
    """The package and its contracts copied, and passing as they are: each case below breaks a
    copy of this one (the same for every case, so checked once)."""
    copy = tmp_path_factory.mktemp("untouched")
    shutil.copytree(PACKAGE, copy / "tools" / "trainops", ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy(REPO / "pyproject.toml", copy / "pyproject.toml")
    kept = _lint_imports(copy)
    assert kept.returncode == 0, kept.stdout
    return copy


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        ("model/objects.py", "from trainops.rules import RULES", "Stages import only"),
        ("rules/storage.py", "from trainops.rules import pinned", "never another rule"),
        ("model/shape.py", "from trainops.model import ignores", "No cycles"),
    ],
)
def test_the_contracts_fail_on_a_deliberate_violation(
    untouched_copy: Path, tmp_path: Path, module, line, broken
):
    shutil.copytree(untouched_copy, tmp_path, dirs_exist_ok=True)
    with (tmp_path / "tools" / "trainops" / module).open("a") as file:
        file.write(f"{line}  # deliberate\n")
    done = _lint_imports(tmp_path)
    assert done.returncode == 1
    assert f"{broken}" in done.stdout.split("Broken contracts")[1]
