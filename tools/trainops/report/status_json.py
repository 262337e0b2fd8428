"""`trainops status` as JSON: every object's health (ours, Argo CD's and Flux's words) and every
training job's Workload conditions, pods, events and diagnoses."""

from __future__ import annotations

import json
from typing import TextIO

from trainops.live.status import Status


def as_data(status: Status, target: str) -> dict:
    return {
        "cluster": target,
        "environment": status.environment,
        "failing": status.failing,
        "seconds": round(status.seconds, 3),
        "layers": [
            {
                "layer": layer.layer,
                "argocd": layer.argocd,
                "flux": layer.flux,
                "objects": [
                    {
                        "apiVersion": item.obj.api_version,
                        "kind": item.obj.kind,
                        "namespace": item.obj.namespace,
                        "name": item.obj.name,
                        "health": item.health.state.value,
                        "argocd": item.health.argocd,
                        "flux": item.flux,
                        "message": item.health.message,
                    }
                    for item in layer.objects
                ],
            }
            for layer in status.layers
        ],
        "jobs": [
            {
                "apiVersion": job.obj.api_version,
                "kind": job.obj.kind,
                "namespace": job.obj.namespace,
                "name": job.obj.name,
                "health": job.health.state.value,
                "message": job.health.message,
                "queue": job.queue,
                "workload": job.workload,
                "workloadConditions": job.workload_conditions,
                "expectedPods": job.expected_pods,
                "pods": job.pods,
                "events": job.events,
                "diagnoses": [
                    {"shape": d.shape, "detail": d.detail, "problem": d.problem}
                    for d in job.diagnoses
                ],
            }
            for job in status.jobs
        ],
        "notes": status.notes,
    }


def write(status: Status, out: TextIO, target: str) -> None:
    json.dump(as_data(status, target), out, indent=2, default=str)
    out.write("\n")
