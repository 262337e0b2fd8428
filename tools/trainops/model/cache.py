"""Entries of the on-disk cache: written atomically, verified on read, bounded in size.

Each entry is one file: a first line holding the SHA-256 of the rest, then the payload. A reader
that finds a torn, tampered or foreign file (the hash does not match, or the payload is not what
the caller expects) treats it as a miss, and the caller computes the value again; nothing read
from the cache is trusted unverified. Every folder is kept under a size bound by evicting the
entries used least recently (a hit refreshes the entry's modification time).
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import functools
import hashlib
import marshal
import os
import shutil
import stat
import tempfile
import threading
import time
from pathlib import Path

from trainops.model import bounded

MAX_BYTES_ENV = "TRAINOPS_CACHE_MAX_MB"
DEFAULT_MAX_MB = 512
_SUFFIX = ".entry"


def configured_root() -> Path:
    """Where the user keeps trainops' cache: $TRAINOPS_CACHE_DIR, else the XDG cache folder."""
    configured = os.environ.get("TRAINOPS_CACHE_DIR")
    if configured:
        return Path(configured)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "trainops"


def cache_root() -> Path:
    """Where trainops keeps what it can compute again: renders, parses, mirrors, schemas. The
    configured folder, or for the rest of a run that found it unwritable (a full disk, a
    read-only mount) a temporary one (fall_back)."""
    return _fallback if _fallback is not None else configured_root()


# A cache that cannot be written only costs time: the run keeps what it computes in a temporary
# folder instead (checkouts of remote bases, the mirror's shadow and entries need somewhere to
# be), reads the configured cache's entries still (a read-only cache is used read-only), and says
# so once. The folder is removed as the run ends (release), or by the next run when this one was
# killed (sweep).
_fallback: Path | None = None
_fallback_lock = threading.Lock()
_notes: list[str] = []
_PROBE_BYTES = 2**20  # a run writes megabytes: a disk without one free is full for it
_TEMPORARY = "trainops-"


def prepare() -> None:
    """Check, before a run, that the configured cache takes a write; else fall back."""
    sweep(Path(tempfile.gettempdir()), _TEMPORARY)
    refused = unwritable(configured_root())
    if refused is not None:
        fall_back(refused)


def unwritable(folder: Path) -> OSError | None:
    """Why `folder` does not take a megabyte (made if missing), or None when it does."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-") as probe:
            probe.write(b"\0" * _PROBE_BYTES)
            probe.flush()  # a full disk refuses the write (ENOSPC), a read-only one the file
    except OSError as error:
        return error
    return None


def fall_back(error: OSError) -> Path:
    """Keep the rest of the run's cache in a temporary folder, for the configured one failed a
    write with `error`; the folder."""
    global _fallback
    with _fallback_lock:
        if _fallback is None:
            _fallback = scratch(Path(tempfile.gettempdir()), f"{_TEMPORARY}cache-")
            _notes.append(
                f"the cache {configured_root()} cannot be written ({error.strerror or error}): "
                "this run reads it but keeps what it computes in a temporary folder, removed "
                "as it ends; free space there, make it writable, or set TRAINOPS_CACHE_DIR"
            )
        return _fallback


def temporary(path: Path) -> bool:
    """Whether `path` lies in the run's temporary cache."""
    return _fallback is not None and _fallback in path.parents


def take_notes() -> list[str]:
    """What the cache has to tell the user (once each)."""
    with _fallback_lock:
        taken, _notes[:] = list(_notes), []
    return taken


def release() -> None:
    """Remove the temporary cache, if the run used one (at the end of a run)."""
    global _fallback
    with _fallback_lock:
        if _fallback is not None:
            shutil.rmtree(_fallback, ignore_errors=True)
            _fallback = None


def scratch(parent: Path, prefix: str) -> Path:
    """A new folder in `parent` named `<prefix><pid>-…`: sweep() removes it once this process is
    gone, if a kill kept it from removing it itself."""
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=parent))


