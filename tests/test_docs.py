"""The documentation: the site builds strictly, the references cover every command, option, rule
and environment, the getting-started page's examples print what it shows, and the README stays
short and points at the site."""

from __future__ import annotations

import contextlib
import html
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO
from trainops.cli import main as trainops_main
from trainops.rules import RULES

DOCS = REPO / "docs"
GETTING_STARTED = DOCS / "getting-started.md"


def _generator():
    spec = importlib.util.spec_from_file_location("docs_generated", DOCS / "hooks" / "generated.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generated = _generator()


def test_the_site_builds_strictly(tmp_path: Path):
    """No warning at all: a broken link or anchor, a page outside the nav, a generator failing."""
    mkdocs = Path(sys.executable).with_name("mkdocs")
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        # Material's notice about its own future says nothing about this site.
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    rules = (site / "reference" / "rules" / "index.html").read_text()
    assert all(f'id="{rule_id}"' in rules for rule_id in RULES)
    cli = (site / "reference" / "cli" / "index.html").read_text()
    assert all(f'id="{name}"' in cli for name, _, _ in generated.commands())
    environments = (site / "environments" / "index.html").read_text()
    assert "<!-- generated" not in environments and 'href="#profile-kind"' in environments
    assert (site / generated.PLOT).read_text().startswith("<svg")
    assert "hooks" not in {p.name for p in site.iterdir()}


def test_the_generated_parts_have_their_places():
    for page, markers in {
        "reference/cli.md": [generated.CLI_MARKER],
        "reference/rules.md": [generated.RULES_MARKER],
        "environments.md": [generated.ENVIRONMENTS_MARKER, generated.PROFILES_MARKER],
        "performance.md": [generated.BENCH_MARKER],
        "coverage.md": [generated.COVERAGE_MARKER],
    }.items():
        text = (DOCS / page).read_text()
        assert all(text.count(marker) == 1 for marker in markers), page


def test_every_command_and_option_is_documented():
    undocumented = []
    listed = generated.cli_reference()
    for name, summary, command in generated.commands():
        if not summary:
            undocumented.append(f"trainops {name}: no help")
        if f"## trainops {name} {{#{name}}}" not in listed:
            undocumented.append(f"trainops {name}: no section")
        for action in generated.arguments(command):
            shown = generated.argument_name(action)
            if not generated.argument_help(command, action):
                undocumented.append(f"trainops {name} {shown}: no help")
            if f"| `{shown}` |" not in listed:
                undocumented.append(f"trainops {name} {shown}: not in the reference")
    assert undocumented == []


def test_every_rule_is_documented_as_explain_prints_it():
    page = generated.rules_reference()
    for rule_id, module in RULES.items():
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert trainops_main(["explain", rule_id]) == 0
        first, _, body = printed.getvalue().partition("\n\n")
        assert first == f"{rule_id} ({module.SEVERITY.value}): {module.SUMMARY}"
        for heading in ("What it catches", "Why it matters", "How to fix"):
            assert heading in body, f"{rule_id}: its docstring says nothing of {heading!r}"
        assert f"## {rule_id} {{#{rule_id}}}" in page
        shown = generated.as_written(body.rstrip("\n"))
        assert shown in page, f"{rule_id}: the page is not what `trainops explain` prints"
        assert _read_back(shown) == body.rstrip("\n")


def _read_back(block: str) -> str:
    """The text a reader sees in an as_written block, code spans in backticks again."""
    text = re.sub(r"</?code>", "`", block.removeprefix('<div class="as-written">'))
    return html.unescape(text.removesuffix("</div>"))


def test_rule_examples_are_the_fixtures_the_rule_tests_use():
    page = generated.rules_reference()
    for rule_id in RULES:
        for kind, paths in generated.fixture_files(rule_id).items():
            for path in paths:
                assert path.relative_to(generated.FIXTURES / rule_id).as_posix() in page, kind
    assert generated.fixture_files("kueue-admission")["good"] == [
        generated.FIXTURES / "kueue-admission" / "good-split.yaml",
        generated.FIXTURES / "kueue-admission" / "good.yaml",
    ]
    assert generated.fixture_files("storage")["bad"][0].parent.name.endswith("-before")


def test_every_environment_and_profile_is_documented():
    settings = generated.config()
    table = generated.environments_table()
    page = (DOCS / "environments.md").read_text()
    for folder in settings.environments:
        name = generated.environment_name(folder)
        assert f"[`{name}`](#{name})" in table
        # the hand-written section the table links to (a strict build also fails without it)
        assert re.search(rf"^## `{name}` \{{#{name}\}}$", page, re.MULTILINE), name
    profiles = generated.profiles_table()
    for profile in settings.profiles:
        assert f"{{#profile-{profile}}}" in profiles


def test_the_benchmark_plot_has_a_bar_for_every_run():
    text = generated.BENCH_VALIDATE.read_text()
    rows = generated.bench_rows(text)
    assert len(rows) >= 10
    assert generated.bench_plot(text).count("<rect") == 2 * len(rows)  # seconds and CPU


# The getting-started page's examples --------------------------------------------------------

EXAMPLE = re.compile(r"^```console\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)


def examples() -> list[tuple[str, str]]:
    """(command, the output the page shows) for each `$ ` line of its console blocks."""
    found = []
    for block in EXAMPLE.finditer(GETTING_STARTED.read_text()):
        for part in re.split(r"^\$ ", block["body"], flags=re.MULTILINE)[1:]:
            command, _, output = part.partition("\n")
            found.append((command, output))
    return found


def matches(shown: str, printed: str) -> bool:
    """Whether the output printed is what the page shows, where `…` stands for any text in a
    line, and a line of `…` alone for any number of lines (timings, long listings)."""
    pattern = []
    for line in shown.rstrip("\n").split("\n"):
        if line == "…":
            pattern.append(r"(?:.*\n)*?")
        else:
            pattern.append(".*".join(map(re.escape, line.split("…"))) + r"[ \t]*\n")
    return re.fullmatch("".join(pattern), printed.rstrip("\n") + "\n") is not None


def test_matches_reads_ellipses_as_the_page_means_them():
    assert matches("a … b\n…\nend\n", "a 1.2s b\nx\ny\nend\n")
    assert matches("a\n…\nend\n", "a\nend\n")
    assert not matches("a\nend\n", "a\nb\nend\n")
    assert not matches("clean\n", "3 findings\n")


def test_the_getting_started_page_has_examples_to_check():
    commands = [command for command, _ in examples()]
    assert any(command.startswith("trainops validate") for command in commands)
    assert any(command.startswith("trainops build overlays/kind/") for command in commands)


@pytest.mark.parametrize(("command", "shown"), examples(), ids=[c for c, _ in examples()])
def test_a_getting_started_example_prints_what_the_page_shows(mirror, command, shown):
    bin_folder = str(Path(sys.executable).parent)
    environment = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}"}
    environment["TRAINOPS_MIRROR"] = str(mirror)
    assert shutil.which("trainops", path=environment["PATH"]) is not None
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=REPO,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    printed = done.stdout + done.stderr
    assert matches(shown, printed), f"the page shows:\n{shown}\n$ {command} printed:\n{printed}"


# The README --------------------------------------------------------------------------------


def test_the_readme_is_short_and_points_at_the_site():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    for page in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (REPO / page).is_file(), page
    for command in ("make validate", "make test"):
        assert command in readme
