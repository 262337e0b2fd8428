"""Render a kustomization with the real kustomize, offline through a mirror when one is given.

kustomize reports a failure as one long nested sentence; `explain_failure` turns the common ones
(missing file, unknown remote tag or repository, YAML syntax) into a cause a user can act on, with
the file and line that caused it.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from trainops.model import objects
from trainops.model.errors import CannotRun
from trainops.model.paths import display
from trainops.render import crd_stubs, kustomization, mirror, preflight, raw_files, render_cache
from trainops.render.kustomize import Built, InProcessKustomize, Kustomize

FULL_BUILDS_ENV = "TRAINOPS_FULL_BUILDS"  # 1: never compose remote bases' rendered CRDs


@dataclass(frozen=True)
class RenderFailure(Exception):
    file: Path
    line: int | None
    message: str
    unreachable: bool = False  # git could not reach GitHub and no mirror stood in

    def one_line(self) -> str:
        where = display(self.file)
        if self.line:
            where += f":{self.line}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Origins:
    """Turns kustomize's origin annotations into (where to show, local file or None)."""

    wrapper: str  # the folder of the kustomization that asked for origins
    paths: raw_files.PathMap
    moved: tuple[str, str] | None = None  # a cached render of another root: (its root, this one)
    # A render without origin annotations: its objects' origins, kept from an earlier build of
    # the same skeleton (render_cache.skeleton_key), local files named from `root`.
    kept: dict[render_cache.Identity, render_cache.KeptOrigin] | None = None
    root: str = ""

    def kept_for(self, identity: render_cache.Identity) -> tuple[str, str | None, bool] | None:
        """(where to show, local file or None, whether the origin names a file) of an object
        whose render carries no origin annotation."""
        found = (self.kept or {}).get(identity)
        if found is None:
            return None
        where, value, named = found
        if where == "remote":
            return value, None, False
        local = os.path.normpath(os.path.join(os.path.abspath(self.root), value))
        return local, local, named

    def __call__(self, origin: dict) -> tuple[str, str | None]:
        path = origin.get("path") or origin.get("configuredIn") or ""
        if origin.get("repo"):
            ref = f"?ref={origin['ref']}" if origin.get("ref") else ""
            return f"{origin['repo']}//{path}{ref}", None
        normalized = os.path.normpath(os.path.join(self.wrapper, path))
        remote = self.paths.remote_origin(normalized)
        if remote is not None:  # a remote base read from its checkout
            return remote, None
        local = self.paths.restore(normalized)
        if "://" in local:  # a remote file read from the mirror
            return local, None
        if self.moved is not None:  # the same place relative to this root
            rendered_at, here = self.moved
            local = os.path.normpath(os.path.join(here, os.path.relpath(local, rendered_at)))
        return local, local


@dataclass(frozen=True)
class Output:
    text: str
    origins: Origins
    cached: bool  # read from the render cache, not rendered
    # The text's objects, when rendering parsed it already (to find that the kept origins hold)
    # and nothing has read them since; their file is the placeholder "render".
    parsed: objects.Parsed | None = None


