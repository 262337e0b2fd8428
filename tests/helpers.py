"""Helpers the tests share: the repository, the offline mirror, and the real CLI."""

from __future__ import annotations

import io
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
RULE_FIXTURES = Path(__file__).resolve().parent / "rules" / "fixtures"


def _mirror() -> Path | None:
    configured = os.environ.get("TRAINOPS_MIRROR")
    candidate = Path(configured) if configured else REPO.parent / "shared" / "mirror"
    return candidate.resolve() if (candidate / "github.com").is_dir() else None


MIRROR = _mirror()
ENVIRONMENTS = ("kind", "cloud", "gpu", "volcano", "mpi")
LAYERS = ("operators", "platform", "workloads")


def run_trainops(
    *args: str,
    cwd: Path = REPO,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
    input: str | bytes | None = None,
    limit: int | None = None,
) -> subprocess.CompletedProcess:
    """The real CLI in a process of its own, as a user runs it: forked from one that has already
    imported trainops (cli_zygote.py) where it can be, else `python -m trainops`. `input` is its
    standard input (else /dev/null); `limit` bounds its address space (RLIMIT_AS), in bytes."""
    full_env = dict(os.environ)
    if MIRROR is not None:
        full_env["TRAINOPS_MIRROR"] = str(MIRROR)
    full_env.update(env or {})
    command = [sys.executable, "-m", "trainops", *args]
    # What the interpreter reads as it starts (PYTHONPATH, …) needs one that starts.
    starts_alike = all(
        full_env.get(name) == os.environ.get(name)
        for name in {*full_env, *os.environ}
        if name.startswith("PYTHON")
    )
    zygote = _zygote(limit) if starts_alike else None
    if zygote is None:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=full_env,
            capture_output=True,
            input=input.encode() if isinstance(input, str) else input,
            stdin=None if input is not None else subprocess.DEVNULL,
            timeout=timeout,
            preexec_fn=_bounded(limit),
        )
        return subprocess.CompletedProcess(
            command, done.returncode, _decoded(done.stdout), _decoded(done.stderr)
        )
    return zygote.run(command, str(cwd), full_env, timeout, input)


# Root reads and lists whatever a file's mode says: these capabilities let it. A test of an
# unreadable file runs trainops without them (util-linux's setpriv), so it means the same as root.
_OVERRIDES = "-dac_override,-dac_read_search"


def unprivileged(command: list[str]) -> list[str]:
    """`command` run so that file modes bind it, even when the tests run as root."""
    if os.geteuid() != 0:
        return command
    if shutil.which("setpriv") is None:
        pytest.skip(
            "as root, file modes bind only without its overrides: needs setpriv (util-linux)"
        )
    return ["setpriv", f"--inh-caps={_OVERRIDES}", f"--bounding-set={_OVERRIDES}", "--", *command]


def run_trainops_unprivileged(
    *args: str, cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess:
    """run_trainops as a user whom file modes bind, even when the tests run as root."""
    command = unprivileged([sys.executable, "-m", "trainops", *args])
    env = dict(os.environ)
    if MIRROR is not None:
        env["TRAINOPS_MIRROR"] = str(MIRROR)
    return subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )


def _bounded(limit: int | None) -> Callable[[], None] | None:
    """A preexec_fn bounding the child's address space (RLIMIT_AS) to `limit` bytes, if given."""
    if limit is None:
        return None
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


class _Zygote:
    def __init__(self, limit: int | None) -> None:
        # Unbuffered: select() sees only the pipe, so a reply read ahead into a buffer (the pid
        # and the exit of a quick child arrive together) would leave select() waiting forever.
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("cli_zygote.py"))],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
            # Bound before its imports, as `python -m trainops` under the bound is: libraries map
            # less where they cannot map more (imported unbounded, trainops maps over 1 GiB).
            preexec_fn=_bounded(limit),
        )

    def _reply(self, deadline: float | None) -> str | None:
        assert self.process.stdout is not None
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not select.select([self.process.stdout], [], [], wait)[0]:
            return None
        line = self.process.stdout.readline().decode()
        if not line:
            raise RuntimeError("the CLI zygote stopped")
        return line.split()[1]

    def run(
        self,
        command: list[str],
        cwd: str,
        env: dict[str, str],
        timeout: float | None,
        input: str | bytes | None = None,
    ) -> subprocess.CompletedProcess:
        assert self.process.stdin is not None
        deadline = None if timeout is None else time.monotonic() + timeout
        with tempfile.TemporaryDirectory(prefix="trainops-cli-") as scratch:
            out, err = Path(scratch, "stdout"), Path(scratch, "stderr")
            out.touch()
            err.touch()
            request = {"args": command[3:], "cwd": cwd, "env": env, "stdout": str(out)}
            request.update(stderr=str(err), stdin=os.devnull)
            if input is not None:
                given = Path(scratch, "stdin")
                given.write_bytes(input.encode() if isinstance(input, str) else input)
                request["stdin"] = str(given)
            self.process.stdin.write(json.dumps(request).encode() + b"\n")
            self.process.stdin.flush()
            pid = int(self._reply(None) or 0)
            code = self._reply(deadline)
            if code is None:
                os.kill(pid, signal.SIGKILL)
                self._reply(None)
                raise subprocess.TimeoutExpired(command, timeout or 0, _text(out), _text(err))
            return subprocess.CompletedProcess(command, int(code), _text(out), _text(err))


