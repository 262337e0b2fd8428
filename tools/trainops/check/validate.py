"""Render every root (in parallel), read the objects, and run every rule over them."""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from trainops.check import crd_roots as crd_roots_cache
from trainops.check.redact import secret_values, without_secrets
from trainops.knowledge import coverage
from trainops.knowledge.decoding import read_as_server
from trainops.knowledge.psa.registry import LEVELS
from trainops.knowledge.schema import core
from trainops.knowledge.schema.catalog import Catalog
from trainops.model import field_lines, ignores, objects, repository
from trainops.model.config import DEFAULT_KUBERNETES_VERSIONS, Config
from trainops.model.errors import CannotRun
from trainops.model.field_lines import field_line
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject, Parsed, Problem
from trainops.model.parse_files import Prechecks, Reading, parse_files
from trainops.model.paths import display
from trainops.model.rendered import Cluster, NamespaceDefinition, Rendered
from trainops.model.shape import mapping
from trainops.render import kustomization, render_cache
from trainops.render.renderer import Origins, Renderer, RenderFailure
from trainops.rules import RULES, api_validation
from trainops.rules.schema import withhold_ill_shaped

STDIN = Path("-")  # `validate -`: the objects on standard input
UNIT_WORKER = "trainops.check.unit_worker"  # parses files and prechecks them (api-validation)


@dataclass(frozen=True)
class Root:
    """What to check: a kustomization (rendered) or YAML files taken as they are."""

    path: Path
    text: str | None = field(default=None, compare=False)  # what standard input held
    # A CRD root read only for its CRDs' schemas: no finding names a file of its objects, so its
    # render asks kustomize for no origins (they cost most of a build of Kueue's base).
    schemas_only: bool = field(default=False, compare=False)

    @property
    def name(self) -> str:
        return "<stdin>" if self.path == STDIN else display(self.path)

    @property
    def is_kustomization(self) -> bool:
        return self.path.is_dir() and kustomization.kustomization_file(self.path) is not None


def roots_from_arguments(paths: list[Path]) -> list[Root]:
    for path in paths:
        if path != STDIN and not path.exists():
            if path.is_symlink():
                raise CannotRun(f"{path}: a symbolic link to nothing readable (missing or a loop)")
            raise CannotRun(f"{path}: no such file or folder")
    return [Root(path) for path in paths]


@dataclass(frozen=True)
class Focus:
    """Files given on the command line and checked in the roots that include them: only their
    findings are reported, with any failure of those roots to render (which hides them)."""

    files: frozenset[Path]
    whole_roots: frozenset[str]  # roots given as such: all their findings count
    context_roots: frozenset[str]

    def keeps(self, finding: Finding) -> bool:
        if finding.root in self.whole_roots:
            return True
        if finding.rule == "render-failed" and finding.root in self.context_roots:
            return True
        return (
            finding.file is not None
            and "://" not in finding.file
            and Path(finding.file).resolve() in self.files
        )

    def holds(self, root: str, obj: K8sObject) -> bool:
        """Whether an object is one the run reports on: of a root given as such, or filed in
        a file given."""
        return root in self.whole_roots or (
            obj.file is not None
            and "://" not in obj.file
            and Path(obj.file).resolve() in self.files
        )


def _includes(root: Path, file: Path, read: dict[Path, set[Path]]) -> bool:
    """Whether rendering `root` reads `file`: the file is the root, a kustomization it reaches, or
    named (as a resource, patch, generator input…, in its folder or below) by one; for a folder
    with no kustomization, read file by file, any YAML file under it. `read` keeps each root's
    files for the other paths of the run."""
    if root.is_file():
        return root.resolve() == file
    if kustomization.kustomization_file(root) is None:
        return file.suffix in (".yaml", ".yml") and file.is_relative_to(root.resolve())
    if root not in read:
        read[root] = kustomization.files_read(root)
    return file in read[root]


