"""What kustomize-controller v1.9.4 refuses in a Kustomization before it fetches, builds or applies
anything.

Its Reconcile (internal/controller/kustomization_controller.go at v1.9.4) first builds the status
readers of `spec.healthCheckExprs` with fluxcd/pkg runtime v0.110.1 (the version its go.mod pins)
`cel.NewStatusReader` (runtime/cel/status_reader.go). When that fails, the Kustomization is
marked Ready=False and Stalled with reason InvalidCELExpression and the message "Reconciliation
failed terminally due to configuration error: …", and the reconcile ends with a terminal error:
nothing of the layer is ever applied, and it is not retried until the object changes.

`NewStatusReader` refuses, at the first entry that fails (it returns at once, so one message):
- two entries for the same GroupKind (group from `apiVersion`, as apimachinery's
  schema.FromAPIVersionAndKind reads it; an entry without `kind` stands for its whole group):
  "duplicate custom health check for GroupKind …" — it neither keeps the first nor merges them.
  (An earlier fluxcd/pkg, runtime/cel/status_poller.go at c964ce7, kept the first one silently;
  that file was removed by f5abb7c7 "runtime/cel: simplify status reader", first released in
  runtime v0.94.0, long before v0.110.1.)
- an entry whose `current` is empty (runtime/cel/status_evaluator.go NewStatusEvaluator:
  "expression Current not specified");
- an expression (`current`, `failed`, `inProgress`) that cel-go cannot parse
  (runtime/cel/expression.go NewExpression: `env.Parse`, not `env.Compile`, so only syntax,
  macros and reserved words are judged here; a type error shows at evaluation, as a failed health
  check, not as this refusal).

helm-controller v1.6.3 (the release paired with kustomize-controller v1.9.4: both pin runtime
v0.110.1) makes the same call first thing for a HelmRelease's `spec.healthCheckExprs`, with the
same Stalled condition and terminal error (internal/controller/helmrelease_controller.go
Reconcile), and compiles `spec.dependsOn[].readyExpr` the same way (evalReadyExpr).

`checkDependencies` compiles each `spec.dependsOn[].readyExpr` (cel.WithCompile, bool output,
`self` and `dep` declared) and fails terminally, with the same Stalled condition, when it does not
compile; a readyExpr that does not even parse is reported here.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.admission.check import Refusal
from trainops.knowledge.schema.cel import parse_error
from trainops.model.shape import mapping, mappings

TERMINAL = "Reconciliation failed terminally due to configuration error"
_EXPRESSIONS = (("current", "Current"), ("failed", "Failed"), ("inProgress", "InProgress"))


def group_kind(api_version: object, kind: object) -> tuple[str, str]:
    """apimachinery schema.FromAPIVersionAndKind(...).GroupKind(): no slash is the core group, one
    slash splits group and version, more than one is unparsable and leaves the group empty."""
    version = api_version if isinstance(api_version, str) else ""
    group = ""
    if version.count("/") == 1 and version != "/":
        group = version.split("/", 1)[0]
    return group, kind if isinstance(kind, str) else ""


def _gk_string(group: str, kind: str) -> str:
    """schema.GroupKind.String(): Kind.group, or the kind alone in the core group."""
    return f"{kind}.{group}" if group else kind


def health_check_exprs(doc: dict) -> Iterator[Refusal]:
    """fluxcd/pkg runtime v0.110.1 runtime/cel/status_reader.go NewStatusReader, with
    status_evaluator.go NewStatusEvaluator and expression.go NewExpression."""
    seen: set[tuple[str, str]] = set()
    spec = mapping(doc.get("spec"))
    for index, entry in enumerate(mappings(spec.get("healthCheckExprs"))):
        where = f"spec.healthCheckExprs[{index}]"
        key = group_kind(entry.get("apiVersion"), entry.get("kind"))
        if key in seen:
            yield (
                where,
                f"{TERMINAL}: duplicate custom health check for GroupKind "
                f"{_gk_string(*key)} at healthchecks[{index}]: the {doc.get('kind')} is Stalled "
                "(InvalidCELExpression) and nothing of it is applied",
            )
            return
        refusal = _evaluator(entry, where, index)
        if refusal is not None:
            yield refusal
            return
        seen.add(key)


def _evaluator(entry: dict, where: str, index: int) -> Refusal | None:
    prefix = f"{TERMINAL}: failed to create custom status evaluator for healthchecks[{index}]"
    current = entry.get("current")
    if not isinstance(current, str) or current == "":
        return f"{where}.current", f"{prefix}: expression Current not specified"
    for field, name in _EXPRESSIONS:
        source = entry.get(field)
        if not isinstance(source, str) or source == "":
            continue
        error = parse_error(source)
        if error is not None:
            return (
                f"{where}.{field}",
                f"{prefix}: failed to parse the expression {name}: failed to parse the CEL "
                f"expression '{source}': {error}",
            )
    return None


def ready_exprs(doc: dict) -> Iterator[Refusal]:
    """kustomize-controller v1.9.4 internal/controller/kustomization_controller.go evalReadyExpr
    (called from checkDependencies): the parse half of its cel.WithCompile."""
    spec = mapping(doc.get("spec"))
    for index, dependency in enumerate(mappings(spec.get("dependsOn"))):
        source = dependency.get("readyExpr")
        if not isinstance(source, str) or source == "":
            continue
        error = parse_error(source)
        if error is not None:
            yield (
                f"spec.dependsOn[{index}].readyExpr",
                f"{TERMINAL}: failed to evaluate dependency {dependency.get('name')}: failed to "
                f"parse the CEL expression '{source}': {error}",
            )
