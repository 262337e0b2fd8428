"""ObjectMeta as the API server validates it (apimachinery/pkg/api/validation/objectmeta.go)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import invalid
from trainops.model.shape import mapping

Errors = list[tuple[str, str]]
TOTAL_ANNOTATION_SIZE = 256 * 1024
# ObjectMeta's fields: anything else under metadata fails strict decoding (kubectl's default since v1.27).
OBJECT_META_FIELDS = frozenset(
    [
        "name",
        "generateName",
        "namespace",
        "selfLink",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
        "managedFields",
    ]
)


def _path_segment(value: str) -> Sequence[str]:
    """RBAC names: any path segment (apimachinery/pkg/api/validation/path)."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


def name_validator(group: str, kind: str) -> Callable[[str], Sequence[str]]:
    if group == "" and kind == "Namespace":
        return names.dns1123_label
    if group == "" and kind == "Service":
        return names.dns1035_label
    # RBAC kinds, and PodDisruptionBudgets (kube-apiserver v1.32.13 took "Has-Upper" and a
    # 254-character name), hold names to path segments only; so does an APIService before it
    # compares its name with version.group (kube-aggregator ValidateAPIService, v1.32.13:
    # apiregistration.py).
    if (
        group == "rbac.authorization.k8s.io"
        or (group == "policy" and kind == "PodDisruptionBudget")
        or (group == "apiregistration.k8s.io" and kind == "APIService")
    ):
        return _path_segment
    return names.dns1123_subdomain


def _mask_trailing_dash(prefix: str) -> str:
    return prefix[:-1] + "a" if len(prefix) > 1 and prefix.endswith("-") else prefix


def _mapping(value: object) -> dict:
    return value if isinstance(value, dict) else {}


# pkg/apis/core/helper IsStandardFinalizerName: the only finalizers a built-in kind may carry
# without a domain (pkg/apis/core/validation validateKubeFinalizerName).
_STANDARD_FINALIZERS = frozenset(["kubernetes", "orphan", "foregroundDeletion"])


def _finalizers(finalizers: object, path: str, custom: bool) -> Errors:
    """apimachinery ValidateFinalizers: each a qualified name; on built-in kinds also a standard
    name or one with a domain (custom resources are only held to the first)."""
    errors: Errors = []
    if not isinstance(finalizers, list):
        return errors
    if "orphan" in finalizers and "foregroundDeletion" in finalizers:  # kube-apiserver v1.32.13
        message = "finalizer orphan and foregroundDeletion cannot be both set"
        strings = [f for f in finalizers if isinstance(f, str)]
        errors.append((f"{path}.finalizers", invalid(strings, message)))
    for index, finalizer in enumerate(finalizers):
        if finalizer is None:
            finalizer = ""  # the server decodes a null item as ""
        if not isinstance(finalizer, str):  # a custom resource's metadata has no schema here
            errors.append(
                (f"{path}.finalizers[{index}]", f"Invalid value: {finalizer!r}: must be a string")
            )
            continue
        errors += [
            (f"{path}.finalizers", invalid(finalizer, m)) for m in names.qualified_name(finalizer)
        ]
        if not custom and "/" not in finalizer and finalizer not in _STANDARD_FINALIZERS:
            message = "name is neither a standard finalizer name nor is it fully qualified"
            errors.append((f"{path}.finalizers[{index}]", invalid(finalizer, message)))
    return errors


def _annotation_bytes(annotations: dict) -> int:
    return sum(len(str(k)) + len(str(v)) for k, v in annotations.items())


def validate(
    group: str, kind: str, metadata: dict, *, custom: bool, path: str = "metadata"
) -> Errors:
    errors: Errors = []
    check = name_validator(group, kind)
    name, generate = metadata.get("name"), metadata.get("generateName")
    # An empty name is no name: on create the server names the object from generateName first
    # (apiserver rest.BeforeCreate), and checks a name only when it has one
    # (apimachinery ValidateObjectMetaAccessor: len(meta.GetName()) == 0 is "required").
    if isinstance(name, str) and name:
        errors += [(f"{path}.name", invalid(name, m)) for m in check(name)]
    elif isinstance(generate, str):
        errors += [
            (f"{path}.generateName", invalid(generate, m))
            for m in check(_mask_trailing_dash(generate))
        ]
    namespace = metadata.get("namespace")
    if isinstance(namespace, str) and namespace:
        errors += [
            (f"{path}.namespace", invalid(namespace, m)) for m in names.dns1123_label(namespace)
        ]
    for key, value in _mapping(metadata.get("labels")).items():
        key = str(key)
        if problems := names.qualified_name(key):
            errors += [(f"{path}.labels", invalid(key, m)) for m in problems]
        if isinstance(value, str) and (problems := names.label_value(value)):
            errors += [(f"{path}.labels", invalid(value, m)) for m in problems]
    annotations = _mapping(metadata.get("annotations"))
    for key in annotations:
        if problems := names.qualified_name(str(key).lower()):
            errors += [(f"{path}.annotations", invalid(str(key), m)) for m in problems]
    # Kinds served outside pkg/apis (CRDs, APIServices), and PodDisruptionBudgets, get
    # apimachinery's generic metadata checks (kube-apiserver v1.32.13 took a PDB's "cleanup").
    generic = (
        custom
        or group in ("apiextensions.k8s.io", "apiregistration.k8s.io")
        or (group == "policy" and kind == "PodDisruptionBudget")
    )
    finalizers = metadata.get("finalizers")
    if finalizers:
        errors += _finalizers(finalizers, path, generic)
    if annotations and _annotation_bytes(annotations) > TOTAL_ANNOTATION_SIZE:
        errors.append(
            (f"{path}.annotations", f"Too long: must have at most {TOTAL_ANNOTATION_SIZE} bytes")
        )
    if custom:
        # Custom resources are decoded strictly: a typo under metadata (`namepsace:`) is an error, not a silent drop.
        errors += [
            (f"{path}.{key}", f'unknown field "{path}.{key}"')
            for key in metadata
            if key not in OBJECT_META_FIELDS
        ]
    return errors


def validate_crd_name(doc: dict) -> Errors:
    spec = mapping(doc.get("spec"))
    plural = (
        (mapping(spec.get("names"))).get("plural") if isinstance(spec.get("names"), dict) else None
    )
    name = (mapping(doc.get("metadata"))).get("name")
    if (
        isinstance(plural, str)
        and isinstance(spec.get("group"), str)
        and name != f"{plural}.{spec['group']}"
    ):
        return [("metadata.name", invalid(name, 'must be spec.names.plural+"."+spec.group'))]
    return []
