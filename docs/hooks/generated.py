"""The parts of the documentation that come from the code, made at build time (a MkDocs hook).

A hand-written page holds a marker (`<!-- generated: NAME -->`) where a generated part goes:

- `cli` (reference/cli.md): every command and option, from trainops's argument parser;
- `rules` (reference/rules.md): every rule, with the text `trainops explain` prints and the good
  and bad fixtures its tests use (`tests/rules/fixtures/<rule>/`);
- `environments`, `profiles` (environments.md): the tables of `trainops.yaml`;
- `coverage` (coverage.md): what `trainops coverage` prints of the built-in kinds;
- `bench` (performance.md): the benchmark's latest output (`docs/performance/*.txt`, as
  `make bench` printed it) and a plot of it, an SVG made here.

None of it is committed: each build makes it again, so it cannot drift from the code. mkdocs.yml
names this file under `hooks:`; tests/test_docs.py imports it to check that every command,
option, rule and environment is documented.
"""

from __future__ import annotations

import argparse
import ast
import html
import inspect
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from trainops.cli import parser as trainops_parser
from trainops.model.config import Config, load_config
from trainops.rules import RULES

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
FIXTURES = REPO / "tests" / "rules" / "fixtures"
RULE_TESTS = REPO / "tests" / "rules"
BENCH_VALIDATE = DOCS / "performance" / "bench-validate.txt"
BENCH_TRAIN = DOCS / "performance" / "bench-train.txt"

PLOT = "performance/validate.svg"

# Hand-written pages hold these markers where a generated part goes.
CLI_MARKER = "<!-- generated: cli -->"
RULES_MARKER = "<!-- generated: rules -->"
ENVIRONMENTS_MARKER = "<!-- generated: environments -->"
PROFILES_MARKER = "<!-- generated: profiles -->"
BENCH_MARKER = "<!-- generated: bench -->"
COVERAGE_MARKER = "<!-- generated: coverage -->"

# How a fixture's path says what it shows: the tests name the defect as found and as fixed.
GOOD_WORDS = {"good", "fixed", "after"}
BAD_WORDS = {"bad", "found", "before"}


# The command line -------------------------------------------------------------------------


def commands() -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """Each command as (name, one-line help, its parser), in the order `trainops -h` lists them."""
    top = trainops_parser()
    [verbs] = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {choice.dest: choice.help or "" for choice in verbs._choices_actions}
    for name, command in verbs.choices.items():
        yield name, helps.get(name, ""), command