def roots_in_context(
    paths: list[Path], config: Config | None
) -> tuple[list[Root], Focus | None, list[str]]:
    """Roots for `validate PATH…`. A file of the repository (what pre-commit passes) is checked in
    every configured root that renders it, together with that root's environment (the sibling
    layers, which carry its namespace's Pod Security labels and Kueue queues): a file alone would
    skip those rules without saying so. Returns the roots, the focus (None when no file needed
    context) and notes about files no root includes."""
    roots_from_arguments(paths)  # every path exists
    if config is None:
        return [Root(p) for p in paths], None, []
    configured = kustomization.configured_roots(config)
    whole: list[Root] = []
    context: list[Root] = []
    files: set[Path] = set()
    notes: list[str] = []
    read: dict[Path, set[Path]] = {}
    for path in paths:
        resolved = path.resolve()
        if config.file is not None and resolved == config.file.resolve():
            # What it declares (profiles, registries, images, rules) bears on every root.
            whole += [Root(r) for r in configured]
            continue
        inside = resolved.is_relative_to(config.folder)
        if (
            path == STDIN
            or path.is_dir()
            or not inside
            or any(r.resolve() == resolved for r in configured)
        ):
            whole.append(Root(path))
            continue
        including = [r for r in configured if _includes(r, resolved, read)]
        if not including:
            notes.append(
                f"{display(path)}: no root in {config.file} renders this file; not checked"
            )
            continue
        files.add(resolved)
        parents = {r.resolve().parent for r in including}
        context += [Root(r) for r in configured if r.resolve().parent in parents]
    if not files:
        return whole, None, notes
    roots = list(dict.fromkeys(whole + context))
    focus = Focus(
        frozenset(files), frozenset(r.name for r in whole), frozenset(r.name for r in context)
    )
    return roots, focus, notes


def _read_files(root: Root, reading: Reading | None = None) -> Rendered:
    if root.text is not None:
        field_lines.remember(root.name, root.text)
        rendered = Rendered(root.name, path=None)
        _absorb(rendered, objects.parse_stream(root.text, root.name))
        return rendered
    if root.path.is_dir():
        files, refused = objects.yaml_files(root.path)
    elif root.path.is_symlink() and repository.leaves(
        root.path, repository.repository_of(root.path.parent)
    ):
        files, refused = [], [(root.path, objects.OUTSIDE)]
    else:
        files, refused = [root.path], []
    rendered = Rendered(root.name, path=root.path)
    for folder, why in refused:
        rendered.syntax_errors.append(Problem(display(folder), None, f"cannot be read: {why}"))
    for file, parsed in zip(files, parse_files(files, reading)):
        if isinstance(parsed, objects.Unreadable):
            rendered.syntax_errors.append(Problem(display(file), None, str(parsed)))
        else:
            _absorb(rendered, parsed)
    return rendered


def _absorb(rendered: Rendered, parsed: Parsed) -> None:
    rendered.objects.extend(parsed.objects)
    rendered.syntax_errors.extend(parsed.syntax_errors)
    rendered.malformed.extend(parsed.malformed)


