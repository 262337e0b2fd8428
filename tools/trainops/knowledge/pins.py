"""Every pin the repository makes: remote bases and files by ref, images by tag or digest, Helm charts.

Shared by the `pinned` rule (which judges them) and `trainops pins` (which lists them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from trainops.knowledge.pod_templates import templates_of
from trainops.knowledge.psa.injected import pytorch_init
from trainops.model.objects import ObjectRef, Unreadable, read_text
from trainops.model.paths import display
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import indexed_mappings, mappings, sequence
from trainops.render import kustomization
from trainops.render.raw_files import parse_raw_url

_RELEASE_TAG = re.compile(r"v?\d+(\.\d+){1,2}([-+][0-9A-Za-z.-]+)?|[a-z0-9-]+/v\d+(\.\d+){1,2}")
_COMMIT = re.compile(r"[0-9a-f]{40}")
FLOATING_TAGS = {"latest", "nightly", "main", "master", "edge", "dev-latest"}
_STAGING = re.compile(r"(^|[./-])staging([./-]|$)|k8s-staging-")
_EXACT_VERSION = re.compile(r"v?\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?")
_GIT_REMOTE = re.compile(r"^(?:https://|git@|ssh://|github\.com/)")


@dataclass(frozen=True)
class Pin:
    kind: str  # "remote base", "remote file", "image", "helm chart"
    what: str
    version: str | None  # the ref, tag or digest; None when missing
    file: str
    line: int | None
    path: str | None = None  # JSON path, for images in objects
    object_ref: ObjectRef | None = None

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "what": self.what,
            "version": self.version,
            "file": self.file,
            "line": self.line,
            "path": self.path,
        }


def split_image(image: str) -> tuple[str, str | None]:
    """(name, tag or digest) of an image reference."""
    if "@" in image:
        name, digest = image.split("@", 1)
        return name, digest
    last = image.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = image.rsplit(":", 1)
        return name, tag
    return image, None


def _kustomizations(root: Path) -> Iterator[tuple[Path, list[str], dict]]:
    """(file, its lines, its content) of every kustomization a root reaches."""
    for folder in kustomization.reachable(root):
        file = kustomization.kustomization_file(folder)
        if file is None:
            continue
        try:
            text = file.read_text(errors="replace")
        except OSError:
            continue  # the render fails on it, and says so
        yield file, text.splitlines(), kustomization.read_kustomization(folder)


def kustomization_pins(root: Path) -> list[Pin]:
    """Remote bases, remote files and Helm charts in the kustomizations a root reaches."""
    pins = []
    for file, lines, data in _kustomizations(root):
        for field in ("resources", "bases", "components"):
            for entry in sequence(data.get(field)):
                if not isinstance(entry, str) or not _GIT_REMOTE.match(entry):
                    continue
                line = next((n for n, text in enumerate(lines, 1) if entry in text), None)
                raw = parse_raw_url(entry)
                if raw:
                    pins.append(
                        Pin("remote file", f"{raw.repo}/{raw.path}", raw.ref, display(file), line)
                    )
                    continue
                ref = re.search(r"[?&](?:ref|version)=([^&]+)", entry)
                what = entry.split("?", 1)[0]
                pins.append(
                    Pin("remote base", what, ref.group(1) if ref else None, display(file), line)
                )
        for chart in mappings(data.get("helmCharts")):
            name = str(chart.get("name"))
            line = next((n for n, text in enumerate(lines, 1) if name in text), None)
            pins.append(
                Pin(
                    "helm chart",
                    f"{chart.get('repo', '')}/{name}".lstrip("/"),
                    chart.get("version"),
                    display(file),
                    line,
                )
            )
    return pins


def image_entries(root: Path) -> list[Pin]:
    """The `images:` entries of the kustomizations a root reaches: where an overlay sets an image's
    name and version, which is where a user changes it (not the upstream file that mentions it).
    Named as the rendered objects name the image (newName when it renames)."""
    entries = []
    for file, lines, data in _kustomizations(root):
        for entry in mappings(data.get("images")):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                continue
            name = entry.get("newName") or entry["name"]
            version = entry.get("digest") or entry.get("newTag")
            line = _entry_line(lines, entry["name"])
            entries.append(
                Pin(
                    "image",
                    str(name),
                    str(version) if version is not None else None,
                    display(file),
                    line,
                )
            )
    return entries


def _entry_line(lines: list[str], name: str) -> int | None:
    """The line of a `- name: NAME` list entry (the first line mentioning NAME if none)."""
    mentions = [
        n for n, text in enumerate(lines, 1) if name in text and not text.lstrip().startswith("#")
    ]
    exact = [n for n in mentions if lines[n - 1].partition("name:")[2].strip().strip("'\"") == name]
    return (exact or mentions or [None])[0]


def _image_line(lines: list[str], start: int | None, image: str) -> int | None:
    """The line of `image: <image>` in the object's document that starts at `start`."""
    if start is None:
        return None
    for number in range(start, len(lines) + 1):
        text = lines[number - 1]
        if number > start and text.startswith("---"):
            break
        key, _, value = text.partition("image:")
        if _ and value.strip().strip("'\"") == image and not key.lstrip().startswith("#"):
            return number
    return start