def _text(path: Path) -> str:
    return _decoded(path.read_bytes())


def _decoded(stream: bytes) -> str:
    """A stream as subprocess.run(text=True) decodes it (locale encoding, universal newlines)."""
    return io.TextIOWrapper(io.BytesIO(stream)).read()


_ZYGOTES: dict[int | None, _Zygote] = {}


def _zygote(limit: int | None = None) -> _Zygote | None:
    """This test process's zygote for runs under `limit` (each child inherits the bound), started
    on first use; None where processes cannot fork."""
    if not hasattr(os, "fork"):
        return None
    if limit not in _ZYGOTES or _ZYGOTES[limit].process.poll() is not None:
        _ZYGOTES[limit] = _Zygote(limit)
    return _ZYGOTES[limit]


def load_docs(text: str) -> list[dict]:
    """The documents of a YAML stream. Rendered roots (tens of MB of CRDs across the overlays) go
    through trainops' parser and its content-keyed parse cache, which reads them as libyaml does
    (tests/test_objects.py holds it to that); anything it would not take as objects, PyYAML reads."""
    from trainops.model.objects import parse_stream

    parsed = parse_stream(text, "<stream>", lines=False)
    if parsed.syntax_errors or parsed.malformed:
        return [doc for doc in yaml.load_all(text, Loader=yaml.CSafeLoader) if doc]
    return [obj.doc for obj in parsed.objects]


def rendered_docs(renderer, path: Path, env: dict[str, str] | None = None) -> list[dict]:
    """The objects `path` renders to, without kustomize's origin annotations. They come from the
    origin-annotated render `trainops validate` makes (and caches), so each root of the
    repository renders once in the whole suite, not once with origins and once without."""
    from trainops.model.objects import take_origin

    docs = load_docs(renderer.render(path, env).text)
    for doc in docs:
        take_origin(doc)
    return docs


def rendered_each(renderer, paths: list[Path]) -> list[list[dict]]:
    """rendered_docs of each path, two at a time (as `trainops validate` renders)."""
    from concurrent.futures import ThreadPoolExecutor

    env = renderer.environment()
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda path: rendered_docs(renderer, path, env), paths))


# A proof too costly to run whole on every commit (a full kustomize build of every root) checks
# one of a few slices of its cases in each run, chosen by the commit, so that successive commits
# check every slice; `make slices` (part of `make conformance`) checks all of them at once.
ALL_SLICES_ENV = "TRAINOPS_TEST_ALL_SLICES"  # 1: every slice
SLICE_ENV = "TRAINOPS_TEST_SLICE"  # a slice's number (1, 2, ...): that one, whatever the commit
T = TypeVar("T")


def commit_slice(
    cases: list[T], slices: int, cost: Callable[[T], float], commit: str | None = None
) -> tuple[list[T], str]:
    """The cases this run checks, in their order, and which slice they are (for messages). The
    cases are dealt to the slices costliest first, so that the slices cost alike."""
    if os.environ.get(ALL_SLICES_ENV) == "1":
        return cases, f"all {slices} slices ({ALL_SLICES_ENV}=1)"
    chosen = os.environ.get(SLICE_ENV)
    if chosen:
        index, why = (int(chosen) - 1) % slices, f"{SLICE_ENV}={chosen}"
    else:
        commit = commit or head_commit()
        index = int(commit, 16) % slices if commit else 0
        why = f"commit {commit[:12]}" if commit else "no commit to choose by"
    ranked = sorted(range(len(cases)), key=lambda i: -cost(cases[i]))
    share = set(ranked[index::slices])
    picked = [case for i, case in enumerate(cases) if i in share]
    return picked, f"slice {index + 1} of {slices} (by {why}; {ALL_SLICES_ENV}=1 checks all)"


def head_commit() -> str | None:
    """The commit checked out in this repository, or None outside a git checkout."""
    try:
        done = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--verify", "-q", "HEAD"],
            capture_output=True,
            text=True,
        )
    except OSError:
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and len(commit) == 40 else None


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
    return root


