"""The repository's `trainops.yaml`, checked against schemas/trainops-config.schema.json."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import jsonschema_rs
import yaml

from trainops.model.errors import CannotRun
from trainops.model.objects import Unreadable, read_text
from trainops.model.paths import display
from trainops.model.yaml_bounds import Excessive, excessive, load_bounded

CONFIG_NAME = "trainops.yaml"
DEFAULT_KUBERNETES_VERSIONS = ["v1.32"]


@cache
def config_schema() -> dict:
    return json.loads((Path(__file__).parent / "config.schema.json").read_text())


@dataclass(frozen=True)
class SkippedKind:
    kind: str
    reason: str
    api_version: str | None = None

    def matches(self, api_version: str, kind: str) -> bool:
        return self.kind == kind and self.api_version in (None, api_version)


@dataclass(frozen=True)
class PathIgnore:
    rule: str
    path: str
    reason: str


@dataclass(frozen=True)
class RuleSettings:
    enabled: bool = True
    severity: str | None = None


@dataclass(frozen=True)
class Provenance:
    """trainops.yaml `provenance`: the one place naming the repository's Git URL and the registry
    of its own images; `placeholder` acknowledges that both still name a placeholder owner."""

    repository: str
    registry: str
    placeholder: bool = False


@dataclass(frozen=True)
class Config:
    folder: Path
    roots: list[str] | None = None  # None: not given, so every kustomization no other includes
    kubernetes_versions: list[str] = field(
        default_factory=lambda: list(DEFAULT_KUBERNETES_VERSIONS)
    )
    crd_roots: list[str] = field(default_factory=list)
    skip_kinds: list[SkippedKind] = field(default_factory=list)
    rules: dict[str, RuleSettings] = field(default_factory=dict)
    ignores: list[PathIgnore] = field(default_factory=list)
    file: Path | None = None
    mirror: Path | None = None  # the `mirror:` entry, resolved against the config's folder
    # Cluster profiles (trainops.knowledge.profiles reads them), as the schema checked them.
    environments: dict[str, str] = field(default_factory=dict)
    profiles: dict[str, dict] = field(default_factory=dict)
    images: dict[str, dict] = field(default_factory=dict)
    # The registry each environment meant for a real cluster pulls its own images from, by the
    # environment's folder (an environment written as {profile, registry}).
    registries: dict[str, str] = field(default_factory=dict)
    # Where the repository and its own images live (`provenance:`); None when not declared.
    provenance: Provenance | None = None

    def expand(self, patterns: list[str], what: str) -> list[Path]:
        """The files and folders `patterns` (globs relative to the config's folder) match."""
        paths: list[Path] = []
        for pattern in patterns:
            if Path(pattern).is_absolute():
                raise CannotRun(
                    f"{self.file}: {what} pattern {pattern!r} is absolute: "
                    f"patterns are relative to the folder of {CONFIG_NAME}"
                )
            try:
                found = self.folder.glob(pattern)
                matched = sorted(p for p in found if p.is_dir() or p.is_file())
            except (ValueError, NotImplementedError) as error:
                raise CannotRun(f"{self.file}: {what} pattern {pattern!r}: {error}") from None
            if not matched:
                raise CannotRun(f"{self.file}: {what} pattern {pattern!r} matches nothing")
            top = self.folder.resolve()
            for path in matched:  # through a symbolic link
                if path.resolve() != top and top not in path.resolve().parents:
                    raise CannotRun(
                        _outside(self.file, pattern, what, f"{path.relative_to(self.folder)} leads")
                    )
            paths.extend(matched)
        return paths

    def crd_root_paths(self) -> list[Path]:
        return self.expand(self.crd_roots, "crdRoots")

    def skipped(self, api_version: str, kind: str) -> SkippedKind | None:
        return next((s for s in self.skip_kinds if s.matches(api_version, kind)), None)


def _outside(file: Path | None, pattern: str, what: str, which: str) -> str:
    """Why a roots or crdRoots pattern is refused: it reaches outside the repository, whose
    whole tree (or the filesystem's: `../../..`) would then be walked and rendered."""
    line = _line_of(file, pattern, "roots" if what == "root" else what)
    return (
        f"{file}{f':{line}' if line else ''}: {what} pattern {pattern!r}: {which} outside the "
        f"folder of {CONFIG_NAME}; name folders inside the repository (a shared base outside "
        "it is reached through a kustomization that includes it)"
    )


def _line_of(file: Path | None, pattern: str, what: str) -> int | None:
    """The line of `file` where the list `what` (roots, crdRoots) names `pattern`, block or flow,
    read from the YAML's nodes: a comment or another key naming the same text is not it."""
    try:
        node = yaml.compose(read_text(file)) if file is not None else None
    except (Unreadable, yaml.YAMLError):
        return None
    if not isinstance(node, yaml.MappingNode):
        return None
    for key, value in node.value:
        if key.value == what and isinstance(value, yaml.SequenceNode):
            for item in value.value:
                if isinstance(item, yaml.ScalarNode) and item.value == pattern:
                    return item.start_mark.line + 1
    return None


def _escaping(pattern: str) -> bool:
    """Whether a glob pattern climbs above the folder it is relative to (`..` past the top)."""
    depth = 0
    for part in Path(pattern).parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return True
    return False


def _location(error) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.instance_path).lstrip(
        "."
    )
    return f" at {path}" if path else ""


