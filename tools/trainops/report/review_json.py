"""The whole review as JSON, for tools: every field change with its old and new value."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TextIO

from trainops.render.revisions import Revision
from trainops.review.compare import ObjectChange, Review
from trainops.review.objectdiff import ABSENT, FieldChange


def _revision(revision: Revision) -> dict:
    return {"ref": revision.label, "commit": revision.commit}


def _field(change: FieldChange) -> dict:
    data = {"path": change.path, "change": change.change}
    if change.old is not ABSENT:
        data["old"] = change.old
    if change.new is not ABSENT:
        data["new"] = change.new
    return data


def object_data(change: ObjectChange) -> dict:
    data = {
        "change": change.change,
        "apiVersion": change.api_version,
        "kind": change.key.kind,
        "namespace": change.key.namespace,
        "name": change.key.name,
        "fields": [_field(f) for f in change.fields],
    }
    if change.document is not None:
        data["object"] = change.document
    if change.schema:
        data["schema"] = [s.as_dict() for s in change.schema]
    return data


def as_data(review: Review) -> dict:
    return {
        "base": _revision(review.base),
        "head": _revision(review.head),
        "summary": {
            "rootsChanged": len(review.changed_roots),
            "roots": len(review.roots),
            "breaking": len(review.breaking),
            "introduced": len(review.introduced),
            "fixed": len(review.fixed),
        },
        "roots": [
            {
                "root": r.root,
                "status": r.status,
                "failure": r.failure,
                "objects": [object_data(o) for o in r.objects],
            }
            for r in review.roots
        ],
        "pins": [asdict(p) for p in review.pins],
        "images": [{**asdict(i), "old": list(i.old), "new": list(i.new)} for i in review.images],
        "crdChanges": [c.as_dict() for c in review.schema_changes],
        "findings": {
            "introduced": [f.as_dict() for f in review.introduced],
            "fixed": [f.as_dict() for f in review.fixed],
        },
    }


def write(review: Review, out: TextIO) -> None:
    json.dump(as_data(review), out, indent=2, default=str)
    out.write("\n")
