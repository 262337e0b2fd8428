"""A GitOps layer's health checks can pass while its training runs.

What it catches: a Flux Kustomization that waits (`wait: true`, or a `healthChecks` entry) on a
training run of its layer: a batch Job Kueue queues (`kueue.x-k8s.io/queue-name`), which may wait
for quota and then runs as long as it trains. (A Job that sets something up, a certificate or a
migration, is what waiting is for, and is not reported.) kustomize-controller v1.9.4 reads a batch Job with its own status reader
(fluxcd/pkg runtime v0.110.1 runtime/statusreaders/job.go jobConditions): Current once the Job
is complete or suspended, InProgress while it runs — and that reader comes before the
`healthCheckExprs` ones, so an expression saying "running is current" is never consulted unless
the Kustomization impersonates a service account (knowledge/gitops_health.py).

Why it matters: Kueue resumes a queued Job when its quota frees; from then on every reconcile of
the layer waits for the Job up to the Kustomization's `timeout`, then marks it Ready=False
(HealthCheckFailed) and tries again a `retryInterval` later, for as long as the training runs:
the layer reads as failed while the run is healthy, alerts fire, and any Kustomization depending
on it waits too.

How to fix: set `wait: false` on the layer with the Job and list in `healthChecks` what should be
healthy (the training custom resources, whose `healthCheckExprs` count queued and running as
current); leave the batch Job out of the health checks.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.gitops_health import flux_blocks_while_running, flux_waits_on
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping

ID = "gitops-health"
SEVERITY = Severity.ERROR
SUMMARY = "a GitOps layer's health checks do not wait on a training Job for as long as it runs"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    for k in rendered.objects:
        if k.group != "kustomize.toolkit.fluxcd.io" or k.kind != "Kustomization":
            continue
        spec = mapping(k.doc.get("spec"))
        root = cluster.root_at(spec.get("path"))
        if root is None or not root.loaded:
            continue
        how = "wait: true" if spec.get("wait") is True else "healthChecks"
        timeout = spec.get("timeout") or spec.get("interval")
        for obj in flux_waits_on(k, list(root.objects)):
            why = flux_blocks_while_running(k, obj)
            if why is None:
                continue
            yield Finding(
                ID,
                SEVERITY,
                f"Kustomization {k.name} waits ({how}) for {obj.kind} {obj.name}, and {why}: "
                f"while the training runs each reconcile waits up to its timeout ({timeout}) and "
                "then marks the layer Ready=False (HealthCheckFailed)",
                rendered.root,
                k.file,
                k.line,
                k.ref,
                "spec.wait" if how == "wait: true" else "spec.healthChecks",
                "set wait: false and list the training custom resources in healthChecks, "
                "leaving the batch Job out",
            )
