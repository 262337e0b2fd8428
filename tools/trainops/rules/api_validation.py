"""Objects pass the API server's own validation, and so do the Pods operators build from templates.

What it catches — what the API server rejects although every OpenAPI schema accepts it, worded as
the API server words it (kubernetes pkg/apis/core/validation and friends):
- ObjectMeta: names per kind (DNS subdomain; DNS label for Namespaces; DNS-1035 label for
  Services; `<plural>.<group>` for CRDs; path segments for RBAC), generateName, namespace, label
  keys and values, annotation keys and their total size; and, for custom resources, unknown
  fields under `metadata` (a `namepsace:` typo fails strict decoding instead of silently landing
  the object in no namespace).
- Pod specs, wherever they are nested: unique container, init container and volume names;
  volumeMounts and volumeDevices naming existing volumes, unique mount paths; container ports
  (1–65535, IANA service names of at most 15 characters, unique per container); env var names
  (the stricter pre-v1.32 rule while `kubernetesVersions` holds an older version); quantity syntax
  and requests above limits; probes with exactly one handler; restartPolicy per controller (Job
  and CronJob pods OnFailure or Never, Deployments and other controllers Always).
- The built-in kinds' own checks (knowledge/apivalidation/kinds.py and the modules it names), after
  the defaults and the strategy the server applies first: Jobs (completion modes, pod failure and
  success policies, the selector and labels the server generates), CronJobs (the schedule as
  robfig/cron parses it, the time zone, the job template), Deployments, StatefulSets, DaemonSets,
  Services, PVCs, ConfigMaps and Secrets (base64 that does not decode, docker config JSON),
  NetworkPolicies, Ingresses, HPAs, PDBs, RBAC, LimitRanges, ResourceQuotas, PriorityClasses. What
  the cluster's configuration decides (the service CIDR, dual-stack, the NodePort range) is left out.
- The platform kinds, one module per API group as upstream's pkg/apis/<group>/validation:
  ValidatingAdmissionPolicies (their CEL compiled and type-checked as the server does: a
  messageExpression must give a string, `params` exists only with a paramKind, an audit
  annotation's value is a string or null; knowledge/apivalidation/admission_cel.py), their
  Bindings (never both Deny and Warn), webhook configurations (admissionregistration.py);
  PriorityLevelConfigurations (a handSize within its queues and the hash's 60 bits) and
  FlowSchemas (flowcontrol.py); Leases, whose MicroTimes must carry six fractional digits to
  decode (coordination.py); StorageClasses, VolumeAttachments (one source), CSIDrivers and
  CSINodes (storage.py); RuntimeClasses (the handler a DNS label: node.py);
  CertificateSigningRequests (a qualified signerName, a request that is a PEM CSR:
  certificates.py); PersistentVolumes (one source, capacity in storage only, a local volume
  pinned to a node: persistent_volume.py), Endpoints (no loopback or link-local address:
  endpoints.py), EndpointSlices (addresses of their type: discovery.py), Events of both groups
  (events.py). What each port leaves out is in kinds.LEFT_OUT.
- Objects controllers create from templates other than Pods: a StatefulSet's volumeClaimTemplates
  are validated as the PVCs its controller creates, a JobSet's replicated Job templates as the Jobs
  the JobSet controller creates.
- The Pods operators create from templates in custom resources (Kubeflow jobs, Ray clusters and
  jobs, JobSet, Volcano), validated as Pods with what each operator adds (trainops/knowledge/operator_pods.py,
  from the pinned sources): the Training Operator's `init-pytorch`; KubeRay's `wait-gcs-ready` and
  autoscaler, and the Job its RayJob submitter template becomes; Volcano's svc plugin (each Pod's
  hostname `<job>-<task>-<index>` and subdomain `<job>` must be DNS labels, a `<job>-svc` volume
  mounted at /etc/volcano in every container) and pytorch plugin (a `pytorchjob-port` port, the
  `wait-for-master` init container); a JobSet's templates become Jobs, so their restart policy is
  checked too.

Why it matters: a core object fails `kubectl apply`; a template in a custom resource is accepted
with its resource, and its Pods are rejected later, when the operator creates them: the job
never starts, and the reason sits in the operator's events.

How to fix: follow the message; the path names the field.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from trainops.knowledge.apivalidation import kinds, meta
from trainops.knowledge.apivalidation.pod import QUANTITY_SYNTAX, PodContext, validate_pod_spec
from trainops.knowledge.decoding import read_as_server
from trainops.knowledge.operator_pods import OPERATORS, OperatorPod, operator_pod
from trainops.knowledge.pod_templates import SHAPE_VERSION, known_well_shaped, templates_of
from trainops.knowledge.psa.injected import pytorch_init
from trainops.knowledge.schema import core
from trainops.knowledge.schema.catalog import catalog_of
from trainops.model import cache
from trainops.model.findings import Finding, Severity
from trainops.model.objects import K8sObject, Parsed
from trainops.model.rendered import Cluster, Rendered
from trainops.model.shape import mapping, mappings

ID = "api-validation"
SEVERITY = Severity.ERROR
SUMMARY = "objects, and the Pods operators build from their templates, pass the API server's own validation"

# RelaxedEnvironmentVariableValidation is beta and on by default from Kubernetes v1.32
# (pkg/features/versioned_kube_features.go; kube-apiserver v1.32.13 takes "1F1B_SCHEDULE").
RELAXED_ENV_NAMES_FROM = 32


STATEFULSET_PODS = "the Pod the StatefulSet controller creates from this template is rejected: "


def _relaxed(cluster: Cluster) -> bool:
    return _relaxed_in(catalog.kubernetes_versions if (catalog := catalog_of(cluster)) else [])


def _relaxed_in(versions: list[str]) -> bool:
    minors = [
        int(v.split(".")[1])
        for v in versions
        if isinstance(v, str) and v.count(".") == 1 and v.split(".")[1].isdigit()
    ]
    return bool(minors) and min(minors) >= RELAXED_ENV_NAMES_FROM


def _template_context(
    obj: K8sObject, built: OperatorPod, custom: bool, relaxed: bool
) -> PodContext:
    if not custom:
        claims = ()
        if obj.group == "apps" and obj.kind == "StatefulSet":
            templates = mappings(mapping(obj.doc.get("spec")).get("volumeClaimTemplates"))
            claims = tuple(
                name
                for t in templates
                if isinstance(name := mapping(t.get("metadata")).get("name"), str)
            )
        return PodContext(
            kinds.RESTART_POLICIES.get((obj.group, obj.kind)), relaxed, claim_volumes=claims
        )
    who = OPERATORS.get(obj.group, "its operator")
    injected = {
        a.container_name: who
        for a in built.additions
        if a.container_name and a.path.startswith("spec.initContainers[")
    }
    return PodContext(built.restart_policies, relaxed, injected)


def _is_custom(obj: K8sObject, cluster: Cluster) -> bool:
    catalog = catalog_of(cluster)
    return (
        bool(catalog is not None and catalog.installer_of(obj.api_version, obj.kind) is not None)
        or obj.group in OPERATORS
    )


def _errors(
    obj: K8sObject, cluster: Cluster | None, relaxed: bool, custom: bool
) -> Iterator[tuple[str, str]]:
    """`cluster` is read for a custom resource's Pods alone (what its operator adds)."""
    metadata = mapping(obj.doc.get("metadata"))
    yield from meta.validate(obj.group, obj.kind, metadata, custom=custom)
    if obj.group == "apiextensions.k8s.io" and obj.kind == "CustomResourceDefinition":
        yield from meta.validate_crd_name(obj.doc)
    check = kinds.KIND_CHECKS.get((obj.group, obj.kind))
    if check is not None:
        yield from check(obj.doc)
    for template in templates_of(obj):
        built = (
            operator_pod(obj, template, cluster)
            if custom and cluster is not None
            else OperatorPod(template)
        )
        prefix = ""
        if custom:
            made = "Job" if built.restart_policies else "Pod"
            prefix = f"the {made} {OPERATORS.get(obj.group, 'its operator')} creates from this template is rejected: "
        elif obj.group == "apps" and obj.kind == "StatefulSet":
            # apps ValidatePodTemplateSpecForStatefulSet leaves the pod spec unvalidated (a TODO
            # upstream): the server takes the StatefulSet, its controller's Pods are refused.
            prefix = STATEFULSET_PODS
        if template.path:
            labels_meta = {
                k: template.metadata.get(k)
                for k in ("labels", "annotations")
                if isinstance(template.metadata, dict)
            }
            for path, message in meta.validate(
                "", "Pod", labels_meta, custom=False, path=template.child("metadata")
            ):
                yield path, prefix + message
        context = _template_context(obj, built, custom, relaxed)
        for path, message in validate_pod_spec(built.template.spec, "spec", context):
            if prefix == STATEFULSET_PODS and (
                path == "spec.restartPolicy" or message == QUANTITY_SYNTAX
            ):
                # ValidateStatefulSetSpec checks the policy; a quantity fails decoding itself
                yield template.child(path), message
                continue
            addition = built.addition_at(path)
            if addition is not None:
                if message.startswith("Duplicate value") and addition.container_name in (
                    context.injected_init
                ):
                    continue  # reported at the template's own container of that name
                message = f"{message} (in {addition.description})"
                path = addition.report_at
            yield template.child(path), prefix + message


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    relaxed = _relaxed(cluster)
    context = _context(cluster, relaxed)
    for obj, errors in _errors_by_object(rendered.objects, cluster, relaxed, context):
        for path, message in errors:
            yield Finding(ID, SEVERITY, message, rendered.root, obj.file, obj.line, obj.ref, path)


