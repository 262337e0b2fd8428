"""Every Service the API server is told to call exists, in that namespace, with that port.

What it catches: an admission webhook (Validating/MutatingWebhookConfiguration), a CRD's
conversion webhook or an APIService naming a Service that the environment (every layer of
`overlays/<env>`) does not define in that namespace, a Service without the port it names (443
when unset), or a Service whose selector matches no pod template of the environment.

A known way to get there: kustomize resolves name references again in every kustomization that
composes bases. When two bases each rename a Service originally called `webhook-service` (Kueue
and JobSet both do, with different prefixes), the composing kustomization cannot tell which one a
CRD's conversion webhook means and leaves the original name, which neither base has. Each base
renders right alone; the composed operators layer does not. `components/webhook-service-names`
restores the names where the layers compose.

Why it matters: the API server fails every call it routes through that webhook — for a conversion
webhook, every read or write of the CRD's other versions ("service webhook-service not found");
for an admission webhook with failurePolicy Fail, every write of the kinds it guards.

How to fix: name the Service the base really creates (see the Services listed in the finding),
or add the port to the Service.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.network.services import (
    service_ports,
    service_references,
    service_selector,
    services,
)
from trainops.knowledge.network.traffic import pods_of
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered

ID = "service-references"
SEVERITY = Severity.ERROR
SUMMARY = "webhooks, conversion webhooks and APIServices name Services that exist, with their ports"


def _environment(cluster: Cluster):
    objects = list(cluster.objects())
    namespaces = {o.namespace or "default" for o in objects} | {
        o.name for o in objects if o.kind == "Namespace"
    }
    pod_labels = [
        (p.endpoint.namespace, p.endpoint.labels)
        for o in objects
        if o.kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod")
        for p in pods_of(o)
    ]
    return services(objects), namespaces, pod_labels


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    by_name, namespaces, pod_labels = cluster.memo("service-references", _environment)
    for reference in service_references(rendered.objects):
        obj, where = reference.referrer, f"{reference.namespace}/{reference.name}"
        service = by_name.get((reference.namespace, reference.name))
        if service is None:
            if reference.namespace not in namespaces:
                continue  # nothing of that namespace in scope (a layer checked alone): nothing to compare with
            present = sorted(
                name for namespace, name in by_name if namespace == reference.namespace
            )
            yield Finding(
                ID,
                SEVERITY,
                f"the {reference.what} names Service {where}, which this environment does not have "
                f"(Services in {reference.namespace}: {', '.join(present) or 'none'})",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                f"{reference.path}.name",
                "name the Service the operator's base creates; a composed layer may need components/webhook-service-names",
            )
            continue
        ports = service_ports(service)
        if not any(p.get("port") == reference.port for p in ports):
            shown = ", ".join(str(p.get("port")) for p in ports) or "none"
            yield Finding(
                ID,
                SEVERITY,
                f"the {reference.what} calls Service {where} on port {reference.port}, which it does not "
                f"expose (its ports: {shown})",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                f"{reference.path}.port",
                f"set the port to one the Service exposes, or add port {reference.port} to the Service",
            )
            continue
        selector = service_selector(service)
        if selector and not any(
            namespace == reference.namespace
            and all(labels.get(k) == v for k, v in selector.items())
            for namespace, labels in pod_labels
        ):
            yield Finding(
                ID,
                SEVERITY,
                f"the {reference.what} calls Service {where}, whose selector {selector} matches no pod "
                "template of this environment",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
                reference.path,
                "make the Service's selector match the labels of the operator's pod template",
            )
