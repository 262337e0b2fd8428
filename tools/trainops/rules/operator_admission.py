"""Objects pass the admission webhooks of the operators that own them, and the checks the GitOps
controllers make before they apply anything.

What it catches: what an operator's validating webhook refuses although the API server's own
validation accepts it (Kueue, KubeRay, the Training Operator, JobSet, Volcano, the MPI Operator),
and what a GitOps controller refuses before it builds or applies a layer (Flux's
kustomize-controller, helm-controller and source-controller, Argo CD). Each check is a port of the upstream function
at the pinned tag (trainops/knowledge/admission, one package per operator); `trainops coverage`
lists them, with what each leaves out.

Why it matters: the server's schema and validation say nothing of these; a webhook refusal fails
the sync of the whole layer, and a controller's refusal is a condition on its object that nobody
reads until the training never starts.

How to fix: follow the message; it names the operator and the upstream check.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.admission import checks_for
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Cluster, Rendered

ID = "operator-admission"
SEVERITY = Severity.ERROR
SUMMARY = "objects pass their operators' admission webhooks and the GitOps controllers' own checks"

_STAGE = {
    "webhook": "{operator}'s admission webhook refuses it",
    "controller": "{operator} refuses it before acting",
}


def _refusals(admission, doc: dict) -> list[tuple[str, str]]:
    """What `admission` refuses in `doc`. A webhook or controller sees only an object the API
    server decoded into its Go types, so a field of the wrong type never reaches it: the `schema`
    rule reports that field, and the port, written for the decoded shape, is not asked."""
    try:
        return list(admission.check(doc))
    except (TypeError, AttributeError):
        return []


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    del cluster
    for obj in rendered.objects:
        for admission in checks_for(obj.group, obj.kind):
            who = _STAGE[admission.stage].format(operator=admission.operator)
            for path, message in _refusals(admission, obj.doc):
                yield Finding(
                    ID,
                    SEVERITY,
                    f"{message} ({who}: {admission.upstream})",
                    rendered.root,
                    obj.file,
                    obj.line,
                    obj.ref,
                    path,
                )
