"""Per-kind validation of built-in kinds: workloads, Jobs and CronJobs, PVCs, Services, NetworkPolicies, RBAC, ConfigMaps and Secrets, PodDisruptionBudgets, PriorityClasses."""

from __future__ import annotations

import ipaddress
import re
import zoneinfo

from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.meta import Errors, invalid, not_supported
from trainops.model import quantity
from trainops.model.shape import mapping, sequence


def _spec(doc: dict) -> dict:
    spec = doc.get("spec")
    return spec if isinstance(spec, dict) else {}


def _dicts(value: object) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _non_negative(spec: dict, fields: tuple[str, ...], path: str) -> Errors:
    return [
        (f"{path}.{name}", invalid(spec[name], "must be greater than or equal to 0"))
        for name in fields
        if isinstance(spec.get(name), int)
        and not isinstance(spec.get(name), bool)
        and spec[name] < 0
    ]


def job_spec(spec: dict, path: str = "spec") -> Errors:
    """pkg/apis/batch/validation: counts, and the selector/labels the API server generates."""
    errors = _non_negative(
        spec,
        (
            "parallelism",
            "completions",
            "activeDeadlineSeconds",
            "backoffLimit",
            "ttlSecondsAfterFinished",
        ),
        path,
    )
    if spec.get("backoffLimitPerIndex") is not None and spec.get("completionMode") != "Indexed":
        errors.append(
            (
                f"{path}.backoffLimitPerIndex",
                invalid(spec["backoffLimitPerIndex"], "requires indexed completion mode"),
            )
        )
    if spec.get("manualSelector") is True:
        errors += _selector_matches(spec, path)
    return errors


def _matches(selector: object, labels: dict) -> bool:
    """Whether a LabelSelector selects these labels (matchLabels and matchExpressions)."""
    selector = mapping(selector)
    if any(labels.get(k) != v for k, v in mapping(selector.get("matchLabels")).items()):
        return False
    for expression in _dicts(selector.get("matchExpressions")):
        key, operator = expression.get("key"), expression.get("operator")
        values = sequence(expression.get("values"))
        present = key in labels
        if (
            (operator == "In" and labels.get(key) not in values)
            or (operator == "NotIn" and present and labels.get(key) in values)
            or (operator == "Exists" and not present)
            or (operator == "DoesNotExist" and present)
        ):
            return False
    return True


def _selector_matches(spec: dict, path: str) -> Errors:
    """apps and batch validation: the selector must select the template's own labels."""
    selector = spec.get("selector")
    labels = mapping(mapping(mapping(spec.get("template")).get("metadata")).get("labels"))
    if not isinstance(selector, dict) or _matches(selector, labels):
        return []
    return [
        (
            f"{path}.template.metadata.labels",
            "Invalid value: `selector` does not match template `labels`",
        )
    ]


