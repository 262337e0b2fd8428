"""How the suite spends its two workers: modules longest first by their recorded time (conftest.py),
and a proof too costly for every run checking the slice of its cases its commit chooses."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from helpers import ALL_SLICES_ENV, SLICE_ENV, commit_slice
from suite_order import longest_first, recorded_durations


def _items(*nodeids: str) -> list:
    return [SimpleNamespace(nodeid=nodeid) for nodeid in nodeids]


def test_modules_run_longest_first_and_a_new_one_before_them_each_in_its_own_order():
    items = _items("a.py::one", "b.py::one", "a.py::two", "new.py::x", "c.py::one", "b.py::two")
    ordered = longest_first(items, {"a.py": 1.0, "b.py": 30.0, "c.py": 2.5})
    assert [i.nodeid for i in ordered] == [
        "new.py::x",
        "b.py::one",
        "b.py::two",
        "c.py::one",
        "a.py::one",
        "a.py::two",
    ]


def test_recorded_durations_read_what_the_recorder_writes(tmp_path):
    path = tmp_path / "durations.txt"
    path.write_text("# header\n12.5 tests/test_x.py\n0.1 tests/sub/test_y.py\n")
    assert recorded_durations(path) == {"tests/test_x.py": 12.5, "tests/sub/test_y.py": 0.1}
    assert recorded_durations(tmp_path / "absent.txt") == {}


COSTS = {"heavy-1": 9, "heavy-2": 8, "heavy-3": 7, "a": 3, "b": 2, "c": 1, "d": 0}


@pytest.fixture
def no_choice(monkeypatch):
    monkeypatch.delenv(ALL_SLICES_ENV, raising=False)
    monkeypatch.delenv(SLICE_ENV, raising=False)


def test_the_slices_share_out_every_case_once_and_the_costliest_apart(no_choice, monkeypatch):
    cases = sorted(COSTS)
    shares = []
    for number in (1, 2, 3):
        monkeypatch.setenv(SLICE_ENV, str(number))
        picked, which = commit_slice(cases, 3, COSTS.__getitem__)
        assert which.startswith(f"slice {number} of 3") and picked == sorted(picked)
        assert len({"heavy-1", "heavy-2", "heavy-3"} & set(picked)) == 1
        shares.append(picked)
    assert sorted(case for share in shares for case in share) == cases


def test_the_commit_chooses_the_slice_and_the_variable_takes_all(no_choice, monkeypatch):
    cases = sorted(COSTS)
    first, which = commit_slice(cases, 3, COSTS.__getitem__, commit="0" * 39 + "3")
    assert which.startswith("slice 1 of 3 (by commit 000000000000")
    second, _ = commit_slice(cases, 3, COSTS.__getitem__, commit="0" * 39 + "4")
    assert first != second
    monkeypatch.setenv(ALL_SLICES_ENV, "1")
    assert commit_slice(cases, 3, COSTS.__getitem__, commit="0" * 40)[0] == cases