def arguments(command: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    """A command's arguments and options, without -h."""
    for action in command._actions:
        if not isinstance(action, argparse._HelpAction) and action.help != argparse.SUPPRESS:
            yield action


def argument_name(action: argparse.Action) -> str:
    if action.option_strings:
        value = "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"
        return ", ".join(f"{option}{value}" for option in action.option_strings)
    return str(action.metavar or action.dest)


def argument_help(command: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The help text as `-h` prints it (%(default)s and the like expanded), with the choices."""
    text = command._get_formatter()._expand_help(action) if action.help else ""
    if action.choices is not None and action.option_strings:
        text += f" (one of {', '.join(f'`{choice}`' for choice in action.choices)})"
    return text.strip()


def cli_reference() -> str:
    top = trainops_parser()
    lines = [
        _prose(top.description or ""),
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    listed = list(commands())
    lines += [f"| [`{name}`](#{name}) | {_cell(summary)} |" for name, summary, _ in listed]
    lines += [
        "",
        "Exit codes, for every command: 0 clean, 1 findings (or what the command names), 2 could "
        "not run, with one line on stderr naming the cause.",
    ]
    for name, summary, command in listed:
        lines += ["", f"## trainops {name} {{#{name}}}", "", f"{_prose(summary)}.", ""]
        if command.description:
            lines += [_prose(command.description), ""]
        usage = command.format_usage().removeprefix("usage: ").strip()
        lines += ["```text", usage, "```", ""]
        documented = list(arguments(command))
        if documented:
            lines += ["| argument | meaning |", "|---|---|"]
            lines += [
                f"| `{argument_name(action)}` | {_cell(argument_help(command, action))} |"
                for action in documented
            ]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """Text for one cell of a Markdown table: on one line, as _prose."""
    return _prose(" ".join(text.split()))


def _prose(text: str) -> str:
    """Help text as Markdown shows it: its `code` spans kept, and outside them `<owner>` (which
    would be taken for an HTML tag) and `|` (a table's column) escaped."""
    parts = re.split(r"(`[^`\n]+`)", text)
    return "".join(
        part
        if part.startswith("`")
        else part.replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")
        for part in parts
    )


# The rules --------------------------------------------------------------------------------


def explanation(module: ModuleType) -> str:
    """What `trainops explain RULE` prints after its first line: the rule module's docstring."""
    return inspect.cleandoc(module.__doc__ or "")


def as_written(text: str) -> str:
    """The text as a block of HTML that keeps its lines and indentation (docs/stylesheets/
    extra.css wraps it), with `code` spans set as code: a docstring is plain text, and read as
    Markdown its `*`, `<…>` and indented examples would be taken for markup."""
    parts = re.split(r"(`[^`\n]+`)", text)
    shown = "".join(
        f"<code>{html.escape(part[1:-1])}</code>" if part.startswith("`") else html.escape(part)
        for part in parts
    )
    return f'<div class="as-written">{shown}</div>'


def fixture_files(rule_id: str) -> dict[str, list[Path]]:
    """The rule's fixtures by what they show: good, bad, or other (settings, helpers)."""
    found: dict[str, list[Path]] = {"good": [], "bad": [], "other": []}
    folder = FIXTURES / rule_id
    if not folder.is_dir():
        return found
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        words = set(re.split(r"[-_./]", path.relative_to(folder).as_posix()))
        kind = "good" if words & GOOD_WORDS else "bad" if words & BAD_WORDS else "other"
        found[kind].append(path)
    return found


def tests_naming(rule_id: str) -> list[Path]:
    """The test modules that name the rule by its id, as a string."""
    quoted = (f'"{rule_id}"', f"'{rule_id}'")
    return [
        path
        for path in sorted((REPO / "tests").rglob("*.py"))
        if any(word in path.read_text(encoding="utf-8") for word in quoted)
    ]


def rule_test(rule_id: str) -> Path | None:
    path = RULE_TESTS / f"test_{rule_id.replace('-', '_')}.py"
    return path if path.is_file() else None


def rules_reference() -> str:
    lines = [
        "| rule | severity | checks that |",
        "|---|---|---|",
    ]
    lines += [
        f"| [`{rule_id}`](#{rule_id}) | {module.SEVERITY.value} | {_cell(module.SUMMARY)} |"
        for rule_id, module in RULES.items()
    ]
    for rule_id, module in RULES.items():
        lines += [
            "",
            f"## {rule_id} {{#{rule_id}}}",
            "",
            f"**{module.SEVERITY.value}**: {_cell(module.SUMMARY)}",
            "",
            as_written(explanation(module)),
        ]
        lines += _examples(rule_id)
    return "\n".join(lines) + "\n"


def _examples(rule_id: str) -> list[str]:
    lines = ["", "**Examples from its tests**", ""]
    test = rule_test(rule_id)
    fixtures = fixture_files(rule_id)
    if test is not None:
        summary = inspect.cleandoc(_docstring(test))
        said = f": {_prose(summary)}" if summary else "."
        lines += [f"The tests are `{test.relative_to(REPO)}`{said}", ""]
    else:
        naming = ", ".join(f"`{path.relative_to(REPO)}`" for path in tests_naming(rule_id))
        lines += [f"It has no test module of its own; the tests that name it: {naming}.", ""]
    if not any(fixtures.values()):
        lines += ["It has no fixture files: its tests write their examples in the test code."]
        return lines
    titles = {"good": ("success", "clean"), "bad": ("failure", "found"), "other": ("note", "")}
    for kind in ("good", "bad", "other"):
        admonition, word = titles[kind]
        for path in fixtures[kind]:
            shown = path.relative_to(FIXTURES / rule_id).as_posix()
            title = f"{word}: {shown}" if word else shown
            language = "python" if path.suffix == ".py" else "yaml"
            text = path.read_text(encoding="utf-8").rstrip("\n")
            lines += [f'??? {admonition} "{title}"', "", f"    ```{language}"]
            lines += [f"    {line}" if line else "" for line in text.splitlines()]
            lines += ["    ```", ""]
    return lines


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


# Environments and profiles ---------------------------------------------------------------


def config() -> Config:
    loaded = load_config(REPO / "trainops.yaml", RULES)
    assert loaded is not None
    return loaded


def environment_name(folder: str) -> str:
    return Path(folder).name


def environments_table() -> str:
    settings = config()
    lines = [
        "| environment | layers | profile | images from | node pools (one node's allocatable "
        "× at most) | storage classes |",
        "|---|---|---|---|---|---|",
    ]
    for folder, profile in settings.environments.items():
        facts = settings.profiles[profile]
        name = environment_name(folder)
        registry = settings.registries.get(folder)
        images = f"`{registry}`" if registry else "loaded into the node (no registry)"
        lines.append(
            f"| [`{name}`](#{name}) | `{folder}/{{operators,platform,workloads}}` | "
            f"[`{profile}`](#profile-{profile}) ({facts.get('cloud', profile)}) | {images} | "
            f"{_pools(facts)} | {_storage(facts)} |"
        )
    return "\n".join(lines) + "\n"


def _enforcement(facts: dict) -> str:
    """What enforces the profile's NetworkPolicies (network-policy-enforced), as a sentence."""
    engine = facts.get("networkPolicy")
    if not engine:
        return "NetworkPolicies: nothing declared to enforce them."
    setup = f" ({engine['setup']})" if engine.get("setup") else ""
    return f"NetworkPolicies enforced by [{engine['enforcedBy']}]({engine['source']}){setup}."


def profiles_table() -> str:
    settings = config()
    used: dict[str, list[str]] = {}
    for folder, profile in settings.environments.items():
        used.setdefault(profile, []).append(environment_name(folder))
    lines = []
    for profile, facts in settings.profiles.items():
        users = ", ".join(f"`{name}`" for name in used.get(profile, [])) or "no environment yet"
        lines += [
            f"### Profile `{profile}` {{#profile-{profile}}}",
            "",
            f"Cloud `{facts.get('cloud', profile)}`, used by {users}. {_enforcement(facts)}",
            "",
            "| node pool | allocatable (one node) | capacity | at most | spot | taints |",
            "|---|---|---|---|---|---|",
        ]
        for pool in facts.get("nodePools", []):
            taints = ", ".join(
                f"`{t['key']}={t.get('value', '')}:{t['effect']}`" for t in pool.get("taints", [])
            )
            lines.append(
                f"| `{pool['name']}` | {_resources(pool.get('allocatable', {}))} | "
                f"{_resources(pool.get('capacity', {}))} | {pool.get('maxNodes', 1)} | "
                f"{'yes' if pool.get('spot') else 'no'} | {taints or 'none'} |"
            )
        lines += ["", "| storage class | provisioner | access modes | default | fsGroup applies |"]
        lines += ["|---|---|---|---|---|"]
        for name, storage in facts.get("storageClasses", {}).items():
            lines.append(
                f"| `{name}` | `{storage.get('provisioner', '')}` | "
                f"{', '.join(storage.get('accessModes', []))} | "
                f"{'yes' if storage.get('default') else 'no'} | "
                f"{'no' if storage.get('fsGroup') is False else 'yes'} |"
            )
        system = facts.get("systemPods", [])
        if system:
            listed = ", ".join(
                f"{pod['name']}{' (every node)' if pod.get('perNode') else ''} "
                f"{_resources(pod.get('requests', {}))}"
                for pod in system
            )
            lines += ["", f"Runs before any of ours: {listed}."]
        addons = facts.get("addons", [])
        if addons:
            lines += ["", f"Add-ons: {', '.join(f'`{a}`' for a in addons)}."]
        lines.append("")
    return "\n".join(lines)


def _pools(facts: dict) -> str:
    return "<br>".join(
        f"`{pool['name']}`{' (spot)' if pool.get('spot') else ''}: "
        f"{_resources(pool.get('allocatable', {}))} × {pool.get('maxNodes', 1)}"
        for pool in facts.get("nodePools", [])
    )


def _storage(facts: dict) -> str:
    return "<br>".join(
        f"`{name}`{' (default)' if storage.get('default') else ''}: "
        f"{', '.join(storage.get('accessModes', []))}"
        for name, storage in facts.get("storageClasses", {}).items()
    )


def _resources(resources: dict) -> str:
    return ", ".join(f"{key} {value}" for key, value in resources.items()) or "none"


# The benchmark ----------------------------------------------------------------------------

ROW = re.compile(
    r"^(?P<name>\S.*?)\s{2,}(?P<seconds>\d+\.\d+)\s+(?P<cpu>\d+\.\d+)\s+"
    r"(?:(?P<rate>[\d,]+)\s+)?(?P<peak>\d+)$"
)


def bench_rows(text: str) -> list[tuple[str, float, float]]:
    """(run, seconds, CPU seconds) for each run of bench_validate.py's table."""
    rows = []
    for line in text.splitlines():
        match = ROW.match(line.rstrip())
        if match:
            rows.append((match["name"], float(match["seconds"]), float(match["cpu"])))
    return rows


def bench_plot(text: str) -> str:
    """A horizontal bar chart, as SVG, of each run's seconds and CPU seconds from
    bench_validate.py's table: the CPU seconds say what a run cost where the cores were shared."""
    rows = bench_rows(text)
    if not rows:
        raise ValueError(f"{BENCH_VALIDATE}: no rows of the benchmark's table")
    label_width, bar_width, row_height, top = 470, 380, 22, 34
    longest = max(max(seconds, cpu) for _, seconds, cpu in rows)
    height = top + row_height * len(rows) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {label_width + bar_width + 70} '
        f'{height}" font-family="sans-serif" font-size="11" role="img" '
        'aria-labelledby="bench-title">',
        '<title id="bench-title">Seconds and CPU seconds of each run of the validate '
        "benchmark</title>",
        '<text x="8" y="14" font-size="12">Each run: seconds (trainops dark blue, other tools '
        "grey), and below it CPU seconds (lighter)</text>",
    ]
    for index, (name, seconds, cpu) in enumerate(rows):
        y = top + index * row_height
        ours = "trainops" in name or name.startswith("repository")
        colours = ("#2f5fb3", "#9fb8e3") if ours else ("#7a7a7a", "#c8c8c8")
        for offset, value, colour in ((0, seconds, colours[0]), (9, cpu, colours[1])):
            width = max(1.0, bar_width * value / longest)
            parts += [
                f'<rect x="{label_width}" y="{y + offset}" width="{width:.1f}" height="8" '
                f'fill="{colour}"/>',
                f'<text x="{label_width + width + 4:.1f}" y="{y + offset + 8}" '
                f'font-size="9">{value:.2f}</text>',
            ]
        parts.append(
            f'<text x="{label_width - 6}" y="{y + 12}" text-anchor="end">{html.escape(name)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def bench_section() -> str:
    validate = BENCH_VALIDATE.read_text(encoding="utf-8").rstrip("\n")
    train = BENCH_TRAIN.read_text(encoding="utf-8").rstrip("\n")
    return "\n".join(
        [
            f"![Seconds of each run of the validate benchmark]({PLOT})",
            "",
            "`bench/bench_validate.py`, as `make bench` printed it "
            "(`docs/performance/bench-validate.txt`):",
            "",
            "```text",
            validate,
            "```",
            "",
            "`bench/bench_train.py` (`docs/performance/bench-train.txt`):",
            "",
            "```text",
            train,
            "```",
            "",
        ]
    )


# What is judged ----------------------------------------------------------------------------


def coverage_table() -> str:
    """`trainops coverage --format markdown` of the built-in kinds (custom resource kinds need
    the CRD roots rendered, which a site build does not do)."""
    import io

    from trainops.knowledge.coverage import table
    from trainops.knowledge.schema.catalog import Catalog
    from trainops.report.coverage_report import write_markdown

    out = io.StringIO()
    write_markdown(table(Catalog(config().kubernetes_versions, [])), out, details=True)
    return out.getvalue()


# MkDocs events ----------------------------------------------------------------------------


def on_files(files, config):
    from mkdocs.structure.files import File

    plot = bench_plot(BENCH_VALIDATE.read_text(encoding="utf-8"))
    files.append(File.generated(config, PLOT, content=plot))
    return files


def on_page_markdown(markdown, page, config, files):
    generated = {
        CLI_MARKER: cli_reference,
        RULES_MARKER: rules_reference,
        ENVIRONMENTS_MARKER: environments_table,
        PROFILES_MARKER: profiles_table,
        BENCH_MARKER: bench_section,
        COVERAGE_MARKER: coverage_table,
    }
    for marker, make in generated.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown
