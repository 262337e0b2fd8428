"""Read kustomization files: where they are, what local folders they pull in, which are roots."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from trainops.model import objects, repository, yaml_bounds
from trainops.model.config import Config

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
_REFERENCE_FIELDS = ("resources", "bases", "components")
_SKIPPED_FOLDERS = {".git", ".venv", ".cache", "node_modules", "__pycache__"}


def kustomization_file(directory: Path) -> Path | None:
    """The kustomization file in `directory`; None when there is none, or the folder cannot be
    searched (reading it as plain files then says it cannot be read)."""
    for name in KUSTOMIZATION_NAMES:
        candidate = directory / name
        try:
            if candidate.is_file():
                return candidate
        except OSError:
            return None
    return None


def read_kustomization(directory: Path) -> dict:
    """The kustomization in `directory`, or {} when it is missing or unreadable.

    Unreadable files are kustomize's to report (it names the problem precisely); here we only
    need the references, for discovery and for locating errors.
    """
    path = kustomization_file(directory)
    if path is None:
        return {}
    loaded = _load(path)
    return loaded if isinstance(loaded, dict) else {}


# Parsed kustomizations by file and the file's identity (inode, size, modification time): the
# cache key, the renderer, the catalog and several rules all read the same few files, hundreds
# of times in a run. An edited file has a new identity and is read again. Callers only read.
@dataclass(frozen=True)
class _Refusal:
    """Why a kustomization must not be read (kept short: one finding), and the line it shows at."""

    reason: str
    line: int | None = None


_loaded: dict[tuple[str, int, int, int], object] = {}
_LOADED_MAX = 4096
_UNKNOWN = object()


def _load(path: Path) -> object:
    """The parsed file, None for YAML kustomize will refuse itself, or why it must not be read."""
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):
            return _Refusal("not a regular file")
        identity = (str(path), status.st_ino, status.st_size, status.st_mtime_ns)
        known = _loaded.get(identity, _UNKNOWN)  # get: another thread may clear() meanwhile
        if known is not _UNKNOWN:
            return known
        text = path.read_bytes().decode("utf-8")
    except OSError as error:
        return _Refusal(f"cannot be read: {error.strerror or error}")
    except UnicodeDecodeError as error:
        return _Refusal(f"is not UTF-8 text (byte {error.start} cannot be decoded)")
    try:
        loaded = yaml_bounds.load_bounded(text)
    except yaml_bounds.Excessive as error:
        result = _Refusal(error.reason, error.line + 1)
    except yaml.YAMLError:
        result = None  # kustomize reports a syntax error better, with its line
    else:
        problem = _shape_problem(loaded) or _references_problem(loaded)
        result = _Refusal(problem) if problem else loaded
    if len(_loaded) >= _LOADED_MAX:
        _loaded.clear()
    _loaded[identity] = result
    return result


def _shape_problem(loaded: object) -> str | None:
    """Why the file is no kustomization at all: kustomize refuses these too, less plainly (an
    empty one, apiVersion and kind aside, fails kustomize's api/types/kustomization.go
    Kustomization.CheckEmpty: "kustomization.yaml is empty"; a scalar, its unmarshal)."""
    if loaded is None:
        return "is empty: kustomize refuses an empty kustomization; list its resources"
    if not isinstance(loaded, dict):
        return f"is {objects.type_name(loaded)}, not a mapping of kustomization fields"
    return None


def _references_problem(loaded: object) -> str | None:
    """Why the fields naming other files are not lists (every reader iterates them)."""
    if not isinstance(loaded, dict):
        return None
    for field in _REFERENCE_FIELDS:
        value = loaded.get(field)
        if value is not None and not isinstance(value, list):
            kind = "a mapping" if isinstance(value, dict) else f"{value!r}"
            return f"has `{field}: {kind}`: it must be a list of paths or URLs"
    return None


def unreadable(directory: Path) -> tuple[Path, int | None, str] | None:
    """(file, line, why) when the kustomization in `directory` must not be given to kustomize: it
    cannot be read, is not UTF-8, or would make kustomize nest or expand aliases until it runs out
    of stack or memory."""
    path = kustomization_file(directory)
    if path is None:
        return None
    loaded = _load(path)
    return (path, loaded.line, loaded.reason) if isinstance(loaded, _Refusal) else None


def is_remote(entry: str) -> bool:
    return "://" in entry or entry.startswith(("git@", "github.com/"))


def remote_entries(directory: Path) -> list[str]:
    """Remote URLs the kustomization in `directory` lists (resources, bases, components)."""
    kustomization = read_kustomization(directory)
    return [
        entry
        for field in _REFERENCE_FIELDS
        for entry in kustomization.get(field) or []
        if isinstance(entry, str) and is_remote(entry)
    ]


MAX_REFERENCE = 1024  # longer strings in a kustomization are inline patches, not file names


def passed_through(directory: Path) -> Path | None:
    """The one local kustomization folder the kustomization in `directory` only lists, with no
    other field (`resources: [../../cloud/operators]`): kustomize prints it as it prints that
    folder, so it need not be rendered twice. None for any other kustomization."""
    loaded = read_kustomization(directory)
    if set(loaded) - {"apiVersion", "kind", "resources"} or loaded.get("kind", "Kustomization") != (
        "Kustomization"
    ):
        return None
    if loaded.get("apiVersion", "kustomize.config.k8s.io/v1beta1") != (
        "kustomize.config.k8s.io/v1beta1"
    ):
        return None
    resources = loaded.get("resources")
    if not isinstance(resources, list) or len(resources) != 1 or not isinstance(resources[0], str):
        return None
    entry = resources[0]
    if is_remote(entry) or not entry or len(entry) >= MAX_REFERENCE:
        return None
    target = directory / entry
    try:
        inside = target.is_dir() and kustomization_file(target) is not None
    except OSError:
        return None
    return target if inside else None


_PATCH_FIELDS = ("patches", "patchesStrategicMerge", "patchesJson6902")


def patch_only_files(folders: list[Path]) -> set[Path]:
    """The files the kustomizations in `folders` read only as patches (never as a resource, a
    component, a generator's input or anything else): what they hold can change an object's
    fields, never which file it came from."""
    patches: set[Path] = set()
    elsewhere: set[Path] = set()
    for folder in folders:
        loaded = read_kustomization(folder)
        for field in _PATCH_FIELDS:
            for entry in loaded.get(field) or []:
                path = entry.get("path") if isinstance(entry, dict) else entry
                if isinstance(path, str) and "\n" not in path and len(path) < MAX_REFERENCE:
                    patches.add((folder / path).resolve())
        rest = {k: v for k, v in loaded.items() if k not in _PATCH_FIELDS}
        elsewhere.update((folder / c).resolve() for c in candidates(strings_in(rest)))
    return patches - elsewhere


def candidates(strings: Iterable[str]) -> Iterator[str]:
    """What of `strings` may name a local file: each string, and what follows `=` in one (a
    generator's `key=path`)."""
    for value in strings:
        for candidate in {value, value.partition("=")[2]}:
            if candidate and "\n" not in candidate and len(candidate) < MAX_REFERENCE:
                yield candidate


def named_files(folder: Path, strings: Iterable[str]) -> Iterator[tuple[str, Path]]:
    """(as written, path) of each existing file that `strings` of the kustomization in `folder`
    name, however deep below it: a resource, a patch, a generator's input, a configuration."""
    for candidate in candidates(strings):
        if is_remote(candidate):
            continue
        path = folder / candidate
        try:
            if path.is_file():
                yield candidate, path
        except OSError:  # a name too long for the file system, say
            continue


def files_read(root: Path) -> set[Path]:
    """The files (resolved) a render of the kustomization `root` reads: each kustomization file
    it reaches and each file one of them names, however the YAML spells the name."""
    found: set[Path] = set()
    for folder in reachable(root):
        own = kustomization_file(folder)
        if own is None:
            continue
        found.add(own.resolve())
        strings = strings_in(read_kustomization(folder))
        found.update(path.resolve() for _, path in named_files(folder, strings))
    return found


def strings_in(node: object) -> Iterator[str]:
    """Every string in a parsed kustomization (or part of one): what may name a file."""
    pending = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            pending.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            pending.extend(reversed(item))


# Each kustomization's folders, by the file's identity as in _loaded: a run asks for them for
# every root's cache key, discovery and the CRD roots, and resolving each entry costs a system
# call per path component.
_folders: dict[tuple[str, int, int, int], list[Path]] = {}


def local_folders(directory: Path) -> list[Path]:
    """Local folders the kustomization in `directory` includes (resources, bases, components)."""
    path = kustomization_file(directory)
    try:
        status = path.stat() if path is not None else None
    except OSError:
        status = None
    if path is None or status is None:
        return _local_folders(directory)
    identity = (str(path.absolute()), status.st_ino, status.st_size, status.st_mtime_ns)
    known = _folders.get(identity)
    if known is None:
        known = _local_folders(directory)
        if len(_folders) >= _LOADED_MAX:
            _folders.clear()
        _folders[identity] = known
    return list(known)


def _local_folders(directory: Path) -> list[Path]:
    kustomization = read_kustomization(directory)
    folders = []
    for field in _REFERENCE_FIELDS:
        for entry in kustomization.get(field) or []:
            if isinstance(entry, str) and not is_remote(entry):
                target = (directory / entry).resolve()
                if target.is_dir():
                    folders.append(target)
    return folders


def outside_repository(root: Path) -> tuple[Path, str, Path] | None:
    """(the kustomization folder, its entry, the repository) for the first folder `root` includes
    that lies outside the repository `root` is in, a symbolic link followed; None when there is
    none, or `root` is in no repository."""
    top = repository.repository_of(root)
    if top is None:
        return None
    for folder in reachable(root):
        for target in local_folders(folder):
            if target.is_relative_to(top):
                continue
            loaded = read_kustomization(folder)
            for field in _REFERENCE_FIELDS:
                for entry in loaded.get(field) or []:
                    if isinstance(entry, str) and (folder / entry).resolve() == target:
                        return folder, entry, top
    return None


def reachable(root: Path) -> list[Path]:
    """`root` and every local kustomization folder it includes, transitively, in visit order."""
    seen: dict[Path, None] = {}
    pending = [root.resolve()]
    while pending:
        folder = pending.pop(0)
        if folder in seen:
            continue
        seen[folder] = None
        pending.extend(local_folders(folder))
    return list(seen)


def discover_roots(top: Path) -> list[Path]:
    """Kustomizations under `top` that no other one includes and that are not Components."""
    found = []
    # Skipped folders are pruned, not walked (a virtualenv holds tens of thousands of files), and
    # only below `top`: a repository that itself lives under a folder named .cache is still read.
    for parent, folders, names in os.walk(top):
        folders[:] = sorted(f for f in folders if f not in _SKIPPED_FOLDERS)
        if any(n in KUSTOMIZATION_NAMES and os.path.isfile(os.path.join(parent, n)) for n in names):
            found.append(Path(parent).resolve())
    found.sort()
    included = {folder for directory in found for folder in local_folders(directory)}
    return [
        directory
        for directory in found
        if directory not in included and read_kustomization(directory).get("kind") != "Component"
    ]


def configured_roots(config: Config) -> list[Path]:
    """The roots `config` names, or where it names none every kustomization under its folder that
    no other includes (named from the config's folder, as the patterns' matches are)."""
    if config.roots is None:
        top = config.folder.resolve()
        return [config.folder / p.relative_to(top) for p in discover_roots(top)]
    return config.expand(config.roots, "root")


def locate_entry(root: Path, entry: str) -> tuple[Path, int] | None:
    """The kustomization file (reachable from `root`) and line that lists `entry`."""
    for folder in reachable(root):
        path = kustomization_file(folder)
        if path is None:
            continue
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if entry in line and not line.lstrip().startswith("#"):
                return path, number
    return None
