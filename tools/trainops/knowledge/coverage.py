"""What trainops judges of each kind, read from its registries rather than kept by hand.

For every kind a run knows — the built-in kinds kubernetes-validate's schemas hold for the declared
Kubernetes versions, and the custom resource kinds of the CRDs `crdRoots` render — each layer of
what a cluster does with an object before it runs is judged, partly judged (the port says what it
leaves out) or not judged:

- schema: the kind's OpenAPI schema (knowledge/schema: kubernetes-validate's for a built-in kind,
  the CRD's structural schema for a custom resource);
- API-server validation: the upstream validation function ported (apivalidation/kinds.py
  KIND_CHECKS, with LEFT_OUT saying what a port leaves out; a Pod through ValidatePodSpec, which
  every pod template of any kind is judged with too); a custom resource's is its schema, which
  the server validates it with; ObjectMeta (apivalidation/meta.py) is checked for every kind;
- defaulting: what the server fills in before validating — for a built-in kind, nulls read as Go
  zero values (knowledge/decoding.py) and the SetDefaults_* its port applies; for a custom
  resource, the schema's `default`s (knowledge/schema/crd.py, cel.py);
- admission webhook and controller: the operators' and GitOps controllers' own checks
  (knowledge/admission CHECKS, by stage, with what each leaves out);
- CEL: a custom resource's `x-kubernetes-validations`, evaluated on create (knowledge/schema/cel.py):
  judged when every create-time rule can be evaluated here.

An object is *fully judged* when its kind's schema, API-server validation (defaulting included)
and CEL are all judged: what `kube-apiserver` decides is then decided here. It is *not judged*
when its kind's API-server validation is not modelled (a built-in kind without a port: only its
schema and ObjectMeta are checked; or a kind no schema describes): `trainops verify` asks a live
server. Anything else is *partly judged*. The operators' admission is printed beside, and does not
change the count: what a webhook refuses is an operator's verdict, not the API server's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from trainops.knowledge import admission, webhooks
from trainops.knowledge.apivalidation import kinds as apikinds
from trainops.knowledge.schema import cel, core
from trainops.knowledge.schema.catalog import Catalog

JUDGED = "judged"
PARTLY = "partly"
NOT_JUDGED = "not judged"
NONE = "-"  # nothing of this layer applies to the kind (a built-in kind has no CEL rules)

# Built-in kinds whose own validation is the pod template's: a Pod is ValidatePod's pod spec,
# which validate_pod_spec ports (apivalidation/pod.py) for every pod template of any kind.
_JUDGED_BY_POD_SPEC = {("", "Pod"): "ValidatePodSpec (apivalidation/pod.py)"}


@dataclass(frozen=True)
class Cell:
    status: str
    detail: str = ""


@dataclass(frozen=True)
class KindCoverage:
    group: str
    kind: str
    versions: tuple[str, ...]  # the API versions (v1, v1beta1, …) known for it
    source: str  # "Kubernetes v1.32, v1.37" or "CRD <name> (<crdRoots folder>)"
    schema: Cell
    api_validation: Cell
    defaulting: Cell
    webhook: Cell
    controller: Cell
    cel: Cell

    @property
    def custom(self) -> bool:
        return self.source.startswith("CRD ")

    @property
    def judgement(self) -> str:
        """judged, partly or not judged: what the API server decides about an object of it."""
        server = (self.schema, self.api_validation, self.defaulting, self.cel)
        if self.schema.status == NOT_JUDGED or self.api_validation.status == NOT_JUDGED:
            return NOT_JUDGED
        if all(cell.status in (JUDGED, NONE) for cell in server):
            return JUDGED
        return PARTLY

    def left_out(self) -> list[str]:
        """What the server-side columns leave out, for people."""
        named = (
            ("API-server validation", self.api_validation),
            ("defaulting", self.defaulting),
            ("CEL", self.cel),
        )
        return [f"{name}: {cell.detail}" for name, cell in named if cell.status == PARTLY]

    def as_dict(self) -> dict:
        def cell(c: Cell) -> dict:
            return {"status": c.status, "detail": c.detail}

        return {
            "group": self.group,
            "kind": self.kind,
            "versions": list(self.versions),
            "source": self.source,
            "judgement": self.judgement,
            "schema": cell(self.schema),
            "apiValidation": cell(self.api_validation),
            "defaulting": cell(self.defaulting),
            "webhook": cell(self.webhook),
            "controller": cell(self.controller),
            "cel": cell(self.cel),
        }


@cache
def _served(kubernetes_version: str) -> dict[tuple[str, str], tuple[str, ...]]:
    """(group, kind) -> API versions, of every kind kubernetes-validate's schemas hold for a
    Kubernetes version: the definitions with a group-version-kind and ObjectMeta, List kinds and
    apimachinery's own types (Status, DeleteOptions, WatchEvent) aside."""
    found: dict[tuple[str, str], list[str]] = {}
    for name, definition in core.definitions(kubernetes_version).items():
        if name.startswith("io.k8s.apimachinery."):
            continue
        if "metadata" not in (definition.get("properties") or {}):
            continue
        for gvk in definition.get("x-kubernetes-group-version-kind") or []:
            kind = gvk.get("kind")
            if not isinstance(kind, str) or kind.endswith("List"):
                continue
            versions = found.setdefault((str(gvk.get("group", "")), kind), [])
            if gvk.get("version") not in versions:
                versions.append(str(gvk.get("version")))
    return {key: tuple(versions) for key, versions in found.items()}


