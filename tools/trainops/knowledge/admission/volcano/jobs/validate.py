"""Volcano v1.15.1 pkg/webhooks/admission/jobs/validate/admit_job.go validateJobCreate (and the
helpers of util.go it calls) for a batch.volcano.sh Job, after the defaults the mutating webhook
(pkg/webhooks/admission/jobs/mutate/mutate_job.go createPatch) applies first.

At v1.15.1 the webhook no longer checks the bounds (minAvailable, maxRetry and
ttlSecondsAfterFinished not negative, replicas and a task's minAvailable not negative, task names
DNS-1123 labels): the CRD schema and Volcano's ValidatingAdmissionPolicy do (admit_job.go's own
note). The webhook's ValidatePodTemplate of each task is the API server's pod validation, which
trainops applies to every pod template already; what Volcano adds to it is ported here (the pod
and job names, the topology policy's whole CPUs).

The webhook answers with one message, its findings concatenated; each finding is one refusal
here, its text as Volcano words it.
"""

from __future__ import annotations

import copy

from trainops.knowledge.admission.volcano.selector import seen
from trainops.knowledge.apivalidation import names
from trainops.knowledge.apivalidation.formats import Errors, is_int, parse_quantity
from trainops.knowledge.apivalidation.go_quantity import Quantity
from trainops.model.shape import mapping

UPSTREAM = "pkg/webhooks/admission/jobs/validate/admit_job.go validateJobCreate, Volcano v1.15.1"

# mutate_job.go: DefaultQueue; v1alpha1.DefaultTaskSpec (staging/src/volcano.sh/apis/pkg/apis/
# batch/v1alpha1/labels.go).
DEFAULT_QUEUE = "default"
DEFAULT_TASK = "default"
# mutate_job.go patchDefaultPlugins: the plugins that bring the svc plugin; mpi brings ssh too.
_NEED_SVC = ("tensorflow", "mpi", "pytorch", "ray")
# pkg/controllers/job/plugins/factory.go init: the registered job plugins.
PLUGINS = ("ssh", "env", "svc", "tensorflow", "mpi", "pytorch", "hcclrank", "ray")
# util.go policyEventMap and policyActionMap: the events and actions a policy may name.
EVENTS = (
    "*",
    "PodFailed",
    "PodEvicted",
    "PodPending",
    "Unknown",
    "TaskCompleted",
    "TaskFailed",
    "JobUpdated",
)
ACTIONS = (
    "AbortJob",
    "RestartJob",
    "RestartTask",
    "RestartPod",
    "RestartPartition",
    "TerminateJob",
    "CompleteJob",
    "ResumeJob",
)
# getValidEvents/getValidActions print a Go map's keys: their order varies; shown sorted here.
_VALID = f" valid events are [{' '.join(sorted(EVENTS))}], valid actions are [{' '.join(sorted(ACTIONS))}];"
_TOPOLOGY = (
    "must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously"
)
# pkg/controllers/job/plugins/distributed-framework/mpi/mpi.go DefaultMaster.
_MPI_MASTER = "master"


def webhook_check(doc: dict) -> Errors:
    """What validatejob.volcano.sh refuses of a Job it sees, once mutatejob.volcano.sh has
    defaulted it."""
    return validate_job_create(default(doc)) if seen(doc) else []


def default(doc: dict) -> dict:
    """createPatch: the queue, each task's name and minAvailable, the job's minAvailable (the sum
    over tasks), the svc and ssh plugins the framework plugins need. (The scheduler name,
    maxRetry and hostNetwork's DNS policy are defaulted too; no check reads them.)"""
    doc = copy.deepcopy(doc)
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        return doc
    if not spec.get("queue"):
        spec["queue"] = DEFAULT_QUEUE
    listed = spec.get("tasks")
    tasks: list = listed if isinstance(listed, list) else []
    for index, task in enumerate(tasks):
        if not isinstance(task, dict):
            continue
        if not task.get("name"):
            task["name"] = f"{DEFAULT_TASK}{index}"
        if task.get("minAvailable") is None:
            partition = mapping(task.get("partitionPolicy"))
            minimum = _int(partition.get("minPartitions"))
            if task.get("partitionPolicy") is not None and minimum > 0:
                task["minAvailable"] = minimum * _int(partition.get("partitionSize"))
            else:
                task["minAvailable"] = _int(task.get("replicas"))
    if not spec.get("minAvailable"):
        spec["minAvailable"] = sum(
            _int(t.get("minAvailable")) for t in tasks if isinstance(t, dict)
        )
    plugins = spec.get("plugins")
    if isinstance(plugins, dict):
        if any(p in plugins for p in _NEED_SVC):
            plugins.setdefault("svc", [])
        if "mpi" in plugins:
            plugins.setdefault("ssh", [])
    return doc


def _int(value: object) -> int:
    return value if is_int(value) else 0


