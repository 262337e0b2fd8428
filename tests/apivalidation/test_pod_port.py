"""The Pod spec port (trainops/knowledge/apivalidation/pod*.py and go_quantity.py), case by case.

Every case in the tables below was sent to kube-apiserver v1.32.13 (a server-side dry run of a Pod,
or of a Deployment holding the spec as its template): the accepted cases are the ones the server
accepted, and each rejected case lists errors, path and message, that the server's answer holds
word for word. Where the server answered with an admission plugin's verdict first (Priority,
RuntimeClass, ServiceAccount) or printed a pointer's address, the case lists the error trainops
gives instead (the same verdict; validation.go's words for what admission hid).
"""

from __future__ import annotations

import pytest
import yaml

from trainops.knowledge.apivalidation import go_quantity, names
from trainops.knowledge.apivalidation.pod import PodContext, validate_pod_spec
from trainops.knowledge.apivalidation.pod_common import memoized

POD = PodContext(("Always", "OnFailure", "Never"), relaxed_env_names=True)  # the Pod kind
TEMPLATE = PodContext(("Always",), relaxed_env_names=True)  # a Deployment's template
OPERATOR = PodContext(relaxed_env_names=True)  # a Pod an operator creates from a template
GPU_HALF = (
    "Invalid value: resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, "
    'd:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer'
)


def _spec(text: str) -> dict:
    return yaml.safe_load(text)


def _errors(spec: dict, context: PodContext = POD, path: str = "spec") -> list[tuple[str, str]]:
    return validate_pod_spec(spec, path, context)


def test_a_pod_an_operator_creates_is_checked_as_a_pod_is_created():
    """Pod-only checks apply to Pods and to the Pods operators create (pt-15, pt-16, vc-job-06 of
    the sweep), not to a Deployment's template (its Pods are created later, by its controller)."""
    spec = _spec("""
containers:
  - {name: c, image: "img:1 ", resources: {limits: {nvidia.com/gpu: "0.5"}}}
ephemeralContainers: [{name: debug, image: busybox}]
""")
    assert set(validate_pod_spec(spec, "spec", OPERATOR)) == {
        (
            "spec.containers[0].image",
            'Invalid value: "img:1 ": must not have leading or trailing whitespace',
        ),
        ("spec.containers[0].resources.limits[nvidia.com/gpu]", GPU_HALF),
        (
            "spec.containers[0].resources.requests[nvidia.com/gpu]",
            GPU_HALF,
        ),  # defaulted to the limit
        ("spec.ephemeralContainers", "Forbidden: cannot be set on create"),
    }
    assert set(validate_pod_spec(spec, "spec.template.spec", TEMPLATE)) == {
        ("spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]", GPU_HALF),
        (
            "spec.template.spec.ephemeralContainers",
            "Forbidden: ephemeral containers not allowed in pod template",
        ),
    }
    as_template = PodContext(relaxed_env_names=True, creates_pod=False)
    assert ("spec.ephemeralContainers", "Forbidden: cannot be set on create") not in (
        validate_pod_spec(spec, "spec", as_template)
    )


def test_admission_judges_the_pod_kind_only():
    """The Priority and RuntimeClass admission plugins judge a Pod as written (pod-a4 of the sweep:
    no PriorityClass is a global default); an operator may set its Pods' priority class itself."""
    spec = _spec("""
containers: [{name: c, image: x}]
priority: 1000
overhead: {cpu: 100m}
""")
    assert _errors(spec) == [
        (
            "spec.priority",
            "Forbidden: the integer value of priority (1000) must not be provided in pod spec; "
            "priority admission controller computed 0 from the given PriorityClass name",
        ),
        (
            "spec.overhead",
            "Forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined "
            "Overhead",
        ),
    ]
    assert validate_pod_spec(spec, "spec", OPERATOR) == []
    assert validate_pod_spec(spec, "spec.template.spec", TEMPLATE) == []


def test_a_pods_negative_grace_period_is_one_second():
    """Convert_v1_Pod_To_core_Pod makes a Pod's negative terminationGracePeriodSeconds 1 before
    validateSleepAction reads it; a template keeps its own."""
    spec = _spec("""
terminationGracePeriodSeconds: -1
containers: [{name: c, image: x, lifecycle: {preStop: {sleep: {seconds: 1}}}}]
""")
    assert _errors(spec) == []
    message = (
        "Invalid value: 1: must be greater than 0 and less than terminationGracePeriodSeconds (-1). "
        "Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep."
    )
    assert _errors(spec, TEMPLATE, "spec.template.spec") == [
        ("spec.template.spec.containers[0].lifecycle.preStop.sleep", message)
    ]


def test_yaml_numbers_are_read_as_kubectl_sends_them():
    """kubectl sends a YAML float as encoding/json writes it: 1.0 as 1, 0.5 as 0.5."""
    assert go_quantity.text_of(1.0) == "1" and go_quantity.text_of(1e-7) == "1e-7"
    assert go_quantity.text_of(True) is None and go_quantity.text_of(" 2Gi ") == "2Gi"
    spec = {
        "containers": [{"name": "c", "image": "x", "resources": {"limits": {"amd.com/gpu": 1.0}}}]
    }
    assert _errors(spec) == []


def test_host_network_pods_default_their_host_ports():
    """SetDefaults_Pod: with hostNetwork a Pod's hostPort defaults to its containerPort, so two
    containers on one port collide; a template's do not until its Pods are made."""
    spec = _spec("""
hostNetwork: true
containers:
  - {name: a, image: x, ports: [{containerPort: 29500}]}
  - {name: b, image: x, ports: [{containerPort: 29500}]}
""")
    assert _errors(spec) == [
        ("spec.containers[1].ports[0].hostPort", 'Duplicate value: "TCP//29500"')
    ]
    assert _errors(spec, TEMPLATE, "spec.template.spec") == []
    spec["containers"][1]["ports"][0]["hostPort"] = 29501
    message = "Invalid value: 29501: must match `containerPort` when `hostNetwork` is true"
    assert _errors(spec, TEMPLATE, "spec.template.spec") == [
        ("spec.template.spec.containers[1].ports[0].hostPort", message)
    ]


def test_a_statefulsets_claims_are_volumes_of_its_pods():
    spec = _spec("""
containers:
  - name: c
    image: x
    volumeMounts: [{name: data, mountPath: /data}]
    volumeDevices: [{name: raw, devicePath: /dev/raw}]
volumes: [{name: data, emptyDir: {}}]
""")
    claims = PodContext(("Always",), claim_volumes=("data", "raw"))
    assert validate_pod_spec(spec, "spec.template.spec", claims) == []
    assert validate_pod_spec(spec, "spec.template.spec", PodContext(("Always",))) == [
        ("spec.template.spec.containers[0].volumeDevices[0].name", 'Not found: "raw"')
    ]


def test_a_volume_with_an_error_is_not_one_a_mount_may_name():
    spec = _spec("""
containers: [{name: c, image: x, volumeMounts: [{name: data, mountPath: /data}]}]
volumes: [{name: data, nfs: {server: nfs.local, path: exports}}]
""")
    assert _errors(spec) == [
        ("spec.volumes[0].nfs.path", 'Invalid value: "exports": must be an absolute path'),
        ("spec.containers[0].volumeMounts[0].name", 'Not found: "data"'),
    ]


def test_image_volumes_are_dropped_with_their_mounts():
    """ImageVolume is off in v1.32: the volume and the mounts of it are dropped, not refused."""
    spec = _spec("""
containers: [{name: c, image: x, volumeMounts: [{name: model, mountPath: /model, subPath: /abs}]}]
volumes: [{name: model, image: {reference: "registry/model:1"}}]
""")
    assert _errors(spec) == []


def test_the_same_content_at_two_paths_is_reported_at_each():
    tolerations = [{"key": "a", "operator": "Exists", "value": "x"}]
    spec = {"containers": [{"name": "c", "image": "x"}], "tolerations": tolerations}
    message = "Invalid value: \"x\": value must be empty when `operator` is 'Exists'"
    assert _errors(spec) == [("spec.tolerations[0].operator", message)]
    assert _errors(spec, POD, "spec.template.spec") == [
        ("spec.template.spec.tolerations[0].operator", message)
    ]
    seen = []
    check = memoized(lambda value, path: seen.append(value) or [(f"{path}.x", "bad")])
    assert check([1], "a") == [("a.x", "bad")] and check([1], "b") == [("b.x", "bad")]
    assert check([True], "c") == [("c.x", "bad")] and seen == [[1], [True]]  # 1 is not True


def test_wrong_typed_input_never_raises():
    hostile = _spec("""
containers:
  - name: [x]
    image: 3
    ports: [{containerPort: x, hostPort: [1]}, 4]
    env: [{name: A, valueFrom: {fieldRef: [1]}}, {name: B, valueFrom: {secretKeyRef: {name: [1], key: {}}}}]
    envFrom: [{configMapRef: 3}]
    resources: {limits: {cpu: [1], memory: true}, requests: {nvidia.com/gpu: {a: 1}}}
    volumeMounts: [{name: [v], mountPath: 3}, 5]
    volumeDevices: [{name: 1}]
    securityContext: {runAsUser: x, seccompProfile: [1], capabilities: {add: 3}}
    livenessProbe: {httpGet: {port: [1]}, successThreshold: x}
    lifecycle: {preStop: {sleep: {seconds: x}}}
volumes: [{name: [x]}, {name: v, projected: {sources: 3}}, {name: w, downwardAPI: {items: [3]}}]
affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [3]}}}
tolerations: [3, {key: [1]}]
topologySpreadConstraints: [{maxSkew: x, labelSelector: 3}]
dnsConfig: {nameservers: 3, options: [3]}
securityContext: {sysctls: [3, {name: [1]}], supplementalGroups: x}
os: {name: [1]}
""")
    for context in (POD, TEMPLATE, OPERATOR):
        validate_pod_spec(hostile, "spec", context)


def test_quantities_read_and_print_as_the_server_does():
    assert [go_quantity.parse(t).string() for t in ("0.5", "1500Mi", "1024Mi", "1.5Gi", "2000m")] == [
        "500m", "1500Mi", "1Gi", "1536Mi", "2",
    ]  # fmt: skip
    assert go_quantity.round_up_milli(go_quantity.parse("100u")).string() == "1m"
    assert go_quantity.round_up_milli(go_quantity.parse("0.5")).go_repr() == GPU_HALF.split(": ")[1]
    assert go_quantity.parse("1.G").value == 10**9 and go_quantity.parse("-").value == 0
    for text, error in (
        ("1K", go_quantity.SUFFIX_WRONG),
        ("1ki", go_quantity.SUFFIX_WRONG),
        ("abc", go_quantity.FORMAT_WRONG),
        ("", go_quantity.FORMAT_WRONG),
    ):
        with pytest.raises(go_quantity.QuantityError, match="^" + error.replace("(", r"\(")[:20]):
            go_quantity.parse(text)


def test_names_in_the_servers_words():
    assert names.is_dns1123_label("a.b") == ("must not contain dots",)
    assert names.qualified_name("/") == (
        "prefix part must be non-empty",
        "name part must be non-empty",
        names.qualified_name("-")[0],
    )
    assert names.port_name("8080") == ("must contain at least one letter (a-z)",)
    assert names.config_map_key("..x") == ("must not start with '..'",)
    assert names.config_map_key("a b")[0].startswith("a valid config key must consist of")