@dataclass(frozen=True)
class Renderer:
    kustomize: Kustomize | InProcessKustomize
    mirror: Path | None = None
    use_cache: bool = True
    # Remote bases' CRD schemas rendered once per commit and spliced in (crd_stubs); off, every
    # root is a full build (the tests compare the two).
    compose: bool = field(default_factory=lambda: os.environ.get(FULL_BUILDS_ENV) != "1")
    notes: list[str] = field(default_factory=list, compare=False)  # said under -v

    def environment(self) -> dict[str, str]:
        return mirror.git_environment(self.mirror)

    def build(self, directory: Path, env: dict[str, str] | None = None) -> str:
        """Rendered YAML of the kustomization in `directory`; raises RenderFailure."""
        return self.output(directory, env, origins=False).text

    def render(self, directory: Path, env: dict[str, str] | None = None) -> Output:
        """Rendered YAML with each object's origin annotation, and the function that turns an
        origin into (source file, or remote repo//path?ref=, and the object's local file if any).
        Read for its objects' values (validate, verify, drift), not printed: so remote CRDs'
        versions may be spliced in as one line of JSON holding the same values (crd_stubs),
        without a full build of their bases; `build` prints kustomize's text."""
        return self.output(directory, env, origins=True, values_only=True)

    def render_for_schemas(self, directory: Path, env: dict[str, str] | None = None) -> Output:
        """render() without origins: for a root read only for its CRDs' schemas, whose objects
        no finding places in a file."""
        return self.output(directory, env, origins=False, values_only=True)

    def output(
        self,
        directory: Path,
        env: dict[str, str] | None,
        origins: bool,
        values_only: bool = False,
    ) -> Output:
        if kustomization.kustomization_file(directory) is None:
            raise RenderFailure(directory, None, "no kustomization.yaml in this folder")
        try:
            str(directory.resolve()).encode()
        except UnicodeEncodeError:
            # kustomize is handed paths in YAML, which is UTF-8: this one cannot be written there.
            raise RenderFailure(
                directory, None, "its path is not valid UTF-8: rename the folder to render it"
            ) from None
        for folder in kustomization.reachable(directory):
            unreadable = kustomization.unreadable(folder)
            if unreadable:
                raise RenderFailure(*unreadable)
        outside = kustomization.outside_repository(directory)
        if outside is not None:
            folder, entry, top = outside
            where = kustomization.locate_entry(folder, entry)
            file, line = where if where else (folder, None)
            raise RenderFailure(
                file,
                line,
                f"{entry} is a folder outside the repository ({display(top)}): kustomize would "
                "read it from this machine, not from the repository; move it into the repository",
            )
        inner = self._passed_through(directory)
        if inner is not None:
            # Printed as the one folder it lists (tests/test_crd_stubs.py compares them): the
            # folder's render, from the cache when another root rendered it.
            return self.output(inner, env, origins, values_only)
        key = (
            render_cache.key(
                self.kustomize, self.mirror, directory, origins, "values" if values_only else ""
            )
            if self.use_cache
            else None
        )
        if key is None:
            text, found, note, _ = self._run(directory, env, origins, values_only)
            self._say(note)
            return Output(text, found, cached=False)
        with render_cache.claimed(key):
            hit = render_cache.load(key)
            if hit is not None:
                self._say(hit.note)
                found = Origins(hit.wrapper, hit.paths, hit.moved, hit.kept, str(directory))
                return Output(hit.text, found, cached=True)
            self.kustomize.warm()
            text, found, note, parsed = (
                self._with_kept_origins(directory, env, values_only)
                if origins
                else (*self._run(directory, env, False, values_only)[:3], None)
            )
            render_cache.store(key, text, found.wrapper, found.paths, note, found.kept)
        self._say(note)
        return Output(text, found, cached=False, parsed=parsed)

    def render_order(self, directories: list[Path]) -> list[int]:
        """The indices of `directories` in the order to render them, a few at a time: each
        distinct render before any repeat of it (a root that passes through to another, or
        reads the same files the same way, waits for the first and reads its entry: rendered
        side by side, one thread would idle), those reading remote bases (the longest builds)
        first, the rest in their given order."""
        seen: set[object] = set()
        first: list[tuple[int, int]] = []
        repeats: list[int] = []
        for index, directory in enumerate(directories):
            identity, remotes = self._identity(directory)
            if identity in seen:
                repeats.append(index)
                continue
            seen.add(identity)
            first.append((-remotes, index))
        return [index for _, index in sorted(first)] + repeats

    def _identity(self, directory: Path) -> tuple[object, int]:
        """(what tells this render from others', how many remote entries it reads). Renders
        alike have the same kustomizations, placed alike: cheaper than the render key, which
        reads every file, and as good for ordering."""
        try:
            inner = (self._passed_through(directory) or directory).resolve()
            folders = kustomization.reachable(inner)
            remotes = sum(len(kustomization.remote_entries(folder)) for folder in folders)
            identity = tuple(
                (os.path.relpath(folder, inner), render_cache.file_digest(found))
                for folder in folders
                if (found := kustomization.kustomization_file(folder)) is not None
            )
        except (OSError, ValueError, CannotRun):  # the render itself says what is wrong
            return directory.resolve(), 0
        return identity, remotes

    def _passed_through(self, directory: Path) -> Path | None:
        """The last folder of a chain of kustomizations that each only list the next, or None;
        a chain that comes back on itself is left to kustomize, which reports the cycle."""
        inner = kustomization.passed_through(directory) if self.compose else None
        # Only a pass-through pays for the preflight here: every other root has it in _run, on
        # a cache miss alone.
        if inner is None or preflight.refusal(directory) is not None:
            return None
        seen = {directory.resolve()}
        while inner is not None:
            if inner.resolve() in seen or len(seen) > 32:
                return None
            seen.add(inner.resolve())
            further = kustomization.passed_through(inner)
            if further is None:
                return inner
            inner = further
        return None

    def _say(self, note: str | None) -> None:
        if note is not None and note not in self.notes:
            self.notes.append(note)

    def release(self) -> None:
        """No render follows soon: let the backend give back what it holds."""
        self.kustomize.release()

    def _backend_for(self, fetches: bool) -> Kustomize | InProcessKustomize:
        """The in-process library renders only trees with nothing left to fetch (see kustomize)."""
        backend = self.kustomize
        if isinstance(backend, InProcessKustomize) and fetches and backend.fallback is not None:
            return backend.fallback
        return backend

    def _with_kept_origins(
        self, directory: Path, env: dict[str, str] | None, values_only: bool
    ) -> tuple[str, Origins, str | None, objects.Parsed | None]:
        """_run() with origins: without kustomize's annotations when the last build of the same
        skeleton left its objects' origins and this build has exactly those objects (by
        identity; then with the render's parse, which found that out); else with them, keeping
        them for the next. Only roots with remote bases keep them: the annotations cost little
        on local files alone, less than keeping them."""
        if not any(
            kustomization.remote_entries(folder) for folder in kustomization.reachable(directory)
        ):
            return *self._run(directory, env, True, values_only)[:3], None
        skeleton = render_cache.skeleton_key(
            self.kustomize, self.mirror, directory, "values" if values_only else ""
        )
        kept = render_cache.load_kept(skeleton) if skeleton is not None else None
        if kept is not None:
            text, found, note, _ = self._run(directory, env, False, values_only)
            # The render itself, not what kustomize printed (the same objects, with the remote
            # CRDs' versions spliced in): the run reads its objects next, from this parse.
            parsed = objects.parse_stream(text, "render", lines=False)
            if _exactly(parsed, kept):
                return text, replace(found, kept=kept, root=str(directory)), note, parsed
        text, found, note, printed = self._run(directory, env, True, values_only)
        if skeleton is not None:
            resolved = _resolved_origins(printed, found, directory)
            if resolved is not None:
                render_cache.store_kept(skeleton, resolved)
        return text, found, note, None

    def _run(
        self, directory: Path, env: dict[str, str] | None, origins: bool, values_only: bool
    ) -> tuple[str, Origins, str | None, str]:
        """(the render, its origins, a note for -v, what kustomize printed: the render before
        the remote CRDs' versions were spliced in, the same objects in a fraction of the text)."""
        refused = preflight.refusal(directory)
        if refused is not None:
            raise RenderFailure(refused.file, refused.line, refused.message)
        # Composed with the remote CRDs' values (when only values are read), else with their
        # printed text, else a full build: the first whose result can be shown to be the same.
        attempts = [True, False] if values_only else [False]
        why = ""
        for values_only in attempts if self.compose and self.mirror else []:
            composition = self._composition(env, values_only)
            if composition is None:
                break
            done, found = self._build(directory, env, origins, composition)
            if not (composition.blocks or composition.names):
                return *self._result(done, found, directory, origins, None), done.stdout
            spliced, why = (
                crd_stubs.splice(done.stdout, composition.blocks, composition.names)
                if done.returncode == 0
                else (None, "the build failed with placeholders for versions (a layer reads them)")
            )
            if spliced is not None:
                built = Built(0, spliced, "")
                return *self._result(built, found, directory, origins, None), done.stdout
        done, found = self._build(directory, env, origins, None)
        note = (
            f"{display(directory)}: rendered in full, not composed with its remote bases' "
            f"rendered CRD schemas: {why}"
            if why and done.returncode == 0  # a failure is reported as the full build's
            else None
        )
        return *self._result(done, found, directory, origins, note), done.stdout

    def _result(
        self, done: Built, found: Origins, directory: Path, origins: bool, note: str | None
    ) -> tuple[str, Origins, str | None]:
        if done.returncode != 0:
            raise explain_failure(found.paths.restore(done.stderr), directory, self.mirror, origins)
        return done.stdout, found, note

    def _composition(
        self, env: dict[str, str] | None, values_only: bool
    ) -> crd_stubs.Composition | None:
        """What lets a root read its remote bases with their CRDs' versions kept apart."""
        try:
            identity = f"{self.kustomize.name} {self.kustomize.version()}"
        except CannotRun:
            return None

        def full_build(folder: Path) -> str | None:
            if any(kustomization.remote_entries(f) for f in kustomization.reachable(folder)):
                return None  # a base with remotes of its own is read whole
            done = self.kustomize.build(folder, env if env is not None else self.environment())
            return done.stdout if done.returncode == 0 else None

        return crd_stubs.Composition(full_build, identity, values_only)

    def _build(
        self,
        directory: Path,
        env: dict[str, str] | None,
        origins: bool,
        composition: crd_stubs.Composition | None,
    ) -> tuple[Built, Origins]:
        try:
            with (
                raw_files.offline_tree(directory, self.mirror, composition) as (target, paths),
                tempfile.TemporaryDirectory(prefix=f"trainops-origin-{os.getpid()}-") as scratch,
            ):
                backend = self._backend_for(paths.fetches)
                if origins:
                    # kustomize records origins only when the built kustomization asks for
                    # them; a wrapper asks without touching the user's files.
                    wrapper = Path(scratch)
                    relative = os.path.relpath(target, wrapper)
                    (wrapper / "kustomization.yaml").write_text(
                        f"resources:\n  - {relative}\nbuildMetadata: [originAnnotations]\n"
                    )
                    target = wrapper
                done = backend.build(target, env if env is not None else self.environment())
        except mirror.MirrorMiss as miss:
            where = kustomization.locate_entry(miss.folder, miss.entry)
            file, line = where if where else (miss.folder, None)
            kind = "file" if raw_files.parse_raw_url(miss.entry) else "base"
            raise RenderFailure(file, line, f"remote {kind} {miss.entry}: {miss}") from None
        except raw_files.UnsafeFile as refused:
            raise RenderFailure(refused.path, None, str(refused)) from None
        except OSError as error:  # the temporary folder the render is copied to, full or gone
            raise CannotRun(
                f"cannot write the temporary copy {display(directory)} renders from, in "
                f"{tempfile.gettempdir()}: {_strerror(error)}; free space there, or point TMPDIR "
                "at a folder with room"
            ) from None
        return done, Origins(scratch, paths)