class Progress:
    """Roots loaded so far, on stderr when it is a terminal and the run has lasted a second."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total, self.done, self.renders, self.cached = total, 0, 0, 0
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.perf_counter()
        self.shown = False
        self.lock = threading.Lock()
        try:
            self.live = self.stream.isatty()
        except (AttributeError, ValueError):
            self.live = False

    def loaded(self, from_cache: bool, rendered: bool = True) -> None:
        with self.lock:
            self.done += 1
            self.renders += rendered
            self.cached += from_cache
            if self.live and time.perf_counter() - self.started >= 1.0:
                self.stream.write(
                    f"\rrendered {self.done}/{self.total} root(s), {self.cached} from the cache"
                )
                self.stream.flush()
                self.shown = True

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()


def load_root(
    root: Root,
    renderer: Renderer | None,
    env: dict[str, str] | None,
    progress: Progress | None = None,
    reading: Reading | None = None,
) -> Rendered:
    rendered = _load_root(root, renderer, env, progress, reading)
    if progress is not None and not root.is_kustomization:
        progress.loaded(False, rendered=False)
    return rendered


def _load_root(
    root: Root,
    renderer: Renderer | None,
    env: dict[str, str] | None,
    progress: Progress | None,
    reading: Reading | None,
) -> Rendered:
    if not root.is_kustomization:
        return _read_files(root, reading)
    assert renderer is not None
    rendered = Rendered(root.name, path=root.path)
    try:
        output = (
            renderer.render_for_schemas(root.path, env)
            if root.schemas_only
            else renderer.render(root.path, env)
        )
    except RenderFailure as failure:
        if progress is not None:
            progress.loaded(False)
        if failure.unreachable:
            # Every remote base would fail the same way, and each failure would cascade into
            # missing schemas and queues: one line naming the cause beats dozens of findings.
            raise CannotRun(failure.message) from None
        rendered.failure = Problem(display(failure.file), failure.line, failure.message)
        return rendered
    if progress is not None:
        progress.loaded(output.cached)
    parsed = output.parsed
    if parsed is None:
        parsed = objects.parse_stream(output.text, root.name, lines=False)
    else:
        for obj in parsed.objects:
            obj.file = root.name
    for obj in parsed.objects:
        _locate(obj, output.origins)
    parsed.malformed[:] = [_source_of(problem, output.origins) for problem in parsed.malformed]
    _absorb(rendered, parsed)
    return rendered


def _source_of(problem: Problem, resolve_origin) -> Problem:
    """A malformed object kustomize rendered, at the file and line it came from: the line of
    the document in that file that is malformed for the same reason."""
    if problem.origin is None:
        return problem
    shown, local = resolve_origin(problem.origin)
    if local is None:
        return replace(problem, file=shown)
    try:
        there = objects.parse_file(Path(local)).malformed
    except (OSError, objects.Unreadable):
        there = []
    same = [p.line for p in there if p.message == problem.message] or [None]
    return replace(problem, file=display(Path(local)), line=same[0])


def _locate(obj, origins: Origins) -> None:
    """Point a rendered object at the file (and line) it came from, per kustomize's origin (or
    the one kept for it from an earlier build, when the render carries none)."""
    origin = objects.take_origin(obj.doc)
    if origin is not None:
        shown, local = origins(origin)
        named = "path" in origin
    else:
        kept = origins.kept_for((obj.api_version, obj.kind, obj.namespace or "", obj.name))
        if kept is None:
            return
        shown, local, named = kept
    if local is None:
        obj.file = shown
        return
    obj.file = display(Path(local))
    obj.line = objects.source_line(local, obj.kind, obj.name) if named else None


@dataclass
class Outcome:
    findings: list[Finding]
    rendered: list[Rendered]
    seconds: float
    render_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    renders: int = 0  # kustomizations rendered, CRD roots included
    renders_from_cache: int = 0
    warnings: list[str] = field(default_factory=list)  # said on every run, unlike notes
    # How many of the objects reported on were judged as the API server judges them (None when
    # a live server judged them: `trainops verify`).
    judgement: coverage.Judgement | None = None
    judged_in: dict[str, coverage.Judgement] = field(default_factory=dict)  # by root


def run_rules(
    rendered: Rendered, cluster: Cluster, selected: set[str] | None = None
) -> list[Finding]:
    return [
        finding
        for rule_id, rule in RULES.items()
        if selected is None or rule_id in selected
        for finding in rule.check(rendered, cluster)
    ]


# Without these nothing else is checked, so they always run, whatever --select says.
ALWAYS = {"render-failed", "yaml-syntax", "malformed-object"}


def _rules_to_run(selected: set[str] | None, config: Config | None) -> set[str]:
    chosen = set(RULES) if selected is None else set(selected) | ALWAYS
    if config is not None:
        chosen -= {rule for rule, settings in config.rules.items() if not settings.enabled}
    return chosen


def _at_fields(findings: list[Finding]) -> list[Finding]:
    """_at_field() of each finding, asked in the order of their files and lines (the documents
    it composes are then reused), answered in the findings' order."""
    placed = list(findings)
    for index in sorted(
        range(len(findings)), key=lambda i: (findings[i].file or "", findings[i].line or 0)
    ):
        placed[index] = _at_field(findings[index])
    return placed