def workload(doc: dict) -> Errors:
    """pkg/apis/apps/validation: ValidateDeploymentSpec, ValidateStatefulSetSpec,
    ValidateDaemonSetSpec, ValidateReplicaSetSpec (what pod validation does not cover)."""
    spec = _spec(doc)
    kind = doc.get("kind")
    errors = _non_negative(spec, ("replicas", "minReadySeconds", "revisionHistoryLimit"), "spec")
    errors += _selector_matches(spec, "spec")  # a missing selector is the schema's to report
    selector = spec.get("selector")
    if (
        isinstance(selector, dict)
        and not selector.get("matchLabels")
        and not selector.get("matchExpressions")
    ):
        owner = {"Deployment": "deployment", "ReplicaSet": "deployment"}.get(str(kind), str(kind))
        errors.append(("spec.selector", f"Invalid value: empty selector is invalid for {owner}"))
    strategy = mapping(spec.get("strategy"))
    if kind == "Deployment":
        if strategy.get("type") == "Recreate" and strategy.get("rollingUpdate") is not None:
            errors.append(
                (
                    "spec.strategy.rollingUpdate",
                    "Forbidden: may not be specified when strategy `type` is 'Recreate'",
                )
            )
        for key in ("maxUnavailable", "maxSurge"):
            value = mapping(strategy.get("rollingUpdate")).get(key)
            if (
                isinstance(value, str)
                and value.endswith("%")
                and value[:-1].isdigit()
                and int(value[:-1]) > 100
            ):
                errors.append(
                    (
                        f"spec.strategy.rollingUpdate.{key}",
                        invalid(value, "must not be greater than 100%"),
                    )
                )
        deadline, ready = spec.get("progressDeadlineSeconds"), spec.get("minReadySeconds", 0)
        if isinstance(deadline, int) and isinstance(ready, int) and deadline <= ready:
            errors.append(
                (
                    "spec.progressDeadlineSeconds",
                    invalid(deadline, "must be greater than minReadySeconds"),
                )
            )
    pod = mapping(mapping(spec.get("template")).get("spec"))
    if pod.get("activeDeadlineSeconds") is not None:  # apps: these controllers' pods run forever
        owner = "ReplicaSet" if kind in ("Deployment", "ReplicaSet") else kind
        message = f"Forbidden: activeDeadlineSeconds in {owner} is not Supported"
        errors.append(("spec.template.spec.activeDeadlineSeconds", message))
    if kind == "StatefulSet":
        policy = spec.get("podManagementPolicy")
        if isinstance(policy, str) and policy not in ("OrderedReady", "Parallel"):
            errors.append(
                (
                    "spec.podManagementPolicy",
                    invalid(policy, "must be 'OrderedReady' or 'Parallel'"),
                )
            )
    return errors


def cron_job(doc: dict) -> Errors:
    spec = _spec(doc)
    errors: Errors = []
    schedule = spec.get("schedule")
    # cron.ParseStandard (robfig/cron v3, parser.go) in validateScheduleFormat: five fields or an
    # @descriptor; its error prints the fields as a Go slice.
    fields = schedule.split() if isinstance(schedule, str) else []
    if isinstance(schedule, str) and not schedule.startswith("@") and len(fields) != 5:
        errors.append(
            (
                "spec.schedule",
                invalid(
                    schedule,
                    f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]",
                ),
            )
        )
    job = (
        (mapping(spec.get("jobTemplate"))).get("spec")
        if isinstance(spec.get("jobTemplate"), dict)
        else None
    )
    if isinstance(job, dict):
        errors += job_spec(job, "spec.jobTemplate.spec")
    errors += _non_negative(spec, ("startingDeadlineSeconds",), "spec")
    concurrency = spec.get("concurrencyPolicy")
    if isinstance(concurrency, str) and concurrency not in _CONCURRENCY:
        errors.append(("spec.concurrencyPolicy", not_supported(concurrency, _CONCURRENCY)))
    zone = spec.get("timeZone")
    if isinstance(zone, str) and not _known_zone(zone):  # batch validateTimeZone: the tz database
        errors.append(("spec.timeZone", invalid(zone, f"unknown time zone {zone}")))
    return errors


_CONCURRENCY = ("Allow", "Forbid", "Replace")