def built_in_kinds(kubernetes_versions: Iterable[str]) -> dict[tuple[str, str], dict[str, tuple]]:
    """(group, kind) -> {Kubernetes version: API versions} over the declared versions."""
    found: dict[tuple[str, str], dict[str, tuple]] = {}
    for version in kubernetes_versions:
        for key, api_versions in _served(version).items():
            found.setdefault(key, {})[version] = api_versions
    return found


def _stage(group: str, kind: str, stage: str, custom: bool, served: bool = True) -> Cell:
    """`served`: whether the stage exists for the kind here at all (a webhook some webhook
    configuration of the CRD roots registers for it); one that does not refuses nothing."""
    checks = [c for c in admission.checks_for(group, kind) if c.stage == stage]
    if not checks and custom and not served:
        return Cell(NONE, "no webhook configuration of the CRD roots registers one for it")
    if not checks:
        return Cell(NOT_JUDGED if custom else NONE, "no port" if custom else "")
    who = ", ".join(dict.fromkeys(c.operator for c in checks))
    left = [c.left_out for c in checks if c.left_out]
    if left:
        return Cell(PARTLY, f"{who}; left out: {'; '.join(left)}")
    return Cell(JUDGED, f"{who}: {len(checks)} check(s)")


def _built_in(group: str, kind: str, per_version: dict[str, tuple]) -> KindCoverage:
    key = (group, kind)
    check = apikinds.KIND_CHECKS.get(key)
    left_out = apikinds.LEFT_OUT.get(key, "")
    if check is not None:
        where = f"{check.__module__.rpartition('.')[2]}.py {check.__name__}"
        api = Cell(PARTLY, left_out) if left_out else Cell(JUDGED, where)
        defaulting = Cell(JUDGED, "its port's SetDefaults_*; nulls as Go zero values")
    elif key in _JUDGED_BY_POD_SPEC:
        api = Cell(JUDGED, _JUDGED_BY_POD_SPEC[key])
        defaulting = Cell(JUDGED, "SetDefaults_Pod and _PodSpec the pod spec port applies")
    else:
        api = Cell(NOT_JUDGED, "no port: schema and ObjectMeta only")
        defaulting = Cell(PARTLY, "nulls as Go zero values only")
    versions = tuple(dict.fromkeys(v for found in per_version.values() for v in found))
    return KindCoverage(
        group,
        kind,
        versions,
        "Kubernetes " + ", ".join(per_version),
        Cell(JUDGED, "kubernetes-validate"),
        api,
        defaulting,
        _stage(group, kind, "webhook", custom=False),
        _stage(group, kind, "controller", custom=False),
        Cell(NONE),
    )


def _cel(schemas: Iterable[dict]) -> Cell:
    rules = 0
    reasons: list[str] = []
    for schema in schemas:
        for source, reason in cel.create_rules(schema):
            rules += 1
            if reason is not None:
                reasons.append(f"{source!r} {reason}")
    if not rules:
        return Cell(NONE, "no rules")
    if reasons:
        shown = "; ".join(reasons[:2]) + (
            f"; and {len(reasons) - 2} more" if len(reasons) > 2 else ""
        )
        return Cell(PARTLY, f"{len(reasons)} of {rules} rule(s) not evaluated: {shown}")
    return Cell(JUDGED, f"{rules} rule(s)")


def _custom(
    catalog: Catalog, group: str, kind: str, hooked: set[tuple[str, str]] | None = None
) -> KindCoverage:
    """`hooked`: the resources the CRD roots' webhook configurations register (None: unknown,
    as when the roots were not read)."""
    name = catalog.crd_names[(group, kind)]
    resource = name.partition(".")[0]  # a CRD is named <plural>.<group>
    versions = tuple(v for (g, v, k) in catalog.crd_schemas if (g, k) == (group, kind))
    installer = catalog.installers.get(name, "?")
    cel_schemas = [
        schema for (g, _, k), schema in catalog.cel_schemas.items() if (g, k) == (group, kind)
    ]
    check = apikinds.KIND_CHECKS.get((group, kind))
    api = Cell(JUDGED, "its CRD's structural schema")
    if check is not None and apikinds.LEFT_OUT.get((group, kind)):
        api = Cell(PARTLY, apikinds.LEFT_OUT[(group, kind)])
    return KindCoverage(
        group,
        kind,
        versions,
        f"CRD {name} ({installer})",
        Cell(JUDGED, f"CRD {name}"),
        api,
        Cell(JUDGED, "the schema's defaults"),
        _stage(
            group,
            kind,
            "webhook",
            custom=True,
            served=hooked is None or webhooks.is_registered(hooked, group, resource),
        ),
        _stage(group, kind, "controller", custom=True),
        _cel(cel_schemas),
    )