# The cases the server judged (one a line: `make lint` leaves the tables as written).
# fmt: off
ACCEPTED_PODS = [
    ('ok', {'containers': [{'name': 'c', 'image': 'img:1'}]}),
    ('gpu limit only', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'nvidia.com/gpu': 2}}}]}),
    ('gpu req==lim', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'nvidia.com/gpu': 2}, 'requests': {'nvidia.com/gpu': '2'}}}]}),
    ('gpu 2000m', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'nvidia.com/gpu': '2000m'}}}]}),
    ('cpu 0.0001', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'cpu': '0.0001'}}}]}),
    ('resource kubernetes.io/x', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'kubernetes.io/foo': 1}}}]}),
    ('resource bad ext', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'example.com/a_b': 1}}}]}),
    ('hugepages ok', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'hugepages-2Mi': '4Mi', 'memory': '1Gi'}}}]}),
    ('ephemeral-storage ok', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'ephemeral-storage': '10Gi'}}}]}),
    ('quantity null', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'cpu': None}}}]}),
    ('quantity dash', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'cpu': '-'}}}]}),
    ('quantity 1.G', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'memory': '1.G'}}}]}),
    ('env cm key ok', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'configMapKeyRef': {'name': 'cm', 'key': 'a.b_c-D'}}}]}]}),
    ('env fieldRef labels subscript', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'fieldRef': {'fieldPath': "metadata.labels['app']"}}}]}]}),
    ('env fieldRef spec.host', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'fieldRef': {'fieldPath': 'spec.host'}}}]}]}),
    ('env rfr ok divisor', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'resourceFieldRef': {'resource': 'limits.memory', 'divisor': '1Mi'}}}]}]}),
    ('env rfr divisor 1024Ki', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'resourceFieldRef': {'resource': 'limits.memory', 'divisor': '1024Ki'}}}]}]}),
    ('env rfr divisor 0.001 cpu', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'resourceFieldRef': {'resource': 'requests.cpu', 'divisor': '0.001'}}}]}]}),
    ('envFrom cm name trailing dash', {'containers': [{'name': 'c', 'image': 'img:1', 'envFrom': [{'configMapRef': {'name': 'abc-'}}]}]}),
    ('vol name only', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v'}]}),
    ('vol emptyDir null', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'emptyDir': None}]}),
    ('vol hostPath type empty', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'hostPath': {'path': '/a', 'type': ''}}]}),
    ('vol ephemeral ok', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'ephemeral': {'volumeClaimTemplate': {'spec': {'accessModes': ['ReadWriteOnce'], 'resources': {'requests': {'storage': '1Gi'}}}}}}]}),
    ('vol projected token default', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'projected': {'sources': [{'serviceAccountToken': {'path': 't'}}]}}]}),
    ('vol projected empty source', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'projected': {'sources': [{}]}}]}),
    ('vol projected ctb', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'projected': {'sources': [{'clusterTrustBundle': {'name': 'x', 'path': 'p'}}]}}]}),
    ('vol dapi labels subscript', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'downwardAPI': {'items': [{'path': 'a', 'fieldRef': {'fieldPath': "metadata.labels['x']"}}]}}]}),
    ('vol image', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'image': {'reference': 'x'}}]}),
    ('vol image+emptyDir', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'image': {'reference': 'x'}, 'emptyDir': {}}]}),
    ('vol csi Upper', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'csi': {'driver': 'Driver.Example.COM'}}]}),
    ('vol azureDisk managed ok', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'azureDisk': {'diskName': 'd', 'diskURI': '/subscriptions/x', 'kind': 'Managed'}}]}),
    ('vol iscsi ok', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'iscsi': {'targetPortal': '1.2.3.4:3260', 'iqn': 'iqn.2001-04.com.example:storage', 'lun': 0}}]}),
    ('mount prop bidir privileged', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m', 'mountPropagation': 'Bidirectional'}], 'securityContext': {'privileged': True}}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}),
    ('mount rro ifpossible readonly', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m', 'recursiveReadOnly': 'IfPossible', 'readOnly': True}]}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}),
    ('mount rro disabled rw', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m', 'recursiveReadOnly': 'Disabled'}]}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}),
    ('device ok', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeDevices': [{'name': 'v', 'devicePath': '/dev/x'}]}], 'volumes': [{'name': 'v', 'persistentVolumeClaim': {'claimName': 'c'}}]}),
    ('probe success 0', {'containers': [{'name': 'c', 'image': 'img:1', 'livenessProbe': {'exec': {'command': ['true']}, 'successThreshold': 0}}]}),
    ('probe success 2 readiness', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'exec': {'command': ['true']}, 'successThreshold': 2}}]}),
    ('probe tgps liveness ok', {'containers': [{'name': 'c', 'image': 'img:1', 'livenessProbe': {'exec': {'command': ['true']}, 'terminationGracePeriodSeconds': 10}}]}),
    ('httpGet port name ok', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'httpGet': {'port': 'http'}}}]}),
    ('lifecycle empty', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {}}]}),
    ('lifecycle sleep 30', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'preStop': {'sleep': {'seconds': 30}}}}]}),
    ('lifecycle sleep 40 grace 60', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'preStop': {'sleep': {'seconds': 40}}}}], 'terminationGracePeriodSeconds': 60}),
    ('lifecycle grpc? tcp', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'postStart': {'tcpSocket': {'port': 'x'}}}}]}),
    ('init resizePolicy', {'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'i', 'image': 'img:1', 'resizePolicy': [{'resourceName': 'cpu', 'restartPolicy': 'NotRequired'}]}]}),
    ('resizePolicy bad', {'containers': [{'name': 'c', 'image': 'img:1', 'resizePolicy': [{'resourceName': 'gpu', 'restartPolicy': 'X'}]}]}),
    ('hostPort dup udp/tcp', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 80, 'hostPort': 80}, {'containerPort': 81, 'hostPort': 80, 'protocol': 'UDP'}]}]}),
    ('hostPort dup hostIP', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 80, 'hostPort': 80, 'hostIP': '1.2.3.4'}, {'containerPort': 81, 'hostPort': 80}]}]}),
    ('hostNetwork init vs container', {'hostNetwork': True, 'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 80}]}], 'initContainers': [{'name': 'i', 'image': 'img:1', 'ports': [{'containerPort': 80}]}]}),
    ('hostNetwork init hostport mismatch', {'hostNetwork': True, 'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'i', 'image': 'img:1', 'ports': [{'containerPort': 80, 'hostPort': 81}]}]}),
    ('seccomp localhost empty', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'seccompProfile': {'type': 'Localhost', 'localhostProfile': ''}}}]}),
    ('cap sys admin short', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'allowPrivilegeEscalation': False, 'capabilities': {'add': ['SYS_ADMIN']}}}]}),
    ('procMount unmasked', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'procMount': 'Unmasked'}}]}),
    ('procMount bad', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'procMount': 'Weird'}}]}),
    ('windows ok', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'runAsUserName': 'ContainerUser'}}}], 'os': {'name': 'windows'}}),
    ('hostProcess ok', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'windowsOptions': {'hostProcess': True}}, 'hostNetwork': True}),
    ('sysctl slash', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'sysctls': [{'name': 'net/core/somaxconn', 'value': '1'}]}}),
    ('sysctl unsafe ok', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'sysctls': [{'name': 'kernel.msgmax', 'value': '1'}]}}),
    ('hostUsers false + hostNetwork', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostUsers': False, 'hostNetwork': True}),
    ('supplementalGroupsPolicy bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'supplementalGroupsPolicy': 'Bad'}}),
    ('seLinuxChangePolicy bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'seLinuxChangePolicy': 'Bad'}}),
    ('shareProcessNamespace false hostPID', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostPID': True, 'shareProcessNamespace': False}),
    ('tol ok exists', {'containers': [{'name': 'c', 'image': 'img:1'}], 'tolerations': [{'operator': 'Exists'}]}),
    ('tol seconds noexecute ok', {'containers': [{'name': 'c', 'image': 'img:1'}], 'tolerations': [{'key': 'a', 'effect': 'NoExecute', 'tolerationSeconds': 10}]}),
    ('na gt one non-int', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'Gt', 'values': ['x']}]}]}}}}),
    ('na bad value', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'In', 'values': ['a b']}]}]}}}}),
    ('na empty term', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [{}]}}}}),
    ('pa ok', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'zone', 'labelSelector': {'matchLabels': {'a': 'b'}}}]}}}),
    ('pa matchLabelKeys in selector', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'z', 'matchLabelKeys': ['app'], 'labelSelector': {'matchLabels': {'app': 'x'}}}]}}}),
    ('tsc ok', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule'}]}),
    ('tsc mindomains ok', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule', 'minDomains': 2}]}),
    ('dns None ok', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsPolicy': 'None', 'dnsConfig': {'nameservers': ['1.1.1.1']}}),
    ('dns ns leading zero', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsConfig': {'nameservers': ['010.0.0.1']}}),
    ('dns ns ipv6', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsConfig': {'nameservers': ['2001:db8::1', '::ffff:10.0.0.1']}}),
    ('dns search trailing dot', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsConfig': {'searches': ['svc.cluster.local.']}}),
    ('priority 0', {'containers': [{'name': 'c', 'image': 'img:1'}], 'priority': 0}),
    ('priority system ok', {'containers': [{'name': 'c', 'image': 'img:1'}], 'priority': 2000001000, 'priorityClassName': 'system-node-critical'}),
    ('tgps negative', {'containers': [{'name': 'c', 'image': 'img:1'}], 'terminationGracePeriodSeconds': -1}),
    ('imagePullSecrets empty name', {'containers': [{'name': 'c', 'image': 'img:1'}], 'imagePullSecrets': [{}]}),
    ('resources pod-level', {'containers': [{'name': 'c', 'image': 'img:1'}], 'resources': {'limits': {'cpu': '1'}}}),
    ('resourceClaims', {'containers': [{'name': 'c', 'image': 'img:1'}], 'resourceClaims': [{'name': 'A'}]}),
    ('tgps -1 sleep 1', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'preStop': {'sleep': {'seconds': 1}}}}], 'terminationGracePeriodSeconds': -1}),
    ('rfr divisor 0', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'resourceFieldRef': {'resource': 'limits.cpu', 'divisor': '0'}}}]}]}),
    ('hostAliases ipv6', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostAliases': [{'ip': '2001:db8::1', 'hostnames': ['a.b']}]}),
    ('hostAliases leading zeros', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostAliases': [{'ip': '010.000.000.001', 'hostnames': ['a']}]}),
    ('readinessGate ok', {'containers': [{'name': 'c', 'image': 'img:1'}], 'readinessGates': [{'conditionType': 'example.com/ready'}]}),
    ('two containers same hostport different hostIP', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 80, 'hostPort': 80, 'hostIP': '10.0.0.1'}]}, {'name': 'd', 'image': 'img:1', 'ports': [{'containerPort': 80, 'hostPort': 80, 'hostIP': '10.0.0.2'}]}]}),
    ('memory request < limit', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'memory': '2Gi'}, 'requests': {'memory': '1Gi'}}}]}),
    ('hugepages eq req', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'hugepages-1Gi': '2Gi', 'memory': '1Gi'}, 'requests': {'hugepages-1Gi': '2Gi', 'memory': '1Gi'}}}]}),
    ('gpu 1.0 float', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'nvidia.com/gpu': 1.0}}}]}),
    ('cpu as float', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'cpu': 0.5}}}]}),
    ('gpu bare int', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'amd.com/gpu': 1}, 'requests': {'amd.com/gpu': 1}}}]}),
]

