"""Pod templates must pass the Pod Security level their namespace enforces.

What it catches: any pod template (Pods, workload controllers, CronJobs, Kubeflow training jobs,
RayCluster/RayJob/RayService, JobSet, Volcano Job — however deeply nested) in a namespace labelled
`pod-security.kubernetes.io/enforce`, evaluated exactly as the admission library does at the
`enforce-version` label's version (latest when unset). Containers an operator injects count: a
PyTorchJob with a Master gets the Training Operator's `init-pytorch` init container in its
workers, evaluated from the template the operators layer of the same environment configures (the
operator's unrestricted built-in one when none is); so do KubeRay's autoscaler sidecar and
Volcano's `wait-for-master` init container (pytorch plugin, `--wait-master-enabled`), both without a
securityContext unless configured (trainops/knowledge/operator_pods.py). `audit` and `warn` labels give
warnings.
A namespace the roots checked together do not define is judged with the repository's own
definition of it (from the files its configured roots name, the strictest where environments
differ), which the finding names (`as base/namespace.yaml:3 defines it`): so a file checked
alone is held to its namespace's level. A namespace nothing defines, or one defined without
labels, is privileged.

Why it matters: the API server rejects every pod that violates the enforced level, but only when
the controller creates it — the job is accepted, its pods never start, and the error sits in the
controller's events.

How to fix: set what the finding names on the pod or container securityContext (restricted needs
runAsNonRoot, allowPrivilegeEscalation: false, capabilities.drop: [ALL], seccompProfile
RuntimeDefault); for the Training Operator's init container, fix the template in
operators/training-operator/pytorch-init-container.yaml; for Volcano's, bring a restricted
`wait-for-master` init container in the worker template (the plugin then adds none); for KubeRay's
autoscaler, set `autoscalerOptions.securityContext`.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.operator_pods import operator_pod
from trainops.knowledge.pod_templates import templates_of
from trainops.knowledge.psa.evaluate import evaluate_template
from trainops.knowledge.psa.registry import LEVELS, PRIVILEGED, PolicyError, parse_version
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered

ID = "pod-security"
SEVERITY = Severity.ERROR
SUMMARY = "pod templates pass the Pod Security level their namespace enforces"

LABEL = "pod-security.kubernetes.io/"
HINTS = {
    "allowPrivilegeEscalation": "set securityContext.allowPrivilegeEscalation: false on every container",
    "capabilities_restricted": "set securityContext.capabilities.drop: [ALL] on every container (add back only NET_BIND_SERVICE)",
    "runAsNonRoot": "set securityContext.runAsNonRoot: true on the pod (and a non-zero runAsUser if the image runs as root)",
    "runAsUser": "run as a non-zero uid",
    "seccompProfile_restricted": "set securityContext.seccompProfile.type: RuntimeDefault on the pod",
    "restrictedVolumes": "use configMap, secret, emptyDir, projected, downwardAPI, PVC, CSI or ephemeral volumes",
}


def _policy(labels: dict[str, str], mode: str) -> tuple[str, int | None, str] | None:
    """(level, minor, shown as) for a mode's labels; None for privileged or unset."""
    level = labels.get(LABEL + mode)
    if level is None or level == PRIVILEGED:
        return None
    if level not in LEVELS:
        raise PolicyError(f"label {LABEL + mode}={level!r} is not one of {', '.join(LEVELS)}")
    version = labels.get(f"{LABEL}{mode}-version", "latest")
    return level, parse_version(version, newest=None), f"{level}:{version}"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    for obj in rendered.objects:
        templates = templates_of(obj)
        if not templates or not obj.namespace:
            continue
        labels = cluster.namespace_labels(obj.namespace)
        defined = ""
        if labels is None and (elsewhere := cluster.namespace_elsewhere(obj.namespace)):
            # Checked without its environment's layers (a file alone): the repository's own
            # definition of the namespace, named in every finding.
            labels, defined = elsewhere.labels, f" (as {elsewhere.where} defines it)"
        if not labels:
            continue
        try:
            enforce = _policy(labels, "enforce")
            advisory = [p for p in (_policy(labels, "audit"), _policy(labels, "warn")) if p]
        except PolicyError as error:
            yield Finding(
                ID,
                SEVERITY,
                f"namespace {obj.namespace}{defined}: {error}",
                rendered.root,
                obj.file,
                obj.line,
                obj.ref,
            )
            continue
        for template in templates:
            yield from _check_template(rendered, cluster, obj, template, enforce, advisory, defined)


def _check_template(
    rendered, cluster, obj, template, enforce, advisory, defined=""
) -> Iterator[Finding]:
    built = operator_pod(obj, template, cluster)
    if built.error:
        yield Finding(
            ID,
            SEVERITY,
            built.error,
            rendered.root,
            obj.file,
            obj.line,
            obj.ref,
            template.path,
        )
    template = built.template
    reported = set()
    for severity, policy in [(Severity.ERROR, enforce)] + [(Severity.WARNING, p) for p in advisory]:
        if policy is None:
            continue
        level, minor, shown = policy
        for violation in evaluate_template(level, minor, template):
            mode = "enforced" if severity is Severity.ERROR else "audited/warned"
            message = f"{violation.check}: {violation.reason} ({violation.detail}); {shown} is {mode} on namespace {obj.namespace}{defined}"
            # The detail already names every offending container: one finding at the first
            # path of the template's own containers, and one for each container the operator
            # adds, not one per container, or N failing containers would print N copies of an
            # N-name list.
            groups: dict[str, list[str]] = {}
            for path in violation.paths:
                addition = built.addition_at(
                    path[len(template.path) + 1 :] if template.path else path
                )
                owner = addition.description if addition and addition.container_name else ""
                groups.setdefault(owner, []).append(path)
            for owner, paths in groups.items():
                path = paths[0]
                if (violation.check, path) in reported:
                    continue
                reported.add((violation.check, path))
                shown_message = f"{owner} fails: {message}" if owner else message
                yield Finding(
                    ID,
                    severity,
                    shown_message,
                    rendered.root,
                    obj.file,
                    obj.line,
                    obj.ref,
                    path,
                    HINTS.get(violation.check),
                )
