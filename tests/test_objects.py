"""Parsing YAML streams into objects that remember their file and line."""

from __future__ import annotations

import pytest
import yaml

from trainops.objects import _KubernetesLoader, parse_stream, split_documents

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


# Scalars YAML 1.1 (libyaml, and Kubernetes' go-yaml) reads differently from YAML 1.2, in every
# position the fast parser's pre-scan must catch: a block value, a key, a sequence item, flow.
_DIVERGING = ["yes", "No", "on", "OFF", "y", "0644", "-017", "0b101", "1:20", "1:20:30.5", "1e3"]
_DIVERGING += ["1_000", "+12", ".5", "0o17", "~", "Null", "'quoted'", "2024-01-01"]
_DIVERGING += ["2024-01-01 10:00:00", "2001-12-14t21:59:43.10-05:00", "2001-12-14T21:59:43Z"]


@pytest.mark.parametrize("scalar", _DIVERGING)
@pytest.mark.parametrize(
    "layout",
    [
        "data:\n  value: {s}\n",
        "data:\n  {s}: value\n",
        "data:\n  list:\n    - {s}\n    - - {s}\n",
        "data: {{value: {s}, list: [{s}, x]}}\n",
    ],
)
def test_the_parse_is_libyamls_whatever_the_scalar(layout, scalar):
    """The parse rendered roots and the tests' load_docs go through gives what libyaml gives
    (dates as their text, as Kubernetes' YAML-to-JSON conversion keeps them)."""
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n" + layout.format(s=scalar)
    expected = yaml.load(text, Loader=_KubernetesLoader)
    # Keys other than strings become the strings Kubernetes makes of them (True -> "true").
    expected["data"] = {
        {True: "true", False: "false", None: "null"}.get(k, str(k))
        if not isinstance(k, str)
        else k: v
        for k, v in expected["data"].items()
    }
    big = (text + "---\n") * 2000  # past the size that takes the cached whole-stream path
    for stream in (text, big):
        parsed = parse_stream(stream, "s.yaml", lines=False)
        assert not parsed.malformed and not parsed.syntax_errors
        assert parsed.objects[0].doc == expected


def test_anchors_aliases_and_merge_keys_read_as_libyaml_reads_them():
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: &labels {app: a}}\n"
        "data:\n  base: &base {x: '1', y: '2'}\n  merged:\n    <<: *base\n    y: '3'\n"
        "  command: sh -c 'a && b &'\n"
    )
    [obj] = parse_stream(text, "s.yaml").objects
    assert obj.doc == yaml.load(text, Loader=_KubernetesLoader)
    assert obj.doc["data"]["merged"] == {"x": "1", "y": "3"}


def test_a_parse_read_back_from_the_cache_is_the_parse(tmp_path, monkeypatch):
    """Large streams are kept as JSON; what JSON cannot say exactly (NaN, infinity) is not kept."""
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path))
    values = '{big: 1180591620717411303424, tiny: 1.0e-300, zero: -0.0, text: "é\\u2028"}'
    for extra in ("", ", nan: .nan", ", inf: -.inf"):
        text = f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\ndata: {values[:-1]}{extra}}}\n"
        stream = (text + "---\n") * 1000
        first, again = (parse_stream(stream, "s.yaml") for _ in range(2))
        assert repr([o.doc for o in again.objects]) == repr([o.doc for o in first.objects])
        assert [o.line for o in again.objects] == [o.line for o in first.objects]
        entries = list((tmp_path / "parsed-v1").glob("*.entry"))
        assert len(entries) == 1  # the NaN and infinity streams were not stored
