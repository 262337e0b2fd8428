"""Route kustomize's `https://github.com/` fetches to a local mirror of bare repositories.

A mirror is laid out as `<mirror>/github.com/<owner>/<repo>.git`. Git only recognises a bare
repository that has a `refs/` folder, and a mirror that was copied as an archive or mounted
read-only often lacks it (an empty folder, everything being in `packed-refs`). So the tool never
points git at the mirror itself: it keeps a thin shadow of each repository in its cache (HEAD,
packed-refs, a config of its own, and `objects/info/alternates` naming the mirror's objects, so
no pack is copied) and points git there. The git settings go into the git and kustomize process
environments only.

A mirror is data, never code: `mirror:` in trainops.yaml may name a folder of the repository under
review, and git runs programs its configuration names (core.fsmonitor, core.hooksPath,
filter.<driver>.smudge through .gitattributes, core.pager, credential helpers, ...). So the
mirror's `config` is never copied, and every git trainops runs on a mirror reads no system, global
or repository file it did not write (locked_environment).
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from pathlib import Path

from trainops.model import bounded, cache, processes
from trainops.model.errors import CannotRun

GITHUB = "https://github.com/"
_COPIED_FILES = ("HEAD", "packed-refs")
# Read for its object format only (shadow_config); kept in the signature so a change is seen.
_CONFIG = "config"


def mirror_repositories(mirror: Path) -> list[Path]:
    """The bare repositories of a mirror, as `github.com/<owner>/<repo>.git` folders."""
    hosted = mirror / "github.com"
    if not hosted.is_dir():
        raise CannotRun(
            f"{mirror}: not a mirror: it has no github.com/ folder "
            "(expected github.com/<owner>/<repo>.git bare repositories)"
        )
    return sorted(p for p in hosted.glob("*/*.git") if _plain_bare_repository(p))


def _plain_bare_repository(path: Path) -> bool:
    """A bare repository of the mirror's own: not a link (to any repository of this machine), and
    with no alternates (objects read from elsewhere)."""
    return (
        not path.is_symlink()
        and not path.parent.is_symlink()
        and (path / "objects").is_dir()
        and not (path / "objects").is_symlink()
        and not (path / "objects" / "info" / "alternates").exists()
    )


# A mirror's HEAD, packed-refs and config, and the shadow's copies of them, are read only as
# regular files under this bound: a FIFO there would hang the run, /dev/zero exhaust its memory.
FILE_BYTES = 64 * 2**20


def _mirror_file(path: Path) -> bytes:
    try:
        return bounded.read_regular(path, FILE_BYTES, follow=False)
    except OSError as error:
        raise CannotRun(
            f"{path}: not a mirror's file ({error.strerror or error}); a mirror holds bare git "
            "repositories, their HEAD and packed-refs regular files"
        ) from None


def _write_if_changed(path: Path, content: bytes) -> None:
    try:
        if bounded.read_regular(path, FILE_BYTES, follow=False) == content:
            return
    except OSError:
        pass  # missing, or no regular file: replaced below
    # Named by process and thread: renders in threads of one run may refresh the same shadow.
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    temporary.write_bytes(content)
    os.replace(temporary, path)


# The last shadow made of each mirror in this process, by what its files and the mirror's files
# it copies were then: every remote of every root asks for the shadow, and rewriting it reads ten
# repositories' refs.
_shadows: dict[tuple[Path, Path], tuple] = {}
_shadows_lock = threading.Lock()


def _signature(mirror: Path, shadow: Path, repositories: list[Path]) -> tuple:
    signature = []
    for repository in repositories:
        target = shadow / repository.relative_to(mirror)
        for path in (
            *(repository / name for name in (*_COPIED_FILES, _CONFIG)),
            *(target / name for name in (*_COPIED_FILES, _CONFIG)),
            target / "objects" / "info" / "alternates",
        ):
            try:
                status = path.stat()
            except OSError:
                signature.append((str(path),))
                continue
            signature.append((str(path), status.st_ino, status.st_size, status.st_mtime_ns))
    return tuple(signature)


def source_key(mirror: Path) -> str:
    """What names `mirror` in the cache. A commit's files are kept by mirror as well as by commit:
    a mirror is only as true as whoever wrote it, and a mirror the repository under review names
    (with objects whose content is not what their names say) must not leave a checkout, a
    stubbed copy or a render that a run from another mirror would take for its own."""
    return hashlib.sha256(str(mirror.resolve()).encode()).hexdigest()[:16]


def shadow_mirror(mirror: Path) -> Path:
    """Build (or refresh) the git-usable shadow of `mirror` and return its path."""
    mirror = mirror.resolve()
    if not mirror.is_dir():
        raise CannotRun(f"{mirror}: mirror folder does not exist")
    shadow = cache.cache_root() / "mirrors" / source_key(mirror)
    repositories = mirror_repositories(mirror)
    with _shadows_lock:
        if _shadows.get((mirror, shadow)) == _signature(mirror, shadow, repositories):
            return shadow
    for repository in repositories:
        target = shadow / repository.relative_to(mirror)
        (target / "refs").mkdir(parents=True, exist_ok=True)
        (target / "objects" / "info").mkdir(parents=True, exist_ok=True)
        for name in _COPIED_FILES:
            source = repository / name
            if source.is_file() or source.is_symlink():
                _write_if_changed(target / name, _mirror_file(source))
        _write_if_changed(target / _CONFIG, shadow_config(repository / _CONFIG))
        alternates = f"{repository / 'objects'}\n".encode()
        _write_if_changed(target / "objects" / "info" / "alternates", alternates)
    with _shadows_lock:
        _shadows[(mirror, shadow)] = _signature(mirror, shadow, repositories)
    return shadow


_SHA256 = re.compile(rb"(?im)^\s*objectformat\s*=\s*\"?sha256\"?\s*(?:[#;].*)?$")


def shadow_config(mirror_config: Path) -> bytes:
    """The config of a shadow repository: bare, in the object format of the mirror's repository
    (the one thing read from its config), and nothing else."""
    try:
        sha256 = _SHA256.search(bounded.read_regular(mirror_config, FILE_BYTES)) is not None
    except OSError:
        sha256 = False
    if sha256:
        return b"[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n"
    return b"[core]\n\trepositoryformatversion = 0\n\tbare = true\n"


# Set at the command line's level, which outranks every file: what could still run a program
# once no other configuration file is read (git-config(1): core.fsmonitor, core.hooksPath,
# core.pager, core.askPass, credential.helper), and no network: git may read local repositories
# (the shadow) and nothing else, so a remote base on another host, or over ssh, fails instead of
# connecting out (and ext:: URLs, which run a command, are refused with every other protocol).
# file:// only as `user`: for the fetch kustomize asks for, never for a submodule a repository's
# .gitmodules names, which would copy any repository of this machine into the render (git's own
# default since CVE-2022-39253; `always` brought that back).
LOCKED_SETTINGS = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("protocol.allow", "never"),
    ("protocol.file.allow", "user"),
)
_USER_SETTINGS = re.compile(r"GIT_CONFIG_(?:COUNT|KEY_\d+|VALUE_\d+)")


def locked_environment(
    base: dict[str, str] | None = None, settings: tuple[tuple[str, str], ...] = ()
) -> dict[str, str]:
    """The environment for git on a mirror, its shadow or a checkout: no configuration file but the
    repository's own (which trainops writes: shadow_config), the user's own GIT_CONFIG_* entries,
    then LOCKED_SETTINGS and `settings`; no other GIT_* variable (a hook's GIT_DIR or
    GIT_INDEX_FILE would point git elsewhere), and never a prompt."""
    inherited = os.environ if base is None else base
    env = {k: v for k, v in inherited.items() if not k.startswith("GIT_")}
    env.update({k: v for k, v in inherited.items() if _USER_SETTINGS.fullmatch(k)})
    env.update(GIT_TERMINAL_PROMPT="0", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return _with_settings(env, (*LOCKED_SETTINGS, *settings))


# Where git looks for the repository it works on: set by git for its hooks (a pre-commit hook
# sees GIT_INDEX_FILE, a worktree's GIT_DIR), never meant for the clones trainops has made.
_LOCATIONS = frozenset(
    (
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
        "GIT_QUARANTINE_PATH",
    )
)


def _with_settings(env: dict[str, str], settings: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """`env` with `settings` appended to its GIT_CONFIG_* entries (a count git would refuse, its
    entries missing, is started afresh)."""
    count = env.get("GIT_CONFIG_COUNT", "")
    index = int(count) if count.isdigit() and len(count) < 4 else 0
    if any(
        f"GIT_CONFIG_KEY_{i}" not in env or f"GIT_CONFIG_VALUE_{i}" not in env for i in range(index)
    ):
        index = 0
    for key, value in settings:
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
        index += 1
    env["GIT_CONFIG_COUNT"] = str(index)
    return env


def git_environment(mirror: Path | None, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a kustomize process: never prompt; with a `mirror`, fetch GitHub from
    it, with git locked down (locked_environment)."""
    if mirror is None:
        # Online, the user's configuration stays (credentials, proxies), but not a location: a
        # hook's GIT_DIR or GIT_INDEX_FILE would have kustomize's clone write into the user's
        # repository. Nor a local repository (refused_remote refuses file:// entries; this holds
        # for submodules and redirects too).
        inherited = os.environ if base is None else base
        env = {k: v for k, v in inherited.items() if k not in _LOCATIONS}
        env["GIT_TERMINAL_PROMPT"] = "0"
        return _with_settings(env, (("protocol.file.allow", "never"),))
    shadow = shadow_mirror(mirror)
    redirect = (f"url.{(shadow / 'github.com').as_uri()}/.insteadOf", GITHUB)
    return locked_environment(base, (redirect,))


