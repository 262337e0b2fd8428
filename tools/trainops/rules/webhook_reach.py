"""A webhook that fails closed gates only its own application's objects, and every object its
operator must see.

What it catches: (1) an admission webhook with `failurePolicy: Fail` (the default) whose rules,
namespaceSelector and objectSelector reach objects another application syncs: a sync hook (Argo
CD's, or a Helm hook Argo CD runs as one) or an object of another operator's namespace; the
finding names the webhook, its service and what it gates. (2) A job that names a Kueue LocalQueue
(`kueue.x-k8s.io/queue-name`) in a namespace Kueue's job webhook for its kind does not reach.
Matching follows the API server's (k8s.io/apiserver v0.32.13
pkg/admission/plugin/webhook/predicates: rules, namespace and object matchers).

Why it matters: (1) while the webhook's service is down or not yet ready, the API server refuses
every object it reaches, so a broken operator blocks other applications' syncs, the very sync
that would repair it included (Kueue's job webhooks gated Volcano's PreSync certificate Job).
(2) Without Kueue's mutating webhook the job is created unsuspended and its pods start outside
the quota until Kueue's reconciler suspends it (v0.18.6 pkg/controller/jobframework/
reconciler.go, ReconcileGenericJob: "Running job is not admitted by a cluster queue").

How to fix: give the webhook a namespaceSelector (or objectSelector) that reaches only the
namespaces its operator manages (operators/kueue/webhooks-patch.yaml: the training namespace),
and keep that selector and the namespaces with LocalQueues in step. A webhook that must see
everything may use `failurePolicy: Ignore` if skipping it is safe.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge import kueue, webhooks
from trainops.model.findings import Finding, Severity, on_object
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered

ID = "webhook-reach"
SEVERITY = Severity.ERROR
SUMMARY = (
    "a fail-closed webhook gates no other application's objects; Kueue's reaches every queued job"
)

SHOWN = 3  # objects named in a finding; the rest are counted


def _facts(cluster: Cluster) -> tuple[webhooks.Resources, list, list]:
    objects = list(cluster.objects())
    configs = [
        (config, index, hook) for config in objects for index, hook in webhooks.webhooks(config)
    ]
    return webhooks.Resources(objects), configs, _others(objects)


def _others(objects: list[K8sObject]) -> list[tuple[K8sObject, str | None, str]]:
    """The objects a webhook must not gate unless they are its own application's, once for every
    webhook: each with its namespace and whose it is (a sync hook, else an operator's namespace)."""
    operators = webhooks.operator_namespaces(objects)
    found = []
    for obj in objects:
        namespace, hook = obj.namespace, webhooks.hook_of(obj)
        if hook is not None:
            found.append((obj, namespace, hook))
        elif namespace in operators:
            found.append((obj, namespace, f"of operator namespace {namespace}"))
    return found


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    resources, configs, others = cluster.memo("webhook reach", _facts)
    for config in rendered.objects:
        for index, hook in webhooks.webhooks(config):
            if webhooks.fails_closed(hook):
                finding = _reach(rendered, cluster, config, index, hook, resources, others)
                if finding is not None:
                    yield finding
    yield from _unreached_jobs(rendered, cluster, resources, configs)


def _reach(rendered, cluster, config, index, hook, resources, others) -> Finding | None:
    own = webhooks.service_namespace(hook)
    gated = []
    for obj, namespace, whose in others:
        if own is not None and namespace == own:  # the webhook's own application
            continue
        labels = cluster.namespace_labels(namespace) if namespace else None
        if webhooks.reaches(hook, obj, resources.of(obj), labels):
            where = f"{namespace}/" if namespace else ""
            gated.append(f"{obj.kind} {where}{obj.name} ({whose})")
    if not gated:
        return None
    shown = ", ".join(sorted(gated)[:SHOWN]) + (
        f" and {len(gated) - SHOWN} more" if len(gated) > SHOWN else ""
    )
    return on_object(
        ID,
        SEVERITY,
        rendered.root,
        config,
        f"webhook {hook.get('name')} ({config.kind} {config.name}, failurePolicy "
        f"{hook.get('failurePolicy', 'Fail')}) gates {shown}: while {webhooks.service_name(hook)} "
        "cannot answer, the API server refuses them (k8s.io/apiserver "
        "pkg/admission/plugin/webhook/predicates: its rules, namespaceSelector and "
        "objectSelector match them)",
        f"webhooks[{index}].namespaceSelector",
        "scope the webhook with a namespaceSelector (or objectSelector) to the namespaces its "
        "operator manages",
    )


def _unreached_jobs(rendered, cluster, resources, configs) -> Iterator[Finding]:
    setup = kueue.kueue_configuration(cluster)
    if setup is None:
        return
    namespace = setup[0]
    mutating = [
        (config, hook)
        for config, _, hook in configs
        if config.kind == "MutatingWebhookConfiguration"
        and webhooks.service_namespace(hook) == namespace
    ]
    for obj in rendered.objects:
        labels = (obj.doc.get("metadata") or {}).get("labels")
        if not isinstance(labels, dict) or kueue.QUEUE_LABEL not in labels:
            continue
        if kueue.framework(obj) is None or not obj.namespace:
            continue
        resource = resources.of(obj)
        candidates = [
            (config, hook)
            for config, hook in mutating
            if webhooks.reaches(
                {**hook, "namespaceSelector": None, "objectSelector": None}, obj, resource, None
            )
        ]
        if not candidates:
            continue  # no Kueue webhook for this kind: kueue-admission judges the integration
        labels_ns = cluster.namespace_labels(obj.namespace)
        if any(webhooks.reaches(hook, obj, resource, labels_ns) for _, hook in candidates):
            continue
        config, hook = candidates[0]
        yield on_object(
            ID,
            SEVERITY,
            rendered.root,
            obj,
            f"{obj.kind} {obj.name} names LocalQueue {labels[kueue.QUEUE_LABEL]} in namespace "
            f"{obj.namespace}, which Kueue's webhook {hook.get('name')} ({config.name}) does not "
            "reach: it is created unsuspended and its pods start outside the quota until Kueue's "
            "reconciler suspends it (Kueue v0.18.6 pkg/controller/jobframework/reconciler.go, "
            "ReconcileGenericJob)",
            f"metadata.labels.{kueue.QUEUE_LABEL}",
            "add the namespace to the namespaceSelector of Kueue's job webhooks "
            "(operators/kueue/webhooks-patch.yaml)",
        )