# An object's errors depend on the object, on trainops' code and on this much of its cluster: the
# Kubernetes versions, which kinds are custom resources, and the init container the Training
# Operator injects. They are kept across runs by the text the objects were parsed from (a warm run
# of 10,000 objects reads 200 entries instead of checking every container again).
RESULTS = "api-validation-v1"


def _context(cluster: Cluster, relaxed: bool) -> str:
    catalog = catalog_of(cluster)
    return json.dumps(
        [
            relaxed,
            catalog.kubernetes_versions if catalog is not None else None,
            sorted(map(list, catalog.crd_schemas)) if catalog is not None else None,
            repr(cluster.memo("pytorch-init", pytorch_init)),
        ],
        default=str,
    )


def _errors_by_object(
    objects: list[K8sObject], cluster: Cluster, relaxed: bool, context: str
) -> Iterator[tuple[K8sObject, list[tuple[str, str]]]]:
    by_source: dict[str | None, list[tuple[int, K8sObject]]] = {}
    for obj in objects:
        digest, _, index = (obj.source or "").rpartition(":")
        by_source.setdefault(digest or None, []).append((int(index or 0), obj))
    catalog = catalog_of(cluster)
    versions = catalog.kubernetes_versions if catalog is not None else []
    for digest, members in by_source.items():
        if digest is None:
            for _, obj in members:
                custom = _is_custom(obj, cluster)
                yield obj, list(dict.fromkeys(_errors(obj, cluster, relaxed, custom)))
            continue
        key = cache.key_of(
            RESULTS, cache.package_digest(), context, digest, ",".join(str(i) for i, _ in members)
        )
        kept = _kept(cache.load(RESULTS, key), len(members))
        if kept is not None:
            yield from zip((obj for _, obj in members), kept)
            continue
        prechecked = (
            _prechecked(cache.load(RESULTS, _unit_key(digest, unit_context(versions))))
            if versions
            else None
        )
        found = []
        for index, obj in members:
            custom = _is_custom(obj, cluster)
            known = (
                prechecked[index]
                if prechecked is not None and not custom and index < len(prechecked)
                else None
            )
            found.append(
                known
                if known is not None
                else list(dict.fromkeys(_errors(obj, cluster, relaxed, custom)))
            )
        cache.store(RESULTS, key, json.dumps(found).encode())
        yield from zip((obj for _, obj in members), found)