def sweep(parent: Path, prefix: str) -> None:
    """Remove the folders scratch() made in `parent` for processes that have ended."""
    try:
        names = [entry.name for entry in os.scandir(parent) if entry.name.startswith(prefix)]
    except OSError:
        return
    for name in names:
        pid = name.rsplit("-", 2)[-2] if name.count("-") >= 2 else ""
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(parent / name, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's: alive
    return True


def folder(name: str) -> Path:
    return cache_root() / name


def key_of(*parts: str | bytes) -> str:
    """A digest of the parts, each length-prefixed so that no two different lists collide."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(f"{len(data)}:".encode())
        digest.update(data)
    return digest.hexdigest()


@functools.cache
def package_digest() -> str:
    """A digest of every source file of trainops: part of the key of results that any of its code
    may shape (a rule's findings), so that no edit or upgrade reads back an older answer. Kept
    by the files' identities: reading and hashing all of them took 23 ms of every run, and of
    every worker process; their identities take 2."""
    package = Path(__file__).resolve().parent.parent
    files = []
    for folder, folders, names in os.walk(package):
        folders[:] = [name for name in folders if name != "__pycache__"]
        files += [Path(folder, name) for name in names if not name.endswith(".pyc")]
    files.sort()
    named = [(str(path.relative_to(package)), path) for path in files]
    try:
        identities = [(name, os.stat(path)) for name, path in named]
    except OSError:
        identities = None
    known = (
        key_of(
            _PACKAGE_DIGESTS,
            *(f"{name} {s.st_ino} {s.st_size} {s.st_mtime_ns}" for name, s in identities),
        )
        if identities is not None
        else None
    )
    kept = load(_PACKAGE_DIGESTS, known) if known is not None else None
    if kept is not None and len(kept) == 64 and kept.isalnum():
        return kept.decode()
    digest = key_of(*(part for name, path in named for part in (name, path.read_bytes())))
    if known is not None:
        store(_PACKAGE_DIGESTS, known, digest.encode())
    return digest


_PACKAGE_DIGESTS = "package-digests-v1"


def source_digest(*files: str) -> str:
    """A digest of the source files that compute a cached value: part of its key, so an
    upgraded (or edited) trainops never reads back what an older one computed."""
    return key_of(*(Path(file).read_bytes() for file in files))


def entry_path(name: str, key: str) -> Path:
    return folder(name) / f"{key[:40]}{_SUFFIX}"


def load(name: str, key: str, notes: list[str] | None = None) -> bytes | None:
    """The payload stored under `key`, or None when it is absent or fails verification (said in
    `notes`: the caller computes the value again and overwrites the entry)."""
    path = entry_path(name, key)
    if _fallback is not None and not path.exists():  # the configured cache, read-only
        path = configured_root() / name / path.name
    try:
        data = bounded.read_regular(path, max_bytes(), follow=False)
    except FileNotFoundError:
        return None
    except OSError as error:
        # A FIFO, device, link or folder in an entry's place, or an entry larger than its whole
        # folder may be: never read (a FIFO would block the run); removed, so the next store heals it.
        if notes is not None:
            notes.append(f"cache entry {path} is unusable ({error.strerror}); computed it again")
        if isinstance(error, bounded.NotRegular | bounded.TooLarge) or error.errno == errno.ELOOP:
            discard(path)
        return None
    header, newline, payload = data.partition(b"\n")
    if not newline or header != hashlib.sha256(payload).hexdigest().encode():
        if notes is not None:
            notes.append(f"cache entry {path} failed its hash check; computed it again")
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # recently used: evicted last
    return payload


def discard(path: Path) -> None:
    """Remove what lies at an entry's path, whatever it is (a folder too)."""
    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def unmarshal(payload: bytes) -> object:
    """marshal.loads of an entry's payload; ValueError for bytes marshal did not write as they
    are. The hash proves the payload is the one stored, not that marshal wrote it: a garbage
    payload may declare a list of 2**31 items, which fails allocating it (MemoryError, with
    nothing held) rather than reading it."""
    try:
        return marshal.loads(payload)
    except (EOFError, TypeError, MemoryError, RecursionError) as error:
        raise ValueError(f"not an entry marshal wrote ({type(error).__name__})") from None


def store(name: str, key: str, payload: bytes) -> None:
    """Write an entry atomically (a reader sees the old entry or the new one, never a torn one)."""
    target = entry_path(name, key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=target.parent)
        entry = hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload
        with os.fdopen(handle, "wb") as out:
            out.write(entry)
        os.replace(temporary, target)
    except OSError:
        return  # a cache that cannot be written only costs time
    _bound(target.parent, len(entry))


def max_bytes() -> int:
    configured = os.environ.get(MAX_BYTES_ENV, "")
    megabytes = int(configured) if configured.isdigit() else DEFAULT_MAX_MB
    return megabytes * 2**20


# Bytes in each folder as last counted, plus what was written since: a folder is listed (a
# system call per entry: a second a run once a folder of small entries nears its bound) only
# when it may be over its bound, or when its count is old. The count is kept in the folder's
# ledger for the next run; each process adds what it wrote, under a lock, every megabyte and
# when it ends. What a killed process wrote goes uncounted until the count is an hour old, and
# so does what one adds while another replaces the ledger with a new count: a count low by that
# much only lets the folder pass its bound until the next count. The ledger lies beside the
# folder (`.<folder>.bytes`), which holds entries alone.
_folder_bytes: dict[Path, int] = {}
_unrecorded: dict[Path, int] = {}
_folder_lock = threading.Lock()
_RECORD_EVERY = 2**20
_RECOUNT_SECONDS = 3600


def _bound(directory: Path, written: int) -> None:
    """Evict least recently used entries until the folder is within the bound."""
    limit = max_bytes()
    with _folder_lock:
        known = _folder_bytes.get(directory)
        if known is None:
            known = _recorded(directory)
        if known is not None and known + written <= limit:
            _folder_bytes[directory] = known + written
            _unrecorded[directory] = _unrecorded.get(directory, 0) + written
            if _unrecorded[directory] >= _RECORD_EVERY:
                _record(directory)
            return
        _folder_bytes[directory] = _evict(directory, limit)
        _unrecorded[directory] = 0
        _write_ledger(directory, _folder_bytes[directory], time.time())


def _ledger(directory: Path) -> Path:
    return directory.with_name(f".{directory.name}.bytes")


def _recorded(directory: Path) -> int | None:
    """The folder's bytes as its ledger has them; None when it has none, or an old count."""
    try:
        total, counted = bounded.read_regular(_ledger(directory), 4096, follow=False).split()
        if 0 <= time.time() - float(counted) <= _RECOUNT_SECONDS:
            return int(total)
    except (OSError, ValueError):
        pass
    return None


def _write_ledger(directory: Path, total: int, counted: float) -> None:
    with contextlib.suppress(OSError):
        handle, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=directory.parent)
        with os.fdopen(handle, "w") as out:
            out.write(f"{total} {counted}\n")
        os.replace(temporary, _ledger(directory))


def _record(directory: Path) -> None:
    """Add what this process wrote to the folder's ledger (called holding _folder_lock)."""
    added, _unrecorded[directory] = _unrecorded.get(directory, 0), 0
    if not added:
        return
    with contextlib.suppress(OSError, ValueError):
        # Opened without waiting and refused unless a regular file: a FIFO here would block.
        descriptor = os.open(_ledger(directory), os.O_RDWR | os.O_NONBLOCK | os.O_NOFOLLOW)
        with open(descriptor, "r+") as ledger:
            if not stat.S_ISREG(os.fstat(descriptor).st_mode):
                return
            fcntl.flock(ledger, fcntl.LOCK_EX)  # released when the file closes
            total, counted = ledger.read(4096).split()
            ledger.seek(0)
            ledger.truncate()
            ledger.write(f"{int(total) + added} {counted}\n")


@atexit.register
def record_ledgers() -> None:
    """Add what this process wrote to each folder's ledger: at its exit (called by a process
    that ends without running exit handlers, before it ends)."""
    with _folder_lock:
        for directory in list(_unrecorded):
            _record(directory)


def _evict(directory: Path, limit: int) -> int:
    """Evict the least recently used entries beyond `limit` bytes; the bytes left."""
    entries = []
    try:
        with os.scandir(directory) as listing:
            for entry in listing:
                if entry.name.endswith(_SUFFIX):
                    with contextlib.suppress(OSError):
                        status = entry.stat(follow_symlinks=False)
                        entries.append((status.st_mtime, status.st_size, entry.path))
    except OSError:
        return 0
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= limit:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size
    return total