MIRROR_ENV = "TRAINOPS_MIRROR"


def find_mirror(explicit: Path | None, configured: Path | None, repository: Path) -> Path | None:
    """The mirror to render from: --mirror, else $TRAINOPS_MIRROR, else the config's `mirror:`,
    else `../shared/mirror` beside the repository when it exists; None means fetch online."""
    chosen = (
        explicit
        or (Path(os.environ[MIRROR_ENV]) if os.environ.get(MIRROR_ENV) else None)
        or configured
    )
    if chosen is not None:
        return chosen
    beside = repository.resolve().parent / "shared" / "mirror"
    return beside if (beside / "github.com").is_dir() else None


NO_MIRROR = (
    "no mirror is configured and git cannot reach GitHub; point at a mirror with --mirror DIR, "
    f"{MIRROR_ENV}=DIR or `mirror: DIR` in trainops.yaml (or put one at ../shared/mirror beside the repository)"
)


def mirror_tags(mirror: Path, owner_repo: str) -> list[str] | None:
    """Tags the mirror holds for `owner/repo`, or None when the mirror lacks the repository."""
    if unsafe_path(owner_repo):
        return None
    shadow = shadow_mirror(mirror) / "github.com" / f"{owner_repo.removesuffix('.git')}.git"
    if not shadow.is_dir():
        return None
    listed = processes.run(
        ["git", "--git-dir", str(shadow), "tag", "--list"],
        timeout=processes.GIT_SECONDS,
        env=locked_environment(),
    )
    return listed.stdout.split()