def _known_zone(name: str) -> bool:
    if name in ("", "UTC", "Local") or name != name.strip():
        return name in ("", "UTC")
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def persistent_volume_claim(doc: dict) -> Errors:
    spec = _spec(doc)
    errors: Errors = []
    if not spec.get("accessModes"):
        errors.append(("spec.accessModes", "Required value: at least 1 access mode is required"))
    # core/validation ValidatePersistentVolumeClaimSpec: each mode one of the four.
    for mode in sequence(spec.get("accessModes")):
        if mode not in _ACCESS_MODES:
            errors.append(("spec.accessModes", not_supported(mode, _ACCESS_MODES)))
    volume_mode = spec.get("volumeMode")
    if isinstance(volume_mode, str) and volume_mode not in ("Block", "Filesystem"):
        errors.append(("spec.volumeMode", not_supported(volume_mode, ("Block", "Filesystem"))))
    requests = (
        (mapping(spec.get("resources"))).get("requests")
        if isinstance(spec.get("resources"), dict)
        else None
    )
    storage = requests.get("storage") if isinstance(requests, dict) else None
    if storage is None and not spec.get("dataSource") and not spec.get("dataSourceRef"):
        errors.append(("spec.resources[storage]", "Required value"))
    elif storage is not None:
        try:
            if quantity.parse(storage) <= 0:
                errors.append(
                    ("spec.resources[storage]", invalid(str(storage), "must be greater than zero"))
                )
        except ValueError:
            pass  # the pod validation's quantity message covers syntax; a PVC request is rarely mistyped
    return errors


_SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")


def service(doc: dict) -> Errors:
    spec = _spec(doc)
    errors: Errors = []
    kind = spec.get("type", "ClusterIP")
    if isinstance(kind, str) and kind not in _SERVICE_TYPES:
        errors.append(("spec.type", not_supported(kind, _SERVICE_TYPES)))
    external = spec.get("externalName")
    if kind == "ExternalName" and isinstance(external, str):
        errors += [
            ("spec.externalName", invalid(external, m))
            for m in names.dns1123_subdomain(external.rstrip("."))
        ]
    affinity = spec.get("sessionAffinity")
    if isinstance(affinity, str) and affinity not in ("ClientIP", "None"):
        errors.append(("spec.sessionAffinity", not_supported(affinity, ("ClientIP", "None"))))
    cluster_ip = spec.get("clusterIP")
    if isinstance(cluster_ip, str) and cluster_ip not in ("", "None"):
        try:
            ipaddress.ip_address(cluster_ip)
        except ValueError:
            message = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
            errors.append(("spec.clusterIPs[0]", invalid(cluster_ip, message)))
    if spec.get("externalTrafficPolicy") and kind not in ("NodePort", "LoadBalancer"):
        message = "may only be set for externally-accessible services"
        errors.append(
            ("spec.externalTrafficPolicy", invalid(spec["externalTrafficPolicy"], message))
        )
    ports = _dicts(spec.get("ports"))
    headless = spec.get("clusterIP") == "None"
    if not ports and kind != "ExternalName" and not headless:
        errors.append(("spec.ports", "Required value"))
    seen: set[str] = set()
    for index, port in enumerate(ports):
        name = port.get("name")
        if len(ports) > 1 and not name:
            errors.append((f"spec.ports[{index}].name", "Required value"))
        if isinstance(name, str) and name:
            errors += [
                (f"spec.ports[{index}].name", invalid(name, m)) for m in names.dns1123_label(name)
            ]
            if name in seen:
                errors.append((f"spec.ports[{index}].name", f'Duplicate value: "{name}"'))
            seen.add(name)
        protocol = port.get("protocol")
        if isinstance(protocol, str) and protocol not in ("SCTP", "TCP", "UDP"):
            errors.append(
                (f"spec.ports[{index}].protocol", not_supported(protocol, ("SCTP", "TCP", "UDP")))
            )
        number = port.get("port")
        if isinstance(number, int) and not isinstance(number, bool) and not 1 <= number <= 65535:
            errors.append(
                (
                    f"spec.ports[{index}].port",
                    invalid(number, "must be between 1 and 65535, inclusive"),
                )
            )
        if kind == "ClusterIP" and port.get("nodePort"):
            errors.append(
                (
                    f"spec.ports[{index}].nodePort",
                    "Forbidden: may not be used when `type` is 'ClusterIP'",
                )
            )
        target = port.get("targetPort")
        if target == 0:
            target = None  # SetDefaults_Service: a targetPort of 0 becomes the port
        if isinstance(target, str):
            errors += [
                (f"spec.ports[{index}].targetPort", invalid(target, m))
                for m in names.port_name(target)
            ]
        elif isinstance(target, int) and not isinstance(target, bool) and not 1 <= target <= 65535:
            errors.append(
                (
                    f"spec.ports[{index}].targetPort",
                    invalid(target, "must be between 1 and 65535, inclusive"),
                )
            )
    return errors


