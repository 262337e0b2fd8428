"""Say so when a check had too little in scope to apply, instead of passing in silence.

What it catches (as warnings): objects checked without the context some rules need —
- pods in a namespace no root checked together defines: `network-reachability` cannot know its
  policies, and `pod-security` cannot know the level the namespace enforces unless a file of the
  repository defines it (it then judges with that definition, and this warning names it);
- a job labelled for a Kueue LocalQueue when no LocalQueue is in scope: `kueue-admission` cannot
  tell whether Kueue would admit it; and when no Kueue configuration is in scope, it cannot tell
  whether Kueue manages the job's kind at all;
- a PyTorchJob whose workers get the Training Operator's `init-pytorch` container when no Training
  Operator is in scope: `pod-security` and `api-validation` judged those Pods with the operator's
  built-in template, which the environment's operators layer may replace.
Roots are checked together when they are the layers of one environment (`overlays/<env>/*`).

Why it matters: validating one layer or one file (what a pre-commit hook does) would otherwise
report "clean" for a workload that its environment rejects.

How to fix: validate the environment's layers together (`trainops validate overlays/<env>/*`),
or run `trainops validate` with no path to check every environment.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.kueue import QUEUE_LABEL, framework, kueue_configuration
from trainops.knowledge.pod_templates import templates_of
from trainops.knowledge.psa.injected import receives_pytorch_init, training_operator_in
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping

ID = "partial-scope"
SEVERITY = Severity.WARNING
SUMMARY = "checks that had too little in scope to apply say so"

_HINT = "validate the environment's layers together (trainops validate overlays/<env>/*), or run trainops validate with no path"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    in_scope = list(cluster.objects())
    has_local_queues = any(o.kind == "LocalQueue" for o in in_scope)
    has_kueue_configuration = kueue_configuration(cluster) is not None
    has_training_operator = training_operator_in(cluster)
    warned: set[tuple[str, str]] = set()

    def once(key: tuple[str, str], obj: K8sObject, message: str, path: str) -> Iterator[Finding]:
        if key not in warned:
            warned.add(key)
            yield Finding(
                ID, SEVERITY, message, rendered.root, obj.file, obj.line, obj.ref, path, _HINT
            )

    for obj in rendered.objects:
        namespace = obj.namespace if isinstance(obj.namespace, str) else None
        templates = templates_of(obj)
        if namespace and templates and cluster.namespace_labels(namespace) is None:
            elsewhere = cluster.namespace_elsewhere(namespace)
            yield from once(
                ("namespace", namespace),
                obj,
                f"namespace {namespace} is not defined in this scope, so pod-security and "
                "network-reachability could not check its pods (its Pod Security level and NetworkPolicies are unknown)"
                if elsewhere is None
                else f"namespace {namespace} is not defined in this scope: pod-security judged "
                f"its pods with the labels {elsewhere.where} gives it (a patch of an "
                "environment's layers is not seen), and network-reachability could not check "
                "them (its NetworkPolicies are unknown)",
                "metadata.namespace",
            )
        labels = (
            (mapping(obj.doc.get("metadata"))).get("labels")
            if isinstance(obj.doc.get("metadata"), dict)
            else None
        )
        queue = labels.get(QUEUE_LABEL) if isinstance(labels, dict) else None
        if isinstance(queue, str) and framework(obj):
            if not has_local_queues:
                yield from once(
                    ("queue", queue),
                    obj,
                    f"no LocalQueue is in this scope, so kueue-admission could not check that LocalQueue "
                    f"{queue} exists, points at a ClusterQueue and has quota for the job",
                    f"metadata.labels.{QUEUE_LABEL}",
                )
            if not has_kueue_configuration:
                yield from once(
                    ("kueue-configuration", ""),
                    obj,
                    "no Kueue configuration is in this scope, so kueue-admission could not check "
                    f"that Kueue manages {obj.kind} (its integrations are unknown)",
                    f"metadata.labels.{QUEUE_LABEL}",
                )
        if not has_training_operator and any(
            receives_pytorch_init(obj.doc, t.path) for t in templates
        ):
            yield from once(
                ("training-operator", ""),
                obj,
                "no Training Operator is in this scope, so pod-security and api-validation judged "
                "the worker Pods with its built-in init-pytorch container; the environment's "
                "operators layer may configure another",
                "spec.pytorchReplicaSpecs",
            )