def _strerror(error: OSError) -> str:
    """The cause of an OSError, or of the first failure a shutil.Error collected."""
    if error.strerror:
        return error.strerror
    failures = error.args[0] if error.args and isinstance(error.args[0], list) else []
    return str(failures[0][-1]) if failures else str(error)


def _identities(text: str) -> dict[render_cache.Identity, dict | None] | None:
    """Each object of a render by identity, with its origin annotation (None without one);
    None when a document is no object (its problem would need its origin) or repeats one."""
    parsed = objects.parse_stream(text, "render", lines=False)
    if parsed.syntax_errors or parsed.malformed:
        return None
    found = {
        (obj.api_version, obj.kind, obj.namespace or "", obj.name): objects.take_origin(obj.doc)
        for obj in parsed.objects
    }
    return found if len(found) == len(parsed.objects) else None


def _exactly(
    parsed: objects.Parsed, kept: dict[render_cache.Identity, render_cache.KeptOrigin]
) -> bool:
    """Whether a render's parse holds exactly the objects origins were kept for, each once,
    none with an origin of its own and none malformed (its problem would need its origin)."""
    if parsed.syntax_errors or parsed.malformed:
        return False
    found = set()
    for obj in parsed.objects:
        metadata = obj.doc.get("metadata")
        annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
        if isinstance(annotations, dict) and objects.ORIGIN_ANNOTATION in annotations:
            return False
        found.add((obj.api_version, obj.kind, obj.namespace or "", obj.name))
    return len(found) == len(parsed.objects) and found == set(kept)


