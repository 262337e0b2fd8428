"""A change reviewed as rendered objects: render and check the roots at two revisions, then compare.

Objects are matched per root by group, kind, namespace and name (an apiVersion bump is a change,
not a removal plus an addition) and compared field by field (`objectdiff`). CRDs also get a
schema comparison (`crddiff`) that says which changes break existing custom resources. Pins and
images are summarised across roots, and findings are compared without their line numbers (which
shift with any edit above them) so that only what the change introduced or fixed is reported.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from trainops.check.validate import Root, validate
from trainops.knowledge import pins
from trainops.model.config import CONFIG_NAME, load_config
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Rendered
from trainops.render import kustomization
from trainops.render.renderer import Renderer
from trainops.render.revisions import Revision, checked_out
from trainops.review import crddiff, objectdiff
from trainops.rules import RULES

CRD_KIND = "CustomResourceDefinition"


@dataclass(frozen=True)
class ObjectKey:
    group: str
    kind: str
    namespace: str | None
    name: str


@dataclass
class ObjectChange:
    change: str  # "added", "removed" or "changed"
    api_version: str  # the head's, or the base's for a removed object
    key: ObjectKey
    fields: list[objectdiff.FieldChange] = field(default_factory=list)  # for a changed object
    schema: list[crddiff.SchemaChange] = field(default_factory=list)  # CRDs only
    document: dict | None = None  # the whole object, when added or removed

    @property
    def title(self) -> str:
        scope = f"{self.key.namespace}/" if self.key.namespace else ""
        return f"{self.api_version} {self.key.kind} {scope}{self.key.name}"

    def fingerprint(self) -> tuple:
        return (
            self.change,
            self.title,
            repr(self.document),
            tuple((f.path, repr(f.old), repr(f.new)) for f in self.fields),
        )


@dataclass
class RootDiff:
    root: str
    status: str  # "added", "removed", "changed", "unchanged", or "failed" (does not render at head)
    objects: list[ObjectChange] = field(default_factory=list)
    failure: str | None = None

    def counts(self) -> dict[str, int]:
        return {
            change: sum(o.change == change for o in self.objects)
            for change in ("added", "removed", "changed")
        }


@dataclass(frozen=True)
class PinChange:
    kind: str
    what: str
    old: str | None  # None: not pinned at the base (a new pin)
    new: str | None  # None: gone at the head
    where: str | None  # file:line at the head (the base for a removed pin)


@dataclass(frozen=True)
class ImageChange:
    name: str
    old: tuple[str, ...]  # every tag or digest the base runs
    new: tuple[str, ...]
    where: str | None  # the kustomization `images:` entry that sets it at the head, if one does


@dataclass
class Review:
    base: Revision
    head: Revision
    roots: list[RootDiff]
    pins: list[PinChange]
    images: list[ImageChange]
    introduced: list[Finding]
    fixed: list[Finding]

    @property
    def changed_roots(self) -> list[RootDiff]:
        return [r for r in self.roots if r.status != "unchanged"]

    @property
    def schema_changes(self) -> list[crddiff.SchemaChange]:
        """Every CRD schema change once, however many roots render that CRD."""
        seen = {}
        for root in self.roots:
            for change in root.objects:
                for item in change.schema:
                    seen.setdefault((item.crd, item.version, item.path, item.message), item)
        return list(seen.values())

    @property
    def breaking(self) -> list[crddiff.SchemaChange]:
        return [c for c in self.schema_changes if c.breaking]

    @property
    def introduces_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.introduced)

    def groups(self) -> list[tuple[list[str], RootDiff]]:
        """Changed roots with identical changes (one operator bump seen by every environment's
        operators layer) merged into one entry, so a reviewer reads each change once."""
        merged: dict[tuple, tuple[list[str], RootDiff]] = {}
        for root in self.changed_roots:
            key = (root.status, root.failure, tuple(o.fingerprint() for o in root.objects))
            merged.setdefault(key, ([], root))[0].append(root.root)
        return list(merged.values())


@dataclass
class Snapshot:
    """What one revision renders and what the rules find in it."""

    rendered: dict[str, Rendered]
    findings: list[Finding]
    pins: dict[tuple[str, str], pins.Pin]
    images: dict[str, set[str]]
    image_entries: dict[str, pins.Pin]


@contextmanager
def _inside(folder: Path) -> Iterator[None]:
    # Paths in renders and findings are shown relative to the working folder: working inside
    # each revision's tree makes both revisions name files the same way, relative to its top.
    previous = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous)


def snapshot(
    tree: Path, config_folder: str, root_names: list[str] | None, renderer: Renderer
) -> Snapshot:
    """Render and check `root_names` (repository-relative; default: the config's roots) in `tree`."""
    with _inside(tree):
        config_file = Path(config_folder) / CONFIG_NAME
        config = load_config(config_file, RULES) if config_file.is_file() else None
        if root_names is None:
            paths = (
                kustomization.configured_roots(config)
                if config
                else kustomization.discover_roots(tree / config_folder)
            )
        else:
            paths = [tree / name for name in root_names if (tree / name).exists()]
        roots = [Root(path) for path in paths]
        outcome = validate(roots, renderer, config=config) if roots else None
        rendered = {r.root: r for r in outcome.rendered} if outcome else {}
        found_pins: dict[tuple[str, str], pins.Pin] = {}
        images: dict[str, set[str]] = {}
        entries: dict[str, pins.Pin] = {}
        for root in roots:
            if root.is_kustomization:
                for pin in pins.kustomization_pins(root.path):
                    found_pins.setdefault((pin.kind, pin.what), pin)
                for entry in pins.image_entries(root.path):
                    entries.setdefault(entry.what, entry)
            for pin in pins.image_pins(rendered.get(root.name) or Rendered(root.name)):
                images.setdefault(pin.what, set()).add(pin.version or "")
        return Snapshot(
            {name: rendered[name] for name in (r.name for r in roots) if name in rendered},
            outcome.findings if outcome else [],
            found_pins,
            images,
            entries,
        )


def _keyed(rendered: Rendered | None) -> dict[ObjectKey, K8sObject]:
    objects = rendered.objects if rendered is not None else []
    return {ObjectKey(o.group, o.kind, o.namespace, o.name): o for o in objects}


_SECRET_FIELDS = ("data", "stringData")


def _masked(doc: dict, reference: dict | None = None) -> dict:
    """A Secret with every value of data and stringData replaced by a word that says only
    whether it differs from the reference's (as Argo CD and Flux mask them; with no reference,
    every value is hidden alike): a review, and a pull-request comment made of it, must never
    carry a secret. Other kinds are returned as they are."""
    if doc.get("kind") != "Secret" or doc.get("apiVersion") != "v1":
        return doc
    masked = dict(doc)
    for secret_field in _SECRET_FIELDS:
        values = doc.get(secret_field)
        if not isinstance(values, dict):
            continue
        theirs = reference.get(secret_field) if reference is not None else None
        theirs = theirs if isinstance(theirs, dict) else None
        masked[secret_field] = {
            key: HIDDEN if theirs is None or theirs.get(key, ABSENT) == value else HIDDEN_CHANGED
            for key, value in values.items()
        }
    return masked


HIDDEN = "(hidden)"
HIDDEN_CHANGED = "(hidden; changed)"
ABSENT = object()


def compare_objects(old: Rendered | None, new: Rendered | None) -> list[ObjectChange]:
    before, after = _keyed(old), _keyed(new)
    changes = []
    for key in sorted(
        before.keys() | after.keys(), key=lambda k: (k.kind, k.group, k.namespace or "", k.name)
    ):
        was, now = before.get(key), after.get(key)
        if was is not None and now is not None:
            fields = objectdiff.diff(_masked(was.doc), _masked(now.doc, was.doc))
            if not fields:
                continue
            change = ObjectChange("changed", now.api_version, key, fields)
        elif now is not None:
            change = ObjectChange("added", now.api_version, key, document=_masked(now.doc, None))
        else:
            assert was is not None  # the key came from one side or the other
            change = ObjectChange("removed", was.api_version, key, document=_masked(was.doc, None))
        if key.kind == CRD_KIND:
            change.schema = crddiff.compare_crds(
                key.name, was.doc if was else None, now.doc if now else None
            )
        changes.append(change)
    return changes


def _compare_root(name: str, base: Snapshot, head: Snapshot) -> RootDiff:
    old, new = base.rendered.get(name), head.rendered.get(name)
    if new is not None and new.failure is not None:
        line = f":{new.failure.line}" if new.failure.line else ""
        return RootDiff(name, "failed", failure=f"{new.failure.file}{line}: {new.failure.message}")
    objects = compare_objects(old if old is not None and old.loaded else None, new)
    status = (
        "added"
        if old is None
        else "removed"
        if new is None
        else "changed"
        if objects
        else "unchanged"
    )
    return RootDiff(name, status, objects)


def _where(pin: pins.Pin | None) -> str | None:
    if pin is None:
        return None
    return f"{pin.file}:{pin.line}" if pin.line else pin.file


def _pin_changes(base: Snapshot, head: Snapshot) -> list[PinChange]:
    changes = []
    for key in sorted(base.pins.keys() | head.pins.keys()):
        was, now = base.pins.get(key), head.pins.get(key)
        old, new = (was.version if was else None), (now.version if now else None)
        if was is None or now is None or old != new:
            changes.append(PinChange(key[0], key[1], old, new, _where(now or was)))
    return changes


def _image_changes(base: Snapshot, head: Snapshot) -> list[ImageChange]:
    changes = []
    for name in sorted(base.images.keys() | head.images.keys()):
        old, new = base.images.get(name, set()), head.images.get(name, set())
        if old != new:
            changes.append(
                ImageChange(
                    name,
                    tuple(sorted(old)),
                    tuple(sorted(new)),
                    _where(head.image_entries.get(name)),
                )
            )
    return changes


_REF = re.compile(r"\?ref=[^/\s]+$")
_NUMBER = re.compile(r"\d+")


def _finding_key(finding: Finding) -> tuple:
    """What makes a finding the same one at both revisions. Line numbers shift with any edit, and
    a pin bump rewrites the ref in remote origins and the numbers in messages ("is 377333 bytes"):
    a finding that only moved or whose numbers changed was neither introduced nor fixed."""
    file = _REF.sub("", finding.file or "")
    return (
        finding.rule,
        finding.severity.value,
        file,
        str(finding.object),
        finding.path,
        _NUMBER.sub("#", finding.message),
    )


def _delta(base: list[Finding], head: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    def unique(findings: list[Finding]) -> dict[tuple, Finding]:
        return {_finding_key(f): f for f in findings}

    before, after = unique(base), unique(head)
    return [f for k, f in after.items() if k not in before], [
        f for k, f in before.items() if k not in after
    ]


def compare(
    base: Snapshot, head: Snapshot, base_revision: Revision, head_revision: Revision
) -> Review:
    names = list(dict.fromkeys([*base.rendered, *head.rendered]))
    roots = [_compare_root(name, base, head) for name in sorted(names)]
    introduced, fixed = _delta(base.findings, head.findings)
    return Review(
        base_revision,
        head_revision,
        roots,
        _pin_changes(base, head),
        _image_changes(base, head),
        introduced,
        fixed,
    )


def review(
    top: Path,
    config_folder: str,
    base: Revision,
    head: Revision,
    root_names: list[str] | None,
    renderer: Renderer,
) -> Review:
    """Check out both revisions of the repository at `top`, render and check them, compare."""
    snapshots = []
    for revision in (base, head):
        with checked_out(top, revision) as tree:
            snapshots.append(snapshot(tree, config_folder, root_names, renderer))
    return compare(snapshots[0], snapshots[1], base, head)
