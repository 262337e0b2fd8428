"""Core kinds other than Pods and Services, as kube-apiserver v1.32.13 validates them
(pkg/apis/core/validation): ConfigMaps and Secrets (and what decoding their base64 does),
PersistentVolumeClaims (also the ones a StatefulSet's volumeClaimTemplates become), LimitRanges,
ResourceQuotas, Namespaces and Nodes."""

from __future__ import annotations

from trainops.knowledge.apivalidation import meta, names
from trainops.knowledge.apivalidation.formats import (
    Errors,
    GoValue,
    Quantity,
    duplicate,
    forbidden,
    go_quantity,
    go_quote,
    go_strings,
    invalid,
    not_supported,
    parse_cidr,
    parse_quantity,
    required,
    too_long,
    valid_cidr,
    validate_label_selector,
)
from trainops.knowledge.apivalidation.go_decode import (
    base64_decode,
    base64_error,
    json_object_error,
)

_MAX_SECRET_SIZE = 1024 * 1024  # core.MaxSecretSize, for ConfigMaps too


def _decoded_bytes(data: object, path: str, decoded: dict[str, bytes]) -> Errors:
    """The values of a []byte map (Secret data, ConfigMap binaryData) decoded as the API server
    decodes them (base64.StdEncoding); a value that does not decode fails the whole request."""
    errors: Errors = []
    if not isinstance(data, dict):
        return errors
    for key, value in data.items():
        if not isinstance(value, str):
            continue  # a wrong type is the schema rule's
        at = base64_error(value)
        if at is not None:
            errors.append((f"{path}[{key}]", f"illegal base64 data at input byte {at}"))
            continue
        decoded[str(key)] = base64_decode(value) if value else b""
    return errors


def config_map(doc: dict) -> Errors:
    """core ValidateConfigMap: keys, a key in both data and binaryData, the total size."""
    errors: Errors = []
    data, binary = doc.get("data"), doc.get("binaryData")
    data = data if isinstance(data, dict) else {}
    binary = binary if isinstance(binary, dict) else {}
    size = 0
    for key, value in data.items():
        key = str(key)
        if problems := names.config_map_key(key):
            errors += [(f"data[{key}]", invalid(key, m)) for m in problems]
        if key in binary:
            errors.append((f"data[{key}]", invalid(key, "duplicate of key present in binaryData")))
        if isinstance(value, str):
            size += len(value.encode())
    if binary:
        decoded: dict[str, bytes] = {}
        errors += _decoded_bytes(binary, "binaryData", decoded)
        for key in binary:
            key = str(key)
            if problems := names.config_map_key(key):
                errors += [(f"binaryData[{key}]", invalid(key, m)) for m in problems]
        size += sum(len(v) for v in decoded.values())
    if size > _MAX_SECRET_SIZE:
        errors.append(("", too_long(_MAX_SECRET_SIZE)))
    return errors


_SA_NAME = "kubernetes.io/service-account.name"
_REDACTED = "<secret contents redacted>"


