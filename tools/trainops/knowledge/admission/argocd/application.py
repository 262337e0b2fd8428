"""What Argo CD v3.5.1 refuses in an Application that can be judged without a cluster or a
repository.

An Application applied with kubectl (or synced by an app of apps) is admitted by the API server
alone; Argo CD's application controller then refuses it with an InvalidSpecError condition and
never syncs it, or ends a failed sync's retry with an error:
- util/argo/argo.go ValidatePermissions (called by the controller, appcontroller.go
  refreshAppConditions): the source rules of validateSourceHydrator and validateSourcePermissions
  (checked first; a refusal there ends the validation), then GetDestinationServer: a destination
  needs exactly one of `server` and `name`;
- util/argo/argo.go GetRefSources (controller/state.go, before generating manifests): a source's
  `ref` is letters, digits, `_` and `-`, and no two sources share one;
- pkg/apis/application/v1alpha1/types.go ApplicationSource.ExplicitType (the repo server's
  GetAppSourceType): one source type at most of `kustomize`, `helm`, `directory`, `plugin`;
- types.go RetryStrategy.NextRetryAt (appcontroller.go, when a failed sync is retried):
  `backoff.duration` and `backoff.maxDuration` are whole seconds or Go durations
  (parseStringToDuration), else the operation ends in Error instead of retrying.

Upstream's own cases (util/argo/argo_test.go at v3.5.1) are transcribed in
tests/rules/fixtures/operator-admission/bad-argocd.yaml.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from trainops.knowledge.admission.check import Refusal
from trainops.model.shape import mapping, mappings

_REF = re.compile(r"^[a-zA-Z0-9_-]+$")
_SOURCE_TYPES = ("kustomize", "helm", "directory", "plugin")
# Go's time.ParseDuration: a sign, then one or more decimal numbers each with a unit; "0" alone.
_GO_DURATION = re.compile(r"[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+")
_GO_INT = re.compile(r"[-+]?[0-9]+")


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _sources(spec: dict) -> tuple[list[dict], bool]:
    """ApplicationSpec.HasMultipleSources / GetSource: `sources` wins over `source` when set and
    there is no source hydrator."""
    multiple = spec.get("sourceHydrator") is None and bool(mappings(spec.get("sources")))
    if multiple:
        return mappings(spec.get("sources")), True
    return [mapping(spec.get("source"))], False


def validate_permissions(doc: dict) -> Iterator[Refusal]:
    """util/argo/argo.go ValidatePermissions, the part that needs no AppProject nor cluster list."""
    spec = mapping(doc.get("spec"))
    hydrator = spec.get("sourceHydrator")
    if hydrator is not None:
        refusals = list(_hydrator(mapping(hydrator)))
        if refusals:
            yield from refusals
            return
    else:
        sources, multiple = _sources(spec)
        for index, source in enumerate(sources):
            refusal = _source(
                source, multiple, f"spec.sources[{index}]" if multiple else "spec.source"
            )
            if refusal is not None:
                yield refusal
                return
    destination = mapping(spec.get("destination"))
    name, server = _text(destination.get("name")), _text(destination.get("server"))
    if name and server:
        yield (
            "spec.destination",
            f"application destination can't have both name and server defined: {name} {server}",
        )
    elif not name and not server:
        yield "spec.destination", "Destination server missing from app spec"


def _hydrator(hydrator: dict) -> Iterator[Refusal]:
    """validateSourceHydrator."""
    if not _text(mapping(hydrator.get("drySource")).get("repoURL")):
        yield (
            "spec.sourceHydrator.drySource.repoURL",
            "spec.sourceHydrator.drySource.repoURL is required",
        )
    if not _text(mapping(hydrator.get("syncSource")).get("targetBranch")):
        yield (
            "spec.sourceHydrator.syncSource.targetBranch",
            "spec.sourceHydrator.syncSource.targetBranch is required",
        )
    hydrate_to = hydrator.get("hydrateTo")
    if hydrate_to is not None and not _text(mapping(hydrate_to).get("targetBranch")):
        yield (
            "spec.sourceHydrator.hydrateTo.targetBranch",
            "when spec.sourceHydrator.hydrateTo is set, spec.sourceHydrator.hydrateTo.targetBranch "
            "is required",
        )


def _source(source: dict, multiple: bool, where: str) -> Refusal | None:
    """validateSourcePermissions."""
    repo, path, chart = (_text(source.get(k)) for k in ("repoURL", "path", "chart"))
    if multiple:
        if not repo or not (path or chart or _text(source.get("ref"))):
            return (
                where,
                "spec.source.repoURL and either source.path, source.chart, or source.ref are "
                f"required for source {repo or '(no repoURL)'}",
            )
    elif not repo or not (path or chart):
        return (
            where,
            "spec.source.repoURL and either spec.source.path or spec.source.chart are required",
        )
    if chart and not _text(source.get("targetRevision")):
        return (
            f"{where}.targetRevision",
            "spec.source.targetRevision is required if the manifest source is a helm chart",
        )
    return None


def ref_sources(doc: dict) -> Iterator[Refusal]:
    """util/argo/argo.go GetRefSources: the checks made before any repository is read."""
    spec = mapping(doc.get("spec"))
    sources, multiple = _sources(spec)
    if not multiple:
        return
    seen: set[str] = set()
    for index, source in enumerate(sources):
        ref = _text(source.get("ref"))
        if not ref:
            continue
        where = f"spec.sources[{index}].ref"
        if not _REF.fullmatch(ref):
            yield (
                where,
                f"sources.ref {ref} cannot contain any special characters except '_' and '-'",
            )
            return
        if ref in seen:
            yield where, "invalid sources: multiple sources had the same `ref` key"
            return
        seen.add(ref)


def source_types(doc: dict) -> Iterator[Refusal]:
    """pkg/apis/application/v1alpha1/types.go ApplicationSource.ExplicitType."""
    spec = mapping(doc.get("spec"))
    sources, multiple = _sources(spec)
    for index, source in enumerate(sources):
        found = [t for t in _SOURCE_TYPES if source.get(t) is not None]
        if len(found) > 1:
            names = ",".join(t.capitalize() for t in found)
            where = f"spec.sources[{index}]" if multiple else "spec.source"
            yield where, f"multiple application sources defined: {names}"


def go_duration(text: str) -> bool:
    """types.go parseStringToDuration: strconv.Atoi (whole seconds), else time.ParseDuration."""
    return bool(
        _GO_INT.fullmatch(text) or text in ("0", "+0", "-0") or _GO_DURATION.fullmatch(text)
    )


def retry_backoff(doc: dict) -> Iterator[Refusal]:
    """types.go RetryStrategy.NextRetryAt."""
    backoff = mapping(
        mapping(mapping(mapping(doc.get("spec")).get("syncPolicy")).get("retry")).get("backoff")
    )
    for field in ("duration", "maxDuration"):
        value = backoff.get(field)
        if isinstance(value, str) and value and not go_duration(value):
            yield (
                f"spec.syncPolicy.retry.backoff.{field}",
                f"unable to parse {value} as a duration: a failed sync ends in Error instead of "
                "being retried",
            )