_JSON_SCALARS = (str, int, float, bool, type(None))


def _first_non_json(data: object) -> str | None:
    """Where the config holds a value JSON has no type for (YAML reads 2024-01-01 as a date)."""
    if excessive(data):
        return f": {excessive(data)}"
    pending: list[tuple[str, object]] = [("", data)]
    while pending:
        where, value = pending.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    return f"{where and ' at ' + where}: key {key!r} is not a string: quote it"
                pending.append((f"{where}.{key}".lstrip("."), item))
        elif isinstance(value, list):
            pending.extend((f"{where}[{index}]", item) for index, item in enumerate(value))
        elif not isinstance(value, _JSON_SCALARS):
            return (
                f"{where and ' at ' + where}: {str(value)!r} reads as a YAML "
                f"{type(value).__name__}, not a string: quote it"
            )
    return None


def find_config(start: Path | None = None) -> Path | None:
    """`trainops.yaml` in `start` (default: the working folder) or the nearest folder above it,
    so every command works from any folder of the repository, as git does."""
    folder = (start or Path.cwd()).resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / CONFIG_NAME).is_file():
            return Path(display(candidate / CONFIG_NAME))
    return None


def load_config(path: Path | None, known_rules: Collection[str]) -> Config | None:
    """The config at `path`, or the `trainops.yaml` find_config finds, if there is one; the rules
    it configures or ignores must be among `known_rules` (the registry's ids)."""
    if path is None:
        path = find_config()
        if path is None:
            return None
    elif not path.is_file():
        raise CannotRun(f"{path}: config file does not exist")
    try:
        data = load_bounded(read_text(path))
    except Unreadable as error:
        raise CannotRun(f"{path}: {error}") from None
    except Excessive as error:
        raise CannotRun(f"{path}:{error.line + 1}: {error.reason}") from None
    except yaml.MarkedYAMLError as error:
        line = error.problem_mark.line + 1 if error.problem_mark else "?"
        raise CannotRun(f"{path}:{line}: YAML syntax error: {error.problem}") from None
    except yaml.YAMLError as error:
        raise CannotRun(f"{path}: YAML syntax error: {error}") from None
    data = {} if data is None else data
    not_json = _first_non_json(data)
    if not_json:
        raise CannotRun(f"{path}{not_json}")
    errors = list(jsonschema_rs.validator_for(config_schema()).iter_errors(data))
    if errors:
        first = errors[0]
        raise CannotRun(
            f"{path}{_location(first)}: {first.message} (schema: schemas/trainops-config.schema.json)"
        )
    for place, rule in [("rules", r) for r in data.get("rules", {})] + [
        ("ignore", i["rule"]) for i in data.get("ignore", [])
    ]:
        if rule not in known_rules:
            raise CannotRun(
                f"{path} at {place}: unknown rule {rule!r}; `trainops rules` lists them"
            )
    for what, key in (("root", "roots"), ("crdRoots", "crdRoots")):
        for pattern in data.get(key) or []:
            if _escaping(pattern):
                raise CannotRun(_outside(path, pattern, what, "it names a folder"))
    environments = {
        folder: entry if isinstance(entry, str) else entry["profile"]
        for folder, entry in data.get("environments", {}).items()
    }
    registries = {
        folder: entry["registry"]
        for folder, entry in data.get("environments", {}).items()
        if isinstance(entry, dict) and "registry" in entry
    }
    for environment, profile in environments.items():
        if profile not in data.get("profiles", {}):
            raise CannotRun(
                f"{path} at environments.{environment}: profile {profile!r} is not defined under "
                f"profiles (defined: {', '.join(data.get('profiles', {})) or 'none'})"
            )
    return Config(
        folder=path.parent.resolve(),
        roots=data.get("roots"),
        kubernetes_versions=data.get("kubernetesVersions", list(DEFAULT_KUBERNETES_VERSIONS)),
        crd_roots=data.get("crdRoots", []),
        skip_kinds=[
            SkippedKind(s["kind"], s["reason"], s.get("apiVersion"))
            for s in data.get("skipKinds", [])
        ],
        rules={rule: RuleSettings(**settings) for rule, settings in data.get("rules", {}).items()},
        ignores=[PathIgnore(i["rule"], i["path"], i["reason"]) for i in data.get("ignore", [])],
        file=path,
        mirror=(path.parent / data["mirror"]).resolve() if "mirror" in data else None,
        environments=environments,
        profiles=data.get("profiles", {}),
        images=data.get("images", {}),
        registries=registries,
        provenance=Provenance(
            data["provenance"]["repository"],
            data["provenance"]["registry"],
            bool(data["provenance"].get("placeholder", False)),
        )
        if "provenance" in data
        else None,
    )
