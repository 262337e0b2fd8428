"""The order the suite runs in, longest modules first, from the seconds each module took when
`make durations` last recorded them (durations.txt); conftest.py applies it and records."""

from __future__ import annotations

from pathlib import Path

import pytest

DURATIONS = Path(__file__).with_name("durations.txt")


def recorded_durations(path: Path = DURATIONS) -> dict[str, float]:
    """Seconds by module (its path from the repository), as `--record-durations` wrote them."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return {}
    found = {}
    for line in lines:
        seconds, _, module = line.partition(" ")
        if module and not line.startswith("#"):
            found[module] = float(seconds)
    return found


def longest_first(items: list, recorded: dict[str, float]) -> list:
    """`items` by module, the modules longest first, a module not recorded first of all; each
    module's items in their order."""
    modules: dict[str, list] = {}
    for item in items:
        modules.setdefault(item.nodeid.partition("::")[0], []).append(item)
    unknown = float("inf")
    order = sorted(modules, key=lambda module: -recorded.get(module, unknown))
    return [item for module in order for item in modules[module]]


class Recorder:
    """Adds up each module's seconds as its reports arrive (in the controller, under xdist), and
    writes them, longest first, at the end of the run. A module with a failed test keeps the time
    last recorded for it, if any (a failure can end a test early)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.failed: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        module = report.nodeid.partition("::")[0]
        self.seconds[module] = self.seconds.get(module, 0.0) + report.duration
        if report.failed:
            self.failed.add(module)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.seconds:
            return
        kept = recorded_durations()
        for module, seconds in self.seconds.items():
            if module not in self.failed or module not in kept:
                kept[module] = seconds  # modules this run left out keep their last time
        top = DURATIONS.parent.parent
        kept = {module: seconds for module, seconds in kept.items() if (top / module).exists()}
        lines = [f"{seconds:.1f} {module}" for module, seconds in kept.items()]
        lines.sort(key=lambda line: (-float(line.split()[0]), line))
        header = "# seconds by test module; written by `make durations`, read by conftest.py"
        DURATIONS.write_text("\n".join([header, *lines]) + "\n")