def _resolved_origins(
    text: str, found: Origins, directory: Path
) -> dict[render_cache.Identity, render_cache.KeptOrigin] | None:
    """The origins of a render with annotations, as kept_for() gives them back."""
    identities = _identities(text)
    if identities is None or any(origin is None for origin in identities.values()):
        return None
    kept: dict[render_cache.Identity, render_cache.KeptOrigin] = {}
    root = os.path.abspath(directory)
    for identity, origin in identities.items():
        assert origin is not None
        shown, local = found(origin)
        kept[identity] = (
            ("remote", shown, False)
            if local is None
            else ("local", os.path.relpath(os.path.abspath(local), root), "path" in origin)
        )
    return kept


_KLOG_PREFIX = re.compile(r'^[EWIF]\d{4} [\d:.]+\s+\d+ \S+\] "command failed" err=[<"]?')
_FROM = re.compile(r"accumulating resources from '([^']+)'")
_GIT_FETCH = re.compile(
    r"failed to run '\S*git fetch \S+ (\S+) ([^']+)': (.*?)(?:: exit status \d+)?$"
)
_MISSING = re.compile(r"evalsymlink failure on '([^']+)'")
# The frame the origins wrapper adds: its one resource, the root, failed to build.
_WRAPPER_FRAME = re.compile(
    r"^accumulating resources: accumulation err='accumulating resources from '[^']*': "
    r"'[^']*' must resolve to a file': (?:couldn't make target for|recursed accumulation of) "
    r"path '[^']*': "
)
# A kustomization kustomize cannot read: in which folder (when it is not the root), on which line.
_INVALID_KUSTOMIZATION = re.compile(
    r"(?:couldn't make target for path '([^']+)': )?invalid Kustomization: "
    r"(?:yaml: line (\d+): )?(.*)$"
)
_MALFORMED_YAML = re.compile(r"MalformedYAMLError: yaml: (?:line (\d+): )?(.*?) in File: (\S+)")
# What git says when it cannot reach the host at all (as opposed to a missing ref or repository).
_NETWORK_ERROR = re.compile(
    r"Could not resolve|Failed to connect|Couldn't connect|Connection (refused|timed out|reset)|"
    r"Network is unreachable|proxy",
    re.IGNORECASE,
)
_REMOTE_REPO = re.compile(r"https://github\.com/([^/]+/[^/?]+?)(?:\.git)?(?://|/|\?|$)")


