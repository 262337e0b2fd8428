"""ServiceAccounts, PodTemplates and ReplicationControllers as kube-apiserver v1.32.13 validates
them on create (pkg/apis/core/validation/validation.go: ValidateServiceAccount,
ValidatePodTemplate, ValidateReplicationController), after SetDefaults_ReplicationController
(pkg/apis/core/v1/defaults.go: an empty selector becomes the template's labels). Their ObjectMeta
is meta.py's, and a pod template's own validation (ValidatePodTemplateSpec) is the pod port's,
which runs on every pod template (pod_templates.py)."""

from __future__ import annotations

from trainops.knowledge.apivalidation.core import active_deadline
from trainops.knowledge.apivalidation.formats import (
    Errors,
    does_not_match,
    non_negative,
    required,
)
from trainops.model.shape import mapping


def service_account(doc: dict) -> Errors:
    """core ValidateServiceAccount: ObjectMeta alone (ValidateServiceAccountName, a DNS
    subdomain: meta.py). Its secrets (ObjectReferences) and imagePullSecrets
    (LocalObjectReferences) are not validated: an entry without a name is accepted."""
    del doc
    return []


def pod_template(doc: dict) -> Errors:
    """core ValidatePodTemplate: ObjectMeta (ValidatePodName: meta.py) and ValidatePodTemplateSpec
    of its template, which the pod port judges (ephemeral containers forbidden included)."""
    del doc
    return []


def replication_controller(doc: dict) -> Errors:
    """core ValidateReplicationControllerSpec and ValidatePodTemplateSpecForRC, after
    SetDefaults_ReplicationController (the selector defaults to the template's labels; replicas
    to 1). The template's restartPolicy (Always only) is the pod port's (kinds.RESTART_POLICIES)."""
    spec = mapping(doc.get("spec"))
    template = spec.get("template")
    labels = mapping(template).get("metadata") if isinstance(template, dict) else None
    labels = mapping(labels).get("labels") if isinstance(labels, dict) else None
    selector = spec.get("selector")
    if not (isinstance(selector, dict) and selector) and isinstance(labels, dict):
        selector = labels  # SetDefaults_ReplicationController (a nil map stays nil)
    errors = non_negative(spec, "minReadySeconds", "spec")
    if not (isinstance(selector, dict) and selector):
        # ValidateNonEmptySelector: labels.Set(selector).AsSelector().Empty()
        errors.append(("spec.selector", required()))
    errors += non_negative(spec, "replicas", "spec")
    if not isinstance(template, dict):
        errors.append(("spec.template", required()))
        return errors
    if isinstance(selector, dict) and selector:
        have = labels if isinstance(labels, dict) else {}
        if any(key not in have or have[key] != value for key, value in selector.items()):
            errors.append(("spec.template.metadata.labels", does_not_match(labels)))
    return errors + active_deadline(spec, "ReplicationController")
