"""Pods that write one volume do not name their files by process id.

What it catches: a training script (trainops.yaml `images.<image>.script`) that builds a file
name from `os.getpid()` (knowledge/scripts.py reads it), run by two or more pods of the
environment that mount the same PersistentVolumeClaim writable — the Job, the PyTorchJob, the
RayJob and the Volcano Job all write the model volume. The finding is at the script's line.

Why it matters: each pod has a PID namespace of its own, where the container's entrypoint is
pid 1 (`python train.py` in the Job and in the Volcano master alike) and its children count up
from there, so the "unique" temporary names are the same in every pod. Two pods writing at once
then share one temporary file: one truncates what the other wrote, and the second rename finds
nothing (or renames a half-written model into place).

How to fix: name temporary files with `tempfile.mkstemp(dir=…)` (created with O_EXCL, so a name
another writer holds is never reused) and rename them into place.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from trainops.knowledge import kueue, profiles, scripts
from trainops.knowledge.pod_templates import templates_of
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.paths import display
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping, mappings

ID = "shared-volume-writers"
SEVERITY = Severity.ERROR
SUMMARY = "pods writing one volume do not name files by process id"


def _pods(obj: K8sObject) -> int:
    """How many pods the object runs at once (its pod sets' counts; Volcano tasks' replicas)."""
    if kueue.framework(obj) is not None:
        return sum(count for _, count, _ in kueue.named_pod_sets(obj))
    if obj.group == "batch.volcano.sh" and obj.kind == "Job":
        tasks = mappings(mapping(obj.doc.get("spec")).get("tasks"))
        return sum(r if isinstance(r := t.get("replicas", 1), int) else 1 for t in tasks)
    replicas = mapping(obj.doc.get("spec")).get("replicas", 1)
    return replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1


def _writers(cluster: Cluster) -> dict[tuple[str | None, str, str], list[K8sObject]]:
    """(namespace, claim, script) -> the objects whose pods write the claim running the script
    (an object once per pod template that does)."""
    config = cluster.config
    folder = getattr(config, "folder", None)
    found: dict[tuple[str | None, str, str], list[K8sObject]] = {}
    for obj in cluster.objects():
        for template in templates_of(obj):
            claims = {
                str(v.get("name")): str(mapping(v.get("persistentVolumeClaim")).get("claimName"))
                for v in mappings(template.spec.get("volumes"))
                if isinstance(v.get("persistentVolumeClaim"), dict)
                and not mapping(v.get("persistentVolumeClaim")).get("readOnly")
            }
            for container in mappings(template.spec.get("containers")):
                traits = profiles.image_traits(cluster, str(container.get("image", "")))
                if traits is None or traits.script is None or folder is None:
                    continue
                script = display(Path(folder) / traits.script)
                for mount in mappings(container.get("volumeMounts")):
                    claim = claims.get(str(mount.get("name")))
                    if claim and not mount.get("readOnly"):
                        found.setdefault((obj.namespace, claim, script), []).append(obj)
                        break
    return found


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    writers = cluster.memo("shared-volume-writers", _writers)
    for (_namespace, claim, script), objects in writers.items():
        # Once per environment: from the root holding the first writer.
        if not any(o is objects[0] for o in rendered.objects):
            continue
        # Two templates, or one of an object that runs several pods from it, make two writers.
        if len(objects) < 2 and _pods(objects[0]) < 2:
            continue
        names = ", ".join(dict.fromkeys(f"{o.kind} {o.name}" for o in objects))
        try:
            places = scripts.pid_named_files(Path(script))
        except scripts.UnreadableScript as error:
            yield Finding(
                ID,
                SEVERITY,
                f"the script the pods of {names} run cannot be read ({error}), so the names it "
                "writes to the shared claim are not checked",
                rendered.root,
                script,
                None,
                objects[0].ref,
                None,
                "make the script a regular UTF-8 file (at most "
                f"{scripts.MAX_SCRIPT_BYTES // 2**20} MiB), or name another in trainops.yaml",
            )
            continue
        for place in places:
            yield Finding(
                ID,
                SEVERITY,
                f"names a file by its process id ({place.expression}), and the pods of {names} "
                f"run it writing claim {claim}: each pod has its own PID namespace, where the "
                "entrypoint is pid 1, so their names collide in the shared volume",
                rendered.root,
                script,
                place.line,
                objects[0].ref,
                None,
                "create the file with tempfile.mkstemp(dir=…) (O_EXCL: a unique name) and rename "
                "it into place",
            )