def validate_job_create(doc: dict) -> Errors:
    """validateJobCreate, in its order; the queue's lookups (it must exist, be Open, not be root
    and have no child queue) need the cluster and are left out."""
    spec = mapping(doc.get("spec"))
    job_name = str(mapping(doc.get("metadata")).get("name") or "")
    tasks = [t if isinstance(t, dict) else {} for t in spec.get("tasks") or []]
    if not tasks:
        return [("spec.tasks", "No task specified in job spec")]
    plugins = mapping(spec.get("plugins"))
    if "mpi" in plugins:
        master = _mpi_master(plugins["mpi"])
        if all(t.get("name") != master for t in tasks):
            return [("spec.plugins[mpi]", "The specified mpi master task was not found")]
    errors: Errors = []
    if message := _network_topology(spec.get("networkTopology")):
        errors.append(("spec.networkTopology", message))
    seen: set[str] = set()
    total = 0
    depends = False
    for index, task in enumerate(tasks):
        where = f"spec.tasks[{index}]"
        name = str(task.get("name") or "")
        replicas = _int(task.get("replicas"))
        depends = depends or task.get("dependsOn") is not None
        minimum = task.get("minAvailable")
        if is_int(minimum) and minimum > replicas:
            errors.append(
                (
                    f"{where}.minAvailable",
                    f" 'minAvailable' is greater than 'replicas' in task: {name}, job: {job_name};",
                )
            )
        total += replicas
        if name in seen:
            errors.append((f"{where}.name", f" duplicated task name {name};"))
            break
        seen.add(name)
        if message := _policies(task.get("policies"), "spec.tasks.policies"):
            errors.append((f"{where}.policies", message + _VALID))
        pod_name = f"{job_name}-{name}-{index}"  # helpers.MakePodName, PodNameFmt
        if problems := names.qualified_name(pod_name):
            errors.append(
                (
                    f"{where}.name",
                    f"create pod with name {pod_name} validate failed [{' '.join(problems)}];",
                )
            )
        if message := topology_policy(task, index):
            errors.append((f"{where}.topologyPolicy", message))
        if message := _partition_policy(task, job_name):
            errors.append((f"{where}.partitionPolicy", message))
    if problems := names.qualified_name(job_name):
        errors.append(
            (
                "metadata.name",
                f"create job with name {job_name} validate failed [{' '.join(problems)}]",
            )
        )
    if total < _int(spec.get("minAvailable")):
        errors.append(
            (
                "spec.minAvailable",
                " job 'minAvailable' should not be greater than total replicas in tasks;",
            )
        )
    if message := _policies(spec.get("policies"), "spec.policies"):
        errors.append(("spec.policies", message + _VALID))
    for plugin in sorted(plugins):  # a Go map: Volcano reports them in any order
        if plugin not in PLUGINS:
            errors.append((f"spec.plugins[{plugin}]", f" unable to find job plugin: {plugin};"))
    if message := _volumes(spec.get("volumes")):
        errors.append(("spec.volumes", message))
    if depends and not _is_dag(tasks):
        errors.append(
            (
                "spec.tasks",
                " job has dependencies between tasks, but doesn't form a directed acyclic "
                "graph(DAG);",
            )
        )
    return errors


def _mpi_master(arguments: object) -> str:
    """mpi.go NewInstance: the --master flag (Go's flag package: -master or --master, with =
    or the next argument); parsing stops at the first argument not a flag, or a bad one."""
    master = _MPI_MASTER
    args = [str(a) for a in arguments] if isinstance(arguments, list) else []
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-") or arg in ("-", "--"):
            break
        flag, eq, value = arg.lstrip("-").partition("=")
        if flag not in ("master", "worker", "port"):
            break
        if not eq:
            if i + 1 >= len(args):
                break
            i += 1
            value = args[i]
        if flag == "master":
            master = value
        i += 1
    return master


def _network_topology(topology: object) -> str:
    """validateNetworkTopology."""
    topology = mapping(topology)
    if topology.get("highestTierAllowed") is not None and topology.get("highestTierName"):
        return _TOPOLOGY
    return ""


def _partition_policy(task: dict, job_name: str) -> str:
    """validatePartitionPolicy."""
    policy = task.get("partitionPolicy")
    if not isinstance(policy, dict):
        return ""
    name = task.get("name") or ""
    total = _int(policy.get("totalPartitions"))
    size = _int(policy.get("partitionSize"))
    minimum = _int(policy.get("minPartitions"))
    available = task.get("minAvailable")
    message = ""
    if total <= 0:
        message = f"'TotalPartitions' must be greater than 0 in task: {name}, job: {job_name}"
    elif size <= 0:
        message = f"'PartitionSize' must be greater than 0 in task: {name}, job: {job_name}"
    elif _int(task.get("replicas")) != total * size:
        message = (
            "'Replicas' are not equal to TotalPartitions*PartitionSize in task: "
            f"{name}, job: {job_name}"
        )
    elif is_int(available) and minimum > 0 and minimum * size != available:
        message = (
            "'MinAvailable' is not equal to MinPartitions*PartitionSize in task: "
            f"{name}, job: {job_name}"
        )
    return message + _network_topology(policy.get("networkTopology"))