REJECTED_PODS = [
    ('gpu 500m', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'nvidia.com/gpu': '500m'}}}]}, [('spec.containers[0].resources.limits[nvidia.com/gpu]', 'Invalid value: resource.Quantity{i:resource.int64Amount{value:500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"500m", Format:"DecimalSI"}: must be an integer'), ('spec.containers[0].resources.requests[nvidia.com/gpu]', 'Invalid value: resource.Quantity{i:resource.int64Amount{value:500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"500m", Format:"DecimalSI"}: must be an integer')]),
    ('gpu 1.0001', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'nvidia.com/gpu': '1.0001'}}}]}, [('spec.containers[0].resources.limits[nvidia.com/gpu]', 'Invalid value: resource.Quantity{i:resource.int64Amount{value:1001, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer'), ('spec.containers[0].resources.requests[nvidia.com/gpu]', 'Invalid value: resource.Quantity{i:resource.int64Amount{value:1001, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer')]),
    ('cpu negative', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'requests': {'cpu': '-100m'}}}]}, [('spec.containers[0].resources.requests[cpu]', 'Invalid value: "-100m": must be greater than or equal to 0')]),
    ('mem negative lim', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'memory': '-1Gi'}}}]}, [('spec.containers[0].resources.limits[memory]', 'Invalid value: "-1Gi": must be greater than or equal to 0'), ('spec.containers[0].resources.requests[memory]', 'Invalid value: "-1Gi": must be greater than or equal to 0')]),
    ('resource gpu bare', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'gpu': 1}}}]}, [('spec.containers[0].resources.limits[gpu]', 'Invalid value: gpu: must be a standard resource type or fully qualified'), ('spec.containers[0].resources.limits[gpu]', 'Invalid value: gpu: must be a standard resource for containers'), ('spec.containers[0].resources.requests[gpu]', 'Invalid value: gpu: must be a standard resource type or fully qualified'), ('spec.containers[0].resources.requests[gpu]', 'Invalid value: gpu: must be a standard resource for containers')]),
    ('resource pods', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'pods': 1}}}]}, [('spec.containers[0].resources.limits[pods]', 'Invalid value: pods: must be a standard resource for containers'), ('spec.containers[0].resources.requests[pods]', 'Invalid value: pods: must be a standard resource for containers')]),
    ('resource requests.hugepages', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'requests.hugepages-2Mi': '2Mi', 'cpu': 1}}}]}, [('spec.containers[0].resources.limits[requests.hugepages-2Mi]', 'Invalid value: requests.hugepages-2Mi: must be a standard resource for containers'), ('spec.containers[0].resources.requests[requests.hugepages-2Mi]', 'Invalid value: requests.hugepages-2Mi: must be a standard resource for containers')]),
    ('resource Upper', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'Example.com/gpu': 1}}}]}, [('spec.containers[0].resources.limits[Example.com/gpu]', "Invalid value: Example.com/gpu: prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"), ('spec.containers[0].resources.limits[Example.com/gpu]', "Invalid value: Example.com/gpu: doesn't follow extended resource name standard"), ('spec.containers[0].resources.requests[Example.com/gpu]', "Invalid value: Example.com/gpu: prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"), ('spec.containers[0].resources.requests[Example.com/gpu]', "Invalid value: Example.com/gpu: doesn't follow extended resource name standard")]),
    ('resource three slashes', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'a/b/c': 1}}}]}, [('spec.containers[0].resources.limits[a/b/c]', "Invalid value: a/b/c: a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"), ('spec.containers[0].resources.limits[a/b/c]', "Invalid value: a/b/c: doesn't follow extended resource name standard"), ('spec.containers[0].resources.requests[a/b/c]', "Invalid value: a/b/c: a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"), ('spec.containers[0].resources.requests[a/b/c]', "Invalid value: a/b/c: doesn't follow extended resource name standard")]),
    ('hugepages not multiple req only', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'requests': {'hugepages-2Mi': '3Mi', 'memory': '1Gi'}, 'limits': {'hugepages-2Mi': '3Mi'}}}]}, [('spec.containers[0].resources.limits[hugepages-2Mi]', 'Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi'), ('spec.containers[0].resources.requests[hugepages-2Mi]', 'Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi')]),
    ('hugepages bad size', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'hugepages-abc': '4Mi', 'cpu': 1}}}]}, [('spec.containers[0].resources.limits[hugepages-abc]', 'Invalid value: "4Mi": 4Mi is not positive integer multiple of hugepages-abc'), ('spec.containers[0].resources.requests[hugepages-abc]', 'Invalid value: "4Mi": 4Mi is not positive integer multiple of hugepages-abc')]),
    ('hugepages req ne lim', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'hugepages-2Mi': '4Mi', 'cpu': 1}, 'requests': {'hugepages-2Mi': '2Mi'}}}]}, [('spec.containers[0].resources.requests', 'Invalid value: "2Mi": must be equal to hugepages-2Mi limit of 4Mi')]),
    ('cpu req > lim', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'cpu': 1}, 'requests': {'cpu': 2}}}]}, [('spec.containers[0].resources.requests[cpu]', 'Invalid value: "2": must be less than or equal to cpu limit of 1')]),
    ('storage in container', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'storage': '10Gi'}}}]}, [('spec.containers[0].resources.limits[storage]', 'Invalid value: storage: must be a standard resource for containers'), ('spec.containers[0].resources.requests[storage]', 'Invalid value: storage: must be a standard resource for containers')]),
    ('quantity 1K', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'cpu': '1K'}}}]}, [('spec.containers[0].resources.limits[cpu]', "unable to parse quantity's suffix")]),
    ('init gpu req only', {'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'i', 'image': 'img:1', 'resources': {'requests': {'nvidia.com/gpu': 1}}}]}, [('spec.initContainers[0].resources.limits', 'Required value: Limit must be set for non overcommitable resources')]),
    ('env cm no name', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'configMapKeyRef': {'key': 'k'}}}]}]}, [('spec.containers[0].env[0].valueFrom.configMapKeyRef.name', 'Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('env secret no key', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'secretKeyRef': {'name': 's'}}}]}]}, [('spec.containers[0].env[0].valueFrom.secretKeyRef.key', 'Required value')]),
    ('env secret key ..x', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'secretKeyRef': {'name': 's', 'key': '..x'}}}]}]}, [('spec.containers[0].env[0].valueFrom.secretKeyRef.key', 'Invalid value: "..x": must not start with \'..\'')]),
    ('env cm key .', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'configMapKeyRef': {'name': 'cm', 'key': '.'}}}]}]}, [('spec.containers[0].env[0].valueFrom.configMapKeyRef.key', 'Invalid value: ".": must not be \'.\'')]),
    ('env valueFrom empty', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {}}]}]}, [('spec.containers[0].env[0].valueFrom', 'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`')]),
    ('env two sources', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'fieldRef': {'fieldPath': 'metadata.name'}, 'secretKeyRef': {'name': 's', 'key': 'k'}}}]}]}, [('spec.containers[0].env[0].valueFrom', 'Invalid value: "": may not have more than one field specified at a time')]),
    ('env value + valueFrom', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'value': 'x', 'valueFrom': {'fieldRef': {'fieldPath': 'metadata.name'}}}]}]}, [('spec.containers[0].env[0].valueFrom', 'Invalid value: "": may not be specified when `value` is not empty')]),
    ('env fieldRef annotations bad', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'fieldRef': {'fieldPath': "metadata.annotations['Bad Key']"}}}]}]}, [('spec.containers[0].env[0].valueFrom.fieldRef', 'Invalid value: "bad key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')')]),
    ('env fieldRef status.phase', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'fieldRef': {'fieldPath': 'status.phase'}}}]}]}, [('spec.containers[0].env[0].valueFrom.fieldRef.fieldPath', 'Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"')]),
    ('env fieldRef name subscript', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'fieldRef': {'fieldPath': "metadata.name['x']"}}}]}]}, [('spec.containers[0].env[0].valueFrom.fieldRef.fieldPath', 'Invalid value: "metadata.name[\'x\']": error converting fieldPath: field label does not support subscript: metadata.name[\'x\']')]),
    ('env fieldRef unknown', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'fieldRef': {'fieldPath': 'spec.foo'}}}]}]}, [('spec.containers[0].env[0].valueFrom.fieldRef.fieldPath', 'Invalid value: "spec.foo": error converting fieldPath: field label not supported: spec.foo')]),
    ('env fieldRef empty', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'fieldRef': {'fieldPath': ''}}}]}]}, [('spec.containers[0].env[0].valueFrom.fieldRef.fieldPath', 'Required value')]),
    ('env rfr bad divisor cpu', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'resourceFieldRef': {'resource': 'limits.cpu', 'divisor': '10m'}}}]}]}, [('spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor', 'Invalid value: "limits.cpu": only divisor\'s values 1m and 1 are supported with the cpu resource')]),
    ('env rfr hugepages', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'resourceFieldRef': {'resource': 'limits.hugepages-2Mi', 'divisor': '2'}}}]}]}, [('spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor', 'Invalid value: "limits.hugepages-2Mi": only divisor\'s values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the hugepages resource')]),
    ('env rfr no resource', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'resourceFieldRef': {'containerName': 'c'}}}]}]}, [('spec.containers[0].env[0].valueFrom.resourceFieldRef.resource', 'Required value')]),
    ('env rfr storage divisor bad', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'resourceFieldRef': {'resource': 'limits.ephemeral-storage', 'divisor': '3'}}}]}]}, [('spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor', 'Invalid value: "limits.ephemeral-storage": only divisor\'s values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource')]),
    ('envFrom no source', {'containers': [{'name': 'c', 'image': 'img:1', 'envFrom': [{'prefix': 'X_'}]}]}, [('spec.containers[0].envFrom', 'Invalid value: "": must specify one of: `configMapRef` or `secretRef`')]),
    ('envFrom both', {'containers': [{'name': 'c', 'image': 'img:1', 'envFrom': [{'configMapRef': {'name': 'a'}, 'secretRef': {'name': 'b'}}]}]}, [('spec.containers[0].envFrom', 'Invalid value: "": may not have more than one field specified at a time')]),
    ('envFrom cm name bad', {'containers': [{'name': 'c', 'image': 'img:1', 'envFrom': [{'configMapRef': {'name': 'Abc'}}]}]}, [('spec.containers[0].envFrom[0].configMapRef.name', 'Invalid value: "Abc": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('envFrom cm no name', {'containers': [{'name': 'c', 'image': 'img:1', 'envFrom': [{'configMapRef': {}}]}]}, [('spec.containers[0].envFrom[0].configMapRef.name', 'Required value')]),
    ('envFrom prefix =', {'containers': [{'name': 'c', 'image': 'img:1', 'envFrom': [{'prefix': 'A=', 'secretRef': {'name': 'b'}}]}]}, [('spec.containers[0].envFrom[0].prefix', 'Invalid value: "A=": a valid environment variable name must consist only of printable ASCII characters other than \'=\'')]),
    ('vol two sources', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'emptyDir': {}, 'configMap': {'name': 'a'}}]}, [('spec.volumes[0].configMap', 'Forbidden: may not specify more than 1 volume type'), ('spec.containers[0].volumeMounts[0].name', 'Not found: "v"')]),
    ('vol three sources', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m'}]}], 'volumes': [{'name': 'v', 'secret': {'secretName': 's'}, 'configMap': {'name': 'a'}, 'downwardAPI': {}}]}, [('spec.volumes[0].downwarAPI', 'Forbidden: may not specify more than 1 volume type'), ('spec.volumes[0].configMap', 'Forbidden: may not specify more than 1 volume type'), ('spec.containers[0].volumeMounts[0].name', 'Not found: "v"')]),
    ('vol hostPath no path', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'hostPath': {}}]}, [('spec.volumes[0].hostPath.path', 'Required value')]),
    ('vol hostPath ..', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'hostPath': {'path': '/a/../b'}}]}, [('spec.volumes[0].hostPath.path', 'Invalid value: "/a/../b": must not contain \'..\'')]),
    ('vol hostPath type bad', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'hostPath': {'path': '/a', 'type': 'Dir'}}]}, [('spec.volumes[0].hostPath.type', 'Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"')]),
    ('vol secret no name', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'secret': {}}]}, [('spec.volumes[0].secret.secretName', 'Required value')]),
    ('vol secret mode 0o1000', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'secret': {'secretName': 's', 'defaultMode': 512}}]}, [('spec.volumes[0].secret.defaultMode', 'Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive')]),
    ('vol secret item mode -1', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'secret': {'secretName': 's', 'items': [{'key': 'a', 'path': 'b', 'mode': -1}]}}]}, [('spec.volumes[0].secret.items[0].mode', 'Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive')]),
    ('vol cm no name', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'configMap': {}}]}, [('spec.volumes[0].configMap.name', 'Required value')]),
    ('vol cm item abs', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'configMap': {'name': 'c', 'items': [{'key': 'a', 'path': '/b'}]}}]}, [('spec.volumes[0].configMap.items[0].path', 'Invalid value: "/b": must be a relative path')]),
    ('vol cm item ..x', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'configMap': {'name': 'c', 'items': [{'key': 'a', 'path': '..x'}]}}]}, [('spec.volumes[0].configMap.items[0].path', 'Invalid value: "..x": must not start with \'..\'')]),
    ('vol cm item no key', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'configMap': {'name': 'c', 'items': [{'path': 'x'}]}}]}, [('spec.volumes[0].configMap.items[0].key', 'Required value')]),
    ('vol cm item empty path', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'configMap': {'name': 'c', 'items': [{'key': 'k', 'path': ''}]}}]}, [('spec.volumes[0].configMap.items[0].path', 'Required value')]),
    ('vol nfs no server', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'nfs': {'path': '/x'}}]}, [('spec.volumes[0].nfs.server', 'Required value')]),
    ('vol nfs empty path', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'nfs': {'server': 's', 'path': ''}}]}, [('spec.volumes[0].nfs.path', 'Required value'), ('spec.volumes[0].nfs.path', 'Invalid value: "": must be an absolute path')]),
    ('vol pvc no claim', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'persistentVolumeClaim': {}}]}, [('spec.volumes[0].persistentVolumeClaim.claimName', 'Required value')]),
    ('vol ephemeral no tmpl', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'ephemeral': {}}]}, [('spec.volumes[0].ephemeral.volumeClaimTemplate', 'Required value')]),
    ('vol ephemeral meta name', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'ephemeral': {'volumeClaimTemplate': {'metadata': {'name': 'x', 'labels': {'a': 'b'}}, 'spec': {'accessModes': ['ReadWriteOnce'], 'resources': {'requests': {'storage': '1Gi'}}}}}}]}, [('spec.volumes[0].ephemeral.volumeClaimTemplate.metadata.name', 'Forbidden: cannot be set')]),
    ('vol ephemeral no access', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'ephemeral': {'volumeClaimTemplate': {'spec': {'resources': {'requests': {'storage': '1Gi'}}}}}}]}, [('spec.volumes[0].ephemeral.volumeClaimTemplate.spec.accessModes', 'Required value: at least 1 access mode is required')]),
    ('vol projected token short', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'projected': {'sources': [{'serviceAccountToken': {'path': 't', 'expirationSeconds': 599}}]}}]}, [('spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds', 'Invalid value: 599: may not specify a duration less than 10 minutes')]),
    ('vol projected token no path', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'projected': {'sources': [{'serviceAccountToken': {}}]}}]}, [('spec.volumes[0].projected.path', 'Required value')]),
    ('vol projected token abs path', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'projected': {'sources': [{'serviceAccountToken': {'path': '/t'}}]}}]}, [('spec.volumes[0].projected.path', 'Invalid value: "/t": must be a relative path')]),
    ('vol projected token huge', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'projected': {'sources': [{'serviceAccountToken': {'path': 't', 'expirationSeconds': 4294967297}}]}}]}, [('spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds', 'Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds')]),
    ('vol projected two in one', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'projected': {'sources': [{'secret': {'name': 's'}, 'configMap': {'name': 'c'}}]}}]}, [('spec.volumes[0].projected.sources[0]', 'Forbidden: may not specify more than 1 volume type per source')]),
    ('vol projected dup paths', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'projected': {'sources': [{'secret': {'name': 's', 'items': [{'key': 'a', 'path': 'x'}]}}, {'configMap': {'name': 'c', 'items': [{'key': 'b', 'path': 'x'}]}}]}}]}, [('spec.volumes[0].projected', 'Invalid value: "c": conflicting duplicate paths')]),
    ('vol projected secret no name', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'projected': {'sources': [{'secret': {}}]}}]}, [('spec.volumes[0].projected.sources[0].secret.name', 'Required value')]),
    ('vol projected dapi dup', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'projected': {'sources': [{'downwardAPI': {'items': [{'path': 'a', 'fieldRef': {'fieldPath': 'metadata.name'}}, {'path': 'a', 'fieldRef': {'fieldPath': 'metadata.uid'}}]}}]}}]}, [('spec.volumes[0].projected', 'Invalid value: "a": conflicting duplicate paths')]),
    ('vol dapi no ref', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'downwardAPI': {'items': [{'path': 'a'}]}}]}, [('spec.volumes[0].downwardAPI', 'Required value: one of fieldRef and resourceFieldRef is required')]),
    ('vol dapi both refs', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'downwardAPI': {'items': [{'path': 'a', 'fieldRef': {'fieldPath': 'metadata.name'}, 'resourceFieldRef': {'containerName': 'c', 'resource': 'limits.cpu'}}]}}]}, [('spec.volumes[0].downwardAPI', 'Invalid value: "resource": fieldRef and resourceFieldRef can not be specified simultaneously')]),
    ('vol dapi rfr no container', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'downwardAPI': {'items': [{'path': 'a', 'resourceFieldRef': {'resource': 'limits.cpu'}}]}}]}, [('spec.volumes[0].downwardAPI.resourceFieldRef.containerName', 'Required value')]),
    ('vol dapi no path', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'downwardAPI': {'items': [{'fieldRef': {'fieldPath': 'metadata.name'}}]}}]}, [('spec.volumes[0].downwardAPI.path', 'Required value')]),
    ('vol csi no driver', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'csi': {}}]}, [('spec.volumes[0].csi.driver', 'Required value'), ('spec.volumes[0].csi.driver', 'Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('vol csi secret bad', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'csi': {'driver': 'd.io', 'nodePublishSecretRef': {'name': 'A'}}}]}, [('spec.volumes[0].csi.name', 'Invalid value: "A": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('vol gitRepo', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'gitRepo': {'repository': 'r', 'directory': '../x'}}]}, [('spec.volumes[0].gitRepo.directory', 'Invalid value: "../x": must not contain \'..\'')]),
    ('vol gce partition', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'gcePersistentDisk': {'pdName': 'x', 'partition': 300}}]}, [('spec.volumes[0].persistentDisk.partition', 'Invalid value: 300: must be between 1 and 255, inclusive')]),
    ('vol gce no name', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'gcePersistentDisk': {}}]}, [('spec.volumes[0].persistentDisk.pdName', 'Required value')]),
    ('vol azureDisk default kind', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'azureDisk': {'diskName': 'd', 'diskURI': '/subscriptions/x'}}]}, [('spec.volumes[0].azureDisk.diskURI', 'Unsupported value: "/subscriptions/x": supported values: "https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"')]),
    ('vol iscsi bad iqn', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'iscsi': {'targetPortal': '1.2.3.4:3260', 'iqn': 'iqn.bad', 'lun': 0}}]}, [('spec.volumes[0].iscsi.iqn', 'Invalid value: "iqn.bad": must be valid format')]),
    ('vol quobyte registry', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'quobyte': {'registry': 'host', 'volume': 'v'}}]}, [('spec.volumes[0].quobyte.registry', 'Invalid value: "host": must be a host:port pair or multiple pairs separated by commas')]),
    ('vol flex reserved', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'flexVolume': {'driver': 'd', 'options': {'kubernetes.io/x': 'y'}}}]}, [('spec.volumes[0].flexVolume.options[kubernetes.io/x]', 'Invalid value: "kubernetes.io/x": kubernetes.io and k8s.io namespaces are reserved')]),
    ('vol fc none', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'fc': {}}]}, [('spec.volumes[0].fc.targetWWNs', 'Required value: must specify either targetWWNs or wwids, but not both')]),
    ('vol cephfs no mon', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'cephfs': {}}]}, [('spec.volumes[0].cephfs.monitors', 'Required value')]),
    ('vol storageos', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'storageos': {'volumeName': 'A_b'}}]}, [('spec.volumes[0].storageos.volumeName', 'Invalid value: "A_b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')')]),
    ('vol flocker both', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'flocker': {'datasetName': 'a/b', 'datasetUUID': 'u'}}]}, [('spec.volumes[0].flocker', 'Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously'), ('spec.volumes[0].flocker.datasetName', 'Invalid value: "a/b": must not contain \'/\'')]),
    ('vol dup name', {'containers': [{'name': 'c', 'image': 'img:1'}], 'volumes': [{'name': 'v', 'emptyDir': {}}, {'name': 'v', 'emptyDir': {}}]}, [('spec.volumes[1].name', 'Duplicate value: "v"')]),
    ('vol name bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'volumes': [{'name': 'V', 'emptyDir': {}}]}, [('spec.volumes[0].name', 'Invalid value: "V": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')')]),
    ('vol name dotted', {'containers': [{'name': 'c', 'image': 'img:1'}], 'volumes': [{'name': 'a.b', 'emptyDir': {}}]}, [('spec.volumes[0].name', 'Invalid value: "a.b": must not contain dots')]),
    ('vol no name', {'containers': [{'name': 'c', 'image': 'img:1'}], 'volumes': [{'emptyDir': {}}]}, [('spec.volumes[0].name', 'Required value')]),
    ('vol emptyDir neg size', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': []}], 'volumes': [{'name': 'v', 'emptyDir': {'sizeLimit': '-1Gi'}}]}, [('spec.volumes[0].emptyDir.sizeLimit', 'Forbidden: SizeLimit field must be a valid resource quantity')]),
    ('mount no name', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'mountPath': '/x'}]}]}, [('spec.containers[0].volumeMounts[0].name', 'Required value'), ('spec.containers[0].volumeMounts[0].name', 'Not found: ""')]),
    ('mount no path', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v'}]}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}, [('spec.containers[0].volumeMounts[0].mountPath', 'Required value')]),
    ('mount subPath abs', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m', 'subPath': '/a'}]}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}, [('spec.containers[0].volumeMounts.subPath', 'Invalid value: "/a": must be a relative path')]),
    ('mount subPathExpr ..', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m', 'subPathExpr': 'a/../b'}]}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}, [('spec.containers[0].volumeMounts.subPathExpr', 'Invalid value: "a/../b": must not contain \'..\'')]),
    ('mount prop bad', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m', 'mountPropagation': 'Shared'}]}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}, [('spec.containers[0].volumeMounts.mountPropagation', 'Unsupported value: "Shared": supported values: "Bidirectional", "HostToContainer", "None"')]),
    ('mount prop empty', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m', 'mountPropagation': ''}]}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}, [('spec.containers[0].volumeMounts.mountPropagation', 'Unsupported value: "": supported values: "Bidirectional", "HostToContainer", "None"')]),
    ('mount rro enabled prop', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m', 'recursiveReadOnly': 'Enabled', 'readOnly': True, 'mountPropagation': 'HostToContainer'}]}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}, [('spec.containers[0].volumeMounts.recursiveReadOnly', 'Forbidden: may only be specified when mountPropagation is None or not specified')]),
    ('mount rro bad', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeMounts': [{'name': 'v', 'mountPath': '/m', 'recursiveReadOnly': 'Yes'}]}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}, [('spec.containers[0].volumeMounts.recursiveReadOnly', 'Unsupported value: "Yes": supported values: "Disabled", "Enabled", "IfPossible"')]),
    ('device on emptyDir', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeDevices': [{'name': 'v', 'devicePath': '/dev/x'}]}], 'volumes': [{'name': 'v', 'emptyDir': {}}]}, [('spec.containers[0].volumeDevices[0].name', 'Invalid value: "v": can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode')]),
    ('device dup', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeDevices': [{'name': 'v', 'devicePath': '/dev/x'}, {'name': 'v', 'devicePath': '/dev/x'}]}], 'volumes': [{'name': 'v', 'persistentVolumeClaim': {'claimName': 'c'}}]}, [('spec.containers[0].volumeDevices[1].name', 'Invalid value: "v": must be unique'), ('spec.containers[0].volumeDevices[1].devicePath', 'Invalid value: "/dev/x": must be unique')]),
    ('device backsteps', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeDevices': [{'name': 'v', 'devicePath': '/dev/../x'}]}], 'volumes': [{'name': 'v', 'persistentVolumeClaim': {'claimName': 'c'}}]}, [('spec.containers[0].volumeDevices[0].devicePath', 'Invalid value: "/dev/../x": can not contain backsteps (\'..\')')]),
    ('device + mount same', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeDevices': [{'name': 'v', 'devicePath': '/dev/x'}], 'volumeMounts': [{'name': 'v', 'mountPath': '/dev/x'}]}], 'volumes': [{'name': 'v', 'persistentVolumeClaim': {'claimName': 'c'}}]}, [('spec.containers[0].volumeMounts[0].name', 'Invalid value: "v": must not already exist in volumeDevices'), ('spec.containers[0].volumeMounts[0].mountPath', 'Invalid value: "/dev/x": must not already exist as a path in volumeDevices'), ('spec.containers[0].volumeDevices[0].name', 'Invalid value: "v": must not already exist in volumeMounts'), ('spec.containers[0].volumeDevices[0].devicePath', 'Invalid value: "/dev/x": must not already exist as a path in volumeMounts')]),
    ('device missing vol', {'containers': [{'name': 'c', 'image': 'img:1', 'volumeDevices': [{'name': 'w', 'devicePath': '/dev/x'}]}]}, [('spec.containers[0].volumeDevices[0].name', 'Not found: "w"')]),
    ('probe none', {'containers': [{'name': 'c', 'image': 'img:1', 'livenessProbe': {}}]}, [('spec.containers[0].livenessProbe', 'Required value: must specify a handler type')]),
    ('probe two handlers', {'containers': [{'name': 'c', 'image': 'img:1', 'livenessProbe': {'exec': {'command': ['a']}, 'tcpSocket': {'port': 80}}}]}, [('spec.containers[0].livenessProbe.tcpSocket', 'Forbidden: may not specify more than 1 handler type')]),
    ('probe exec empty', {'containers': [{'name': 'c', 'image': 'img:1', 'livenessProbe': {'exec': {}}}]}, [('spec.containers[0].livenessProbe.exec.command', 'Required value')]),
    ('probe success 2 liveness', {'containers': [{'name': 'c', 'image': 'img:1', 'livenessProbe': {'exec': {'command': ['true']}, 'successThreshold': 2}}]}, [('spec.containers[0].livenessProbe.successThreshold', 'Invalid value: 2: must be 1')]),
    ('probe success 2 startup', {'containers': [{'name': 'c', 'image': 'img:1', 'startupProbe': {'exec': {'command': ['true']}, 'successThreshold': 2}}]}, [('spec.containers[0].startupProbe.successThreshold', 'Invalid value: 2: must be 1')]),
    ('probe negative period', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'exec': {'command': ['true']}, 'periodSeconds': -1}}]}, [('spec.containers[0].readinessProbe.periodSeconds', 'Invalid value: -1: must be greater than or equal to 0')]),
    ('probe negative delay', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'exec': {'command': ['true']}, 'initialDelaySeconds': -1}}]}, [('spec.containers[0].readinessProbe.initialDelaySeconds', 'Invalid value: -1: must be greater than or equal to 0')]),
    ('probe negative success liveness', {'containers': [{'name': 'c', 'image': 'img:1', 'livenessProbe': {'exec': {'command': ['true']}, 'successThreshold': -1}}]}, [('spec.containers[0].livenessProbe.successThreshold', 'Invalid value: -1: must be greater than or equal to 0'), ('spec.containers[0].livenessProbe.successThreshold', 'Invalid value: -1: must be 1')]),
    ('probe tgps 0 liveness', {'containers': [{'name': 'c', 'image': 'img:1', 'livenessProbe': {'exec': {'command': ['true']}, 'terminationGracePeriodSeconds': 0}}]}, [('spec.containers[0].livenessProbe.terminationGracePeriodSeconds', 'Invalid value: 0: must be greater than 0')]),
    ('probe tgps 0 readiness', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'exec': {'command': ['true']}, 'terminationGracePeriodSeconds': 0}}]}, [('spec.containers[0].readinessProbe.terminationGracePeriodSeconds', 'Invalid value: 0: must be greater than 0'), ('spec.containers[0].readinessProbe.terminationGracePeriodSeconds', 'Invalid value: 0: must not be set for readinessProbes')]),
    ('httpGet port string num', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'httpGet': {'port': '8080'}}}]}, [('spec.containers[0].readinessProbe.httpGet.port', 'Invalid value: "8080": must contain at least one letter (a-z)')]),
    ('httpGet port missing', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'httpGet': {'path': '/'}}}]}, [('spec.containers[0].readinessProbe.httpGet.port', 'Invalid value: 0: must be between 1 and 65535, inclusive')]),
    ('httpGet scheme bad', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'httpGet': {'port': 80, 'scheme': 'http'}}}]}, [('spec.containers[0].readinessProbe.httpGet.scheme', 'Unsupported value: "http": supported values: "HTTP", "HTTPS"')]),
    ('httpGet header bad', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'httpGet': {'port': 80, 'httpHeaders': [{'name': 'X Y', 'value': '1'}]}}}]}, [('spec.containers[0].readinessProbe.httpGet.httpHeaders', 'Invalid value: "X Y": a valid HTTP header must consist of alphanumeric characters or \'-\' (e.g. \'X-Header-Name\', regex used for validation is \'[-A-Za-z0-9]+\')')]),
    ('tcp port 0', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'tcpSocket': {'port': 0}}}]}, [('spec.containers[0].readinessProbe.tcpSocket.port', 'Invalid value: 0: must be between 1 and 65535, inclusive')]),
    ('grpc port 70000', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'grpc': {'port': 70000}}}]}, [('spec.containers[0].readinessProbe.grpc.port', 'Invalid value: 70000: must be between 1 and 65535, inclusive')]),
    ('grpc missing port', {'containers': [{'name': 'c', 'image': 'img:1', 'readinessProbe': {'grpc': {}}}]}, [('spec.containers[0].readinessProbe.grpc.port', 'Invalid value: 0: must be between 1 and 65535, inclusive')]),
    ('lifecycle prestop empty', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'preStop': {}}}]}, [('spec.containers[0].lifecycle.preStop', 'Required value: must specify a handler type')]),
    ('lifecycle sleep 0', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'preStop': {'sleep': {'seconds': 0}}}}]}, [('spec.containers[0].lifecycle.preStop.sleep', 'Invalid value: 0: must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.')]),
    ('lifecycle sleep 31', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'preStop': {'sleep': {'seconds': 31}}}}]}, [('spec.containers[0].lifecycle.preStop.sleep', 'Invalid value: 31: must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.')]),
    ('lifecycle sleep grace 0', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'preStop': {'sleep': {'seconds': 1}}}}], 'terminationGracePeriodSeconds': 0}, [('spec.containers[0].lifecycle.preStop.sleep', 'Invalid value: 1: must be greater than 0 and less than terminationGracePeriodSeconds (0). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.')]),
    ('lifecycle two handlers', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'postStart': {'exec': {'command': ['a']}, 'sleep': {'seconds': 1}}}}]}, [('spec.containers[0].lifecycle.postStart.sleep', 'Forbidden: may not specify more than 1 handler type')]),
    ('init probe', {'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'i', 'image': 'img:1', 'readinessProbe': {'exec': {'command': ['true']}}}]}, [('spec.initContainers[0].readinessProbe', 'Forbidden: may not be set for init containers without restartPolicy=Always')]),
    ('init lifecycle {}', {'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'i', 'image': 'img:1', 'lifecycle': {}}]}, [('spec.initContainers[0].lifecycle', 'Forbidden: may not be set for init containers without restartPolicy=Always')]),
    ('sidecar probe bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'i', 'image': 'img:1', 'restartPolicy': 'Always', 'livenessProbe': {'exec': {'command': ['true']}, 'successThreshold': 3}}]}, [('spec.initContainers[0].livenessProbe.successThreshold', 'Invalid value: 3: must be 1')]),
    ('sidecar restart OnFailure', {'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'i', 'image': 'img:1', 'restartPolicy': 'OnFailure'}]}, [('spec.initContainers[0].restartPolicy', 'Unsupported value: "OnFailure": supported values: "Always"')]),
    ('container restartPolicy', {'containers': [{'name': 'c', 'image': 'img:1', 'restartPolicy': 'Always'}]}, [('spec.containers[0].restartPolicy', 'Forbidden: may not be set for non-init containers')]),
    ('port 0', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 0}]}]}, [('spec.containers[0].ports[0].containerPort', 'Required value')]),
    ('port missing', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'name': 'http'}]}]}, [('spec.containers[0].ports[0].containerPort', 'Required value')]),
    ('port dup name', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'name': 'http', 'containerPort': 80}, {'name': 'http', 'containerPort': 81}]}]}, [('spec.containers[0].ports[1].name', 'Duplicate value: "http"')]),
    ('port bad name + dup', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'name': 'Http', 'containerPort': 80}, {'name': 'Http', 'containerPort': 81}]}]}, [('spec.containers[0].ports[0].name', 'Invalid value: "Http": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'), ('spec.containers[0].ports[1].name', 'Invalid value: "Http": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)')]),
    ('port protocol bad', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 80, 'protocol': 'tcp'}]}]}, [('spec.containers[0].ports[0].protocol', 'Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"')]),
    ('hostPort 70000', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 80, 'hostPort': 70000}]}]}, [('spec.containers[0].ports[0].hostPort', 'Invalid value: 70000: must be between 1 and 65535, inclusive')]),
    ('hostPort dup same container', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 80, 'hostPort': 80}, {'containerPort': 81, 'hostPort': 80}]}]}, [('spec.containers[0].ports[1].hostPort', 'Duplicate value: "TCP//80"')]),
    ('hostNetwork dup cports', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 80}]}, {'name': 'd', 'image': 'img:1', 'ports': [{'containerPort': 80}]}], 'hostNetwork': True}, [('spec.containers[1].ports[0].hostPort', 'Duplicate value: "TCP//80"')]),
    ('init hostport dup two inits', {'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'i', 'image': 'img:1', 'ports': [{'containerPort': 80, 'hostPort': 80}]}, {'name': 'j', 'image': 'img:1', 'ports': [{'containerPort': 81, 'hostPort': 81}, {'containerPort': 82, 'hostPort': 81}]}]}, [('spec.initContainers[0].ports[1].hostPort', 'Duplicate value: "TCP//81"')]),
    ('container no name', {'containers': [{'image': 'x'}]}, [('spec.containers[0].name', 'Required value')]),
    ('container no image', {'containers': [{'name': 'c'}]}, [('spec.containers[0].image', 'Required value')]),
    ('container image spaces only', {'containers': [{'name': 'c', 'image': ' '}]}, [('spec.containers[0].image', 'Invalid value: " ": must not have leading or trailing whitespace')]),
    ('container name dotted', {'containers': [{'name': 'a.b', 'image': 'img:1'}]}, [('spec.containers[0].name', 'Invalid value: "a.b": must not contain dots')]),
    ('container dup init name', {'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'c', 'image': 'img:1'}]}, [('spec.initContainers[0].name', 'Duplicate value: "c"')]),
    ('init dup init', {'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'i', 'image': 'img:1'}, {'name': 'i', 'image': 'img:1'}]}, [('spec.initContainers[1].name', 'Duplicate value: "i"')]),
    ('pull policy bad', {'containers': [{'name': 'c', 'image': 'img:1', 'imagePullPolicy': 'always'}]}, [('spec.containers[0].imagePullPolicy', 'Unsupported value: "always": supported values: "Always", "IfNotPresent", "Never"')]),
    ('term msg policy bad', {'containers': [{'name': 'c', 'image': 'img:1', 'terminationMessagePolicy': 'Fallback'}]}, [('spec.containers[0].terminationMessagePolicy', 'Unsupported value: "Fallback": supported values: "File", "FallbackToLogsOnError"')]),
    ('no containers', {'containers': []}, [('spec.containers', 'Required value')]),
    ('ephemeral', {'containers': [{'name': 'c', 'image': 'img:1'}], 'ephemeralContainers': [{'name': 'e', 'image': 'x'}]}, [('spec.ephemeralContainers', 'Forbidden: cannot be set on create')]),
    ('runAsUser -1', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'runAsUser': -1}}]}, [('spec.containers[0].securityContext.runAsUser', 'Invalid value: -1: must be between 0 and 2147483647, inclusive')]),
    ('runAsGroup huge', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'runAsGroup': 2147483648}}]}, [('spec.containers[0].securityContext.runAsGroup', 'Invalid value: 2147483648: must be between 0 and 2147483647, inclusive')]),
    ('pod fsGroup -1', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'fsGroup': -1}}, [('spec.securityContext.fsGroup', 'Invalid value: -1: must be between 0 and 2147483647, inclusive')]),
    ('pod supplementalGroups -1', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'supplementalGroups': [1, -1]}}, [('spec.securityContext.supplementalGroups[1]', 'Invalid value: -1: must be between 0 and 2147483647, inclusive')]),
    ('seccomp no type', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'seccompProfile': {}}}]}, [('spec.containers[0].securityContext.seccompProfile.type', 'Required value: type is required when seccompProfile is set')]),
    ('seccomp bad type', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'seccompProfile': {'type': 'Default'}}}]}, [('spec.containers[0].securityContext.seccompProfile.type', 'Unsupported value: "Default": supported values: "Localhost", "RuntimeDefault", "Unconfined"')]),
    ('seccomp localhost abs', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'seccompProfile': {'type': 'Localhost', 'localhostProfile': '/a.json'}}}]}, [('spec.containers[0].securityContext.seccompProfile.localhostProfile', 'Invalid value: "/a.json": must be a relative path')]),
    ('seccomp localhost ..', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'seccompProfile': {'type': 'Localhost', 'localhostProfile': '../a.json'}}}, [('spec.securityContext.seccompProfile.localhostProfile', 'Invalid value: "../a.json": must not contain \'..\'')]),
    ('seccomp unconfined profile', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'seccompProfile': {'type': 'Unconfined', 'localhostProfile': 'a'}}}, [('spec.securityContext.seccompProfile.localhostProfile', 'Invalid value: core.SeccompProfile{Type:"Unconfined", LocalhostProfile:(*string)(0x…)}: can only be set when seccomp type is Localhost')]),
    ('apparmor no type', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'appArmorProfile': {}}}]}, [('spec.containers[0].securityContext.appArmorProfile.type', 'Required value: type is required when appArmorProfile is set')]),
    ('apparmor bad type', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'appArmorProfile': {'type': 'localhost'}}}]}, [('spec.containers[0].securityContext.appArmorProfile.type', 'Unsupported value: "localhost": supported values: "Localhost", "RuntimeDefault", "Unconfined"')]),
    ('apparmor localhost padded', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'appArmorProfile': {'type': 'Localhost', 'localhostProfile': ' p'}}}]}, [('spec.containers[0].securityContext.appArmorProfile.localhostProfile', 'Invalid value: " p": must not be padded with whitespace')]),
    ('apparmor localhost empty', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'appArmorProfile': {'type': 'Localhost', 'localhostProfile': ''}}}, [('spec.securityContext.appArmorProfile.localhostProfile', 'Required value: must be set when AppArmor type is Localhost')]),
    ('apparmor runtime profile', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'appArmorProfile': {'type': 'RuntimeDefault', 'localhostProfile': 'p'}}}]}, [('spec.containers[0].securityContext.appArmorProfile.localhostProfile', 'Invalid value: "p": can only be set when AppArmor type is Localhost')]),
    ('apparmor long', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'appArmorProfile': {'type': 'Localhost', 'localhostProfile': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'}}}]}, [('spec.containers[0].securityContext.appArmorProfile.localhostProfile', 'Too long: may not be more than 4095 bytes')]),
    ('cap sys admin', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'allowPrivilegeEscalation': False, 'capabilities': {'add': ['CAP_SYS_ADMIN']}}}]}, [('spec.containers[0].securityContext', 'Invalid value: core.SecurityContext{Capabilities:(*core.Capabilities)(0x…), Privileged:(*bool)(nil), SELinuxOptions:(*core.SELinuxOptions)(nil), WindowsOptions:(*core.WindowsSecurityContextOptions)(nil), RunAsUser:(*int64)(nil), RunAsGroup:(*int64)(nil), RunAsNonRoot:(*bool)(nil), ReadOnlyRootFilesystem:(*bool)(nil), AllowPrivilegeEscalation:(*bool)(0x…), ProcMount:(*core.ProcMountType)(nil), SeccompProfile:(*core.SeccompProfile)(nil), AppArmorProfile:(*core.AppArmorProfile)(nil)}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN')]),
    ('windows gmsa name bad', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'gmsaCredentialSpecName': 'A'}}}]}, [('spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpecName', 'Invalid value: "A": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('windows gmsa spec empty', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'gmsaCredentialSpec': ''}}}]}, [('spec.containers[0].securityContext.windowsOptions.gmsaCredentialSpec', 'Invalid value: "": gmsaCredentialSpec cannot be an empty string')]),
    ('windows user empty', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'runAsUserName': ''}}}], 'os': {'name': 'windows'}}, [('spec.containers[0].securityContext.windowsOptions.runAsUserName', 'Invalid value: "": runAsUserName cannot be an empty string')]),
    ('windows user 2 backslash', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'runAsUserName': 'a\\b\\c'}}}], 'os': {'name': 'windows'}}, [('spec.containers[0].securityContext.windowsOptions.runAsUserName', 'Invalid value: "a\\\\b\\\\c": runAsUserName cannot contain more than one backslash')]),
    ('windows user bad chars', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'runAsUserName': 'dom\\us@r'}}}], 'os': {'name': 'windows'}}, [('spec.containers[0].securityContext.windowsOptions.runAsUserName', 'Invalid value: "dom\\\\us@r": runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]')]),
    ('windows user dots', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'runAsUserName': '..'}}}], 'os': {'name': 'windows'}}, [('spec.containers[0].securityContext.windowsOptions.runAsUserName', 'Invalid value: "..": runAsUserName\'s User cannot contain only periods or spaces')]),
    ('windows domain bad', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'runAsUserName': '.dom\\user'}}}], 'os': {'name': 'windows'}}, [('spec.containers[0].securityContext.windowsOptions.runAsUserName', 'Invalid value: ".dom\\\\user": runAsUserName\'s Domain doesn\'t match the NetBios nor the DNS format')]),
    ('windows pod runAsUser', {'containers': [{'name': 'c', 'image': 'img:1'}], 'os': {'name': 'windows'}, 'securityContext': {'runAsUser': 1}}, [('spec.securityContext.runAsUser', 'Forbidden: cannot be set for a windows pod')]),
    ('windows hostPID', {'containers': [{'name': 'c', 'image': 'img:1'}], 'os': {'name': 'windows'}, 'hostPID': True}, [('spec.hostPID', 'Forbidden: cannot be set for a windows pod')]),
    ('windows shareProcessNamespace false', {'containers': [{'name': 'c', 'image': 'img:1'}], 'os': {'name': 'windows'}, 'shareProcessNamespace': False}, [('spec.shareProcessNamespace', 'Forbidden: cannot be set for a windows pod')]),
    ('windows supplementalGroups []', {'containers': [{'name': 'c', 'image': 'img:1'}], 'os': {'name': 'windows'}, 'securityContext': {'supplementalGroups': []}}, [('spec.securityContext.supplementalGroups', 'Forbidden: cannot be set for a windows pod')]),
    ('windows container privileged false', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'privileged': False}}], 'os': {'name': 'windows'}}, [('spec.containers[0].securityContext.privileged', 'Forbidden: cannot be set for a windows pod')]),
    ('windows container procMount', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'procMount': 'Default'}}], 'os': {'name': 'windows'}}, [('spec.containers[0].securityContext.procMount', 'Forbidden: cannot be set for a windows pod')]),
    ('windows sysctls', {'containers': [{'name': 'c', 'image': 'img:1'}], 'os': {'name': 'windows'}, 'securityContext': {'sysctls': [{'name': 'net.core.somaxconn', 'value': '1'}]}}, [('spec.securityContext.sysctls', 'Forbidden: cannot be set for a windows pod')]),
    ('os empty', {'containers': [{'name': 'c', 'image': 'img:1'}], 'os': {}}, [('spec.os.name', 'Required value: cannot be empty')]),
    ('os bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'os': {'name': 'Linux'}}, [('spec.os', 'Unsupported value: "Linux": supported values: "linux", "windows"')]),
    ('linux pod windowsOptions', {'containers': [{'name': 'c', 'image': 'img:1'}], 'os': {'name': 'linux'}, 'securityContext': {'windowsOptions': {'runAsUserName': 'x'}}}, [('spec.securityContext.windowsOptions', 'Forbidden: windows options cannot be set for a linux pod')]),
    ('hostProcess no hostNetwork', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'hostProcess': True}}}]}, [('spec.hostNetwork', 'Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers')]),
    ('hostProcess mixed', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'hostProcess': True}}}, {'name': 'd', 'image': 'img:1'}], 'hostNetwork': True}, [('spec', 'Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers')]),
    ('hostProcess pod vs container', {'containers': [{'name': 'c', 'image': 'img:1', 'securityContext': {'windowsOptions': {'hostProcess': False}}}], 'securityContext': {'windowsOptions': {'hostProcess': True}}, 'hostNetwork': True}, [('spec.containers[0].securityContext.windowsOptions.hostProcess', 'Invalid value: false: pod hostProcess value must be identical if both are specified, was true')]),
    ('sysctl empty name', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'sysctls': [{'name': '', 'value': '1'}]}}, [('spec.securityContext.sysctls[0].name', 'Required value')]),
    ('sysctl hostNetwork', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostNetwork': True, 'securityContext': {'sysctls': [{'name': 'net.core.somaxconn', 'value': '1'}]}}, [('spec.securityContext.sysctls[0].name', 'Invalid value: "net.core.somaxconn": may not be specified when \'hostNetwork\' is true')]),
    ('sysctl hostNetwork slash', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostNetwork': True, 'securityContext': {'sysctls': [{'name': 'net/core/somaxconn', 'value': '1'}]}}, [('spec.securityContext.sysctls[0].name', 'Invalid value: "net/core/somaxconn": may not be specified when \'hostNetwork\' is true')]),
    ('sysctl hostIPC', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostIPC': True, 'securityContext': {'sysctls': [{'name': 'kernel.shmmax', 'value': '1'}]}}, [('spec.securityContext.sysctls[0].name', 'Invalid value: "kernel.shmmax": may not be specified when \'hostIPC\' is true')]),
    ('sysctl hostIPC mqueue', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostIPC': True, 'securityContext': {'sysctls': [{'name': 'fs.mqueue.msg_max', 'value': '1'}]}}, [('spec.securityContext.sysctls[0].name', 'Invalid value: "fs.mqueue.msg_max": may not be specified when \'hostIPC\' is true')]),
    ('fsGroupChangePolicy bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'securityContext': {'fsGroupChangePolicy': 'Never'}}, [('spec.securityContext.fsGroupChangePolicy', 'Unsupported value: "Never": supported values: "Always", "OnRootMismatch"')]),
    ('tol empty key no op', {'containers': [{'name': 'c', 'image': 'img:1'}], 'tolerations': [{'effect': 'NoSchedule'}]}, [('spec.tolerations[0].operator', 'Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys"')]),
    ('tol key bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'tolerations': [{'key': 'a b', 'operator': 'Exists'}]}, [('spec.tolerations[0].key', 'Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')')]),
    ('tol value bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'tolerations': [{'key': 'a', 'value': 'a b'}]}, [('spec.tolerations[0].operator', 'Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')')]),
    ('tol value long', {'containers': [{'name': 'c', 'image': 'img:1'}], 'tolerations': [{'key': 'a', 'value': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}]}, [('spec.tolerations[0].operator', 'Invalid value: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": must be no more than 63 characters')]),
    ('tol exists value', {'containers': [{'name': 'c', 'image': 'img:1'}], 'tolerations': [{'key': 'a', 'operator': 'Exists', 'value': 'v'}]}, [('spec.tolerations[0].operator', 'Invalid value: "v": value must be empty when `operator` is \'Exists\'')]),
    ('tol op bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'tolerations': [{'key': 'a', 'operator': 'In'}]}, [('spec.tolerations[0].operator', 'Unsupported value: "In": supported values: "Equal", "Exists"')]),
    ('tol effect bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'tolerations': [{'key': 'a', 'effect': 'NoExec'}]}, [('spec.tolerations[0].effect', 'Unsupported value: "NoExec": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"')]),
    ('tol seconds no effect', {'containers': [{'name': 'c', 'image': 'img:1'}], 'tolerations': [{'key': 'a', 'tolerationSeconds': 10}]}, [('spec.tolerations[0].effect', 'Invalid value: "": effect must be \'NoExecute\' when `tolerationSeconds` is set')]),
    ('na gt two values', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a', 'operator': 'Gt', 'values': ['1', '2']}]}]}}}}, [('spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values', "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'")]),
    ('na bad key', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [{'matchExpressions': [{'key': 'a b', 'operator': 'Exists'}]}]}}}}, [('spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key', 'Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')')]),
    ('na matchFields 2 values', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [{'matchFields': [{'key': 'metadata.name', 'operator': 'In', 'values': ['a', 'b']}]}]}}}}, [('spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values', "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector")]),
    ('na matchFields exists', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [{'matchFields': [{'key': 'metadata.name', 'operator': 'Exists'}]}]}}}}, [('spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].operator', 'Invalid value: "Exists": not a valid selector operator')]),
    ('na matchFields bad node name', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {'nodeSelectorTerms': [{'matchFields': [{'key': 'metadata.name', 'operator': 'NotIn', 'values': ['Node_1']}]}]}}}}, [('spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values[0]', 'Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('na required {}', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': {}}}}, [('spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms', 'Required value: must have at least one node selector term')]),
    ('na preferred weight 101', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'preferredDuringSchedulingIgnoredDuringExecution': [{'weight': 101, 'preference': {}}]}}}, [('spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight', 'Invalid value: 101: must be in the range 1-100')]),
    ('na preferred no weight', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'nodeAffinity': {'preferredDuringSchedulingIgnoredDuringExecution': [{'preference': {'matchExpressions': [{'key': 'a', 'operator': 'In', 'values': ['b c']}]}}]}}}, [('spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight', 'Invalid value: 0: must be in the range 1-100')]),
    ('pa no topologyKey', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'labelSelector': {'matchLabels': {'a': 'b'}}}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey', 'Required value: can not be empty'), ('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey', 'Invalid value: "": name part must be non-empty'), ('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey', 'Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')')]),
    ('pa bad topologyKey', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'a b'}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey', 'Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')')]),
    ('pa selector bad op', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'z', 'labelSelector': {'matchExpressions': [{'key': 'a', 'operator': 'Equals'}]}}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator', 'Invalid value: "Equals": not a valid selector operator')]),
    ('pa selector bad value', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'z', 'labelSelector': {'matchExpressions': [{'key': 'a', 'operator': 'In', 'values': ['a b']}]}}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values[0]', 'Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')')]),
    ('pa selector matchLabels bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'z', 'labelSelector': {'matchLabels': {'a': 'b c'}}}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchLabels', 'Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')')]),
    ('pa ns bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'z', 'namespaces': ['Ns']}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespace', 'Invalid value: "Ns": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')')]),
    ('pa nsSelector bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'z', 'namespaceSelector': {'matchExpressions': [{'key': 'a', 'operator': 'Exists', 'values': ['x']}]}}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector.matchExpressions[0].values', "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'")]),
    ('pa matchLabelKeys no selector', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'z', 'matchLabelKeys': ['app']}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys', 'Forbidden: must not be specified when labelSelector is not set')]),
    ('pa matchLabelKeys bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'z', 'matchLabelKeys': ['a b'], 'labelSelector': {}}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[0]', 'Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')')]),
    ('pa match & mismatch', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'z', 'matchLabelKeys': ['app'], 'mismatchLabelKeys': ['app'], 'labelSelector': {}}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].matchLabelKeys[0]', 'Invalid value: "app": exists in both matchLabelKeys and mismatchLabelKeys')]),
    ('pa matchLabelKeys in expr', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAffinity': {'requiredDuringSchedulingIgnoredDuringExecution': [{'topologyKey': 'z', 'matchLabelKeys': ['app'], 'labelSelector': {'matchLabels': {'app': 'x'}, 'matchExpressions': [{'key': 'app', 'operator': 'Exists'}]}}]}}}, [('spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]', 'Invalid value: "app": exists in both matchLabelKeys and labelSelector')]),
    ('paa weight 0', {'containers': [{'name': 'c', 'image': 'img:1'}], 'affinity': {'podAntiAffinity': {'preferredDuringSchedulingIgnoredDuringExecution': [{'weight': 0, 'podAffinityTerm': {'topologyKey': 'z'}}]}}}, [('spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight', 'Invalid value: 0: must be in the range 1-100')]),
    ('tsc skew 0', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 0, 'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule'}]}, [('spec.topologySpreadConstraints[0].maxSkew', 'Invalid value: 0: must be greater than zero')]),
    ('tsc no skew', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule'}]}, [('spec.topologySpreadConstraints[0].maxSkew', 'Invalid value: 0: must be greater than zero')]),
    ('tsc no key', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 1, 'topologyKey': '', 'whenUnsatisfiable': 'DoNotSchedule'}]}, [('spec.topologySpreadConstraints[0].topologyKey', 'Required value: can not be empty')]),
    ('tsc bad when', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'Never'}]}, [('spec.topologySpreadConstraints[0].whenUnsatisfiable', 'Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"')]),
    ('tsc dup', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule'}, {'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule'}]}, [('spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}', 'Duplicate value: "{zone, DoNotSchedule}"')]),
    ('tsc mindomains 0', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule', 'minDomains': 0}]}, [('spec.topologySpreadConstraints[0].minDomains', 'Invalid value: 0: must be greater than zero')]),
    ('tsc policy bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule', 'nodeAffinityPolicy': 'honor'}]}, [('spec.topologySpreadConstraints[0].nodeAffinityPolicy', 'Unsupported value: "honor": supported values: "Honor", "Ignore"')]),
    ('tsc matchLabelKeys no selector', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule', 'matchLabelKeys': ['app']}]}, [('spec.topologySpreadConstraints[0].matchLabelKeys', 'Forbidden: must not be specified when labelSelector is not set')]),
    ('tsc matchLabelKeys in selector', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule', 'matchLabelKeys': ['app'], 'labelSelector': {'matchLabels': {'app': 'x'}}}]}, [('spec.topologySpreadConstraints[0].matchLabelKeys[0]', 'Invalid value: "app": exists in both matchLabelKeys and labelSelector')]),
    ('tsc selector bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'topologySpreadConstraints': [{'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'DoNotSchedule', 'labelSelector': {'matchExpressions': [{'key': 'a', 'operator': 'In'}]}}]}, [('spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values', "Required value: must be specified when `operator` is 'In' or 'NotIn'")]),
    ('dns None no config', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsPolicy': 'None'}, [('spec.dnsConfig', 'Required value: must provide `dnsConfig` when `dnsPolicy` is None')]),
    ('dns None no ns', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsPolicy': 'None', 'dnsConfig': {'searches': ['a.b']}}, [('spec.dnsConfig.nameservers', 'Required value: must provide at least one DNS nameserver when `dnsPolicy` is None')]),
    ('dns bad ns', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsConfig': {'nameservers': ['1.1.1']}}, [('spec.dnsConfig.nameservers[0]', 'Invalid value: "1.1.1": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')]),
    ('dns ns zone', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsConfig': {'nameservers': ['fe80::1%eth0']}}, [('spec.dnsConfig.nameservers[0]', 'Invalid value: "fe80::1%eth0": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')]),
    ('dns search underscore', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsConfig': {'searches': ['_tcp.example.com']}}, [('spec.dnsConfig.searches[0]', 'Invalid value: "_tcp.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('dns search dot', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsConfig': {'searches': ['.']}}, [('spec.dnsConfig.searches[0]', 'Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('dns 33 searches', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsConfig': {'searches': ['s0.com', 's1.com', 's2.com', 's3.com', 's4.com', 's5.com', 's6.com', 's7.com', 's8.com', 's9.com', 's10.com', 's11.com', 's12.com', 's13.com', 's14.com', 's15.com', 's16.com', 's17.com', 's18.com', 's19.com', 's20.com', 's21.com', 's22.com', 's23.com', 's24.com', 's25.com', 's26.com', 's27.com', 's28.com', 's29.com', 's30.com', 's31.com', 's32.com']}}, [('spec.dnsConfig.searches', 'Invalid value: []string{"s0.com", "s1.com", "s2.com", "s3.com", "s4.com", "s5.com", "s6.com", "s7.com", "s8.com", "s9.com", "s10.com", "s11.com", "s12.com", "s13.com", "s14.com", "s15.com", "s16.com", "s17.com", "s18.com", "s19.com", "s20.com", "s21.com", "s22.com", "s23.com", "s24.com", "s25.com", "s26.com", "s27.com", "s28.com", "s29.com", "s30.com", "s31.com", "s32.com"}: must not have more than 32 search paths')]),
    ('dns option no name', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsConfig': {'options': [{'value': '2'}]}}, [('spec.dnsConfig.options[0]', 'Required value: must not be empty')]),
    ('dnsPolicy bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'dnsPolicy': 'clusterFirst'}, [('spec.dnsPolicy', 'Unsupported value: "clusterFirst": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"')]),
    ('hostAlias ip empty', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostAliases': [{'hostnames': ['a']}]}, [('spec.hostAliases[0].ip', 'Invalid value: "": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')]),
    ('hostAlias ip bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostAliases': [{'ip': '1.2.3', 'hostnames': ['a']}]}, [('spec.hostAliases[0].ip', 'Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')]),
    ('readinessGate empty', {'containers': [{'name': 'c', 'image': 'img:1'}], 'readinessGates': [{'conditionType': ''}]}, [('spec.readinessGates[0].conditionType', 'Invalid value: "": name part must be non-empty'), ('spec.readinessGates[0].conditionType', 'Invalid value: "": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')')]),
    ('schedulingGate dup', {'containers': [{'name': 'c', 'image': 'img:1'}], 'schedulingGates': [{'name': 'a'}, {'name': 'a'}]}, [('spec.schedulingGates[1]', 'Duplicate value: "a"')]),
    ('schedulingGate bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'schedulingGates': [{'name': 'a b'}]}, [('spec.schedulingGates[0]', 'Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')')]),
    ('schedulingGate + nodeName', {'containers': [{'name': 'c', 'image': 'img:1'}], 'schedulingGates': [{'name': 'a'}], 'nodeName': 'n1'}, [('spec.nodeName', 'Forbidden: cannot be set until all schedulingGates have been cleared')]),
    ('nodeName bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'nodeName': 'Node_1'}, [('spec.nodeName', 'Invalid value: "Node_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('nodeSelector bad value', {'containers': [{'name': 'c', 'image': 'img:1'}], 'nodeSelector': {'a': 'b c'}}, [('spec.nodeSelector', 'Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')')]),
    ('nodeSelector bad key', {'containers': [{'name': 'c', 'image': 'img:1'}], 'nodeSelector': {'a b': 'c'}}, [('spec.nodeSelector', 'Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')')]),
    ('sa name bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'serviceAccountName': 'SA'}, [('spec.serviceAccountName', 'Invalid value: "SA": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('priorityClassName bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'priorityClassName': 'Prio'}, [('spec.priorityClassName', 'Invalid value: "Prio": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('priority system bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'priority': 1, 'priorityClassName': 'system-cluster-critical'}, [('spec.priority', 'Forbidden: the integer value of priority (1) must not be provided in pod spec; priority admission controller computed 2000000000 from the given PriorityClass name')]),
    ('preemption Never', {'containers': [{'name': 'c', 'image': 'img:1'}], 'preemptionPolicy': 'Never'}, [('spec.preemptionPolicy', 'Forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name')]),
    ('preemption bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'preemptionPolicy': 'Sometimes'}, [('spec.preemptionPolicy', 'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"'), ('spec.preemptionPolicy', 'Forbidden: the string value of PreemptionPolicy (Sometimes) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name')]),
    ('preemption empty', {'containers': [{'name': 'c', 'image': 'img:1'}], 'preemptionPolicy': ''}, [('spec.preemptionPolicy', 'Required value')]),
    ('preemption Never system', {'containers': [{'name': 'c', 'image': 'img:1'}], 'preemptionPolicy': 'Never', 'priorityClassName': 'system-node-critical'}, [('spec.preemptionPolicy', 'Forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name')]),
    ('runtimeClassName empty', {'containers': [{'name': 'c', 'image': 'img:1'}], 'runtimeClassName': ''}, [('spec.runtimeClassName', 'Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('runtimeClassName bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'runtimeClassName': 'R'}, [('spec.runtimeClassName', 'Invalid value: "R": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('overhead', {'containers': [{'name': 'c', 'image': 'img:1'}], 'overhead': {'cpu': '100m'}}, [('spec.overhead', 'Forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead')]),
    ('overhead bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'overhead': {'gpu': '-1'}}, [('spec.overhead.limits[gpu]', 'Invalid value: gpu: must be a standard resource type or fully qualified'), ('spec.overhead.limits[gpu]', 'Invalid value: gpu: must be a standard resource for containers'), ('spec.overhead.limits[gpu]', 'Invalid value: "-1": must be greater than or equal to 0')]),
    ('deadline 0', {'containers': [{'name': 'c', 'image': 'img:1'}], 'activeDeadlineSeconds': 0}, [('spec.activeDeadlineSeconds', 'Invalid value: 0: must be between 1 and 2147483647, inclusive')]),
    ('hostname bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'hostname': 'a.b'}, [('spec.hostname', 'Invalid value: "a.b": must not contain dots')]),
    ('subdomain bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'subdomain': 'A'}, [('spec.subdomain', 'Invalid value: "A": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')')]),
    ('restartPolicy bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'restartPolicy': 'Sometimes'}, [('spec.restartPolicy', 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"')]),
    ('tgps -1 sleep 2', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'preStop': {'sleep': {'seconds': 2}}}}], 'terminationGracePeriodSeconds': -1}, [('spec.containers[0].lifecycle.preStop.sleep', 'Invalid value: 2: must be greater than 0 and less than terminationGracePeriodSeconds (1). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.')]),
    ('serviceAccount alias bad', {'containers': [{'name': 'c', 'image': 'img:1'}], 'serviceAccount': 'Bad_SA'}, [('spec.serviceAccountName', 'Invalid value: "Bad_SA": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')')]),
    ('sidecar lifecycle sleep', {'containers': [{'name': 'c', 'image': 'img:1'}], 'initContainers': [{'name': 'i', 'image': 'img:1', 'restartPolicy': 'Always', 'lifecycle': {'preStop': {'sleep': {'seconds': 0}}}}]}, [('spec.initContainers[0].lifecycle.preStop.sleep', 'Invalid value: 0: must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.')]),
    ('ephemeral on pod with ports', {'containers': [{'name': 'c', 'image': 'img:1'}], 'ephemeralContainers': [{'name': 'e', 'image': 'x', 'ports': [{'containerPort': 1}]}]}, [('spec.ephemeralContainers[0].ports', 'Forbidden: cannot be set for an Ephemeral Container'), ('spec.ephemeralContainers', 'Forbidden: cannot be set on create')]),
    ('emptyDir size decode', {'containers': [{'name': 'c', 'image': 'img:1'}], 'volumes': [{'name': 'v', 'emptyDir': {'sizeLimit': '1GB'}}]}, [('spec.volumes[0].emptyDir.sizeLimit', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]),
    ('divisor decode', {'containers': [{'name': 'c', 'image': 'img:1', 'env': [{'name': 'A', 'valueFrom': {'resourceFieldRef': {'resource': 'limits.cpu', 'divisor': '1x'}}}]}]}, [('spec.containers[0].env[0].valueFrom.resourceFieldRef.divisor', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]),
    ('container name too long', {'containers': [{'name': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'image': 'img:1'}]}, [('spec.containers[0].name', 'Invalid value: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": must be no more than 63 characters')]),
    ('nvidia request=limit pod limits only 2', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'nvidia.com/gpu': '2', 'cpu': '1'}, 'requests': {'cpu': '2'}}}]}, [('spec.containers[0].resources.requests[cpu]', 'Invalid value: "2": must be less than or equal to cpu limit of 1')]),
    ('gpu 0.5 float', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'nvidia.com/gpu': 0.5}}}]}, [('spec.containers[0].resources.limits[nvidia.com/gpu]', 'Invalid value: resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer'), ('spec.containers[0].resources.requests[nvidia.com/gpu]', 'Invalid value: resource.Quantity{i:resource.int64Amount{value:5, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}: must be an integer')]),
]

ACCEPTED_TEMPLATES = [
    ('tmpl ok', {'containers': [{'name': 'c', 'image': 'img:1'}]}),
    ('tmpl image ws', {'containers': [{'name': 'c', 'image': 'img:1 '}]}),
    ('tmpl hostNetwork dup cports', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 80}]}, {'name': 'd', 'image': 'img:1', 'ports': [{'containerPort': 80}]}], 'hostNetwork': True}),
    ('tmpl priority', {'containers': [{'name': 'c', 'image': 'img:1'}], 'priority': 1000}),
    ('tmpl preemption Never', {'containers': [{'name': 'c', 'image': 'img:1'}], 'preemptionPolicy': 'Never'}),
    ('tmpl overhead', {'containers': [{'name': 'c', 'image': 'img:1'}], 'overhead': {'cpu': '100m'}}),
    ('tmpl gpu limit only', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'nvidia.com/gpu': 1}}}]}),
    ('tmpl schedulingGates + nodeName', {'containers': [{'name': 'c', 'image': 'img:1'}], 'schedulingGates': [{'name': 'a'}], 'nodeName': 'n1'}),
]

