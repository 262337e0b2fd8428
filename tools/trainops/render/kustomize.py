"""Find and run the real kustomize: the Go library the pykustomize wheel bundles, else a standalone
`kustomize`, else the one built into `kubectl`.

The library renders without starting a process per root: one helper process loads it and serves
every render of a run. Go reads the environment once, when the library loads, so it cannot be
handed a per-build environment: it renders only trees with no remote left to fetch (the renderer
first checks remote bases out of the mirror), and the executable renders the rest.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import re
import shutil
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from trainops.model import cache as model_cache
from trainops.model import processes
from trainops.model.errors import CannotRun
from trainops.model.objects import file_identity
from trainops.render.kustomize_worker import Worker, WorkerFailed

RENDER_TIMEOUT_ENV = "TRAINOPS_RENDER_TIMEOUT"
DEFAULT_RENDER_TIMEOUT = 300
BACKEND_ENV = "TRAINOPS_KUSTOMIZE"

# What the repository's pinned GitOps controllers build with, read in their sources at the pins:
# Argo CD v3.5.1 installs kustomize 5.8.1 in its image (hack/tool-versions.sh, KUSTOMIZE_VERSION),
# Flux kustomize-controller v1.9.4 links sigs.k8s.io/kustomize/api v0.21.1, i.e. kustomize 5.8.1
# (go.mod, "Pin kustomize to v5.8.1").
CONTROLLER_KUSTOMIZE = {
    "Argo CD v3.5.1": "5.8.1",
    "Flux kustomize-controller v1.9.4": "5.8.1",
}


def render_timeout() -> int:
    configured = os.environ.get(RENDER_TIMEOUT_ENV, "")
    return (
        int(configured) if configured.isdigit() and int(configured) > 0 else DEFAULT_RENDER_TIMEOUT
    )


@dataclass(frozen=True)
class Built:
    returncode: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Kustomize:
    """kustomize run as a process: `kustomize build DIR` or `kubectl kustomize DIR`."""

    executable: str
    standalone: bool

    @property
    def name(self) -> str:
        return "kustomize" if self.standalone else "kubectl kustomize"

    def build_command(self, directory: Path) -> list[str]:
        # Exec/alpha plugins and Helm inflation are off unless asked for; we never ask.
        verb = ["build"] if self.standalone else ["kustomize"]
        return [self.executable, *verb, str(directory)]

    def build(self, directory: Path, env: dict[str, str]) -> Built:
        timeout = render_timeout()
        try:
            done = processes.run(self.build_command(directory), env=env, timeout=timeout)
        except CannotRun:
            return Built(-1, "", f"error: {self.name} did not finish in {timeout} s")
        return Built(done.returncode, done.stdout, done.stderr)

    def version(self) -> str:
        return _executable_version(self.executable, self.standalone)

    def release(self) -> None:
        """Nothing is held between renders: each ran as its own process."""

    def warm(self) -> None:
        """Nothing to start ahead of a build: each runs as its own process."""


@cache
def _executable_version(executable: str, standalone: bool) -> str:
    if standalone:
        out = _run([executable, "version"]).strip()
        return out.removeprefix("{Version:kustomize/").split(" ")[0]
    out = _run([executable, "version", "--client", "--output=json"])
    return json.loads(out).get("kustomizeVersion", "unknown")


def _run(argv: list[str]) -> str:
    done = processes.run(argv, timeout=60)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise CannotRun(f"{' '.join(argv)} failed: {last}")
    return done.stdout


_API_VERSION = re.compile(rb"\tsigs\.k8s\.io/kustomize/api\tv0\.(\d+)\.(\d+)\t")


@dataclass(frozen=True)
class InProcessKustomize:
    """kustomize's Go library from the pykustomize wheel, run in one helper process for the
    renders of a run (kustomize_worker says why not in this one)."""

    library: str
    fallback: Kustomize | None = None  # renders what still needs git
    _worker: Worker = field(default_factory=Worker, compare=False, repr=False)

    name = "pykustomize"

    @property
    def executable(self) -> str:
        return self.library

    def build(self, directory: Path, env: dict[str, str]) -> Built:
        try:
            code, text = self._worker.build(str(directory), render_timeout())
        except WorkerFailed as failed:
            raise CannotRun(
                f"{failed}; set {BACKEND_ENV}={PROCESS} to render with kubectl or kustomize"
            ) from None
        return Built(0, text, "") if code == 0 else Built(code, "", f"Error: {text}")

    def release(self) -> None:
        """Renders are over for now: end the helper and give its memory back."""
        self._worker.release()

    def warm(self) -> None:
        """A build comes soon: start the helper now, while the tree it reads is being made."""
        self._worker.warm(render_timeout())

    def version(self) -> str:
        return _library_version(self.library)


@cache
def _library_version(library: str) -> str:
    """kustomize's version line from the Go build information linked into the library: API
    v0.N.P is kustomize 5.(N-13).P. Kept in the cache by the file's identity: finding it reads
    the whole library (28 MB, a twentieth of a second of every run)."""
    identity = file_identity(Path(library))
    if identity is None:
        return "unknown"
    key = model_cache.key_of(_VERSIONS_FOLDER, library, *map(str, identity))
    kept = model_cache.load(_VERSIONS_FOLDER, key)
    if kept is not None and _VERSION_LINE.fullmatch(kept.decode(errors="replace")):
        return kept.decode()
    found = _API_VERSION.search(Path(library).read_bytes())
    if found is None:
        return "unknown"
    minor, patch = int(found.group(1)), int(found.group(2))
    version = f"v5.{minor - 13}.{patch} (api v0.{minor}.{patch})"
    model_cache.store(_VERSIONS_FOLDER, key, version.encode())
    return version


_VERSIONS_FOLDER = "library-versions-v1"
_VERSION_LINE = re.compile(r"v5\.\d+\.\d+ \(api v0\.\d+\.\d+\)")


# Where the pykustomize wheel keeps its library (pykustomize 0.1's _ffi._find_library): only a
# build for this platform is found. Looked up without importing the package, whose import parses
# its C declarations with pycparser (a fifth of a second of every run, renders or none): the
# library loads in the helper, on the first build.
_GO_PLATFORM = {
    "Linux": ("linux", "libpykustomize.so"),
    "Darwin": ("darwin", "libpykustomize.dylib"),
    "Windows": ("windows", "pykustomize.dll"),
}
_GO_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}


def library_in(package: Path) -> Path | None:
    """Where the pykustomize package in `package` keeps its library for this platform."""
    if platform.system() not in _GO_PLATFORM:
        return None
    go_os, name = _GO_PLATFORM[platform.system()]
    machine = platform.machine()
    return package / "_lib" / f"{go_os}-{_GO_ARCH.get(machine, machine)}" / name


def _pykustomize_library() -> str | None:
    try:
        spec = importlib.util.find_spec("pykustomize")
    except (ImportError, ValueError):
        return None
    for package in (spec.submodule_search_locations or []) if spec else []:
        library = library_in(Path(package))
        if library is not None and library.is_file():
            return str(library)
    return None


def in_process() -> InProcessKustomize | None:
    """The pykustomize library when it is installed for this platform, else None."""
    library = _pykustomize_library()
    return InProcessKustomize(library, _executable()) if library else None


def _executable() -> Kustomize | None:
    for name, standalone in (("kustomize", True), ("kubectl", False)):
        found = shutil.which(name)
        if found:
            return Kustomize(found, standalone)
    return None


PROCESS = "process"  # TRAINOPS_KUSTOMIZE value: an executable, never the library


def find_kustomize() -> Kustomize | InProcessKustomize:
    """TRAINOPS_KUSTOMIZE if set (`pykustomize`, `process`, or an executable's name), else
    pykustomize when it loads, else `kustomize` on PATH, else `kubectl` on PATH."""
    chosen = os.environ.get(BACKEND_ENV, "")
    if chosen == InProcessKustomize.name:
        library = in_process()
        if library is None:
            raise CannotRun(
                f"{BACKEND_ENV}={chosen}: pykustomize is not installed or does not load here"
            )
        return library
    if chosen and chosen != PROCESS:
        found = shutil.which(chosen)
        if not found:
            raise CannotRun(f"{BACKEND_ENV}={chosen}: no such executable")
        return Kustomize(found, standalone=Path(found).name != "kubectl")
    library = in_process() if chosen != PROCESS else None
    if library is not None:
        return library
    executable = _executable()
    if executable is not None:
        return executable
    raise CannotRun(
        "neither kustomize nor kubectl is on PATH: install kubectl >= 1.27 "
        "(it has kustomize built in) or kustomize >= 5, or pykustomize "
        "(see the Makefile), or set TRAINOPS_KUSTOMIZE"
    )


def _line(version: str) -> str:
    return ".".join(version.removeprefix("v").split(" ")[0].split(".")[:2])


def version_warning(backend: Kustomize | InProcessKustomize) -> str | None:
    """A warning when the backend's kustomize is of another minor line than the controllers'."""
    try:
        version = backend.version()
    except CannotRun:
        return None
    differing = {
        controller: wanted
        for controller, wanted in CONTROLLER_KUSTOMIZE.items()
        if _line(wanted) != _line(version)
    }
    if not differing:
        return None
    embedded = ", ".join(
        f"{controller} builds with kustomize {v}" for controller, v in differing.items()
    )
    return (
        f"rendering with kustomize {version} ({backend.name}), but {embedded}: "
        "a render here may differ from the cluster's; install pykustomize or a matching kustomize"
    )