def secret(doc: dict) -> Errors:
    """core ValidateSecret, on the data the server sees: `data` decoded, `stringData` merged over
    it (v1 conversion), every key reported as data[key]."""
    errors: Errors = []
    decoded: dict[str, bytes] = {}
    data = doc.get("data")
    if data:
        errors += _decoded_bytes(data, "data", decoded)
    string_data = doc.get("stringData")
    if isinstance(string_data, dict):
        for key, value in string_data.items():
            if isinstance(value, str):
                decoded[str(key)] = value.encode()
    keys = list(decoded)
    if isinstance(data, dict):  # a key whose value failed decoding is still a key
        keys += [str(k) for k in data if str(k) not in decoded]
    for key in keys:
        if problems := names.config_map_key(key):
            errors += [(f"data[{key}]", invalid(key, m)) for m in problems]
    if sum(len(v) for v in decoded.values()) > _MAX_SECRET_SIZE:
        errors.append(("data", too_long(_MAX_SECRET_SIZE)))
    kind = doc.get("type")
    present = set(keys)
    if kind == "kubernetes.io/service-account-token":
        metadata = doc.get("metadata")
        annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
        value = annotations.get(_SA_NAME) if isinstance(annotations, dict) else None
        if not value:
            errors.append((f"metadata.annotations[{_SA_NAME}]", required()))
    elif kind in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson"):
        key = ".dockercfg" if kind == "kubernetes.io/dockercfg" else ".dockerconfigjson"
        if key not in present:
            errors.append((f"data[{key}]", required()))
        elif key in decoded and (reason := json_object_error(decoded[key])) is not None:
            errors.append((f"data[{key}]", invalid(_REDACTED, reason)))
    elif kind == "kubernetes.io/basic-auth":
        if "username" not in present and "password" not in present:
            errors += [("data[username]", required()), ("data[password]", required())]
    elif kind == "kubernetes.io/ssh-auth":
        if not decoded.get("ssh-privatekey") and "ssh-privatekey" not in (present - set(decoded)):
            errors.append(("data[ssh-privatekey]", required()))
    elif kind == "kubernetes.io/tls":
        errors += [(f"data[{k}]", required()) for k in ("tls.crt", "tls.key") if k not in present]
    return errors


# --- PersistentVolumeClaims ------------------------------------------------------------------

_ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_VOLUME_MODES = ("Block", "Filesystem")


def persistent_volume_claim(doc: dict) -> Errors:
    spec = doc.get("spec")
    return pvc_spec(spec if isinstance(spec, dict) else {}, "spec")


def _data_sources(spec: dict) -> tuple[dict | None, dict | None]:
    """dataSource and dataSourceRef as the PVC strategy leaves them (PrepareForCreate):
    a dataSourceRef into another namespace dropped (CrossNamespaceVolumeDataSource is alpha),
    a dataSource of another kind than a PVC or VolumeSnapshot dropped when no dataSourceRef is
    set, then each copied from the other (NormalizeDataSources)."""
    source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
    source = source if isinstance(source, dict) else None
    ref = ref if isinstance(ref, dict) else None
    if ref is not None and ref.get("namespace"):
        ref = None
    if ref is None and source is not None:
        group = source.get("apiGroup") or ""
        kind = source.get("kind")
        if not (
            (kind == "PersistentVolumeClaim" and group == "")
            or (kind == "VolumeSnapshot" and group == "snapshot.storage.k8s.io")
        ):
            source = None
    if source is not None and ref is None:
        ref = {k: source[k] for k in ("kind", "name", "apiGroup") if k in source}
    elif ref is not None and source is None and not ref.get("namespace"):
        source = {k: ref[k] for k in ("kind", "name", "apiGroup") if k in ref}
    return source, ref


def _data_source(source: dict, path: str) -> Errors:
    """core validateDataSource / validateDataSourceRef."""
    errors: Errors = []
    if not source.get("name"):
        errors.append((f"{path}.name", required()))
    kind = source.get("kind")
    if not kind:
        errors.append((f"{path}.kind", required()))
    group = source.get("apiGroup") or ""
    if not group and kind != "PersistentVolumeClaim":
        shown = kind if isinstance(kind, str) else ""
        message = "must be 'PersistentVolumeClaim' when referencing the default apiGroup"
        errors.append((path, invalid(shown, message)))
    if isinstance(group, str) and group:
        errors += [(f"{path}.apiGroup", invalid(group, m)) for m in names.dns1123_subdomain(group)]
    namespace = source.get("namespace")
    if isinstance(namespace, str) and namespace:
        errors += [
            (f"{path}.namespace", invalid(namespace, m)) for m in names.dns1123_label(namespace)
        ]
    return errors