def _ip_block(block: object, path: str) -> Errors:
    """networking ValidateIPBlock: a CIDR, and exceptions strictly inside it."""
    if not isinstance(block, dict) or not isinstance(block.get("cidr"), str):
        return []
    cidr = block["cidr"]
    try:
        network = ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return [(f"{path}.cidr", invalid(cidr, _CIDR_MESSAGE))]
    errors: Errors = []
    for index, excepted in enumerate(sequence(block.get("except"))):
        if not isinstance(excepted, str):
            continue
        try:
            inner = ipaddress.ip_network(excepted, strict=False)
        except ValueError:
            errors.append((f"{path}.except[{index}]", invalid(excepted, _CIDR_MESSAGE)))
            continue
        strict_subset = (
            inner.version == network.version
            and inner.subnet_of(network)  # type: ignore[arg-type]
            and inner != network
        )
        if not strict_subset:
            message = "must be a strict subset of `cidr`"
            errors.append((f"{path}.except[{index}]", invalid(excepted, message)))
    return errors


_CIDR_MESSAGE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
_ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod")
_POLICY_TYPES = ("Ingress", "Egress")
_PEER_KINDS = ("podSelector", "namespaceSelector", "ipBlock")


def network_policy(doc: dict) -> Errors:
    spec = _spec(doc)
    errors: Errors = []
    # networking/validation ValidateNetworkPolicySpec: at most two, each Ingress or Egress.
    policy_types = sequence(spec.get("policyTypes"))
    if len(policy_types) > len(_POLICY_TYPES):
        errors.append(
            ("spec.policyTypes", "Invalid value: may not specify more than two policyTypes")
        )
    else:
        errors += [
            (f"spec.policyTypes[{index}]", not_supported(kind, _POLICY_TYPES))
            for index, kind in enumerate(policy_types)
            if kind not in _POLICY_TYPES
        ]
    for direction, peers in (("ingress", "from"), ("egress", "to")):
        for rule_index, rule in enumerate(_dicts(spec.get(direction))):
            # ValidateNetworkPolicyPeer: one kind of peer, or pod and namespace selectors together.
            for index, peer in enumerate(sequence(rule.get(peers))):
                where = f"spec.{direction}[{rule_index}].{peers}[{index}]"
                chosen = [k for k in _PEER_KINDS if mapping(peer).get(k) is not None]
                if not chosen:
                    errors.append((where, "Required value: must specify a peer"))
                elif len(chosen) > 1 and "ipBlock" in chosen:
                    errors.append(
                        (where, "Forbidden: may not specify both ipBlock and another peer")
                    )
                errors += _ip_block(mapping(peer).get("ipBlock"), f"{where}.ipBlock")
        for rule_index, rule in enumerate(_dicts(spec.get(direction))):
            for index, port in enumerate(_dicts(rule.get("ports"))):
                where = f"spec.{direction}[{rule_index}].ports[{index}]"
                number, end = port.get("port"), port.get("endPort")
                if isinstance(number, str):
                    errors += [
                        (f"{where}.port", invalid(number, m)) for m in names.port_name(number)
                    ]
                if end is None:
                    continue
                if number is None:
                    errors.append(
                        (
                            f"{where}.port",
                            "Required value: must be specified when `endPort` is specified",
                        )
                    )
                elif isinstance(number, str):
                    errors.append(
                        (
                            f"{where}.endPort",
                            invalid(end, "may not be specified when `port` is non-numeric"),
                        )
                    )
                elif isinstance(number, int) and isinstance(end, int) and end < number:
                    errors.append(
                        (
                            f"{where}.endPort",
                            invalid(end, "must be greater than or equal to `port`"),
                        )
                    )
    return errors