# What a cold run finds on every core: the errors of objects that are no custom resource depend
# on nothing of their cluster but its Kubernetes versions, so the workers that parse files
# (trainops.check.unit_worker) find them for each unit they parse and keep them, one list per
# object of the unit (None where it did not judge: a custom resource, or an object it failed on).
# The run takes them for the objects that are no custom resource by its own catalog.
def unit_context(versions: list[str]) -> bytes:
    """What a worker is sent with each unit: the version objects are read as, the names rule, and
    whether the run checks the schemas of SHAPE_VERSION (see precheck_unit)."""
    return json.dumps([versions[0], _relaxed_in(versions), SHAPE_VERSION in versions]).encode()


def _unit_key(digest: str, context: bytes) -> str:
    return cache.key_of(RESULTS, cache.package_digest(), "unit", context.decode(), digest)


def precheck_unit(parsed: list[Parsed], key: str, context: bytes) -> None:
    """Find and keep the errors of a unit's objects that are no custom resource (in a worker:
    their documents are its own to read as the server does)."""
    version, relaxed, shapes_checked = json.loads(context)
    found: list[list[tuple[str, str]] | None] = []
    for obj in (obj for one in parsed for obj in one.objects):
        if obj.group in OPERATORS:
            found.append(None)
            continue
        try:
            read_as_server(obj, version)
            if shapes_checked and core.schema_for(SHAPE_VERSION, obj.api_version, obj.kind):
                # The run checks the object against that schema and withholds it from this rule
                # at any field of the wrong type: its templates' own check would find nothing
                # more (knowledge.pod_templates.known_well_shaped), and is not made twice.
                known_well_shaped(obj)
            found.append(list(dict.fromkeys(_errors(obj, None, relaxed, custom=False))))
        except Exception:  # noqa: BLE001 - an object this rule never sees (ill-shaped): the run decides
            found.append(None)
    cache.store(RESULTS, _unit_key(key[:32], context), json.dumps(found).encode())


def _prechecked(payload: bytes | None) -> list[list[tuple[str, str]] | None] | None:
    """A worker's entry (precheck_unit), or None when it is absent or not of that shape."""
    return _entry(payload, unjudged=True)


def _kept(payload: bytes | None, count: int) -> list[list[tuple[str, str]]] | None:
    """The run's entry: the errors of `count` objects, or None when it is absent or not of that
    shape."""
    kept = _entry(payload, unjudged=False)
    if kept is None or len(kept) != count:
        return None
    return [errors for errors in kept if errors is not None]


def _entry(payload: bytes | None, unjudged: bool) -> list[list[tuple[str, str]] | None] | None:
    """An entry's lists of errors, one an object (None for one not judged, where `unjudged`)."""
    if payload is None:
        return None
    try:
        data = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(data, list):
        return None
    kept: list[list[tuple[str, str]] | None] = []
    for errors in data:
        if errors is None and unjudged:
            kept.append(None)
        elif isinstance(errors, list) and all(
            isinstance(e, list) and len(e) == 2 and all(isinstance(p, str) for p in e)
            for e in errors
        ):
            kept.append([(path, message) for path, message in errors])
        else:
            return None
    return kept