def pvc_spec(spec: dict, path: str, prepared: bool = True) -> Errors:
    """core ValidatePersistentVolumeClaimSpec. prepared: of a claim as the PVC strategy prepares
    it on create (_data_sources); False for a claim template validated as written (an ephemeral
    volume's)."""
    errors: Errors = []
    modes = spec.get("accessModes")
    if not modes or not isinstance(modes, list):
        errors.append((f"{path}.accessModes", required("at least 1 access mode is required")))
        modes = ()
    if "selector" in spec and isinstance(selector := spec["selector"], dict):
        errors += validate_label_selector(selector, f"{path}.selector")
    once_pod = other = False
    for mode in modes:
        if mode == "ReadWriteOnce" or mode == "ReadWriteMany" or mode == "ReadOnlyMany":
            other = True
        elif mode == "ReadWriteOncePod":
            once_pod = True
        else:
            shown = mode if isinstance(mode, str) else ""
            errors.append((f"{path}.accessModes", not_supported(shown, _ACCESS_MODES)))
    if once_pod and other:
        message = "may not use ReadWriteOncePod with other access modes"
        errors.append((f"{path}.accessModes", forbidden(message)))
    resources = spec.get("resources")
    requests = resources.get("requests") if isinstance(resources, dict) else None
    if not isinstance(requests, dict) or "storage" not in requests:
        errors.append((f"{path}.resources[storage]", required()))
    else:
        amount = parse_quantity(requests["storage"])
        if isinstance(amount, str):
            errors.append((f"{path}.resources[storage]", amount))  # the request fails decoding
        elif amount is not None and amount.value <= 0:
            message = "must be greater than zero"
            errors.append((f"{path}.resources[storage]", invalid(amount.string(), message)))
        if len(requests) > 1:
            errors += _quantities(requests, f"{path}.resources.requests", skip="storage")
    if isinstance(resources, dict) and isinstance(limits := resources.get("limits"), dict):
        errors += _quantities(limits, f"{path}.resources.limits")
    if len(spec) > ("accessModes" in spec) + ("resources" in spec):  # the rarer fields
        errors += _pvc_rarer(spec, path, prepared)
    return errors


def _pvc_rarer(spec: dict, path: str, prepared: bool) -> Errors:
    """ValidatePersistentVolumeClaimSpec's checks of storageClassName, volumeMode and the data
    sources."""
    errors: Errors = []
    class_name = spec.get("storageClassName")
    if isinstance(class_name, str) and class_name:
        errors += [
            (f"{path}.storageClassName", invalid(class_name, m))
            for m in names.dns1123_subdomain(class_name)
        ]
    volume_mode = spec.get("volumeMode")
    if isinstance(volume_mode, str) and volume_mode not in _VOLUME_MODES:
        errors.append((f"{path}.volumeMode", not_supported(volume_mode, _VOLUME_MODES)))
    if spec.get("dataSource") is not None or spec.get("dataSourceRef") is not None:
        if prepared:
            source, ref = _data_sources(spec)
        else:
            source, ref = spec.get("dataSource"), spec.get("dataSourceRef")
            source = source if isinstance(source, dict) else None
            ref = ref if isinstance(ref, dict) else None
        if source is not None:
            errors += _data_source(source, f"{path}.dataSource")
        if ref is not None:
            errors += _data_source(ref, f"{path}.dataSourceRef")
        if ref is not None and ref.get("namespace"):
            if source is not None:
                message = "may not be specified when dataSourceRef.namespace is specified"
                errors.append((path, invalid(_DATA_SOURCE_PATH, message)))
        elif (
            source is not None
            and ref is not None
            and (
                source.get("apiGroup") != ref.get("apiGroup")
                or source.get("kind") != ref.get("kind")
                or source.get("name") != ref.get("name")
            )
        ):
            errors.append((path, invalid(_DATA_SOURCE_PATH, "must match dataSourceRef")))
    return errors


# field.Path{...} as %#v prints it: the address of its parent cannot be known.
_DATA_SOURCE_PATH = GoValue(
    'field.Path{name:"dataSource", index:"", parent:(*field.Path)(0xc000000000)}'
)


def _quantities(amounts: dict, path: str, skip: str = "") -> Errors:
    """Quantities that fail decoding (the request fails before validation)."""
    errors: Errors = []
    for name, amount in amounts.items():
        if name != skip and isinstance(problem := parse_quantity(amount), str):
            errors.append((f"{path}[{name}]", problem))
    return errors


