"""Per-kind validation of built-in kinds: Job, CronJob, workload controllers, PVC, Service, NetworkPolicy."""

from __future__ import annotations

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
    return _non_negative(
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
    return errors


def persistent_volume_claim(doc: dict) -> Errors:
    spec = _spec(doc)
    errors: Errors = []
    if not spec.get("accessModes"):
        errors.append(("spec.accessModes", "Required value: at least 1 access mode is required"))
    # core/validation ValidatePersistentVolumeClaimSpec: each mode one of the four.
    for mode in sequence(spec.get("accessModes")):
        if mode not in _ACCESS_MODES:
            errors.append(("spec.accessModes", not_supported(mode, _ACCESS_MODES)))
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


def service(doc: dict) -> Errors:
    spec = _spec(doc)
    errors: Errors = []
    kind = spec.get("type", "ClusterIP")
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
        number = port.get("port")
        if isinstance(number, int) and not isinstance(number, bool) and not 1 <= number <= 65535:
            errors.append(
                (
                    f"spec.ports[{index}].port",
                    invalid(number, "must be between 1 and 65535, inclusive"),
                )
            )
        target = port.get("targetPort")
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
}
