"""Parsing YAML streams into objects that remember their file and line."""

from __future__ import annotations

from trainops.objects import parse_stream, split_documents

STREAM = """\
# leading comment
apiVersion: v1
kind: ConfigMap
metadata:
  name: first
---
# a comment before the second
apiVersion: v1
kind: ConfigMap
metadata:
  name: second
data:
  script: |
    echo start
---
--- {apiVersion: v1, kind: Namespace, metadata: {name: flow}}
"""


def test_documents_keep_the_line_of_their_first_key():
    parsed = parse_stream(STREAM, "s.yaml")
    assert [(o.name, o.line) for o in parsed.objects] == [("first", 2), ("second", 8), ("flow", 16)]
    assert not parsed.syntax_errors and not parsed.malformed


def test_split_ignores_dashes_that_are_not_at_column_zero():
    text = "a: |\n  ---\n  x\n---\nb: 1\n"
    assert [line for line, _ in split_documents(text)] == [1, 4]


def test_a_syntax_error_spoils_only_its_own_document():
    text = "apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\nkind: [\n---\napiVersion: v1\nkind: B\nmetadata: {name: b}\n"
    parsed = parse_stream(text, "f.yaml")
    assert [o.kind for o in parsed.objects] == ["A", "B"]
    assert len(parsed.syntax_errors) == 1
    assert parsed.syntax_errors[0].file == "f.yaml"
    assert parsed.syntax_errors[0].line in (5, 6)


def test_generate_name_counts_as_a_name_and_objects_expose_their_group():
    parsed = parse_stream(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: j-}\n", "f.yaml"
    )
    assert parsed.malformed == []
    parsed = parse_stream("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\n", "f.yaml")
    assert parsed.objects[0].group == "batch"
