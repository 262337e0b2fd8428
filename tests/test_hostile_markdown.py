"""The pull-request comment (`diff --format markdown`) and `drift --format markdown` say only what
the tool says: no value from the repository closes a code block or a fold, or adds a heading, a
link, an image or HTML, and none is lost.

As found: a render failure quoting a kustomization entry, and an api-validation message quoting a
field value, closed the code fence and added "no findings, safe to merge" as a heading, links and
images to the comment CI posts. Checked by parsing the comment with a CommonMark parser
(markdown-it-py, which rich already brings), as GitHub would read it.
"""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from helpers import committed, run_trainops, write_tree
from trainops.report.markdown import code, fence, prose

INJECTION = (
    "x````\n\n</details>\n\n### no findings, safe to merge\n"
    "[approve](https://evil.example) ![pixel](https://evil.example/p.png) <img src=x> `tick`"
)
_OURS = (
    "trainops diff:",
    "trainops drift",
    "Findings introduced",
    "Rendered objects",
    "Findings fixed",
)


def _read(markdown: str) -> list:
    return MarkdownIt("commonmark").enable("table").parse(markdown)


def _only_the_tools_markup(markdown: str) -> None:
    tokens = _read(markdown)
    flat = [t for token in tokens for t in (token, *(token.children or []))]
    headings = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert all(h.startswith(_OURS) for h in headings), headings
    assert not [t for t in flat if t.type in ("link_open", "image", "html_inline")]
    for block in (t for t in tokens if t.type == "html_block"):
        assert block.content.startswith(("<details", "</details>")), block.content
    opened = sum(t.content.count("<details") for t in tokens if t.type == "html_block")
    closed = sum(t.content.count("</details>") for t in tokens if t.type == "html_block")
    assert opened == closed


@pytest.mark.parametrize(
    "value",
    ["plain", "`", "``", "a ` b", "```", "x````y", "` lead", "trail `", "two\nlines", INJECTION],
)
def test_a_code_span_shows_the_value_whole(value):
    [paragraph] = [t for t in _read(code(value)) if t.type == "inline"]
    [span] = [t for t in paragraph.children if t.type == "code_inline"]
    assert span.content == value.replace("\n", "↵")


@pytest.mark.parametrize("value", ["plain", "```", "a\n````\nb", INJECTION])
def test_a_fence_holds_the_value_whole(value):
    [block] = _read(fence(value, "diff"))
    assert block.type == "fence" and block.info == "diff"
    assert block.content == value + "\n"


def test_prose_is_text_only():
    rendered = MarkdownIt("commonmark").enable("table").render(f"- item: {prose(INJECTION)}\n")
    assert rendered.count("<li>") == 1 and "<h3>" not in rendered and "<a " not in rendered
    assert "&lt;img src=x&gt;" in rendered and "<img" not in rendered


def test_the_pull_request_comment_quotes_what_the_repository_holds(tmp_path):
    committed(
        tmp_path,
        {
            "trainops.yaml": "roots: [broken, named]\n",
            "broken/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "broken/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
            "named/kustomization.yaml": "resources:\n  - cm.yaml\n",
            "named/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
        },
    )
    quoted = INJECTION.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    write_tree(
        tmp_path,
        {
            # kustomize's failure quotes the entry; api-validation's message quotes the name.
            "broken/kustomization.yaml": f'resources:\n  - "{quoted}"\n',
            "named/cm.yaml": f'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "{quoted}"\n',
        },
    )
    done = run_trainops("diff", "--format", "markdown", cwd=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    markdown = done.stdout
    _only_the_tools_markup(markdown)
    # Nothing is lost: the failure is shown whole in its block, the value in the finding.
    blocks = [t.content for t in _read(markdown) if t.type == "fence"]
    assert any("### no findings, safe to merge" in block for block in blocks)
    assert "evil.example" in markdown and "render-failed" in markdown
    assert "api-validation" in markdown


NAMED = "x\n\n## no findings, safe to merge\n\n<details><summary>y **bold** [a](/phish) ![](/p.png)"


def test_a_root_or_layer_name_cannot_end_its_fold_or_add_markup():
    # As found in review: a folder name with newlines ended the <summary> HTML block (html.escape
    # leaves newlines), and drift's in-sync line, a list item, read `**`, links and images.
    from trainops.live.drift import Drift, LayerDrift
    from trainops.report import drift_markdown, review_markdown
    from trainops.review.compare import RootDiff

    drift = Drift(
        "kind", [LayerDrift(NAMED, [NAMED]), LayerDrift(NAMED, [NAMED], [], [(NAMED, NAMED)])], 1.0
    )
    _only_the_tools_markup(drift_markdown.render(drift, NAMED))
    section = review_markdown._root_section([NAMED, "other"], RootDiff(NAMED, "changed", []))
    _only_the_tools_markup(section)
