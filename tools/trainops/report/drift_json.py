"""`trainops drift` as JSON, for tools: every object's drift and every field change with its live
and git values (`old` is the cluster's, `new` git's), in `trainops diff`'s object shape."""

from __future__ import annotations

import json
from typing import TextIO

from trainops.live.drift import CHANGED, EXTRA, MISSING, Drift
from trainops.report.review_json import object_data  # `diff`'s shape of one object


def as_data(drift: Drift, target: str) -> dict:
    return {
        "cluster": target,
        "environment": drift.environment,
        "inSync": not drift.drifted,
        "summary": {
            "changed": drift.count(CHANGED),
            "missing": drift.count(MISSING),
            "extra": drift.count(EXTRA),
            "rejected": sum(len(layer.unappliable) for layer in drift.layers),
            "seconds": round(drift.seconds, 3),
        },
        "layers": [
            {
                "layer": layer.layer,
                "owners": layer.owners,
                "inSync": layer.in_sync,
                "objects": [
                    {"drift": item.drift, "why": item.why or None, **object_data(item.change)}
                    for item in layer.objects
                ],
                "rejected": [
                    {"object": title, "message": message} for title, message in layer.unappliable
                ],
            }
            for layer in drift.layers
        ],
        "notes": drift.notes,
    }


def write(drift: Drift, out: TextIO, target: str) -> None:
    json.dump(as_data(drift, target), out, indent=2, default=str)
    out.write("\n")