def _policy_rules(doc: dict) -> Errors:
    """rbac ValidatePolicyRule: verbs always; resource rules name groups and resources; a rule
    on non-resource URLs names nothing else, and only in a ClusterRole."""
    errors: Errors = []
    namespaced = doc.get("kind") == "Role"
    for index, rule in enumerate(_dicts(doc.get("rules"))):
        where = f"rules[{index}]"
        if not sequence(rule.get("verbs")):
            errors.append(
                (f"{where}.verbs", "Required value: verbs must contain at least one value")
            )
        if sequence(rule.get("nonResourceURLs")):
            if namespaced:
                message = "Invalid value: namespaced rules cannot apply to non-resource URLs"
                errors.append((f"{where}.nonResourceURLs", message))
            if any(sequence(rule.get(k)) for k in ("apiGroups", "resources", "resourceNames")):
                message = "Invalid value: rules cannot apply to both regular resources and non-resource URLs"
                errors.append((f"{where}.nonResourceURLs", message))
            continue
        if not sequence(rule.get("apiGroups")):
            message = "Required value: resource rules must supply at least one api group"
            errors.append((f"{where}.apiGroups", message))
        if not sequence(rule.get("resources")):
            message = "Required value: resource rules must supply at least one resource"
            errors.append((f"{where}.resources", message))
    return errors


_SUBJECT_KINDS = ("ServiceAccount", "User", "Group")


def _binding(doc: dict) -> Errors:
    """rbac ValidateRoleBinding / ValidateClusterRoleBinding and ValidateRoleBindingSubject."""
    errors: Errors = []
    allowed = ("Role", "ClusterRole") if doc.get("kind") == "RoleBinding" else ("ClusterRole",)
    kind = mapping(doc.get("roleRef")).get("kind")
    if isinstance(kind, str) and kind not in allowed:
        errors.append(("roleRef.kind", not_supported(kind, allowed)))
    cluster_wide = doc.get("kind") == "ClusterRoleBinding"
    for index, subject in enumerate(_dicts(doc.get("subjects"))):
        subject_kind = subject.get("kind")
        if isinstance(subject_kind, str) and subject_kind not in _SUBJECT_KINDS:
            errors.append((f"subjects[{index}].kind", not_supported(subject_kind, _SUBJECT_KINDS)))
        if subject_kind == "ServiceAccount" and cluster_wide and not subject.get("namespace"):
            errors.append((f"subjects[{index}].namespace", "Required value"))
    return errors


_CONFIG_KEY = re.compile(r"[-._a-zA-Z0-9]+")
_CONFIG_KEY_MESSAGE = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
    "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
    "'[-._a-zA-Z0-9]+')"
)


# core ValidateSecret: the keys each well-known type requires (data or stringData).
_SECRET_KEYS = {
    "kubernetes.io/tls": ("tls.crt", "tls.key"),
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/ssh-auth": ("ssh-privatekey",),
}


def _config_keys(doc: dict) -> Errors:
    """core ValidateConfigMap / ValidateSecret: every data key an IsConfigMapKey, and the keys a
    Secret's type requires."""
    errors: Errors = []
    present = {str(k) for field in ("data", "stringData") for k in mapping(doc.get(field))}
    for key in _SECRET_KEYS.get(str(doc.get("type")), ()) if doc.get("kind") == "Secret" else ():
        if key not in present:
            errors.append((f"data[{key}]", "Required value"))
    for field in ("data", "binaryData", "stringData"):
        for key in map(str, mapping(doc.get(field))):
            where = f"{field}[{key}]"
            if len(key) > 253:
                errors.append((where, invalid(key, "must be no more than 253 characters")))
            elif not _CONFIG_KEY.fullmatch(key):
                errors.append((where, invalid(key, _CONFIG_KEY_MESSAGE)))
            elif key in (".", "..") or key.startswith(".."):
                errors.append((where, invalid(key, "must not be '.' or '..' or start with '..'")))
    return errors


