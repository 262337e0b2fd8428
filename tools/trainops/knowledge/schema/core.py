"""Core Kubernetes kinds: the strict JSON schemas kubernetes-validate ships, one folder per version."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import marshal
import re
import sys
from functools import cache
from pathlib import Path

from trainops.model import cache as model_cache
from trainops.model.errors import CannotRun
from trainops.model.objects import file_identity

_REF_PREFIX = '"/api/_definitions.json#/$defs/'
_GROUP = re.compile(r"(?:[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(?:\.(?=.)|$)){0,8}")
_VERSION = re.compile(r"v[0-9]{1,3}(?:(?:alpha|beta)[0-9]{1,3})?")
_KIND = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62}")


@cache
def schema_root() -> Path:
    # Located without importing kubernetes_validate, whose import pulls in a validator we do not use.
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise CannotRun(
            "the kubernetes-validate package is not installed: run `make validate` or pip install ."
        )
    return Path(spec.submodule_search_locations[0]) / "kubernetes-json-schema"


def available_versions() -> list[str]:
    return sorted(
        (p.name.removesuffix("-local-strict") for p in schema_root().glob("v*-local-strict")),
        key=lambda v: tuple(int(part) for part in v[1:].split(".")),
    )


def folder(version: str) -> Path:
    """The strict schema folder of a `v1.N` version."""
    path = schema_root() / f"{version}.0-local-strict"
    if not path.is_dir():
        raise CannotRun(
            f"Kubernetes {version}: kubernetes-validate has no schemas for it "
            f"(it has {available_versions()[0]} … {available_versions()[-1]})"
        )
    return path


def file_name(group: str, version: str, kind: str) -> str:
    """kubernetes-validate's (and kubeconform's) layout: kind-group-version.json, group's first label."""
    group_label = group.split(".")[0]
    return (
        f"{kind.lower()}-{group_label}-{version}.json"
        if group
        else f"{kind.lower()}-{version}.json"
    )


# Fields the OpenAPI of these versions calls required that the API server does not: a Go field
# without `omitempty` becomes "required" in the generated schema whatever validation says, and
# the server decodes an absent one as its zero value or defaults it. Each was created by
# kube-apiserver v1.32.13 without the field:
# - StatefulSetSpec.serviceName: apps ValidateStatefulSetSpec never checks it (the v1.33
#   schemas drop the marker);
# - NetworkPolicySpec.podSelector: an absent selector is the empty one, every pod;
# - RoleRef.apiGroup: rbac/v1 SetDefaults_RoleBinding (and ClusterRoleBinding) fill it in;
# - PriorityClass.value: 0 when absent.
_NOT_REQUIRED_BY_THE_SERVER = {
    "io.k8s.api.apps.v1.StatefulSetSpec": ("serviceName",),
    "io.k8s.api.networking.v1.NetworkPolicySpec": ("podSelector",),
    "io.k8s.api.rbac.v1.RoleRef": ("apiGroup",),
}
# The same, for fields at the top of a kind, which its own file spells out.
_KIND_NOT_REQUIRED_BY_THE_SERVER = {("scheduling.k8s.io/v1", "PriorityClass"): ("value",)}


@cache
def _definitions(version: str) -> dict:
    path = folder(version) / "_definitions.json"
    # Kept read (in marshal's format) by the file's identity and this module: a version's 3 MB
    # of JSON took 20 ms to read, in every run and worker, and as many again for each version.
    identity = file_identity(path)
    key = (
        model_cache.key_of(_DEFINITIONS, _SOURCE, _FORMAT, str(path), repr(identity))
        if identity is not None
        else None
    )
    kept = model_cache.load(_DEFINITIONS, key) if key is not None else None
    if kept is not None:
        with contextlib.suppress(ValueError):
            found = model_cache.unmarshal(kept)
            if isinstance(found, dict) and all(isinstance(v, dict) for v in found.values()):
                return found
    text = path.read_text().replace(_REF_PREFIX, '"#/$defs/')
    found = json.loads(text)["$defs"]
    for name, fields in _NOT_REQUIRED_BY_THE_SERVER.items():
        definition = found.get(name)
        if isinstance(definition, dict) and isinstance(definition.get("required"), list):
            definition["required"] = [f for f in definition["required"] if f not in fields]
    if key is not None:
        model_cache.store(_DEFINITIONS, key, marshal.dumps(found))
    return found


_DEFINITIONS = "core-definitions-v1"
_SOURCE = model_cache.source_digest(__file__)
_FORMAT = f"marshal {marshal.version} {sys.version}"


def definitions(version: str) -> dict:
    """Every definition (`io.k8s.api.core.v1.PodSpec`, …) of a Kubernetes version's schemas."""
    return _definitions(version)


@cache
def schema_for(k8s_version: str, api_version: str, kind: str) -> dict | None:
    """The self-contained strict schema of a core kind at a Kubernetes version, or None."""
    group, _, version = api_version.rpartition("/")
    # Names from the input become a file name: only what a real group, version and kind can be
    # (no `/`, no `..`, not longer than a file name may be) reaches the filesystem.
    if not (_GROUP.fullmatch(group) and _VERSION.fullmatch(version) and _KIND.fullmatch(kind)):
        return None
    path = folder(k8s_version) / file_name(group, version, kind)
    if not path.is_file():
        return None
    schema = json.loads(path.read_text().replace(_REF_PREFIX, '"#/$defs/'))
    # The file name keeps only the group's first label: make sure it is this group's kind.
    if api_version not in (
        schema.get("properties", {}).get("apiVersion", {}).get("enum") or [api_version]
    ):
        return None
    schema["$defs"] = _definitions(k8s_version)
    optional = _KIND_NOT_REQUIRED_BY_THE_SERVER.get((api_version, kind), ())
    if optional and isinstance(schema.get("required"), list):
        schema["required"] = [f for f in schema["required"] if f not in optional]
    return schema