def _at_field(finding: Finding) -> Finding:
    """The finding at the line of the field its path names, where its source file has it."""
    if not (finding.path and finding.file and finding.line) or "//" in finding.file:
        return finding
    line = field_line(finding.file, finding.line, finding.path)
    return replace(finding, line=line) if line is not None else finding


def _key_of(finding: Finding) -> tuple:
    return (
        finding.rule,
        finding.file,
        finding.line,
        finding.path,
        finding.message,
        finding.object,
    )


def environment_of(config: Config | None, path: Path) -> str | None:
    """The environment (a trainops.yaml `environments` folder, by its name) a root lies in."""
    if config is None:
        return None
    resolved = path.resolve()
    for folder in config.environments:
        if resolved.is_relative_to((config.folder / folder).resolve()):
            return Path(folder).name
    return None


def environments_of(config: Config | None, paths: list[Path]) -> list[str]:
    return list(dict.fromkeys(e for p in paths if (e := environment_of(config, p)) is not None))


def _environment_by_root(rendered: list[Rendered], config: Config | None) -> dict[str, str]:
    return {
        result.root: environment
        for result in rendered
        if result.path is not None and (environment := environment_of(config, result.path))
    }


def _settle(
    findings: list[Finding], rendered: list[Rendered], config: Config | None, ran: set[str]
) -> list[Finding]:
    """Apply argued ignores and configured severities, drop repeats, report ignores that matched nothing.

    An ignore belongs to the source object, not to a root: a file several roots include (an
    operator in every environment) carries one set of ignores, used by whichever root matches.
    """
    annotated: dict[tuple, tuple] = {}  # (object, file, line) -> (root, object, ignores)
    for result in rendered:
        for obj in result.objects:
            found, _ = ignores.object_ignores(obj.doc)
            if found:
                annotated.setdefault((obj.ref, obj.file, obj.line), (result.root, obj, found))
    path_ignores = [
        (entry, ignores.Ignore(entry.rule, entry.reason))
        for entry in (config.ignores if config else [])
    ]
    kept: list[Finding] = []
    seen: dict[tuple, list[str]] = {}  # a finding's key -> the roots it was found in
    for finding in findings:
        _, _, object_ignores = annotated.get(
            (finding.object, finding.file, finding.line), (None, None, [])
        )
        matched = [i for i in object_ignores if i.rule == finding.rule]
        matched += [
            i
            for entry, i in path_ignores
            if i.rule == finding.rule and ignores.path_matches(entry.path, finding.file)
        ]
        for ignore in matched:
            ignore.used = True
        key = _key_of(finding)
        if matched:
            continue
        if finding.file is not None and key in seen:
            seen[key].append(finding.root)  # the same finding in another root: named there too
            continue
        settings = config.rules.get(finding.rule) if config else None
        if settings is not None and settings.severity is not None:
            finding = replace(finding, severity=Severity(settings.severity))
        seen[key] = [finding.root]
        kept.append(finding)
    for root, obj, found in annotated.values():
        for ignore in found:
            if not ignore.used and ignore.rule in ran:
                kept.append(
                    Finding(
                        "ignore",
                        Severity.WARNING,
                        f"ignore of {ignore.rule!r} matched no finding: delete it",
                        root,
                        obj.file,
                        obj.line,
                        obj.ref,
                        f"metadata.annotations.{ignores.ANNOTATION}",
                    )
                )
    for entry, ignore in path_ignores:
        assert config is not None  # path ignores come from it
        if not ignore.used and entry.rule in ran:
            kept.append(
                Finding(
                    "ignore",
                    Severity.WARNING,
                    f"ignore of {entry.rule!r} for {entry.path!r} matched no finding: delete it",
                    str(config.file),
                    str(config.file),
                )
            )
    environments = _environment_by_root(rendered, config)

    def named(finding: Finding) -> Finding:
        found = seen.get(_key_of(finding), []) if finding.file is not None else []
        roots = tuple(dict.fromkeys(found or [finding.root]))
        in_environments = (e for root in roots if (e := environments.get(root)) is not None)
        return replace(finding, roots=roots, environments=tuple(dict.fromkeys(in_environments)))

    return [named(finding) for finding in kept]