# A StatefulSet's claim templates become PVCs only when its controller creates them: the API
# server takes the StatefulSet (ValidateStatefulSetSpec does not look at them).
STATEFULSET_CLAIMS = (
    "the PersistentVolumeClaim the StatefulSet controller creates from this template is rejected: "
)


def claim_templates(templates: object) -> Errors:
    """Each volumeClaimTemplate validated as the PVC the StatefulSet controller creates from it:
    its labels and annotations, and its spec."""
    errors: Errors = []
    if not isinstance(templates, list):
        return errors
    for index, template in enumerate(templates):
        if not isinstance(template, dict):
            continue
        metadata = template.get("metadata")
        found: Errors = []
        if isinstance(metadata, dict) and (metadata.get("labels") or metadata.get("annotations")):
            labels_meta = {k: metadata.get(k) for k in ("labels", "annotations")}
            found += meta.validate("", "PersistentVolumeClaim", labels_meta, custom=False)
        spec = template.get("spec")
        found += pvc_spec(spec if isinstance(spec, dict) else {}, "spec")
        if found:  # paths are built for errors only: "spec…"/"metadata…" in the template
            where = f"spec.volumeClaimTemplates[{index}]."
            errors += [(where + path, STATEFULSET_CLAIMS + message) for path, message in found]
    return errors


# --- LimitRanges -----------------------------------------------------------------------------

_LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")
_STANDARD_CONTAINER = ("cpu", "memory", "ephemeral-storage")
_STANDARD_RESOURCES = frozenset(
    [
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "storage",
        "requests.storage",
        "services.nodeports",
        "services.loadbalancers",
    ]
)
_INTEGER_RESOURCES = frozenset(
    [
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "configmaps",
        "persistentvolumeclaims",
        "services.nodeports",
        "services.loadbalancers",
    ]
)


def _is_native(name: str) -> bool:
    """helper.IsNativeResource."""
    return "/" not in name or "kubernetes.io/" in name


def _is_extended(name: str) -> bool:
    """helper.IsExtendedResourceName."""
    if _is_native(name) or name.startswith("requests."):
        return False
    return not names.qualified_name(f"requests.{name}")


def _quota_hugepages(name: str) -> bool:
    return name.startswith(("hugepages-", "requests.hugepages-"))


def _resource_name(name: str, path: str) -> Errors:
    """core validateResourceName."""
    shown = GoValue(name)  # core.ResourceName is a Stringer: printed unquoted
    if problems := names.qualified_name(name):
        return [(path, invalid(shown, m)) for m in problems]
    if "/" not in name and name not in _STANDARD_RESOURCES and not _quota_hugepages(name):
        return [(path, invalid(shown, "must be a standard resource type or fully qualified"))]
    return []


def _container_resource_name(name: str, path: str) -> Errors:
    """core validateContainerResourceName."""
    errors = _resource_name(name, path)
    if "/" not in name:
        if name not in _STANDARD_CONTAINER and not name.startswith("hugepages-"):
            message = "must be a standard resource for containers"
            errors.append((path, invalid(GoValue(name), message)))
    elif not _is_native(name) and not _is_extended(name):
        message = "doesn't follow extended resource name standard"
        errors.append((path, invalid(GoValue(name), message)))
    return errors


def _quantity_map(limit: dict, key: str, kind: object, where: str, errors: Errors) -> dict:
    """A LimitRangeItem's map: names checked (validateLimitRangeResourceName), quantities read."""
    amounts = limit.get(key)
    parsed: dict[str, Quantity] = {}
    if not isinstance(amounts, dict):
        return parsed
    for name, amount in amounts.items():
        name = str(name)
        at = f"{where}.{key}[{name}]"
        if kind in ("Pod", "Container"):
            errors += _container_resource_name(name, at)
        else:
            errors += _resource_name(name, at)
        value = parse_quantity(amount)
        if isinstance(value, str):
            errors.append((at, value))
        elif value is not None:
            parsed[name] = value
    return parsed