def table(catalog: Catalog, hooked: set[tuple[str, str]] | None = None) -> list[KindCoverage]:
    """Every kind of the run: built-in ones (by group, then kind), then custom resource kinds;
    `hooked`, the resources the CRD roots' webhook configurations register (webhooks.registered)."""
    rows = [
        _built_in(group, kind, per_version)
        for (group, kind), per_version in sorted(
            built_in_kinds(catalog.kubernetes_versions).items()
        )
    ]
    custom = sorted({(g, k) for (g, k) in catalog.crd_names})
    rows += [_custom(catalog, group, kind, hooked) for group, kind in custom]
    return rows


@dataclass
class Judgement:
    """How many objects of a run were judged as the API server judges them."""

    total: int = 0
    judged: int = 0
    partly: dict[str, int] = field(default_factory=dict)  # kind -> objects partly judged
    not_judged: dict[str, int] = field(default_factory=dict)  # kind -> objects not judged
    # The rules judging as the API server does that the run did not run (--select, --ignore,
    # trainops.yaml `rules:`): then no object is judged as it judges them.
    skipped: tuple[str, ...] = ()

    def summary(self) -> str:
        """`118 of 130 object(s) fully judged; 4 partly (…); 8 not judged (…): trainops verify…`"""
        if self.skipped:
            return (
                f"none of {self.total} object(s) judged as the API server judges them: the run "
                f"left out {', '.join(self.skipped)}"
            )
        text = f"{self.judged} of {self.total} object(s) fully judged"
        for label, counted in (("partly judged", self.partly), ("not judged", self.not_judged)):
            if counted:
                named = ", ".join(f"{kind} {n}" for kind, n in sorted(counted.items()))
                text += f"; {sum(counted.values())} {label} ({named})"
        if self.partly or self.not_judged:
            text += (
                ": `trainops coverage` says what is left out, `trainops verify` asks a live server"
            )
        return text

    def add(self, other: Judgement) -> None:
        self.total += other.total
        self.judged += other.judged
        for mine, theirs in ((self.partly, other.partly), (self.not_judged, other.not_judged)):
            for kind, count in theirs.items():
                mine[kind] = mine.get(kind, 0) + count

    @property
    def complete(self) -> bool:
        return self.judged == self.total and not self.skipped

    def as_dict(self) -> dict:
        return {
            "objects": self.total,
            "fullyJudged": self.judged,
            "partlyJudged": dict(sorted(self.partly.items())),
            "notJudged": dict(sorted(self.not_judged.items())),
            "rulesNotRun": list(self.skipped),
        }


def kind_of(catalog: Catalog | None, api_version: str, kind: str) -> KindCoverage | None:
    """The coverage of an object's kind (memoised on the catalog); None for a kind no schema
    describes (the schema-missing rule reports those)."""
    if catalog is None:
        return None
    memo: dict = catalog.__dict__.setdefault("_coverage", {})
    key = (api_version, kind)
    if key not in memo:
        memo[key] = _kind_of(catalog, api_version, kind)
    return memo[key]


def _kind_of(catalog: Catalog, api_version: str, kind: str) -> KindCoverage | None:
    group = api_version.rpartition("/")[0]
    if catalog.crd_schema(api_version, kind) is not None:
        return _custom(catalog, group, kind)
    per_version = {
        version: (api_version.rpartition("/")[2],)
        for version in catalog.kubernetes_versions
        if core.schema_for(version, api_version, kind) is not None
    }
    return _built_in(group, kind, per_version) if per_version else None


# The rules that judge as the API server does: an object is judged only where all of them ran.
SERVER_RULES = ("schema", "cel-rules", "api-validation")


def judge(
    catalog: Catalog | None, found: Iterable[tuple[str, str]], ran: Iterable[str] = SERVER_RULES
) -> Judgement:
    """The judgement of objects given as (apiVersion, kind); one no schema describes counts as
    not judged, and so does every object when a rule of SERVER_RULES did not run."""
    result = Judgement(skipped=tuple(r for r in SERVER_RULES if r not in set(ran)))
    for api_version, kind in found:
        result.total += 1
        if result.skipped:
            continue
        coverage = kind_of(catalog, api_version, kind)
        judgement = coverage.judgement if coverage is not None else NOT_JUDGED
        if judgement == JUDGED:
            result.judged += 1
        else:
            counted = result.partly if judgement == PARTLY else result.not_judged
            counted[kind] = counted.get(kind, 0) + 1
    return result