class MirrorMiss(Exception):
    """The mirror cannot supply what a kustomization asks for; the message says what it lacks."""

    folder: Path  # the kustomization's folder and the entry it lists, set where they are known
    entry: str


# What a tag or branch name can be (git check-ref-format, narrowed): never starting with `-`,
# which git would read as an option, and no `..`, `@{`, control characters or spaces.
_SAFE_REF = re.compile(r"(?!-)(?!.*\.\.)(?!.*@\{)(?!.*//)[A-Za-z0-9._/+-]+(?<![./])")


def unsafe_ref(ref: str) -> str | None:
    """Why `ref` must not reach git, or None when it is a plain tag or branch name."""
    if _SAFE_REF.fullmatch(ref):
        return None
    return f"ref {ref!r} is not a tag or branch name (letters, digits and . _ / + -, not first -)"


_LOCAL_REMOTE = re.compile(r"(?i)(?:git::)?file:")


def refused_remote(entry: str, offline: bool) -> str | None:
    """Why a kustomization's remote entry must not be rendered, or None.

    Its `?ref=` reaches `git fetch` as an argument, so it must be a plain name. Offline, only
    GitHub remote bases (the mirror stands in for them) and raw files read from the mirror render.
    """
    for query in entry.partition("?")[2].split("&"):
        name, _, value = query.partition("=")
        if name in ("ref", "version") and unsafe_ref(value):
            return unsafe_ref(value)
    if _LOCAL_REMOTE.match(entry):
        return (
            "a file:// remote reads a repository of this machine, not one the repository pins: "
            "name its https://github.com/ URL, or vendor the files into the repository"
        )
    location = entry.partition("?")[0].split("://", 1)[-1]
    if any(part in (".", "..") or "%" in part for part in re.split(r"[/:]+", location)):
        # Rewritten to the shadow's file:// URL, `github.com/../..` would leave the mirror.
        return f"remote {location!r} is not a plain URL: no `.` or `..` segment, no %-escape"
    if offline and not entry.startswith(GITHUB):
        return (
            "only https://github.com/ remote bases render offline from the mirror; "
            "use one, or vendor the files into the repository"
        )
    return None


def unsafe_path(path: str) -> str | None:
    """Why `path` (inside a repository) must not reach git, or None when it is a plain path."""
    parts = path.split("/")
    if (
        not path
        or path.startswith(("/", "-"))
        or any(part in ("", ".", "..") for part in parts)
        or any(ord(c) < 0x20 or c in "\\:\x7f" for c in path)
    ):
        return f"path {path!r} is not a plain relative path inside the repository"
    return None


def mirror_file(mirror: Path, owner_repo: str, ref: str, path: str) -> bytes:
    """One file of `owner/repo` at `ref`, read from the mirror."""
    refused = unsafe_ref(ref) or unsafe_path(path) or unsafe_path(owner_repo)
    if refused:
        raise MirrorMiss(refused)
    tags = mirror_tags(mirror, owner_repo)
    if tags is None:
        raise MirrorMiss(f"the mirror {mirror} has no repository {owner_repo}")
    shadow = shadow_mirror(mirror) / "github.com" / f"{owner_repo}.git"
    shown = processes.run(
        ["git", "--git-dir", str(shadow), "show", "--end-of-options", f"{ref}:{path}"],
        timeout=processes.GIT_SECONDS,
        env=locked_environment(),
        text=False,
    )
    if shown.returncode == 0:
        return shown.stdout
    if ref not in tags:
        held = ", ".join(tags) or "none"
        raise MirrorMiss(f"ref {ref} is not in the mirror {mirror} (it holds {held})")
    raise MirrorMiss(f"the mirror's {owner_repo} has no file {path} at {ref}")