def pod_templates(doc: dict) -> list[tuple[str, dict]]:
    """(JSON path, pod template) of the training kinds this repository ships."""
    kind, spec = doc["kind"], doc.get("spec") or {}
    if kind == "Job" and doc["apiVersion"] == "batch/v1":
        return [("spec.template", spec["template"])]
    if kind == "PyTorchJob":
        return [
            (f"spec.pytorchReplicaSpecs.{role}.template", r["template"])
            for role, r in spec["pytorchReplicaSpecs"].items()
        ]
    if kind == "RayJob":
        cluster = spec["rayClusterSpec"]
        found = [
            ("spec.rayClusterSpec.headGroupSpec.template", cluster["headGroupSpec"]["template"])
        ]
        found += [
            (f"spec.rayClusterSpec.workerGroupSpecs[{i}].template", group["template"])
            for i, group in enumerate(cluster.get("workerGroupSpecs") or [])
        ]
        if "submitterPodTemplate" in spec:
            found.append(("spec.submitterPodTemplate", spec["submitterPodTemplate"]))
        return found
    if kind == "Job" and doc["apiVersion"].startswith("batch.volcano.sh/"):
        return [
            (f"spec.tasks[{i}].template", task["template"]) for i, task in enumerate(spec["tasks"])
        ]
    if kind == "JobSet":
        return [
            (
                f"spec.replicatedJobs[{i}].template.spec.template",
                job["template"]["spec"]["template"],
            )
            for i, job in enumerate(spec["replicatedJobs"])
        ]
    return []


RESTRICTED_NAMESPACE = """apiVersion: v1
kind: Namespace
metadata:
  name: team
  labels:
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/enforce-version: v1.32
"""


def git(repo: Path, *args: str) -> str:
    """git in a scratch repository, with an author so that commits work on any machine."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def committed(repo: Path, files: dict[str, str], message: str = "base") -> Path:
    """`files` written into a new git repository at `repo`, and committed."""
    write_tree(repo, files)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)
    return repo


def validate_fixture(rule: str, config_file, renderer=None) -> list:
    """The findings of one rule on the roots of a fixture's own trainops.yaml."""
    from trainops.check.validate import Root, validate
    from trainops.model.config import load_config
    from trainops.render import kustomization
    from trainops.rules import RULES

    config = load_config(config_file, RULES)
    outcome = validate(
        [Root(p) for p in kustomization.configured_roots(config)],
        renderer,
        config=config,
        selected={rule},
    )
    # A fixture that no longer loads would make every "is clean" assertion pass vacuously.
    broken = [f for f in outcome.findings if f.rule in ("render-failed", "yaml-syntax")]
    broken += [f for f in outcome.findings if f.rule == "malformed-object"]
    assert not broken, [f"{f.file}: {f.message}" for f in broken]
    assert not outcome.warnings, outcome.warnings
    return [f for f in outcome.findings if f.rule == rule]


def configured_findings(rule: str, config_file, renderer=None) -> list[tuple[str, str, str, str]]:
    """(environment folder, object, path, message) of validate_fixture's findings, sorted."""
    return sorted(
        (Path(f.file).parent.name, f"{f.object.kind}/{f.object.name}", f.path, f.message)
        for f in validate_fixture(rule, config_file, renderer)
    )


def findings_by_object(rule: str) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(environment folder, object) -> [(path, message)] of a rule on its fixtures' trainops.yaml."""
    result: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for env, obj, path, message in configured_findings(
        rule, RULE_FIXTURES / rule / "trainops.yaml"
    ):
        result.setdefault((env, obj), []).append((path, message))
    return result


# A small CRD with a schema, for tests that need a custom resource of their own.
WIDGET_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {size: {type: integer}}}
"""


def validated_clean(renderer, config, selected: set[str]):
    """validate() of every root `config` names, asserted to load and to find nothing."""
    from trainops.check.validate import Root, validate
    from trainops.render import kustomization

    outcome = validate(
        [Root(p) for p in kustomization.configured_roots(config)],
        renderer,
        config=config,
        selected=selected,
    )
    assert all(r.loaded for r in outcome.rendered), [r.failure for r in outcome.rendered]
    assert [(f.rule, f.message) for f in outcome.findings] == []
    return outcome


def findings_by_root(rule: str, config_file) -> dict[str, list[tuple[str, str, str]]]:
    """(object, path, message) of a rule's findings on a fixture's own trainops.yaml, by the name
    of the root each was found in."""
    result: dict[str, list[tuple[str, str, str]]] = {}
    for f in validate_fixture(rule, config_file):
        for root in f.roots:
            assert f.object is not None and f.path is not None
            result.setdefault(Path(root).name, []).append((str(f.object), f.path, f.message))
    return result


# libyaml's parser (the same safe constructors): test data read at import is read again by every
# worker as it collects, and the pure-Python parser took most of a second of each collection.
def load_yaml(text: str):
    return yaml.load(text, Loader=yaml.CSafeLoader)


def load_yaml_all(text: str) -> list:
    return list(yaml.load_all(text, Loader=yaml.CSafeLoader))