def limit_range(doc: dict) -> Errors:
    """core ValidateLimitRange, after SetDefaults_LimitRangeItem (a Container's default limit
    from its max, its default request from the default limit, else from its min)."""
    spec = doc.get("spec")
    limits = spec.get("limits") if isinstance(spec, dict) else None
    if not isinstance(limits, list):
        return []
    errors: Errors = []
    seen: set[str] = set()
    for index, limit in enumerate(limits):
        if not isinstance(limit, dict):
            continue
        where = f"spec.limits[{index}]"
        kind = limit.get("type")
        kind = kind if isinstance(kind, str) else ""
        if problems := names.qualified_name(kind):
            errors += [(f"{where}.type", invalid(kind, m)) for m in problems]
        elif "/" not in kind and kind not in _LIMIT_TYPES:
            message = "must be a standard limit type or fully qualified"
            errors.append((f"{where}.type", invalid(kind, message)))
        if kind in seen:
            errors.append((f"{where}.type", f"Duplicate value: {go_quote(kind)}"))
        seen.add(kind)
        maximum = _quantity_map(limit, "max", kind, where, errors)
        minimum = _quantity_map(limit, "min", kind, where, errors)
        defaults: dict[str, Quantity] = {}
        requests: dict[str, Quantity] = {}
        if kind == "Pod":
            for key in ("default", "defaultRequest"):
                if limit.get(key):
                    errors.append(
                        (f"{where}.{key}", forbidden("may not be specified when `type` is 'Pod'"))
                    )
        else:
            defaults = _quantity_map(limit, "default", kind, where, errors)
            requests = _quantity_map(limit, "defaultRequest", kind, where, errors)
        if kind == "Container":  # SetDefaults_LimitRangeItem
            defaults = {**maximum, **defaults}
            requests = {**minimum, **defaults, **requests}
        if kind == "PersistentVolumeClaim":
            written = [limit.get(k) for k in ("min", "max")]
            if not any(isinstance(w, dict) and "storage" in w for w in written):
                message = (
                    "either minimum or maximum storage value is required, but neither was provided"
                )
                errors.append((f"{where}.limits", required(message)))
        ratios = _quantity_map(limit, "maxLimitRequestRatio", kind, where, errors)
        keys = [*maximum, *minimum, *defaults, *requests, *ratios]
        for name in dict.fromkeys(keys):
            errors += _limit_bounds(
                name,
                where,
                minimum.get(name),
                maximum.get(name),
                defaults.get(name),
                requests.get(name),
                ratios.get(name),
            )
    return errors


def _limit_bounds(
    name: str,
    where: str,
    low: Quantity | None,
    high: Quantity | None,
    default: Quantity | None,
    request: Quantity | None,
    ratio: Quantity | None,
) -> Errors:
    """ValidateLimitRange's comparisons for one resource."""
    errors: Errors = []

    def bad(key: str, shown: Quantity, message: str) -> None:
        # each message quotes the quantity it reports: String() cached its canonical form
        errors.append((f"{where}.{key}[{name}]", invalid(go_quantity(shown, True), message)))

    if low and high and low.value > high.value:
        bad("min", low, f"min value {low.string()} is greater than max value {high.string()}")
    if request and low and low.value > request.value:
        message = (
            f"min value {low.string()} is greater than default request value {request.string()}"
        )
        bad("defaultRequest", request, message)
    if request and high and request.value > high.value:
        message = (
            f"default request value {request.string()} is greater than max value {high.string()}"
        )
        bad("defaultRequest", request, message)
    if request and default and request.value > default.value:
        message = f"default request value {request.string()} is greater than default limit value {default.string()}"
        bad("defaultRequest", request, message)
    if default and low and low.value > default.value:
        message = f"min value {low.string()} is greater than default value {default.string()}"
        bad("default", low, message)
    if default and high and default.value > high.value:
        message = f"default value {default.string()} is greater than max value {high.string()}"
        bad("default", high, message)
    if ratio and ratio.value < 1:
        bad("maxLimitRequestRatio", ratio, f"ratio {ratio.string()} is less than 1")
    if ratio and low and high and low.value != 0:
        limit = high.value / low.value
        if ratio.value > limit:
            message = f"ratio {ratio.string()} is greater than max/min = {float(limit):f}"
            bad("maxLimitRequestRatio", ratio, message)
    overcommit = _is_native(name) and not name.startswith("hugepages-")
    if not overcommit and default and request and default.value != request.value:
        message = (
            f"default value {default.string()} must equal to defaultRequest value "
            f"{request.string()} in {name}"
        )
        bad("defaultRequest", request, message)
    return errors