def _policies(policies: object, fld: str) -> str:
    """util.go validatePolicies: an event or an exit code, not both; known events and actions;
    no event nor exit code twice; exit code not 0; "*" alone. Its errors joined as
    go-multierror prints them; `fld` is the path validateJobCreate gives it."""
    found: list[str] = []
    events: set[str] = set()
    codes: set[object] = set()
    for policy in policies if isinstance(policies, list) else []:
        policy = mapping(policy)
        has_event = bool(policy.get("event")) or bool(policy.get("events"))
        code = policy.get("exitCode")
        if has_event and code is not None:
            found.append("must not specify event and exitCode simultaneously")
            break
        if not has_event and code is None:
            found.append("either event and exitCode should be specified")
            break
        if has_event:
            stop = False
            for event in _event_list(policy):
                action = policy.get("action") or ""
                if event not in EVENTS:
                    found.append(f'{fld}: Invalid value: "{event}": invalid policy event')
                    stop = True
                elif action not in ACTIONS:
                    found.append(f'{fld}: Invalid value: "{action}": invalid policy action')
                    stop = True
                elif event in events:
                    found.append(f"duplicate event {event}  across different policy")
                    stop = True
                if stop:
                    break
                events.add(event)
            if stop:
                break
        else:
            if code == 0:
                found.append("0 is not a valid error code")
                break
            if code in codes:
                found.append(f"duplicate exitCode {code}")
                break
            codes.add(code)
    if "*" in events and len(events) > 1:
        found.append("if there's * here, no other policy should be here")
    if not found:
        return ""
    if len(found) == 1:
        return f"1 error occurred:\n\t* {found[0]}\n\n"
    return f"{len(found)} errors occurred:\n" + "".join(f"\t* {f}\n" for f in found) + "\n"


def _event_list(policy: dict) -> list[str]:
    """getEventList: events, then event, each once."""
    listed = [str(e) for e in policy.get("events") or []]
    if policy.get("event"):
        listed.append(str(policy["event"]))
    return list(dict.fromkeys(listed))


def _volumes(volumes: object) -> str:
    """util.go validateIO: each volume a mount path, once; a claim or a claim name, not both; the
    claim name a PersistentVolume name (a DNS subdomain)."""
    paths: set[str] = set()
    for volume in volumes if isinstance(volumes, list) else []:
        volume = mapping(volume)
        path = volume.get("mountPath") or ""
        claim_name = volume.get("volumeClaimName") or ""
        if not path:
            return " mountPath is required;"
        if path in paths:
            return f" duplicated mountPath: {path};"
        if volume.get("volumeClaim") is None and not claim_name:
            return " either VolumeClaim or VolumeClaimName must be specified;"
        if claim_name:
            if volume.get("volumeClaim") is not None:
                return (
                    "conflict: If you want to use an existing PVC, just specify "
                    "VolumeClaimName.If you want to create a new PVC, you do not need to "
                    "specify VolumeClaimName"
                )
            if problems := names.dns1123_subdomain(claim_name):
                return f"invalid VolumeClaimName {claim_name} : [{' '.join(problems)}]"
        paths.add(path)
    return ""


def topology_policy(task: dict, index: int) -> str:
    """validateTaskTopoPolicy: with a topology policy other than none, every container and init
    container requests whole CPUs (its limits standing for requests it does not set)."""
    if task.get("topologyPolicy") in (None, "", "none"):
        return ""
    pod = mapping(mapping(task.get("template")).get("spec"))
    containers = [*(pod.get("containers") or []), *(pod.get("initContainers") or [])]
    for number, container in enumerate(containers):
        resources = mapping(mapping(container).get("resources"))
        requests = mapping(resources.get("requests")) or mapping(resources.get("limits"))
        cpu = parse_quantity(requests.get("cpu")) if "cpu" in requests else None
        # guaranteedCPUs: 0 unless the amount is whole; validateTaskTopoPolicy refuses 0.
        if not isinstance(cpu, Quantity) or cpu.int_value() * 1000 != cpu.milli_value():
            return f"the cpu request isn't  an integer in spec.task[{index}] container[{number}]."
        if cpu.int_value() == 0:
            return f"the cpu request isn't  an integer in spec.task[{index}] container[{number}]."
    return ""


def _is_dag(tasks: list[dict]) -> bool:
    """util.go topoSort: the tasks and their dependsOn edges form no cycle."""
    names_ = [str(t.get("name") or "") for t in tasks]
    degree = dict.fromkeys(names_, 0)
    edges: dict[str, set[str]] = {}
    for task in tasks:
        for before in mapping(task.get("dependsOn")).get("name") or []:
            edges.setdefault(str(before), set()).add(str(task.get("name") or ""))
            degree[str(task.get("name") or "")] += 1
    ready = [n for n, d in degree.items() if d == 0]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for after in edges.pop(node, set()):
            degree[after] -= 1
            if degree[after] == 0:
                ready.append(after)
    return done == len(names_)
