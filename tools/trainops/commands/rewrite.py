"""Rewriting a repository's files in place, for the verbs that do (`fix`, `adopt`): each file read
once, refused when outside the repository or read-only, replaced atomically with its mode, owner,
line endings and byte-order mark kept, and never over a change made meanwhile."""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from trainops.model.errors import CannotRun

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Original:
    """A file as read: its bytes, its line ending, and what identifies that version."""

    path: Path
    data: bytes
    newline: str
    stamp: tuple[int, int, int]  # inode, size, modification time (ns)

    @classmethod
    def read(cls, file: str) -> Original:
        path = Path(file)
        try:
            data = path.read_bytes()
            status = path.stat()
        except OSError as error:
            raise CannotRun(f"{file}: cannot read: {error.strerror or error}") from None
        # A file written with CRLF throughout is kept so; a mixed one keeps its bytes as they are.
        lines = data.count(b"\n")
        newline = "\r\n" if lines and data.count(b"\r\n") == lines else "\n"
        return cls(path, data, newline, (status.st_ino, status.st_size, status.st_mtime_ns))

    @property
    def bom(self) -> bytes:
        """The byte-order mark the file opens with: kept there, before the note."""
        return _BOM if self.data.startswith(_BOM) else b""

    @property
    def text(self) -> str:
        text = self.data[len(self.bom) :].decode("utf-8", errors="surrogateescape")
        return text.replace("\r\n", "\n") if self.newline == "\r\n" else text

    def encode(self, text: str) -> bytes:
        if self.newline == "\r\n":
            text = text.replace("\n", "\r\n")
        return self.bom + text.encode("utf-8", errors="surrogateescape")


def refusal(original: Original, top: Path, verb: str, what: str) -> str | None:
    """Why `trainops <verb>` must not rewrite this file, or None (`what`: what it would do)."""
    target = original.path.resolve()
    if not target.is_relative_to(top):
        return f"outside the repository ({top}); `{verb}` rewrites only files in it"
    status = target.stat()
    if not status.st_mode & 0o222 or not os.access(target, os.W_OK):
        return f"read-only; make it writable to let `{verb}` {what}"
    return None


def write(original: Original, text: str, verb: str) -> None:
    """Replace the file atomically, keeping its mode and owner; refuse if it changed meanwhile."""
    target = original.path.resolve()  # through a symbolic link, not over it
    status = target.stat()
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(original.encode(text))
        os.chmod(temporary, stat.S_IMODE(status.st_mode))
        if (status.st_uid, status.st_gid) != (os.getuid(), os.getgid()):
            os.chown(temporary, status.st_uid, status.st_gid)
        now = target.stat()
        if (now.st_ino, now.st_size, now.st_mtime_ns) != original.stamp or (
            target.read_bytes() != original.data
        ):
            raise CannotRun(
                f"{original.path}: changed while `trainops {verb}` ran; nothing written to "
                f"it, run `trainops {verb}` again"
            )
        os.replace(temporary, target)
    except OSError as error:
        raise CannotRun(f"{original.path}: cannot write: {error.strerror or error}") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
