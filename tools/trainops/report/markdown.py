"""Values from the repository quoted in Markdown so that none can change the comment around them.

A pull-request comment is read as GitHub renders it: a render failure or a field value that
holds ```` ``` ```` would close its code block, `</details>` would end its fold, and a line of
`### …`, a link or an image would read as the tool's own words. So a value is shown in a code
span or block whose backtick run it cannot hold (CommonMark 0.31, "Code spans" and "Fenced code
blocks": a span closes only on a run of the same length, a block only on a run at least as
long), and prose is shown with every character Markdown or HTML gives a meaning escaped
(CommonMark, "Backslash escapes": any ASCII punctuation may be). A newline inside a value is
shown as ↵, never as a line of its own. Control characters are escaped later, with the whole
report (visible.visible_lines).
"""

from __future__ import annotations

import html
import re

_TICKS = re.compile(r"`+")
# What Markdown or HTML reads as markup in running text (GitHub's `$` math and `@` mentions too).
_MARKUP = re.compile(r"([\\`*_\[\]()#!<>|~&$@])")
_NEWLINES = re.compile(r"\r\n|\r|\n")


def _runs(text: str) -> set[int]:
    return {len(run) for run in _TICKS.findall(text)}


def code(text: object) -> str:
    """`text` as an inline code span it cannot close."""
    value = _NEWLINES.sub("↵", str(text))
    runs = _runs(value)
    ticks = "`" * next(n for n in range(1, len(runs) + 2) if n not in runs)
    pad = " " if value.startswith(("`", " ")) or value.endswith(("`", " ")) else ""
    return f"{ticks}{pad}{value}{pad}{ticks}"


def fence(text: str, info: str = "") -> str:
    """`text` as a fenced code block (with `info`, the language) that no line of it can close."""
    longest = max(_runs(text), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text}\n{ticks}"


def prose(text: object) -> str:
    """`text` as running text: every markup character escaped, newlines shown as ↵ (also fit for
    a table cell, where `|` would end the cell)."""
    return _MARKUP.sub(r"\\\1", _NEWLINES.sub(" ↵ ", str(text)))


def html_code(text: object) -> str:
    """`text` as `<code>` in an HTML block (a `<summary>`), where Markdown is not read but a
    newline, leaving a blank line, would end the block."""
    return f"<code>{html.escape(_NEWLINES.sub('↵', str(text)))}</code>"


def html_text(text: object) -> str:
    """`text` as plain text in an HTML block."""
    return html.escape(_NEWLINES.sub(" ↵ ", str(text)))