_PERCENT = re.compile(r"^[0-9]+%$")
_PERCENT_MESSAGE = "a valid percent string must be a numeric string followed by an ending '%'"


def _disruption_budget(doc: dict) -> Errors:
    """policy ValidatePodDisruptionBudgetSpec."""
    spec = _spec(doc)
    errors: Errors = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        errors.append(("spec", "Invalid value: minAvailable and maxUnavailable cannot be both set"))
    for key in ("minAvailable", "maxUnavailable"):
        value = spec.get(key)
        if isinstance(value, str) and not _PERCENT.fullmatch(value):
            errors.append((f"spec.{key}", invalid(value, _PERCENT_MESSAGE)))
        elif isinstance(value, int) and not isinstance(value, bool) and value < 0:
            errors.append((f"spec.{key}", invalid(value, "must be greater than or equal to 0")))
    return errors


_HIGHEST_USER_PRIORITY = 1000000000  # scheduling HighestUserDefinablePriority
# scheduling SystemPriorityClasses: the only names with the reserved "system-" prefix.
_SYSTEM_PRIORITY_CLASSES = ("system-cluster-critical", "system-node-critical")
_PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")


def _priority_class(doc: dict) -> Errors:
    """scheduling ValidatePriorityClass."""
    errors: Errors = []
    value = doc.get("value")
    name = mapping(doc.get("metadata")).get("name")
    system = name in _SYSTEM_PRIORITY_CLASSES
    if isinstance(name, str) and name.startswith("system-") and not system:
        message = "priority class names with 'system-' prefix are reserved for system use only"
        errors.append(("metadata.name", f"Forbidden: {message}"))
    too_high = (
        isinstance(value, int) and not isinstance(value, bool) and value > _HIGHEST_USER_PRIORITY
    )
    if too_high and not system:
        message = f"maximum allowed value of a user defined priority is {_HIGHEST_USER_PRIORITY}"
        errors.append(("value", f"Forbidden: {message}"))
    policy = doc.get("preemptionPolicy")
    if isinstance(policy, str) and policy not in _PREEMPTION_POLICIES:
        errors.append(("preemptionPolicy", not_supported(policy, _PREEMPTION_POLICIES)))
    return errors


def _custom_resource_definition(doc: dict) -> Errors:
    """apiextensions ValidateCustomResourceDefinitionSpec: a scope, and in v1 a schema for every
    version whose root is an object."""
    spec = _spec(doc)
    errors: Errors = []
    scope = spec.get("scope")
    if isinstance(scope, str) and scope not in ("Cluster", "Namespaced"):
        errors.append(("spec.scope", not_supported(scope, ("Cluster", "Namespaced"))))
    for index, version in enumerate(_dicts(spec.get("versions"))):
        where = f"spec.versions[{index}].schema.openAPIV3Schema"
        schema = mapping(version.get("schema")).get("openAPIV3Schema")
        if not isinstance(schema, dict) or not schema:
            errors.append((where, "Required value: schemas are required"))
        elif schema.get("type") != "object":
            errors.append((f"{where}.type", "Invalid value: must be object at the root"))
    return errors


_PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")


