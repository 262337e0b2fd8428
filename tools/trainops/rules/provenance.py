"""Every Git source and image of our own follows from trainops.yaml `provenance`, and no
environment ships a placeholder owner silently.

What it catches:
- an Argo CD Application source (`spec.source`, `spec.sources[*]`; a Helm chart source, which
  names a chart repository, aside) or a Flux GitRepository (`spec.url`) whose URL is not
  `provenance.repository` (host case, scheme and `.git` aside): Argo CD or Flux would sync
  another repository's manifests;
- in an environment that pulls its own images from a registry (`provenance.registry`, or the
  environment's own `registry`): one of the repository's own images (trainops.yaml `images`)
  from anywhere else, or an image under that registry that no workflow under .github/workflows
  publishes — one whose docker/build-push-action job pushes `${{ matrix.image }}` built from
  `${{ matrix.target }}` (a stage of the Dockerfile in the step's context) on a git tag matching
  `on.push.tags`, tagged as that git tag less its leading `v` — with the tag the manifests name.
  Images from elsewhere are upstream releases: the pinned rule holds them to a tag or digest;
- a placeholder owner (knowledge/provenance.py defines it: a reserved host such as example.com,
  or an owner such as `example` in github.com/example/… or ghcr.io/example) in any of those, once
  a root of an environment, naming every place. A root belongs to the environment whose folder
  holds it, or whose folder's name is a folder of its path (the GitOps entry points
  gitops/argocd/<env>/…, gitops/flux/<env>). In an environment on a real cloud (a profile whose
  `cloud` is not kind) it is an error unless `provenance.placeholder: true` acknowledges it;
  acknowledged, or in a kind environment, it is a warning.

Why it matters: as shipped, a placeholder owner means Argo CD and Flux fetch a repository
nobody owns, and the training pods sit in ImagePullBackOff (GitHub's container registry serves
only what an owner pushed) while Kueue holds their quota, evicting and requeueing them every
waitForPodsReady timeout. An image no workflow pushes fails the same way on the first release.

How to fix: `trainops adopt --repository https://github.com/<owner>/trainops.git --registry
ghcr.io/<owner>` re-points trainops.yaml, the overlays' `images:`, the Argo CD Applications and
the Flux GitRepositories at once and validates the result; a new image of our own gets an entry
in the image workflow's matrix.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from trainops.knowledge import pins, profiles, provenance
from trainops.model.findings import Finding, Severity, placed
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import indexed_mappings, mapping

ID = "provenance"
SEVERITY = Severity.ERROR
SUMMARY = (
    "Git sources and own images follow trainops.yaml provenance, own images are ones the image "
    "workflow publishes, and a placeholder owner is never shipped silently"
)

_ADOPT = (
    "trainops adopt --repository https://github.com/<owner>/trainops.git --registry ghcr.io/<owner>"
)


def _sources(obj: K8sObject) -> Iterator[tuple[str, str]]:
    """(JSON path, URL) of the Git sources of an Argo CD Application or a Flux GitRepository."""
    spec = mapping(obj.doc.get("spec"))
    if obj.group == "argoproj.io" and obj.kind == "Application":
        candidates = [("spec.source", mapping(spec.get("source")))] if "source" in spec else []
        candidates += [
            (f"spec.sources[{index}]", source)
            for index, source in indexed_mappings(spec.get("sources"))
        ]
        for path, source in candidates:
            url = source.get("repoURL")
            if isinstance(url, str) and not source.get("chart"):
                yield f"{path}.repoURL", url
    elif obj.group == "source.toolkit.fluxcd.io" and obj.kind == "GitRepository":
        url = spec.get("url")
        if isinstance(url, str):
            yield "spec.url", url


def _environment(rendered: Rendered, cluster: Cluster) -> tuple[str | None, str | None]:
    """(environment folder, its profile's cloud) of a root: the environment whose folder holds
    it, else the one whose folder's name is a folder of its path (gitops/flux/<env>,
    gitops/argocd/<env>/…: the GitOps entry points are named after their environment)."""
    config = cluster.config
    environments: dict[str, str] = getattr(config, "environments", None) or {}
    folder = getattr(config, "folder", None)
    if rendered.path is None or folder is None:
        return None, None
    try:
        relative = PurePosixPath(rendered.path.resolve().relative_to(folder).as_posix())
    except ValueError:
        return None, None
    match = next(
        (env for env in environments if relative.is_relative_to(env)),
        next((env for env in environments if PurePosixPath(env).name in relative.parts), None),
    )
    if match is None:
        return None, None
    profile = mapping(getattr(config, "profiles", {}).get(environments[match]))
    return match, str(profile.get("cloud", "")) or None


def _finding(rendered, obj, message, path, hint, severity=SEVERITY, file=None, line=None):
    return placed(ID, severity, rendered.root, obj, message, path, hint, file, line)


def _published(cluster: Cluster) -> list[provenance.Published]:
    folder = getattr(cluster.config, "folder", None)
    return provenance.published_images(folder) if folder is not None else []


def _image_problem(
    image: str, tag: str | None, registry: str, own: str | None, cluster: Cluster
) -> str | None:
    if not image.startswith(registry + "/"):
        if own is None:
            return None  # an upstream image: the pinned rule's
        return (
            f"image {image} is one of the repository's own ({own}), yet not from {registry}, "
            "the registry trainops.yaml declares for this environment"
        )
    name = image[len(registry) + 1 :]
    published = [p for p in cluster.memo("published-images", _published) if p.image == name]
    if not published:
        return (
            f"image {image} is under the repository's registry {registry}, but no workflow under "
            f".github/workflows builds and pushes {name} (a docker/build-push-action job's "
            "matrix entry {image, target}): nothing ever publishes it"
        )
    folder: Path = cluster.config.folder  # type: ignore[union-attr]
    for entry in published:
        targets = provenance.dockerfile_targets(folder / entry.context)
        if entry.target not in targets:
            return (
                f"image {image} is published by {entry.workflow} (job {entry.job}) from target "
                f"{entry.target}, which {entry.context}/Dockerfile does not define "
                f"(stages: {', '.join(sorted(targets)) or 'none'})"
            )
    if tag is None or "sha256:" in tag:
        return None
    if not any(p.publishes_tag(tag) for p in published):
        globs = sorted({g for p in published for g in p.tag_globs})
        return (
            f"image {image}:{tag} names a tag {published[0].workflow} never pushes: it tags "
            f"{name} with the pushed git tag less its leading v, on git tags matching "
            f"{', '.join(globs) or 'none (on.push.tags is empty)'}"
        )
    return None


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    declared = getattr(cluster.config, "provenance", None)
    environment, cloud = _environment(rendered, cluster)
    placeholders: list[tuple[K8sObject | None, str, str, str | None, int | None, str | None]] = []
    for obj in rendered.objects:
        for path, url in _sources(obj):
            why = provenance.placeholder_in_url(url)
            if why:
                placeholders.append(
                    (obj, f"{obj.kind} {obj.name} {path} {url}", why, None, None, path)
                )
            if declared is not None and not provenance.same_repository(url, declared.repository):
                yield _finding(
                    rendered,
                    obj,
                    f"{obj.kind} {obj.name} fetches {url} ({path}), not the repository "
                    f"trainops.yaml declares (provenance.repository: {declared.repository}): "
                    f"{'Argo CD' if obj.group == 'argoproj.io' else 'Flux'} would sync another "
                    "repository's manifests",
                    path,
                    "point it at provenance.repository (`trainops adopt` re-points them all)",
                )
    registry = profiles.registry_of(cluster)

    def problem_of(pin: pins.Pin) -> str | None:
        if registry is None:
            return None
        traits = profiles.image_traits(cluster, pin.what)
        name = traits.name if traits else None
        return _image_problem(pin.what, pin.version, registry, name, cluster)

    def wanted(pin: pins.Pin) -> bool:
        return bool(provenance.placeholder_in_image(pin.what)) or problem_of(pin) is not None

    seen = set()
    by_ref = {o.ref: o for o in rendered.objects}
    for pin, file, line, path in pins.image_sites(rendered, keep=wanted):
        obj = by_ref.get(pin.object_ref) if pin.object_ref else None
        why = provenance.placeholder_in_image(pin.what)
        if why and (file, line) not in seen:
            seen.add((file, line))
            where = f"{obj.kind} {obj.name}" if obj else "a pod"
            placeholders.append((obj, f"image {pin.what} ({where})", why, file, line, path))
        problem = problem_of(pin)
        if problem is not None and (file, line, problem) not in seen:
            seen.add((file, line, problem))
            yield _finding(
                rendered,
                obj,
                problem,
                path,
                "take the overlay's images: newName from provenance.registry, and publish the "
                "image from the image workflow's matrix, tagged as the manifests name it",
                file=file,
                line=line,
            )
    if placeholders and environment is not None:
        yield _placeholder_finding(rendered, placeholders, environment, cloud, declared)


def _placeholder_finding(rendered, placeholders, environment, cloud, declared) -> Finding:
    acknowledged = declared is not None and declared.placeholder
    real_cloud = cloud != "kind"
    severity = Severity.ERROR if real_cloud and not acknowledged else Severity.WARNING
    obj, _, _, file, line, path = placeholders[0]
    reasons = "; ".join(dict.fromkeys(reason for _, _, reason, *_ in placeholders))
    places = ", ".join(what for _, what, *_ in placeholders)
    context = f"environment {environment} (a {cloud or 'profile-less'} cluster)"
    if acknowledged:
        said = (
            "trainops.yaml acknowledges it (provenance.placeholder: true): a warning until a "
            "real owner is adopted"
        )
    elif real_cloud:
        said = "an environment for a real cloud may not ship one unacknowledged"
    else:
        said = "a kind cluster loads its images locally, but its GitOps sources must resolve"
    count = f"{len(placeholders)} place{'s' if len(placeholders) != 1 else ''}"
    return _finding(
        rendered,
        obj,
        f"{context} names a placeholder owner in {count} ({places}): {reasons}. Argo CD and "
        "Flux cannot fetch a repository nobody owns, and pods cannot pull an image nobody "
        f"pushed (ImagePullBackOff while Kueue holds their quota); {said}",
        path,
        f"run `{_ADOPT}`",
        severity,
        file,
        line,
    )
