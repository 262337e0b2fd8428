"""Session fixtures: the offline mirror, a private cache, and a renderer that uses both."""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from helpers import MIRROR, REPO
from suite_order import DURATIONS, Recorder, longest_first, recorded_durations
from trainops.knowledge.schema import cache as schema_cache
from trainops.model import objects
from trainops.model.cache import cache_root
from trainops.render import render_cache
from trainops.render.kustomize import find_kustomize
from trainops.render.renderer import Renderer
from trainops.rules import api_validation

TEST_CACHE = REPO / ".cache" / "trainops-tests"


# Scratch folders (pytest's tmp_path, and TMPDIR for what the tests start: git, pip, Ray) go to
# memory when /dev/shm has room: the suite writes tens of thousands of small files (copies of the
# repository, pre-commit's hook environment, checkpoints), and a disk can take several times as
# long as the work itself. TMPDIR or --basetemp, when given, win.
_SCRATCH_IN_MEMORY = Path("/dev/shm")
_SCRATCH_ROOM = 4 * 2**30


def pytest_configure(config: pytest.Config) -> None:
    # As in the CLI (trainops/cli.py): the suite keeps many objects alive (the imports, session
    # renders, parsed cases) that the cyclic collector would walk again at every threshold. Those
    # made so far are left out of its walks, and it starts at 100,000 new objects, not 700: 7 % less
    # CPU in the modules that judge in this process (tests/conformance, test_wrong_types, ...).
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)
    if config.getoption("record_durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(Recorder(), "trainops-durations")
    if (
        hasattr(config, "workerinput")  # an xdist worker: it inherits the controller's choice
        or config.option.basetemp
        or os.environ.get("TMPDIR")
    ):
        return
    try:
        free = os.statvfs(_SCRATCH_IN_MEMORY)
    except OSError:
        return
    if free.f_bavail * free.f_frsize >= _SCRATCH_ROOM and os.access(_SCRATCH_IN_MEMORY, os.W_OK):
        os.environ["TMPDIR"] = str(_SCRATCH_IN_MEMORY)
        tempfile.tempdir = None  # read TMPDIR again


@pytest.fixture(scope="session")
def mirror() -> Path:
    if MIRROR is None:
        pytest.skip(
            "no offline mirror: set TRAINOPS_MIRROR or put shared/mirror beside the repository"
        )
    return MIRROR


@pytest.fixture(scope="session", autouse=True)
def _private_cache() -> None:
    # Tests never write the user's cache. They share one of their own, across test processes and
    # runs: its entries are keyed by content, so a render is reused only when nothing it reads
    # changed. Tests of the cache itself point TRAINOPS_CACHE_DIR at a fresh folder.
    _seed_from(cache_root())
    os.environ["TRAINOPS_CACHE_DIR"] = str(TEST_CACHE)


# Entries keyed by everything that computes them, so one the user's cache holds (`make validate`
# ran first) is exactly what a test would compute: copied in, each entry is still verified on read.
_SEEDED = (
    render_cache.FOLDER,
    render_cache.KEPT_FOLDER,
    objects.PARSED_FOLDER,
    schema_cache.FOLDER,
    api_validation.RESULTS,
)


def _seed_from(user_cache: Path) -> None:
    if user_cache.resolve() == TEST_CACHE.resolve():
        return
    for name in _SEEDED:
        target = TEST_CACHE / name
        for entry in sorted((user_cache / name).glob("*.entry")):
            if (target / entry.name).exists():
                continue
            target.mkdir(parents=True, exist_ok=True)
            partial = target / f".{entry.name}.{os.getpid()}.seed"
            try:
                shutil.copyfile(entry, partial)
                os.replace(partial, target / entry.name)
            except OSError:
                partial.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def renderer(mirror: Path) -> Renderer:
    return Renderer(find_kustomize(), mirror)


@pytest.fixture(scope="session")
def overlays(renderer) -> dict[tuple[str, str], list[dict]]:
    """Every overlays/<env>/<layer>, rendered once per session (in parallel)."""
    from helpers import ENVIRONMENTS, LAYERS, REPO, rendered_each

    keys = [(env, layer) for env in ENVIRONMENTS for layer in LAYERS]
    paths = [REPO / "overlays" / env / layer for env, layer in keys]
    return dict(zip(keys, rendered_each(renderer, paths)))


# The longest tests start first, so that on two workers they run beside the many short ones
# instead of after them: a test started last would leave one worker idle while the other runs it.
# Each module's time, as the last `make durations` recorded it (durations.txt), orders the
# modules, longest first; a module not recorded yet goes first with them, so a slow newcomer
# cannot be the one left for last. A module's tests stay together and in their own order, so
# that its module-scoped fixtures (renders, a model trained once) are made once, on one worker.


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help=f"write each module's seconds (setup, call, teardown) to tests/{DURATIONS.name}",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = longest_first(items, recorded_durations())
