"""Every PersistentVolumeClaim can be provisioned by the environment's cluster, and every pod
sharing it can write to it.

What it catches, against the environment's profile in trainops.yaml (`environments` names it;
an environment without a profile is not checked):
- a claim whose storage class the cluster does not have (named with the classes it does have),
  or, without `storageClassName`, a cluster with no default class;
- an access mode the class's provisioner does not support (ReadWriteMany on a block-disk class
  such as GKE's standard-rwo, EKS's gp2 or AKS's managed-csi; only file classes — Filestore,
  EFS, Azure Files — share a volume between nodes);
- pods of different users sharing one claim where the class cannot reconcile them: on a class
  whose volumes ignore `fsGroup` (the profile's `fsGroup: false`, e.g. kind's hostPath-backed
  local-path volumes) every pod must run as the same uid; otherwise every pod must have the same
  fsGroup (https://kubernetes.io/docs/tasks/configure-pod-container/security-context/).

Why it matters: the claim stays Pending, yet Kueue admits the jobs and holds their quota while
their pods wait for the volume forever; or the first job to create a folder on the volume owns
it and the others fail with PermissionError.

How to fix: use a class the profile lists (per cloud in components/cloud-*), with an access mode
it supports; run every pod that shares a claim as one uid and gid (65532 here), or give each
its own claim.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from trainops.knowledge import profiles
from trainops.knowledge.pod_templates import templates_of
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping, mappings, sequence

ID = "storage"
SEVERITY = Severity.ERROR
SUMMARY = "claims use a storage class and access mode the cluster has; sharers can write"


def _finding(rendered: Rendered, obj: K8sObject, message: str, path: str, hint: str) -> Finding:
    return Finding(ID, SEVERITY, message, rendered.root, obj.file, obj.line, obj.ref, path, hint)


def _identity(spec: dict, container: dict, key: str) -> object:
    """A container's runAsUser/runAsGroup (its own, else the pod's); None: the image's default."""
    own = mapping(container.get("securityContext")).get(key)
    return own if own is not None else mapping(spec.get("securityContext")).get(key)


def _users_by_claim(cluster: Cluster) -> dict[tuple[str | None, str], dict[str, set[str]]]:
    """(namespace, claim) -> {"uid": {"65532 (PyTorchJob x)", …}, "fsGroup": {…}} over the environment."""
    found: dict[tuple[str | None, str], dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for obj in cluster.objects():
        for template in templates_of(obj):
            spec = template.spec
            claims = {
                mapping(v.get("persistentVolumeClaim")).get("claimName")
                for v in mappings(spec.get("volumes"))
                if isinstance(v, dict) and v.get("persistentVolumeClaim")
            }
            who = f"{obj.kind} {obj.name}"
            for claim in claims - {None}:
                users = found[(obj.namespace, str(claim))]
                fs_group = mapping(spec.get("securityContext")).get("fsGroup")
                if fs_group is not None:
                    users["fsGroup"].add(f"{fs_group} ({who})")
                for container in mappings(spec.get("containers")):
                    uid = _identity(spec, container, "runAsUser")
                    gid = _identity(spec, container, "runAsGroup")
                    if uid is not None:
                        users["uid"].add(f"{uid}:{gid if gid is not None else uid} ({who})")
    return found


def _distinct(entries: set[str]) -> set[str]:
    return {entry.split(" ", 1)[0] for entry in entries}


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    profile = profiles.profile_of(cluster)
    if profile is None:
        return
    for obj in rendered.objects:
        if obj.kind != "PersistentVolumeClaim" or obj.api_version != "v1":
            continue
        spec = mapping(obj.doc.get("spec"))
        name = spec.get("storageClassName")
        existing = ", ".join(sorted(profile.storage_classes)) or "none"
        if name == "":
            continue  # bound to a pre-created PersistentVolume, not provisioned
        if name is None:
            storage_class = profile.default_class
            if storage_class is None:
                yield _finding(
                    rendered,
                    obj,
                    f"sets no storageClassName and the {profile.name} cluster has no default "
                    "storage class: it stays Pending",
                    "spec.storageClassName",
                    f"set storageClassName to one of: {existing}",
                )
                continue
        else:
            storage_class = profile.storage_classes.get(str(name))
            if storage_class is None:
                yield _finding(
                    rendered,
                    obj,
                    f"storage class {name} does not exist in the {profile.name} cluster "
                    f"(its classes: {existing}): the claim stays Pending",
                    "spec.storageClassName",
                    f"use one of: {existing}",
                )
                continue
        wanted = set(sequence(spec.get("accessModes")))
        unsupported = sorted(wanted - storage_class.access_modes)
        if unsupported:
            able = sorted(
                c.name
                for c in profile.storage_classes.values()
                if wanted <= c.access_modes and c.name != storage_class.name
            )
            yield _finding(
                rendered,
                obj,
                f"asks for {', '.join(unsupported)}, which storage class {storage_class.name} "
                f"({storage_class.provisioner}) does not support "
                f"(it supports {', '.join(sorted(storage_class.access_modes))})",
                "spec.accessModes",
                f"use a class that does: {', '.join(able)}"
                if able
                else f"no class of the {profile.name} profile supports it; add one",
            )
        users = cluster.memo("storage-users", _users_by_claim).get((obj.namespace, obj.name), {})
        uids, groups = users.get("uid", set()), users.get("fsGroup", set())
        if not storage_class.fs_group and len(_distinct(uids)) > 1:
            yield _finding(
                rendered,
                obj,
                f"is shared by pods of different users ({', '.join(sorted(uids))}) on storage "
                f"class {storage_class.name}, whose volumes ignore fsGroup: whichever job creates "
                "a folder first owns it and the others fail with PermissionError",
                "metadata.name",
                "run every pod that mounts the claim as one uid:gid, or give each its own claim",
            )
        elif storage_class.fs_group and len(_distinct(groups)) > 1:
            yield _finding(
                rendered,
                obj,
                f"is shared by pods with different fsGroups ({', '.join(sorted(groups))}): "
                "each mount changes the volume's group to its own, locking the others out",
                "metadata.name",
                "give every pod that mounts the claim the same fsGroup",
            )