def _ingress(doc: dict) -> Errors:
    """networking ValidateIngressSpec: rules or a default backend; hosts are DNS names; paths."""
    spec = _spec(doc)
    errors: Errors = []
    rules = _dicts(spec.get("rules"))
    if not rules and not isinstance(spec.get("defaultBackend"), dict):
        errors.append(
            ("spec", "Invalid value: either `defaultBackend` or `rules` must be specified")
        )
    for index, rule in enumerate(rules):
        where = f"spec.rules[{index}]"
        host = rule.get("host")
        if isinstance(host, str) and host:
            try:
                ipaddress.ip_address(host)
                errors.append(
                    (f"{where}.host", invalid(host, "must be a DNS name, not an IP address"))
                )
            except ValueError:
                name = host[2:] if host.startswith("*.") else host
                errors += [
                    (f"{where}.host", invalid(host, m)) for m in names.dns1123_subdomain(name)
                ]
        for number, path in enumerate(_dicts(mapping(rule.get("http")).get("paths"))):
            at = f"{where}.http.paths[{number}]"
            kind = path.get("pathType")
            if isinstance(kind, str) and kind not in _PATH_TYPES:
                errors.append((f"{at}.pathType", not_supported(kind, _PATH_TYPES)))
            value = path.get("path")
            if kind in ("Exact", "Prefix") and isinstance(value, str) and not value.startswith("/"):
                errors.append((f"{at}.path", invalid(value, "must be an absolute path")))
            backend = mapping(path.get("backend"))
            service = mapping(backend.get("service"))
            if backend.get("resource") is not None and backend.get("service") is not None:
                errors.append(
                    (
                        f"{at}.backend",
                        'Invalid value: "": cannot set both resource and service backends',
                    )
                )
            port = mapping(service.get("port"))
            if port.get("name") and port.get("number") is not None:
                errors.append(
                    (f"{at}.backend", 'Invalid value: "": cannot set both port name & port number')
                )
    return errors


def _autoscaler(doc: dict) -> Errors:
    """autoscaling ValidateHorizontalPodAutoscalerSpec (v2)."""
    spec = _spec(doc)
    errors: Errors = []
    low, high = spec.get("minReplicas"), spec.get("maxReplicas")
    if isinstance(low, int) and not isinstance(low, bool) and low < 1:  # HPAScaleToZero is alpha
        errors.append(("spec.minReplicas", invalid(low, "must be greater than or equal to 1")))
    if isinstance(high, int) and isinstance(low, int) and high < low:
        errors.append(
            ("spec.maxReplicas", invalid(high, "must be greater than or equal to `minReplicas`"))
        )
    target = mapping(spec.get("scaleTargetRef"))
    for key in ("kind", "name"):
        if not target.get(key):
            errors.append((f"spec.scaleTargetRef.{key}", "Required value"))
    for index, metric in enumerate(_dicts(spec.get("metrics"))):
        for source in ("resource", "containerResource"):
            goal = mapping(mapping(metric.get(source)).get("target"))
            value = goal.get("averageUtilization")
            if isinstance(value, int) and not isinstance(value, bool) and value <= 0:
                where = f"spec.metrics[{index}].{source}.target.averageUtilization"
                errors.append((where, invalid(value, "must be greater than 0")))
    return errors


def _quota(doc: dict) -> Errors:
    """core ValidateResourceQuota: qualified resource names, no negative amounts."""
    errors: Errors = []
    for name, amount in mapping(_spec(doc).get("hard")).items():
        where = f"spec.hard[{name}]"
        errors += [(where, invalid(str(name), m)) for m in names.qualified_name(str(name))]
        try:
            if quantity.parse(amount) < 0:
                errors.append((where, invalid(str(amount), "must be greater than or equal to 0")))
        except ValueError:
            pass  # a malformed quantity fails decoding, reported where quantities are read
    return errors


_LIMIT_TYPES = ("Pod", "Container", "PersistentVolumeClaim")