_NAMESPACE_KIND = re.compile(rb"^kind:[ \t]*[\"']?Namespace[\"']?[ \t]*(#.*)?$", re.MULTILINE)
_ENFORCE = "pod-security.kubernetes.io/enforce"


def _strictness(definition: NamespaceDefinition) -> int:
    level = definition.labels.get(_ENFORCE, LEVELS[0])
    return LEVELS.index(level) if level in LEVELS else -1


class RepositoryNamespaces:
    """The Namespaces the files of the configured roots define, read from those files (found
    once, when a rule first asks): what a pod checked without its environment's layers (a file
    given alone, standard input) is judged with. Where the repository defines a namespace twice
    with different Pod Security levels, the strictest enforced one stands (an environment
    enforces it). A label a kustomize patch adds is not seen here: validating the environment's
    layers together sees it."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self._lock = threading.Lock()
        self._found: dict[str, NamespaceDefinition] | None = None

    def __call__(self) -> dict[str, NamespaceDefinition]:
        with self._lock:
            if self._found is None:
                self._found = self._find()
            return self._found

    def _files(self) -> list[Path]:
        files: set[Path] = set()
        for root in kustomization.configured_roots(self._config):
            if root.is_dir() and kustomization.kustomization_file(root) is not None:
                files |= kustomization.files_read(root)
            elif root.is_file():
                files.add(root.resolve())
        top = self._config.folder.resolve()
        return sorted(f for f in files if f.suffix in (".yaml", ".yml") and f.is_relative_to(top))

    def _find(self) -> dict[str, NamespaceDefinition]:
        found: dict[str, NamespaceDefinition] = {}
        for file in self._files():
            try:
                if not _NAMESPACE_KIND.search(file.read_bytes()):
                    continue
                parsed = objects.parse_file(file)
            except (OSError, objects.Unreadable):
                continue
            for obj in parsed.objects:
                if obj.kind != "Namespace" or obj.api_version != "v1" or not obj.name:
                    continue
                labels = {
                    str(k): str(v)
                    for k, v in mapping(mapping(obj.doc.get("metadata")).get("labels")).items()
                }
                where = f"{obj.file}:{obj.line}" if obj.line else str(obj.file)
                definition = NamespaceDefinition(labels, where)
                known = found.get(obj.name)
                if known is None or _strictness(definition) > _strictness(known):
                    found[obj.name] = definition
        return found


def clusters(rendered: list[Rendered]) -> dict[int, Cluster]:
    """Roots that are layers of one environment (siblings: overlays/<env>/<layer>) share a cluster."""
    by_folder: dict[Path | None, Cluster] = {}
    for result in rendered:
        folder = result.path.resolve().parent if result.path is not None else None
        by_folder.setdefault(folder, Cluster([])).roots.append(result)
    return {id(result): cluster for cluster in by_folder.values() for result in cluster.roots}


def _crds(rendered: list[Rendered]):
    for result in rendered:
        for obj in result.objects:
            if (
                obj.kind == "CustomResourceDefinition"
                and obj.api_version == "apiextensions.k8s.io/v1"
            ):
                yield obj, result


@dataclass(frozen=True)
class _Supplier:
    """What a CRD root reads: its folders (as findings name files) and the remote resources
    they list."""

    folders: tuple[str, ...]
    remotes: tuple[str, ...]

    @classmethod
    def of(cls, crd_root: Root) -> _Supplier:
        folders = kustomization.reachable(crd_root.path)
        remotes = [entry for folder in folders for entry in kustomization.remote_entries(folder)]
        return cls(tuple(display(folder) + "/" for folder in folders), tuple(remotes))

    def supplies(self, source: str) -> bool:
        """Whether a CRD from `source` (its file, or remote origin `repo//path?ref=…`) comes
        through this root."""
        if source.startswith(self.folders):
            return True
        for entry in self.remotes:
            if entry == source:  # a remote file
                return True
            repo, _, rest = entry.partition("//")[2].partition("//")
            ref = rest.partition("?")[2]
            if source.startswith(f"{entry.partition('//')[0]}//{repo}//") and source.endswith(
                f"?{ref}"
            ):
                return True
        return False


def _repository_name(path: Path, top: Path | None) -> str:
    resolved = path.resolve()
    return (
        resolved.relative_to(top).as_posix()
        if top is not None and resolved.is_relative_to(top)
        else display(path)
    )


def catalog_for(
    loaded: list[Rendered],
    versions: list[str],
    crd_roots: list[Root],
    top: Path | None = None,
    cached: list[crd_roots_cache.CrdFrom] | None = None,
) -> Catalog:
    """The schema catalog: the CRDs of `loaded`, then the `cached` ones (CRD roots not loaded,
    whose schemas came from the cache). A CRD's installer is the first CRD root (in config order)
    that rendered it, or that supplies it to a root which included that CRD root; named relative
    to `top` (the config's folder), as the notes in files name it, wherever the command runs from."""
    installers: dict[str, str] = {}
    crds: dict[str, K8sObject] = {}
    suppliers = [(crd_root, _Supplier.of(crd_root)) for crd_root in crd_roots]

    def attribute(name: str, file: str, root: str) -> None:
        for crd_root, supplier in suppliers:
            if crd_root.name == root or supplier.supplies(file):
                installers.setdefault(name, _repository_name(crd_root.path, top))
                break

    for obj, result in _crds(loaded):
        crds.setdefault(obj.name, obj)
        attribute(obj.name, obj.file, result.root)
    for crd in cached or []:
        attribute(crd.schemas.converted.name, crd.file, crd.root)
    return Catalog(
        versions,
        [obj.doc for obj in crds.values()],
        installers,
        [crd.schemas for crd in cached or []],
        [obj.source for obj in crds.values()],
    )


def _reachable(roots: list[Root]) -> set[Path]:
    """The kustomization folders rendering `roots` reads."""
    return {
        folder
        for root in roots
        if root.path.is_dir()
        for folder in kustomization.reachable(root.path)
    }


def load_roots(
    roots: list[Root],
    renderer: Renderer | None,
    jobs: int | None = None,
    progress: Progress | None = None,
    reading: Reading | None = None,
) -> list[Rendered]:
    """Render or read every root, in parallel (kustomize runs in other processes: threads
    suffice); files are read as `reading` says."""
    env = renderer.environment() if renderer and any(r.is_kustomization for r in roots) else None
    workers = max(1, min(len(roots), jobs or os.cpu_count() or 1))
    # Renders first, then plain files: kustomize's memory is given back before the files' objects
    # pile up, so the two peaks do not add.
    renders = [i for i, root in enumerate(roots) if root.is_kustomization]
    if renderer is not None and workers > 1:
        renders = [renders[i] for i in renderer.render_order([roots[i].path for i in renders])]
    files = [i for i, root in enumerate(roots) if not root.is_kustomization]

    def load(i: int) -> Rendered:
        return load_root(roots[i], renderer, env, progress, reading)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        loaded = dict(zip(renders, pool.map(load, renders)))
        if renders and files and renderer is not None:
            renderer.release()
            objects.forget_units()
        loaded.update(zip(files, pool.map(load, files)))
    return [loaded[i] for i in range(len(roots))]


@dataclass
class WithCrdRoots:
    """Roots loaded together with CRD roots, or with the CRD roots' schemas from the cache."""

    roots: list[Rendered]
    crd_roots: list[Rendered]  # the CRD roots read (none when `schemas` stands for them)
    schemas: list[crd_roots_cache.CrdFrom] | None  # theirs, from or now in the cache
    from_cache: bool
    notes: list[str]


def load_with_crd_roots(
    roots: list[Root],
    crd_roots: list[Root],
    renderer: Renderer | None,
    load: Callable[..., list[Rendered]],
    needs: Callable[[Iterable[K8sObject]], bool] | None = None,
) -> WithCrdRoots:
    """load(roots + crd_roots), except that CRD roots unchanged since a run that read them
    cleanly are not read: their schemas come from one cache entry (check/crd_roots.py), which
    CRD roots read cleanly now fill. When `needs` is given and every root is plain files, the
    CRD roots are read only if `needs` says the files' objects need their schemas: from the
    first parses that show one does, alongside the rest of the files (`load` is then given a
    second argument, told of the parses as they come)."""
    notes: list[str] = []
    key = crd_roots_cache.key(renderer, [(r.name, r.path) for r in crd_roots])
    schemas = crd_roots_cache.load(key, notes) if key else None
    if schemas is not None or not crd_roots:
        return WithCrdRoots(load(roots), [], schemas, schemas is not None, notes)

    def kept(theirs: list[Rendered]) -> tuple[list[Rendered], list[crd_roots_cache.CrdFrom] | None]:
        """The CRD roots' renders, or their schemas once kept (when every one loaded cleanly)."""
        if not key or not all(r.loaded for r in theirs):
            return theirs, None
        schemas = crd_roots_cache.of(theirs, notes)
        crd_roots_cache.store(key, schemas)
        return [], schemas

    if needs is not None and not any(root.is_kustomization for root in roots):
        # Files say what they hold before anything renders: CRD roots render only for objects
        # their schemas may describe (ten thousand Deployments need none of them). Their CRDs
        # are converted in the same thread, while the files are still being parsed.
        early = _EarlyLoad(lambda: kept(load(crd_roots)), needs, renderer)
        mine = load(roots, early.seen)
        if not needs(obj for result in mine for obj in result.objects):
            return WithCrdRoots(mine, [], None, False, notes)
        theirs, schemas = early.result() or kept(load(crd_roots))
    else:
        loaded = load(roots + crd_roots)
        mine = loaded[: len(roots)]
        theirs, schemas = kept(loaded[len(roots) :])
    return WithCrdRoots(mine, theirs, schemas, False, notes)


class _EarlyLoad:
    """CRD roots loaded while plain files are still being read: from the first parses whose
    objects need their schemas (any later object only adds to what needs them), in a thread of
    their own, so their renders fill what the parse workers leave of the cores. The kustomize
    helper ends as they are done, before the files' objects pile up."""

    def __init__(
        self,
        load: Callable[[], tuple[list[Rendered], list[crd_roots_cache.CrdFrom] | None]],
        needs: Callable[[Iterable[K8sObject]], bool],
        renderer: Renderer | None,
    ) -> None:
        self._load, self._needs, self._renderer = load, needs, renderer
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loaded: tuple[list[Rendered], list[crd_roots_cache.CrdFrom] | None] | None = None
        self._error: BaseException | None = None

    def seen(self, parsed: list[Parsed]) -> None:
        if self._thread is not None or not self._needs(o for one in parsed for o in one.objects):
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            self._loaded = self._load()
            if self._renderer is not None:
                self._renderer.release()
            objects.forget_units()
        except BaseException as error:  # noqa: BLE001 - raised where the result is asked for
            self._error = error

    def result(self) -> tuple[list[Rendered], list[crd_roots_cache.CrdFrom] | None] | None:
        """What the early load gave (raising what it raised), or None when it never started."""
        with self._lock:
            thread = self._thread
        if thread is None:
            return None
        thread.join()
        if self._error is not None:
            raise self._error
        return self._loaded


def _needs_crd_schemas(found: Iterable[K8sObject], versions: list[str]) -> bool:
    """Whether an object is a CRD, or of a kind no Kubernetes version of the run serves (a
    custom resource, or a kind the API server lacks, whose finding may depend on the CRDs)."""
    kinds = {(obj.api_version, obj.kind) for obj in found}
    return any(
        kind == "CustomResourceDefinition"
        or all(core.schema_for(version, api_version, kind) is None for version in versions)
        for api_version, kind in kinds
    )


def load_or_fail(roots: list[Root], renderer: Renderer | None) -> list[Rendered]:
    """load_roots for commands that cannot work around a broken root: the first failure is exit 2."""
    loaded = load_roots(roots, renderer)
    for result in loaded:
        problem = result.failure or (result.syntax_errors or [None])[0]
        if problem is not None:
            where = f"{problem.file}:{problem.line}" if problem.line else problem.file
            raise CannotRun(f"{where}: {problem.message}")
    return loaded


def validate(
    roots: list[Root],
    renderer: Renderer | None,
    jobs: int | None = None,
    config: Config | None = None,
    selected: set[str] | None = None,
    focus: Focus | None = None,
) -> Outcome:
    started = time.perf_counter()
    objects.forget_parsed()
    render_cache.forget()
    crd_roots = [Root(p) for p in (config.crd_root_paths() if config else [])]
    # A CRD root a checked root includes (operators/kueue, in every environment's operators
    # layer) is not rendered again: its CRDs are in that render. The others render alongside the
    # checked roots; a CRD root only a root that then fails to render included renders after.
    included = _reachable(roots)
    extra = [replace(r, schemas_only=True) for r in crd_roots if r.path.resolve() not in included]
    progress = Progress(len(roots) + len(extra))
    versions = config.kubernetes_versions if config else list(DEFAULT_KUBERNETES_VERSIONS)
    ran = _rules_to_run(selected, config)
    prechecks = (
        Prechecks(UNIT_WORKER, api_validation.unit_context(versions))
        if api_validation.ID in ran
        else None
    )
    loaded = load_with_crd_roots(
        roots,
        extra,
        renderer,
        lambda some, seen=None: load_roots(
            some, renderer, jobs, progress, Reading(prechecks, seen)
        ),
        lambda found: _needs_crd_schemas(found, versions),
    )
    rendered, extra_loaded = loaded.roots, loaded.crd_roots
    if loaded.from_cache:
        for _ in extra:
            progress.loaded(True)
    still_included = _reachable([Root(r.path) for r in rendered if r.loaded and r.path])
    late = [
        replace(r, schemas_only=True)
        for r in crd_roots
        if r.path.resolve() in included - still_included
    ]
    progress.total += len(late)
    extra_loaded += load_roots(late, renderer, jobs, progress) if late else []
    if renderer is not None:
        renderer.release()
    objects.forget_units()
    progress.finish()
    # A CRD root that fails to render leaves its kinds without schemas: that failure is reported too.
    rendered += [r for r in extra_loaded if not r.loaded]
    schema_sources = rendered + [r for r in extra_loaded if r.loaded]
    rendered_at = time.perf_counter()
    catalog = catalog_for(
        schema_sources, versions, crd_roots, config.folder if config else None, loaded.schemas
    )
    catalog.notes[:0] = loaded.notes + (renderer.notes if renderer is not None else [])
    for result in rendered:
        for obj in result.objects:
            read_as_server(obj, versions[0])
        withhold_ill_shaped(result, catalog)
    cluster_of = clusters(rendered)
    namespaces = RepositoryNamespaces(config) if config is not None else None
    for cluster in {id(c): c for c in cluster_of.values()}.values():
        cluster.catalog, cluster.config, cluster.everything = catalog, config, rendered
        cluster.rule_ids = frozenset(RULES)
        cluster.repository_namespaces = namespaces
    findings = [
        finding for result in rendered for finding in run_rules(result, cluster_of[id(result)], ran)
    ]
    findings = _at_fields(_settle(findings, rendered, config, ran))
    findings = without_secrets(findings, secret_values(rendered))
    if focus is not None:
        findings = [f for f in findings if focus.keeps(f)]
    withheld = sum(len(result.ill_shaped) for result in rendered)
    warnings = (
        [
            f"{withheld} object(s) have a field of the wrong type and were not checked by the "
            "selected rules: `--select schema` says where"
        ]
        if withheld and "schema" not in ran
        else []
    )
    judged_in = {
        result.root: coverage.judge(
            catalog,
            (
                (obj.api_version, obj.kind)
                for obj in result.objects + result.ill_shaped
                if focus is None or focus.holds(result.root, obj)
            ),
            ran,
        )
        for result in rendered
    }
    judgement = coverage.Judgement(skipped=coverage.judge(catalog, [], ran).skipped)
    for counted in judged_in.values():
        judgement.add(counted)
    finished = time.perf_counter()
    return Outcome(
        findings,
        rendered,
        finished - started,
        rendered_at - started,
        catalog.notes,
        progress.renders,
        progress.cached,
        warnings,
        judgement,
        judged_in,
    )
