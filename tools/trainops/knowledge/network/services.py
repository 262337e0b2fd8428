"""Services the API server calls: admission webhooks, CRD conversion webhooks and aggregated APIs.

Each names a Service by namespace and name, and a port (443 when unset, per the
admissionregistration/v1, apiextensions/v1 and apiregistration/v1 API references). The API
server resolves the Service's endpoints and connects to the pods behind it on the target port.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from trainops.model.objects import K8sObject
from trainops.model.shape import mapping

DEFAULT_PORT = 443
WEBHOOK_KINDS = ("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration")


@dataclass(frozen=True)
class ServiceReference:
    referrer: K8sObject
    path: str  # JSON path of the `service` stanza in the referrer
    what: str  # "admission webhook vpod.kb.io", "conversion webhook", "aggregated API v1beta1.metrics.k8s.io"
    namespace: str
    name: str
    port: int


def _reference(obj: K8sObject, path: str, what: str, service: object) -> ServiceReference | None:
    if not isinstance(service, dict) or not isinstance(service.get("name"), str):
        return None
    port = service.get("port", DEFAULT_PORT)
    return ServiceReference(
        obj,
        path,
        what,
        str(service.get("namespace") or "default"),
        service["name"],
        port if isinstance(port, int) and not isinstance(port, bool) else DEFAULT_PORT,
    )


def service_references(objects: Iterable[K8sObject]) -> Iterator[ServiceReference]:
    for obj in objects:
        group = obj.group
        if group == "admissionregistration.k8s.io" and obj.kind in WEBHOOK_KINDS:
            webhooks = obj.doc.get("webhooks")
            for index, webhook in enumerate(webhooks if isinstance(webhooks, list) else []):
                if not isinstance(webhook, dict) or not isinstance(
                    webhook.get("clientConfig"), dict
                ):
                    continue
                found = _reference(
                    obj,
                    f"webhooks[{index}].clientConfig.service",
                    f"admission webhook {webhook.get('name')}",
                    webhook["clientConfig"].get("service"),
                )
                if found:
                    yield found
        elif group == "apiextensions.k8s.io" and obj.kind == "CustomResourceDefinition":
            conversion = (
                (mapping(obj.doc.get("spec"))).get("conversion")
                if isinstance(obj.doc.get("spec"), dict)
                else None
            )
            if isinstance(conversion, dict) and conversion.get("strategy") == "Webhook":
                client = (
                    (mapping(conversion.get("webhook"))).get("clientConfig")
                    if isinstance(conversion.get("webhook"), dict)
                    else None
                )
                found = _reference(
                    obj,
                    "spec.conversion.webhook.clientConfig.service",
                    "conversion webhook",
                    client.get("service") if isinstance(client, dict) else None,
                )
                if found:
                    yield found
        elif group == "apiregistration.k8s.io" and obj.kind == "APIService":
            spec = obj.doc.get("spec")
            found = _reference(
                obj,
                "spec.service",
                f"aggregated API {obj.name}",
                spec.get("service") if isinstance(spec, dict) else None,
            )
            if found:
                yield found


def services(objects: Iterable[K8sObject]) -> dict[tuple[str, str], K8sObject]:
    """(namespace, name) -> Service."""
    return {
        (o.namespace or "default", o.name): o
        for o in objects
        if o.kind == "Service" and o.api_version == "v1"
    }


def service_ports(service: K8sObject) -> list[dict]:
    spec = service.doc.get("spec")
    ports = spec.get("ports") if isinstance(spec, dict) else None
    return [p for p in ports if isinstance(p, dict)] if isinstance(ports, list) else []


def service_selector(service: K8sObject) -> dict[str, str] | None:
    spec = service.doc.get("spec")
    selector = spec.get("selector") if isinstance(spec, dict) else None
    return (
        {str(k): str(v) for k, v in selector.items()}
        if isinstance(selector, dict) and selector
        else None
    )