# --- ResourceQuotas ----------------------------------------------------------------------------

_STANDARD_QUOTA_RESOURCES = frozenset(
    [
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.storage",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
        "resourcequotas",
        "services",
        "replicationcontrollers",
        "secrets",
        "persistentvolumeclaims",
        "configmaps",
        "services.nodeports",
        "services.loadbalancers",
    ]
)
_SCOPES = ("Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass")
_STANDARD_SCOPES = frozenset([*_SCOPES, "CrossNamespacePodAffinity"])
_POD_COMPUTE = frozenset(
    ["cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"]
)
_EXISTS_ONLY = frozenset(
    ["Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "CrossNamespacePodAffinity"]
)
_CONFLICTS = (("BestEffort", "NotBestEffort"), ("Terminating", "NotTerminating"))


def _milli(quantity: Quantity) -> int:
    """Quantity.MilliValue: rounded up."""
    milli = quantity.value * 1000
    return -(-milli.numerator // milli.denominator)


def _standard_quota(name: str) -> bool:
    return name in _STANDARD_QUOTA_RESOURCES or _quota_hugepages(name)


def _scope_fits(scope: str, resource: str) -> bool:
    """helper.IsResourceQuotaScopeValidForResource."""
    if scope in (
        "Terminating",
        "NotTerminating",
        "NotBestEffort",
        "PriorityClass",
        "CrossNamespacePodAffinity",
    ):
        return resource == "pods" or resource in _POD_COMPUTE
    if scope == "BestEffort":
        return resource == "pods"
    return True


def resource_quota(doc: dict) -> Errors:
    """core ValidateResourceQuota: hard resource names and amounts, scopes and the scope
    selector (validateResourceQuotaScopes, validateScopedResourceSelectorRequirement)."""
    spec = doc.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    errors: Errors = []
    hard = spec.get("hard")
    hard = hard if isinstance(hard, dict) else {}
    for name, amount in hard.items():
        name = str(name)
        where = f"spec.hard[{name}]"
        problems = _resource_name(name, where)
        if not problems and "/" not in name and not _standard_quota(name):
            problems = [(where, invalid(GoValue(name), "must be a standard resource for quota"))]
        errors += problems
        value = parse_quantity(amount)
        if isinstance(value, str):
            errors.append((where, value))
        elif value is not None:
            if value.value < 0:
                errors.append(
                    (where, invalid(value.string(), "must be greater than or equal to 0"))
                )
            if (name in _INTEGER_RESOURCES or _is_extended(name)) and _milli(value) % 1000:
                errors.append((where, invalid(go_quantity(value), "must be an integer")))
    resources = sorted(str(k) for k in hard)
    scopes = spec.get("scopes")
    if isinstance(scopes, list) and scopes:
        shown = go_strings(scopes, "core.ResourceQuotaScope")
        for scope in scopes:
            scope = scope if isinstance(scope, str) else ""
            if scope not in _STANDARD_SCOPES:
                errors.append(("spec.scopes", invalid(shown, "unsupported scope")))
            for resource in resources:
                if _standard_quota(resource) and not _scope_fits(scope, resource):
                    errors.append(
                        ("spec.scopes", invalid(shown, "unsupported scope applied to resource"))
                    )
        for pair in _CONFLICTS:
            if all(p in scopes for p in pair):
                errors.append(("spec.scopes", invalid(shown, "conflicting scopes")))
    selector = spec.get("scopeSelector")
    if isinstance(selector, dict):
        errors += _scope_selector(selector, resources, scopes)
    return errors


def _go_scope_selector(expressions: list) -> GoValue:
    items = ", ".join(
        "core.ScopedResourceSelectorRequirement{"
        f"ScopeName:{go_quote(str(e.get('scopeName') or ''))}, "
        f"Operator:{go_quote(str(e.get('operator') or ''))}, "
        f"Values:{go_strings(e.get('values')).text}}}"
        for e in expressions
        if isinstance(e, dict)
    )
    return GoValue(
        f"core.ScopeSelector{{MatchExpressions:[]core.ScopedResourceSelectorRequirement{{{items}}}}}"
    )


def _scope_selector(selector: dict, resources: list[str], scopes: object) -> Errors:
    errors: Errors = []
    path = "spec.scopeSelector.matchExpressions"
    expressions = selector.get("matchExpressions")
    expressions = expressions if isinstance(expressions, list) else []
    seen: set[str] = set()
    for expression in expressions:
        if not isinstance(expression, dict):
            continue
        scope = expression.get("scopeName")
        scope = scope if isinstance(scope, str) else ""
        operator = expression.get("operator")
        operator = operator if isinstance(operator, str) else ""
        values = expression.get("values")
        values = values if isinstance(values, list) else []
        if scope not in _STANDARD_SCOPES:
            errors.append((f"{path}.scopeName", invalid(scope, "unsupported scope")))
        for resource in resources:
            if _standard_quota(resource) and not _scope_fits(scope, resource):
                message = "unsupported scope applied to resource"
                errors.append((path, invalid(_go_scope_selector(expressions), message)))
        if scope in _EXISTS_ONLY and operator != "Exists":
            message = (
                "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, "
                "ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, "
                "ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
            )
            errors.append((f"{path}.operator", invalid(operator, message)))
        if operator in ("In", "NotIn"):
            if not values:
                message = "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"
                errors.append((f"{path}.values", required(message)))
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                message = "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"
                errors.append((f"{path}.values", invalid(go_strings(values), message)))
        else:
            errors.append((f"{path}.operator", invalid(operator, "not a valid selector operator")))
        seen.add(scope)
    for pair in _CONFLICTS:
        if all(p in seen for p in pair):
            shown = go_strings(
                scopes if isinstance(scopes, list) else None, "core.ResourceQuotaScope"
            )
            errors.append((path, invalid(shown, "conflicting scopes")))
    return errors


# --- Nodes -------------------------------------------------------------------------------------

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _go_taint(taint: dict) -> GoValue:
    """A core.Taint as %#v prints it (the Duplicate value of a repeated taint)."""
    key, value = go_quote(str(taint.get("key") or "")), go_quote(str(taint.get("value") or ""))
    effect = go_quote(str(taint.get("effect") or ""))
    added = "<nil>" if taint.get("timeAdded") is None else "(*v1.Time)"
    return GoValue(f"core.Taint{{Key:{key}, Value:{value}, Effect:{effect}, TimeAdded:{added}}}")


def _node_taints(taints: list) -> Errors:
    """core validateNodeTaints, at ValidateNode's path for them: metadata.taints."""
    errors: Errors = []
    seen: set[tuple[str, str]] = set()
    for index, taint in enumerate(taints):
        if not isinstance(taint, dict):
            continue
        where = f"metadata.taints[{index}]"
        key, value = str(taint.get("key") or ""), str(taint.get("value") or "")
        effect = str(taint.get("effect") or "")
        errors += [(f"{where}.key", invalid(key, m)) for m in names.qualified_name(key)]
        if problems := names.label_value(value):
            errors.append((f"{where}.value", invalid(value, ";".join(problems))))
        if not effect:
            errors.append((f"{where}.effect", required()))
        elif effect not in _TAINT_EFFECTS:
            errors.append((f"{where}.effect", not_supported(effect, _TAINT_EFFECTS)))
        if (effect, key) in seen:
            detail = "taints must be unique by key and effect pair"
            errors.append((where, f"{duplicate(_go_taint(taint))}: {detail}"))
        seen.add((effect, key))
    return errors


def _pod_cidrs(cidrs: list) -> Errors:
    """ValidateNode's spec.podCIDRs: each a CIDR; two at most, one of each IP family; no
    repeats."""
    errors: Errors = []
    for index, cidr in enumerate(cidrs):
        errors += valid_cidr(cidr, f"spec.podCIDRs[{index}]")
    if len(cidrs) < 2:
        return errors
    parsed = [parse_cidr(c) if isinstance(c, str) else None for c in cidrs]
    families = {p.version for p in parsed if p is not None}
    if None in parsed or families != {4, 6} or len(cidrs) > 2:
        # netutils.IsDualStackCIDRStrings (a CIDR that does not parse is no dual stack either)
        message = "may specify no more than one CIDR for each IP family"
        errors.append(("spec.podCIDRs", invalid(go_strings(cidrs), message)))
    for index, cidr in enumerate(cidrs):
        if cidr in cidrs[:index]:
            errors.append((f"spec.podCIDRs[{index}]", duplicate(cidr)))
    return errors


def _node_resources(status: dict) -> Errors:
    """core ValidateNodeResources: ValidateResourceQuantityValue of each capacity and
    allocatable amount (not negative; whole for integer resources)."""
    errors: Errors = []
    for field in ("capacity", "allocatable"):
        amounts = status.get(field)
        for name, amount in amounts.items() if isinstance(amounts, dict) else ():
            name, where = str(name), f"status.{field}.{name}"
            value = parse_quantity(amount)
            if isinstance(value, str):
                errors.append((where, value))
                continue
            if value is None:
                continue
            if value.value < 0:
                message = "must be greater than or equal to 0"
                errors.append((where, invalid(value.string(), message)))
            if (name in _INTEGER_RESOURCES or _is_extended(name)) and _milli(value) % 1000:
                errors.append((where, invalid(go_quantity(value), "must be an integer")))
    return errors


def node(doc: dict) -> Errors:
    """core ValidateNode (kube-apiserver v1.32.13): spec.taints, spec.podCIDRs and the status's
    capacity and allocatable (a node registers with its status). Its ObjectMeta is meta.py's."""
    spec = doc.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    status = doc.get("status")
    errors: Errors = []
    taints = spec.get("taints")
    if isinstance(taints, list) and taints:
        errors += _node_taints(taints)
    errors += _node_resources(status if isinstance(status, dict) else {})
    cidrs = spec.get("podCIDRs")
    if isinstance(cidrs, list) and cidrs:
        errors += _pod_cidrs(cidrs)
    return errors


LEFT_OUT = {
    "Node": "the taints and preferAvoidPods annotations (scheduler.alpha.kubernetes.io/taints, "
    "scheduler.alpha.kubernetes.io/preferAvoidPods)",
}


# --- Pod templates of controllers -------------------------------------------------------------


def active_deadline(spec: dict, owner: str) -> Errors:
    """The activeDeadlineSeconds a controller's pod template may not set (apps
    ValidateReplicaSetSpec / ValidateDaemonSetSpec / ValidateStatefulSetSpec, core
    ValidatePodTemplateSpecForRC, kube-apiserver v1.32.13)."""
    template = spec.get("template")
    pod = template.get("spec") if isinstance(template, dict) else None
    if isinstance(pod, dict) and pod.get("activeDeadlineSeconds") is not None:
        message = f"activeDeadlineSeconds in {owner} is not Supported"
        return [("spec.template.spec.activeDeadlineSeconds", forbidden(message))]
    return []


# --- Namespaces ----------------------------------------------------------------------------------

_STANDARD_FINALIZERS = ("kubernetes", "orphan", "foregroundDeletion")


def namespace_finalizers(doc: dict) -> Errors:
    """core ValidateNamespace: spec.finalizers (validateFinalizerName)."""
    spec = doc.get("spec")
    finalizers = spec.get("finalizers") if isinstance(spec, dict) else None
    errors: Errors = []
    for finalizer in finalizers if isinstance(finalizers, list) else ():
        if not isinstance(finalizer, str):
            continue
        if problems := names.qualified_name(finalizer):
            errors += [("spec.finalizers", invalid(finalizer, m)) for m in problems]
        if "/" not in finalizer and finalizer not in _STANDARD_FINALIZERS:
            message = "name is neither a standard finalizer name nor is it fully qualified"
            errors.append(("spec.finalizers", invalid(finalizer, message)))
    return errors