def kustomize_message(stderr: str) -> str:
    """kustomize's error as one line, with log prefixes and deprecation warnings dropped."""
    lines = [
        line.strip()
        for line in stderr.splitlines()
        if line.strip() and not line.startswith("# Warning") and line.strip() != ">"
    ]
    text = " ".join(lines)
    text = _KLOG_PREFIX.sub("", text).removeprefix("Error: ").removeprefix("error: ")
    return text.strip().strip('"')


def explain_failure(
    stderr: str, root: Path, mirror_dir: Path | None, wrapped: bool = False
) -> RenderFailure:
    """The failure as the user's files cause it. `wrapped`: the render went through the wrapper
    that asks for origins, whose frame (the first) is dropped from the message."""
    message = kustomize_message(stderr)
    if wrapped:
        message = _WRAPPER_FRAME.sub("", message, count=1)
    entries = _FROM.findall(message)
    innermost = entries[-1] if entries else None

    fetch = _GIT_FETCH.search(message)
    if fetch and innermost:
        return _remote_failure(root, innermost, fetch.group(2), fetch.group(3), mirror_dir)

    missing = _MISSING.search(message)
    if missing:
        target = Path(missing.group(1))
        entry = innermost or target.name
        where = kustomization.locate_entry(root, entry)
        file, line = where if where else (root, None)
        return RenderFailure(
            file, line, f"'{entry}' does not exist ({target}): fix the path or create it"
        )

    malformed = _MALFORMED_YAML.search(message)
    if malformed:
        return _yaml_failure(root, malformed.group(3), malformed.group(2), malformed.group(1))

    invalid = _INVALID_KUSTOMIZATION.search(message)
    if invalid:
        folder = Path(invalid.group(1)) if invalid.group(1) else root
        line = int(invalid.group(2)) if invalid.group(2) else None
        file = kustomization.kustomization_file(folder) or folder
        return RenderFailure(file, line, f"invalid kustomization: {invalid.group(3)}")

    where = kustomization.locate_entry(root, innermost) if innermost else None
    file, line = where if where else (kustomization.kustomization_file(root) or root, None)
    return RenderFailure(file, line, f"kustomize failed: {message}")