def image_pins(
    rendered: Rendered, failing_only: bool = False, keep: Callable[[Pin], bool] | None = None
) -> list[Pin]:
    """The image of every container, at its `image:` line. `failing_only` keeps only the pins
    `problem` refuses, `keep` only those it holds for, and source files are read for those alone
    (a folder of 10,000 manifests is not held in memory as lines to place pins that pass)."""
    found = []
    sources: dict[str, list[str]] = {}
    for obj in rendered.objects:
        for template in templates_of(obj):
            for key in ("initContainers", "containers", "ephemeralContainers"):
                for index, container in indexed_mappings(template.spec.get(key)):
                    image = container.get("image")
                    if not image:
                        continue
                    name, version = split_image(image)
                    pin = Pin(
                        "image",
                        name,
                        version,
                        obj.file,
                        None,
                        template.child(f"spec.{key}[{index}].image"),
                        obj.ref,
                    )
                    if failing_only and problem(pin) is None:
                        continue
                    if keep is not None and not keep(pin):
                        continue
                    if obj.file not in sources:
                        try:
                            sources[obj.file] = read_text(Path(obj.file)).splitlines()
                        except Unreadable:
                            sources[obj.file] = []
                    line = _image_line(sources[obj.file], obj.line, image)
                    found.append(replace(pin, line=line))
    return found


def injected_pins(rendered: Rendered, cluster: Cluster) -> list[Pin]:
    """The images of containers an operator injects from a template this root ships (the Training
    Operator's init-pytorch, from the ConfigMap its Deployment mounts): filed at that ConfigMap,
    where the image is changed."""
    injected = cluster.memo("pytorch-init", pytorch_init)
    holder = injected.image_from or injected.config_map
    if holder is None or not any(obj is holder for obj in rendered.objects):
        return []
    found = []
    for index, container in enumerate(injected.containers):
        image = container.get("image")
        if isinstance(image, str) and image:
            name, version = split_image(image)
            where = (
                "spec.template.spec.containers.args"
                if injected.image_from is not None
                else f"data[{injected.key}][{index}].image"
            )
            file, line = holder.file, holder.line
            if injected.image_from is None and injected.key is not None:
                file, line = _generated_from(holder, injected.key, image) or (file, line)
            found.append(Pin("image", name, version, file, line, where, holder.ref))
    return found


def _generated_from(config_map, key: str, image: str) -> tuple[str, int | None] | None:
    """The file a configMapGenerator made `key` of the ConfigMap from, and the line of `image`
    in it: where a user changes it (the ConfigMap's own origin is the kustomization)."""
    folder = Path(config_map.file).parent
    for generator in mappings(kustomization.read_kustomization(folder).get("configMapGenerator")):
        for entry in sequence(generator.get("files")):
            if not isinstance(entry, str):
                continue
            name, _, source = entry.rpartition("=")
            if (name or Path(source).name) == key:
                try:
                    lines = read_text(folder / source).splitlines()
                except Unreadable:
                    return None
                return display(folder / source), _image_line(lines, 1, image)
    return None


def problem(pin: Pin) -> str | None:
    """Why a pin does not pin (None when it does)."""
    if pin.kind in ("remote base", "remote file"):
        if pin.version is None:
            return f"{pin.kind} {pin.what} has no ref: it follows the default branch"
        if not (_RELEASE_TAG.fullmatch(pin.version) or _COMMIT.fullmatch(pin.version)):
            return f"{pin.kind} {pin.what} is pinned to {pin.version!r}, which is not a release tag or a full commit"
        return None
    if pin.kind == "helm chart":
        if not pin.version or not _EXACT_VERSION.fullmatch(str(pin.version)):
            return f"Helm chart {pin.what} version {pin.version!r} is not an exact version"
        return None
    name, version = pin.what, pin.version
    if _STAGING.search(name):
        return f"image {name} comes from a staging registry; use the release registry"
    if version is None:
        return f"image {name} has no tag: it runs whatever `latest` is"
    if not version.startswith("sha256:") and version in FLOATING_TAGS:
        return f"image {name}:{version} uses a floating tag"
    return None


def image_sites(
    rendered: Rendered, keep: Callable[[Pin], bool] | None = None
) -> list[tuple[Pin, str, int | None, str | None]]:
    """(pin, file, line, JSON path) of the container images of a root (those `keep` holds for,
    when given), placed where a user changes them: at the overlay's `images:` entry that sets one
    when there is one (no JSON path then), else at the container's `image:` line."""
    kept = image_pins(rendered, keep=keep)
    entries = (
        {e.what: e for e in image_entries(rendered.path)}
        if kept and rendered.path is not None and rendered.path.is_dir()
        else {}
    )
    sites = []
    for pin in kept:
        entry = entries.get(pin.what)
        if entry is not None:
            sites.append((pin, entry.file, entry.line, None))
        else:
            sites.append((pin, pin.file, pin.line, pin.path))
    return sites
