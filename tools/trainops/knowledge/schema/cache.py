"""Converted CRD schemas cached on disk by the CRD's content hash.

A pin bump changes the CRD, hence the hash, hence the cache entry: no manual step; so does a new
version of the converter. An entry that fails its hash check or does not have the shape of a
converted CRD is converted again (and said once), never trusted.
"""

from __future__ import annotations

import json
import marshal
import sys
from collections.abc import Iterator

from trainops.knowledge.schema import crd as converter
from trainops.knowledge.schema.crd import Converted, convert
from trainops.model import cache

FOLDER = "schemas-v3"
_CONVERTER = cache.source_digest(converter.__file__)  # a changed conversion converts again
# Entries and content keys in marshal's format (as the parses are, model/objects.py): reading 43
# conversions back as JSON, and serialising specs as sorted JSON to key them, took a tenth of a
# second of an operator edit. Its format is the interpreter's, hence the version in the keys.
_FORMAT = f"marshal {marshal.version} {sys.version}"


def _content_key(crd: dict) -> str:
    spec = crd.get("spec")
    try:
        # Version 0: no references and no interning, so that equal specs are equal bytes
        # whatever shares or interns their strings (a parse's, or one read back from the cache).
        content = marshal.dumps(spec, 0)
    except ValueError:  # a value marshal does not write: JSON's text of it
        content = json.dumps(spec, sort_keys=True, default=repr).encode()
    return cache.key_of("crd-schema", _CONVERTER, _FORMAT, content)


def _keys(crd: dict, source: str | None) -> Iterator[str]:
    """The CRD's keys, the cheapest first: its content's is made only when asked."""
    if source is not None:
        yield _source_key(source)
    yield _content_key(crd)


def _source_key(source: str) -> str:
    # The parse the CRD came from (K8sObject.source) names its content as well, without
    # serialising a spec of hundreds of kilobytes: a sixth of a warm run's time.
    return cache.key_of("crd-schema", _CONVERTER, _FORMAT, "parsed", source)


def from_data(data: dict) -> Converted:
    """A Converted from its JSON form; TypeError, KeyError or AttributeError when the data has
    another shape."""
    fields = (
        data["group"],
        data["kind"],
        data["versions"],
        data["cel_rules"],
        data["name"],
        data["unschematized"],
    )
    types = (str, str, dict, bool, str, list)
    if not all(isinstance(value, kind) for value, kind in zip(fields, types)):
        raise TypeError("fields of the wrong type")
    if not all(isinstance(schema, dict) for schema in data["versions"].values()):
        raise TypeError("a version's schema is not a mapping")
    if not isinstance(data["problem"], str | None):
        raise TypeError("problem is not a string")
    return Converted(*fields, problem=data["problem"])


def _from_payload(payload: bytes) -> Converted:
    data = cache.unmarshal(payload)
    if not isinstance(data, dict):
        raise TypeError("not a mapping")
    return from_data(data)


def converted(crd: dict, notes: list[str], source: str | None = None) -> Converted:
    """The CRD converted, from the cache when it was before; `source`: the K8sObject.source of
    the object it is the document of (which stands for its content), if any. Kept under both:
    the same CRD comes in other texts too (a first build prints origin annotations, the next
    does not), and is then found by its content."""
    keys = _keys(crd, source)
    tried: list[str] = []
    for key in keys:
        tried.append(key)
        payload = cache.load(FOLDER, key, notes)
        if payload is None:
            continue
        try:
            result = _from_payload(payload)
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            notes.append(
                f"cache entry {cache.entry_path(FOLDER, key)} is unreadable "
                f"({error.__class__.__name__}); converted the CRD again"
            )
            break
        for earlier in tried[:-1]:
            cache.store(FOLDER, earlier, payload)
        return result
    result = convert(crd)
    payload = marshal.dumps(result.__dict__)
    for key in [*tried, *keys]:  # after a break, the keys not tried yet too
        cache.store(FOLDER, key, payload)
    return result
