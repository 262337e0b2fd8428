"""Text from the repository made safe to show: control characters written as escapes.

Names, paths and messages come from files anyone can write. Raw, an ESC sequence rewrites the
terminal, a newline forges a line of output (or a GitHub workflow command, as does a value that
starts a line with `::`), and XML 1.0 cannot hold most control characters at all, so a JUnit
report holding one is not well-formed.
"""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, line and paragraph separators, bidirectional overrides (which reorder
# what a reader sees), lone surrogates, and the two noncharacters XML 1.0 excludes.
_HIDDEN = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


# A line that starts with `::` is a GitHub Actions workflow command (::notice, ::error,
# ::add-mask, ::stop-commands), whatever prints it: a value that would start a line of a report
# (a file named `::notice title=trainops::all clean.yaml`) has its first colon escaped.
_COMMAND = re.compile(r"^(\s*):(?=:)")


def visible(text: object) -> str:
    """`text` with every character a reader or an XML parser would mishandle escaped, and no
    workflow command at its start."""
    return _COMMAND.sub(r"\1\\x3a", _HIDDEN.sub(_escape, str(text)))


def visible_lines(text: str) -> str:
    """visible(), line by line: for a whole report whose newlines are its own."""
    return "\n".join(visible(line) for line in text.split("\n"))