def _remote_failure(
    root: Path, entry: str, ref: str, git_error: str, mirror_dir: Path | None
) -> RenderFailure:
    where = kustomization.locate_entry(root, entry)
    file, line = where if where else (root, None)
    repo_match = _REMOTE_REPO.match(entry)
    repo = repo_match.group(1) if repo_match else entry
    if mirror_dir is not None and repo_match:
        tags = mirror.mirror_tags(mirror_dir, repo)
        if tags is None:
            return RenderFailure(
                file, line, f"remote base {entry}: the mirror {mirror_dir} has no repository {repo}"
            )
        if ref not in tags:
            held = ", ".join(tags) or "none"
            return RenderFailure(
                file,
                line,
                f"remote base {entry}: ref {ref} is not in the mirror {mirror_dir} "
                f"(it holds {held}); pin a tag the mirror holds or add it to the mirror",
            )
    git_error = git_error.replace("fatal: ", "").strip()
    if mirror_dir is None and _NETWORK_ERROR.search(git_error):
        return RenderFailure(
            file, line, f"remote base {entry}: {mirror.NO_MIRROR}", unreachable=True
        )
    return RenderFailure(file, line, f"remote base {entry}: git could not fetch {ref}: {git_error}")


def _yaml_failure(root: Path, name: str, go_message: str, go_line: str | None) -> RenderFailure:
    """Re-parse the file kustomize rejected, for the exact line and PyYAML's clearer message."""
    for folder in kustomization.reachable(root):
        candidate = folder / name
        if candidate.is_file():
            try:
                text = candidate.read_text(errors="replace")
                list(yaml.load_all(text, Loader=yaml.CSafeLoader))
            except yaml.MarkedYAMLError as error:
                mark = error.problem_mark or error.context_mark
                line = mark.line + 1 if mark else None
                return RenderFailure(
                    candidate, line, f"YAML syntax error: {error.problem or error}"
                )
            except yaml.YAMLError:
                pass
            return RenderFailure(
                candidate, int(go_line) if go_line else None, f"YAML syntax error: {go_message}"
            )
    return RenderFailure(
        root / name, int(go_line) if go_line else None, f"YAML syntax error: {go_message}"
    )