def _limit_range(doc: dict) -> Errors:
    """core ValidateLimitRange: a known type; a default request no larger than the default."""
    errors: Errors = []
    for index, limit in enumerate(_dicts(_spec(doc).get("limits"))):
        where = f"spec.limits[{index}]"
        kind = limit.get("type")
        if isinstance(kind, str) and kind not in _LIMIT_TYPES and "/" not in kind:
            errors.append(
                (f"{where}.type", invalid(kind, "must be a standard limit type or fully qualified"))
            )
        defaults, requests = mapping(limit.get("default")), mapping(limit.get("defaultRequest"))
        for name, request in requests.items():
            if name not in defaults:
                continue
            try:
                above = quantity.parse(request) > quantity.parse(defaults[name])
            except ValueError:
                continue
            if above:
                message = f"defaultRequest value {request} must be less than or equal to default value {defaults[name]}"
                errors.append((f"{where}.defaultRequest[{name}]", invalid(str(request), message)))
    return errors


_PSA_PREFIX = "pod-security.kubernetes.io/"
_PSA_LEVELS = ("privileged", "baseline", "restricted")
_PSA_VERSION = re.compile(r"^v1\.(0|[1-9][0-9]*)$")


def _namespace(doc: dict) -> Errors:
    """PodSecurity admission refuses a Namespace whose labels it cannot read
    (pod-security-admission admission.go validateNamespace: api.ParseLevel, api.ParseVersion)."""
    errors: Errors = []
    labels = mapping(mapping(doc.get("metadata")).get("labels"))
    for mode in ("enforce", "audit", "warn"):
        level = labels.get(f"{_PSA_PREFIX}{mode}")
        if isinstance(level, str) and level not in _PSA_LEVELS:
            where = f"metadata.labels[{_PSA_PREFIX}{mode}]"
            errors.append(
                (where, invalid(level, "must be one of privileged, baseline, restricted"))
            )
        version = labels.get(f"{_PSA_PREFIX}{mode}-version")
        if isinstance(version, str) and version != "latest" and not _PSA_VERSION.fullmatch(version):
            where = f"metadata.labels[{_PSA_PREFIX}{mode}-version]"
            errors.append((where, invalid(version, 'must be "latest" or "v1.x"')))
    return errors


# (group, kind) -> the restart policies its pod template allows (None: any the Pod allows).
RESTART_POLICIES = {
    ("batch", "Job"): ("OnFailure", "Never"),
    ("batch", "CronJob"): ("OnFailure", "Never"),
    ("apps", "Deployment"): ("Always",),
    ("apps", "StatefulSet"): ("Always",),
    ("apps", "DaemonSet"): ("Always",),
    ("apps", "ReplicaSet"): ("Always",),
    ("", "ReplicationController"): ("Always",),
    ("", "Pod"): ("Always", "OnFailure", "Never"),
}

KIND_CHECKS = {
    ("batch", "Job"): lambda doc: job_spec(_spec(doc)),
    ("batch", "CronJob"): cron_job,
    ("", "PersistentVolumeClaim"): persistent_volume_claim,
    ("", "Service"): service,
    ("networking.k8s.io", "NetworkPolicy"): network_policy,
    ("apps", "Deployment"): workload,
    ("apps", "StatefulSet"): workload,
    ("apps", "DaemonSet"): workload,
    ("apps", "ReplicaSet"): workload,
    ("rbac.authorization.k8s.io", "Role"): _policy_rules,
    ("rbac.authorization.k8s.io", "ClusterRole"): _policy_rules,
    ("rbac.authorization.k8s.io", "RoleBinding"): _binding,
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): _binding,
    ("", "ConfigMap"): _config_keys,
    ("", "Secret"): _config_keys,
    ("policy", "PodDisruptionBudget"): _disruption_budget,
    ("scheduling.k8s.io", "PriorityClass"): _priority_class,
    ("apiextensions.k8s.io", "CustomResourceDefinition"): _custom_resource_definition,
    ("networking.k8s.io", "Ingress"): _ingress,
    ("autoscaling", "HorizontalPodAutoscaler"): _autoscaler,
    ("", "ResourceQuota"): _quota,
    ("", "LimitRange"): _limit_range,
    ("", "Namespace"): _namespace,
}