REJECTED_TEMPLATES = [
    ('tmpl ephemeral', {'containers': [{'name': 'c', 'image': 'img:1'}], 'ephemeralContainers': [{'name': 'e', 'image': 'x'}]}, [('spec.template.spec.ephemeralContainers', 'Forbidden: ephemeral containers not allowed in pod template')]),
    ('tmpl ephemeral ports', {'containers': [{'name': 'c', 'image': 'img:1'}], 'ephemeralContainers': [{'name': 'e', 'image': 'x', 'ports': [{'containerPort': 80}], 'targetContainerName': 'zz'}]}, [('spec.template.spec.ephemeralContainers', 'Forbidden: ephemeral containers not allowed in pod template'), ('spec.template.spec.ephemeralContainers[0].targetContainerName', 'Not found: "zz"'), ('spec.template.spec.ephemeralContainers[0].ports', 'Forbidden: cannot be set for an Ephemeral Container')]),
    ('tmpl hostNetwork hostPort mismatch', {'containers': [{'name': 'c', 'image': 'img:1', 'ports': [{'containerPort': 80, 'hostPort': 81}]}], 'hostNetwork': True}, [('spec.template.spec.containers[0].ports[0].hostPort', 'Invalid value: 81: must match `containerPort` when `hostNetwork` is true')]),
    ('tmpl hugepages lim not multiple', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'hugepages-2Mi': '3Mi', 'cpu': 1}}}]}, [('spec.template.spec.containers[0].resources.limits[hugepages-2Mi]', 'Invalid value: "3Mi": 3Mi is not positive integer multiple of hugepages-2Mi')]),
    ('tmpl restartPolicy Never', {'containers': [{'name': 'c', 'image': 'img:1'}], 'restartPolicy': 'Never'}, [('spec.template.spec.restartPolicy', 'Unsupported value: "Never": supported values: "Always"')]),
    ('tmpl quantity decode', {'containers': [{'name': 'c', 'image': 'img:1', 'resources': {'limits': {'cpu': '1K'}}}]}, [('spec.template.spec.containers[0].resources.limits[cpu]', "unable to parse quantity's suffix")]),
    ('tmpl tgps -1 sleep 1', {'containers': [{'name': 'c', 'image': 'img:1', 'lifecycle': {'preStop': {'sleep': {'seconds': 1}}}}], 'terminationGracePeriodSeconds': -1}, [('spec.template.spec.containers[0].lifecycle.preStop.sleep', 'Invalid value: 1: must be greater than 0 and less than terminationGracePeriodSeconds (-1). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.')]),
]
# fmt: on


@pytest.mark.parametrize(("label", "spec"), ACCEPTED_PODS, ids=[c[0] for c in ACCEPTED_PODS])
def test_pods_the_server_accepts(label, spec):
    assert validate_pod_spec(spec, "spec", POD) == []


@pytest.mark.parametrize(
    ("label", "spec", "expected"), REJECTED_PODS, ids=[c[0] for c in REJECTED_PODS]
)
def test_pods_the_server_rejects(label, spec, expected):
    found = validate_pod_spec(spec, "spec", POD)
    assert [e for e in expected if e not in found] == []


@pytest.mark.parametrize(
    ("label", "spec"), ACCEPTED_TEMPLATES, ids=[c[0] for c in ACCEPTED_TEMPLATES]
)
def test_templates_the_server_accepts(label, spec):
    assert validate_pod_spec(spec, "spec.template.spec", TEMPLATE) == []


@pytest.mark.parametrize(
    ("label", "spec", "expected"), REJECTED_TEMPLATES, ids=[c[0] for c in REJECTED_TEMPLATES]
)
def test_templates_the_server_rejects(label, spec, expected):
    found = validate_pod_spec(spec, "spec.template.spec", TEMPLATE)
    assert [e for e in expected if e not in found] == []
