"""A cluster without containers: the real kube-apiserver, kube-controller-manager, kube-scheduler
and Kueue on loopback, judging the system rules (capacity, kueue-admission) as the real API server
judges the object rules in tests/conformance.

What runs, all from ../shared/tools (built once, nothing downloaded): etcd and kube-apiserver
v1.32.13 (kube-apiserver/build.sh), kube-controller-manager and kube-scheduler from the same tree
(`KUBE_EXTRA="kube-scheduler kube-controller-manager" kube-apiserver/build.sh ...`) and Kueue
v0.18.6 (kueue/build.sh) with the environment's own Kueue configuration (operators/kueue, as
rendered) but for what a loopback process needs: no leader election, no internal certificate
management, its webhooks and probes on loopback ports, and (for the tests) a shorter
waitForPodsReady timeout. Kueue's webhook configurations and its CRDs' conversion webhook are
registered by URL (https://127.0.0.1:<port>/...) with the harness's certificate.

What stands in, and only that:
- Nodes: Node objects from the environment's cluster profile (each pool at its maximum size, its
  labels, taints, capacity and allocatable), Ready, written through the status subresource. The
  node lifecycle controller removes the `node.kubernetes.io/not-ready` taint itself; its grace
  period is long, so no heartbeats are needed.
- The kubelet (Kubelet below): a pod bound to a node becomes Running and Ready, or stays not Ready,
  fails or succeeds, as a test says; a pod deleted on a node is removed, as the kubelet does once
  its containers stopped.
- The storage provisioner: a PersistentVolume for each claim, as kind's local-path provisioner
  (or a cloud's CSI driver) would make; without one, pods with claims never schedule.
- The profile's system pods (the control plane's static pods, CoreDNS, the CNI), as Pods.

What does not run: the operators' own controllers and webhooks (Training Operator, KubeRay,
JobSet, Volcano). Kueue still makes their Workloads from their pod sets and admits them; nobody
makes their pods. Their webhook configurations and APIServices are not applied (they would name
Services nothing serves).

`python tests/cluster/cluster_harness.py record` stands a cluster up per environment, applies it and
writes what the controllers decided to tests/cluster/recorded/decisions.json; the ordinary suite
(test_cluster_recorded.py) checks trainops against that record with no cluster. `make cluster` runs the
live tests (test_cluster_live.py) and the report.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
RECORD = HERE / "recorded" / "decisions.json.gz"
KUBE_HOME = Path(
    os.environ.get("KUBE_APISERVER_HOME") or Path.home() / ".cache" / "kube-apiserver-v1.32.13"
)
KUEUE_HOME = Path(os.environ.get("KUEUE_HOME") or Path.home() / ".cache" / "kueue-v0.18.6")
SHARED_TOOLS = REPO.parent / "shared" / "tools"
FIELD_MANAGER = "trainops-cluster-harness"
# The live tests run only when asked (they take minutes): `make cluster` sets it.
OPT_IN = "TRAINOPS_TEST_CLUSTER"
# Kueue's metrics server reads its certificate from this fixed path when internal certificate
# management is off (Kueue v0.18.6 cmd/kueue/main.go, metricsCertPath).
KUEUE_METRICS_CERTS = Path("/etc/kueue/metrics/certs")
# The harness's waitForPodsReady timeout (the repository's is 10m).
PODS_READY_TIMEOUT = "20s"
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"
# Kinds not applied: they would name Services nothing serves here (see the docstring).
NOT_APPLIED = {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService"}


def binaries() -> dict[str, Path]:
    bin_dir = KUBE_HOME / "bin"
    return {
        "etcd-lite": bin_dir / "etcd-lite",
        "kube-apiserver": bin_dir / "kube-apiserver",
        "kube-controller-manager": bin_dir / "kube-controller-manager",
        "kube-scheduler": bin_dir / "kube-scheduler",
        "kueue": KUEUE_HOME / "kueue",
    }


def missing() -> str | None:
    """Why the harness cannot run here (which binary is missing and how to build it), or None."""
    absent = [name for name, path in binaries().items() if not os.access(path, os.X_OK)]
    if not absent:
        return None
    how = []
    if set(absent) - {"kueue"}:
        how.append(
            'KUBE_EXTRA="kube-scheduler kube-controller-manager" '
            f"{SHARED_TOOLS}/kube-apiserver/build.sh MICROSHIFT_GIT_DIR"
        )
    if "kueue" in absent:
        how.append(f"{SHARED_TOOLS}/kueue/build.sh KUEUE_GIT_DIR")
    return f"missing {', '.join(absent)} (build with: {'; '.join(how)})"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _run(*args: str, cwd: Path) -> None:
    subprocess.run(args, cwd=cwd, check=True, capture_output=True)


# --- the control plane -------------------------------------------------------------------------


@dataclass
class ControlPlane:
    """etcd, kube-apiserver, kube-controller-manager and kube-scheduler on loopback ports in a
    scratch folder; Kueue once its CRDs are in (start_kueue). stop() ends exactly these."""

    top: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="trainops-cluster-")))
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    api_port: int = 0
    webhook_port: int = 0
    token: str = ""
    # waitForPodsReady's timeout for Kueue here (None: the environment's own)
    pods_ready_timeout: str | None = None

    @property
    def kubeconfig(self) -> Path:
        return self.top / "kubeconfig"

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.api_port}"

    def _pki(self) -> None:
        pki = self.top / "pki"
        pki.mkdir()
        _run(
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30",
            "-subj", "/CN=trainops-harness-ca", "-keyout", "ca.key", "-out", "ca.crt", cwd=pki,
        )  # fmt: skip
        (pki / "san.ext").write_text(
            "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc,IP:10.96.0.1\n"
        )
        _run(
            "openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
            "-keyout", "serving.key", "-out", "serving.csr", cwd=pki,
        )  # fmt: skip
        _run(
            "openssl", "x509", "-req", "-in", "serving.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "30", "-extfile", "san.ext", "-out", "serving.crt", cwd=pki,
        )  # fmt: skip
        _run("openssl", "genrsa", "-out", "sa.key", "2048", cwd=pki)
        _run("openssl", "rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=pki)
        self.token = os.urandom(24).hex()
        (pki / "tokens.csv").write_text(f"{self.token},admin,admin-uid,system:masters\n")
        # Kueue's webhooks serve this certificate (tls.crt/tls.key in its certDir).
        certs = self.top / "kueue-certs"
        certs.mkdir()
        shutil.copy(pki / "serving.crt", certs / "tls.crt")
        shutil.copy(pki / "serving.key", certs / "tls.key")

    def _write_kubeconfig(self) -> None:
        import base64

        ca = base64.b64encode((self.top / "pki" / "ca.crt").read_bytes()).decode()
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "harness",
                    "cluster": {"server": self.server, "certificate-authority-data": ca},
                }
            ],
            "users": [{"name": "admin", "user": {"token": self.token}}],
            "contexts": [{"name": "harness", "context": {"cluster": "harness", "user": "admin"}}],
            "current-context": "harness",
        }
        self.kubeconfig.write_text(yaml.safe_dump(config))

    def _start(self, name: str, *args: str) -> None:
        log = (self.top / f"{name}.log").open("wb")
        self.processes[name] = subprocess.Popen(
            [str(binaries()[name if name != "etcd" else "etcd-lite"]), *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )

    def _alive(self, name: str) -> None:
        if self.processes[name].poll() is not None:
            tail = (self.top / f"{name}.log").read_text(errors="replace")[-2000:]
            raise RuntimeError(f"{name} exited ({self.processes[name].returncode}): {tail}")

    def start(self) -> ControlPlane:
        reason = missing()
        if reason is not None:
            raise RuntimeError(reason)
        self._pki()
        etcd_port, peer = _free_port(), _free_port()
        (self.top / "etcd.yaml").write_text(
            yaml.safe_dump(
                {
                    "name": "harness",
                    "data-dir": str(self.top / "etcd"),
                    "listen-client-urls": f"http://127.0.0.1:{etcd_port}",
                    "advertise-client-urls": f"http://127.0.0.1:{etcd_port}",
                    "listen-peer-urls": f"http://127.0.0.1:{peer}",
                    "initial-advertise-peer-urls": f"http://127.0.0.1:{peer}",
                    "initial-cluster": f"harness=http://127.0.0.1:{peer}",
                    "initial-cluster-state": "new",
                    "log-level": "warn",
                    "unsafe-no-fsync": True,
                }
            )
        )
        self._start("etcd", "--config-file", str(self.top / "etcd.yaml"))
        self.api_port, self.webhook_port = _free_port(), _free_port()
        pki = self.top / "pki"
        self._start(
            "kube-apiserver",
            f"--etcd-servers=http://127.0.0.1:{etcd_port}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            f"--secure-port={self.api_port}",
            f"--tls-cert-file={pki / 'serving.crt'}",
            f"--tls-private-key-file={pki / 'serving.key'}",
            f"--client-ca-file={pki / 'ca.crt'}",
            f"--token-auth-file={pki / 'tokens.csv'}",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={pki / 'sa.pub'}",
            f"--service-account-signing-key-file={pki / 'sa.key'}",
            "--service-cluster-ip-range=10.96.0.0/16",
            "--allow-privileged=true",
            "--endpoint-reconciler-type=none",
            "--profiling=false",
            "--v=1",
        )
        self._write_kubeconfig()
        self._wait_ready()
        config = str(self.kubeconfig)
        self._start(
            "kube-controller-manager",
            f"--kubeconfig={config}",
            "--leader-elect=false",
            "--secure-port=0",
            f"--service-account-private-key-file={pki / 'sa.key'}",
            f"--root-ca-file={pki / 'ca.crt'}",
            # No kubelet posts heartbeats: the Ready condition written once stands.
            "--node-monitor-grace-period=24h",
            "--controllers=*,-csrsigning,-csrapproving,-csrcleaner,-bootstrapsigner,-tokencleaner",
        )
        self._start(
            "kube-scheduler",
            f"--kubeconfig={config}",
            f"--authentication-kubeconfig={config}",
            f"--authorization-kubeconfig={config}",
            "--leader-elect=false",
            "--secure-port=0",
        )
        return self

    def _wait_ready(self) -> None:
        import ssl
        import urllib.request

        context = ssl.create_default_context(cafile=str(self.top / "pki" / "ca.crt"))
        request = urllib.request.Request(
            f"{self.server}/readyz", headers={"Authorization": f"Bearer {self.token}"}
        )
        for _ in range(240):
            self._alive("etcd")
            self._alive("kube-apiserver")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(request, context=context, timeout=2) as answer,
            ):
                if answer.read() == b"ok":
                    return
            time.sleep(0.5)
        raise RuntimeError("kube-apiserver was not ready in 120 s")

    def start_kueue(self, configuration: dict) -> None:
        """Kueue with `configuration` (a config.kueue.x-k8s.io Configuration) made to run here."""
        config = copy.deepcopy(configuration)
        config["leaderElection"] = {"leaderElect": False}
        config["internalCertManagement"] = {"enable": False}
        config["health"] = {"healthProbeBindAddress": f"127.0.0.1:{_free_port()}"}
        config["metrics"] = {"bindAddress": f"127.0.0.1:{_free_port()}"}
        config["webhook"] = {
            "host": "127.0.0.1",
            "port": self.webhook_port,
            "certDir": str(self.top / "kueue-certs"),
        }
        ready = config.get("waitForPodsReady")
        if isinstance(ready, dict) and self.pods_ready_timeout is not None:
            ready["timeout"] = self.pods_ready_timeout
        (self.top / "kueue.yaml").write_text(yaml.safe_dump(config))
        if not (KUEUE_METRICS_CERTS / "tls.crt").exists():
            KUEUE_METRICS_CERTS.mkdir(parents=True, exist_ok=True)
            for name in ("tls.crt", "tls.key"):
                shutil.copy(self.top / "kueue-certs" / name, KUEUE_METRICS_CERTS / name)
        self._start(
            "kueue",
            "--config",
            str(self.top / "kueue.yaml"),
            "--kubeconfig",
            str(self.kubeconfig),
            "--feature-gates=VisibilityOnDemand=false",
        )
        for _ in range(240):
            self._alive("kueue")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.webhook_port), timeout=1),
            ):
                return
            time.sleep(0.5)
        raise RuntimeError("Kueue's webhook server did not listen in 120 s")

    def stop(self) -> None:
        for name in reversed(list(self.processes)):
            process = self.processes[name]
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        self.processes.clear()
        if not os.environ.get("TRAINOPS_CLUSTER_KEEP"):
            shutil.rmtree(self.top, ignore_errors=True)


# --- the API -----------------------------------------------------------------------------------


class Api:
    def __init__(self, plane: ControlPlane):
        from kubernetes import client, config, dynamic

        self.api_client = config.new_client_from_config(config_file=str(plane.kubeconfig))
        self.core = client.CoreV1Api(self.api_client)
        self.dynamic = dynamic.DynamicClient(self.api_client)

    def resource(self, api_version: str, kind: str):
        return self.dynamic.resources.get(api_version=api_version, kind=kind)

    def apply(self, doc: dict) -> None:
        resource = self.resource(doc["apiVersion"], doc["kind"])
        namespace = doc["metadata"].get("namespace") if resource.namespaced else None
        if resource.namespaced and not namespace:
            namespace = "default"
        resource.server_side_apply(
            body=doc,
            name=doc["metadata"]["name"],
            namespace=namespace,
            field_manager=FIELD_MANAGER,
            force_conflicts=True,
        )

    def items(self, api_version: str, kind: str, namespace: str | None = None) -> list[dict]:
        listed = self.resource(api_version, kind).get(namespace=namespace)
        return [item.to_dict() for item in listed.items]


def wait_for(what: str, test: Callable[[], object], seconds: float = 60) -> object:
    deadline = time.monotonic() + seconds
    while True:
        found = test()
        if found:
            return found
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {seconds:.0f} s for {what}")
        time.sleep(0.5)


# --- the kubelet's part ------------------------------------------------------------------------


class Kubelet:
    """Plays the kubelet of every node: a bound pod becomes Running and Ready, unless
    `behaviour(pod)` says "not-ready" (Running, never Ready), "fail" (Failed) or "succeed"
    (Succeeded); a pod being deleted from a node is removed."""

    def __init__(self, api: Api, behaviour: Callable[[dict], str] | None = None):
        self.api = api
        self.behaviour = behaviour or (lambda pod: "ready")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._seen: dict[str, str] = {}  # uid -> the state written

    def __enter__(self) -> Kubelet:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _loop(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(Exception):
                self._pass()
            self._stop.wait(0.3)

    def _pass(self) -> None:
        from kubernetes.client.exceptions import ApiException

        for pod in self.api.core.list_pod_for_all_namespaces().items:
            if not pod.spec.node_name:
                continue
            name, namespace = pod.metadata.name, pod.metadata.namespace
            if pod.metadata.deletion_timestamp is not None:
                with contextlib.suppress(ApiException):
                    self.api.core.delete_namespaced_pod(name, namespace, grace_period_seconds=0)
                continue
            wanted = self.behaviour(self.api.api_client.sanitize_for_serialization(pod))
            if self._seen.get(pod.metadata.uid) == wanted:
                continue
            if pod.status.phase in ("Succeeded", "Failed"):
                continue
            with contextlib.suppress(ApiException):
                self.api.core.patch_namespaced_pod_status(
                    name, namespace, {"status": _pod_status(pod, wanted)}
                )
                self._seen[pod.metadata.uid] = wanted


def _pod_status(pod, wanted: str) -> dict:
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    ready = "True" if wanted == "ready" else "False"
    phase = {"fail": "Failed", "succeed": "Succeeded"}.get(wanted, "Running")
    containers = []
    for container in pod.spec.containers:
        if phase == "Running":
            state = {"running": {"startedAt": now}}
        else:
            code = 1 if phase == "Failed" else 0
            state = {"terminated": {"exitCode": code, "startedAt": now, "finishedAt": now}}
        containers.append(
            {
                "name": container.name,
                "image": container.image,
                "imageID": "",
                "ready": wanted == "ready",
                "restartCount": 0,
                "started": phase == "Running",
                "state": state,
            }
        )
    conditions = [
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": now},
        {"type": "Initialized", "status": "True", "lastTransitionTime": now},
        {"type": "ContainersReady", "status": ready, "lastTransitionTime": now},
        {"type": "Ready", "status": ready, "lastTransitionTime": now},
    ]
    return {
        "phase": phase,
        "conditions": conditions,
        "containerStatuses": containers,
        "startTime": now,
        "hostIP": "10.0.0.1",
        "podIP": "10.244.0.10",
    }


# --- an environment ----------------------------------------------------------------------------


def _trainops() -> None:
    if str(REPO / "tools") not in sys.path:
        sys.path.insert(0, str(REPO / "tools"))


def config():
    _trainops()
    from trainops.model.config import load_config
    from trainops.rules import RULES

    found = load_config(REPO / "trainops.yaml", RULES)
    assert found is not None
    return found


def renderer():
    _trainops()
    from trainops.render.kustomize import find_kustomize
    from trainops.render.renderer import Renderer

    mirror = Path(os.environ.get("TRAINOPS_MIRROR") or REPO.parent / "shared" / "mirror")
    return Renderer(find_kustomize(), mirror)


@dataclass
class Environment:
    name: str
    profile: object  # trainops.knowledge.profiles.Profile
    layers: list[tuple[str, list[dict]]]  # (layer, its objects as rendered), in GitOps order

    def objects(self) -> Iterator[dict]:
        for _, docs in self.layers:
            yield from docs

    def kueue_configuration(self) -> dict:
        for doc in self.objects():
            data = doc.get("data") or {}
            if doc.get("kind") != "ConfigMap" or "controller_manager_config.yaml" not in data:
                continue
            found = yaml.safe_load(data["controller_manager_config.yaml"])
            if str(found.get("apiVersion", "")).startswith("config.kueue.x-k8s.io/"):
                return found
        raise LookupError(f"{self.name}: no Kueue configuration")


def environment(name: str) -> Environment:
    """The environment's layers rendered, in the order its GitOps entry points apply them."""
    _trainops()
    from trainops.knowledge.profiles import profile_from
    from trainops.live.layers import plan_environment, render

    found = config()
    plan = plan_environment(name, found, renderer())
    rendering = render(plan, renderer())
    layers = []
    for layer, rendered in zip(plan.layers, rendering.rendered):
        docs = []
        for obj in rendered.objects:
            doc = copy.deepcopy(obj.doc)
            annotations = doc.get("metadata", {}).get("annotations") or {}
            annotations.pop("config.kubernetes.io/origin", None)
            docs.append(doc)
        layers.append((layer.name, docs))
    folder = next(f for f in found.environments if Path(f).name == name)
    profile_name = found.environments[folder]
    profile = profile_from(profile_name, found.profiles[profile_name])
    return Environment(name, profile, layers)


def node_names(profile) -> list[tuple[str, object]]:
    if len(profile.pools) == 1 and profile.pools[0].max_nodes == 1:
        return [(profile.pools[0].name, profile.pools[0])]
    return [(f"{pool.name}-{i}", pool) for pool in profile.pools for i in range(pool.max_nodes)]


def _amounts(amounts: dict[str, float]) -> dict[str, str]:
    shown = {}
    for name, value in amounts.items():
        shown[name] = f"{round(value * 1000)}m" if name == "cpu" else str(int(round(value)))
    return shown


def make_nodes(api: Api, profile) -> None:
    for name, pool in node_names(profile):
        labels = {
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            **pool.labels,
        }
        api.core.create_node(
            {
                "metadata": {"name": name, "labels": labels},
                "spec": {"taints": list(pool.taints)},
            }
        )
        allocatable = {**_amounts(pool.allocatable), "pods": "110"}
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        api.core.patch_node_status(
            name,
            {
                "status": {
                    "capacity": allocatable,
                    "allocatable": allocatable,
                    "conditions": [
                        {
                            "type": "Ready",
                            "status": "True",
                            "reason": "KubeletReady",
                            "message": "the harness plays the kubelet",
                            "lastHeartbeatTime": now,
                            "lastTransitionTime": now,
                        }
                    ],
                }
            },
        )
    wait_for(
        "the node lifecycle controller to untaint the nodes",
        lambda: all(
            not any(t.key == "node.kubernetes.io/not-ready" for t in (node.spec.taints or []))
            for node in api.core.list_node().items
        ),
    )


def make_storage_classes(api: Api, profile) -> None:
    """The profile's storage classes (binding at once: the harness provisions each claim's
    volume itself, see _storage)."""
    for klass in profile.storage_classes.values():
        annotations = (
            {"storageclass.kubernetes.io/is-default-class": "true"} if klass.default else {}
        )
        api.apply(
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": klass.name, "annotations": annotations},
                "provisioner": klass.provisioner,
                "volumeBindingMode": "Immediate",
            }
        )


def make_system_pods(api: Api, profile) -> None:
    """The profile's system pods in kube-system: per node on each node they run on, the others
    placed by the scheduler among the nodes of their pools (tolerating no taint)."""
    nodes = node_names(profile)
    for pod in profile.system_pods:
        eligible = [name for name, pool in nodes if pod.runs_on(pool)]
        requests = _amounts(pod.requests)
        if pod.per_node:
            targets = [(f"{pod.name}-{node}", {"nodeName": node}) for node in eligible]
        else:
            affinity = {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {
                                        "key": "kubernetes.io/hostname",
                                        "operator": "In",
                                        "values": eligible,
                                    }
                                ]
                            }
                        ]
                    }
                }
            }
            targets = [(f"{pod.name}-{i}", {"affinity": affinity}) for i in range(pod.replicas)]
        for name, placement in targets:
            api.core.create_namespaced_pod(
                "kube-system",
                {
                    "metadata": {"name": name, "labels": {"trainops-harness/system-pod": pod.name}},
                    "spec": {
                        **placement,
                        "containers": [
                            {
                                "name": "main",
                                "image": PAUSE_IMAGE,
                                "resources": {"requests": requests},
                            }
                        ],
                    },
                },
            )


def _storage(api: Api, profile, doc: dict) -> None:
    """A PersistentVolume for a claim, as the profile's provisioner would make it."""
    spec = doc.get("spec") or {}
    klass = spec.get("storageClassName")
    if klass is None:
        default = profile.default_class
        klass = default.name if default is not None else ""
    meta = doc["metadata"]
    api.core.create_persistent_volume(
        {
            "metadata": {"name": f"pv-{meta.get('namespace', 'default')}-{meta['name']}"},
            "spec": {
                "capacity": {
                    "storage": spec.get("resources", {}).get("requests", {}).get("storage", "1Gi")
                },
                "accessModes": spec.get("accessModes") or ["ReadWriteOnce"],
                "storageClassName": klass,
                "hostPath": {"path": f"/tmp/harness/{meta['name']}"},
                "claimRef": {"namespace": meta.get("namespace", "default"), "name": meta["name"]},
            },
        }
    )


def _prepared(doc: dict, plane: ControlPlane) -> dict | None:
    """The object as the harness applies it: CRDs' conversion webhooks pointed at Kueue (its
    own CRDs) or dropped (the others: their operators do not run); None when not applied."""
    if doc.get("kind") in NOT_APPLIED:
        return None
    doc = copy.deepcopy(doc)
    doc.get("metadata", {}).pop("creationTimestamp", None)
    if doc.get("kind") == "CustomResourceDefinition":
        conversion = (doc.get("spec") or {}).get("conversion")
        if conversion and conversion.get("strategy") == "Webhook":
            if doc["spec"].get("group") == "kueue.x-k8s.io":
                webhook = conversion.setdefault("webhook", {})
                webhook["clientConfig"] = {
                    "url": f"https://127.0.0.1:{plane.webhook_port}/convert",
                    "caBundle": _ca(plane),
                }
            else:
                doc["spec"].pop("conversion")
    return doc


def _ca(plane: ControlPlane) -> str:
    import base64

    return base64.b64encode((plane.top / "pki" / "ca.crt").read_bytes()).decode()


def kueue_webhooks(env: Environment, plane: ControlPlane) -> list[dict]:
    """Kueue's webhook configurations as the environment renders them, each webhook pointed at
    the Kueue process by URL."""
    found = []
    for doc in env.objects():
        if doc.get("kind") not in (
            "ValidatingWebhookConfiguration",
            "MutatingWebhookConfiguration",
        ):
            continue
        hooks = doc.get("webhooks") or []
        services = [(h.get("clientConfig") or {}).get("service") or {} for h in hooks]
        if not hooks or not all(s.get("namespace") == "kueue-system" for s in services):
            continue
        doc = copy.deepcopy(doc)
        doc.get("metadata", {}).pop("annotations", None)
        for hook, service in zip(doc["webhooks"], services):
            hook["clientConfig"] = {
                "url": f"https://127.0.0.1:{plane.webhook_port}{service.get('path', '/')}",
                "caBundle": _ca(plane),
            }
        found.append(doc)
    return found


def _established(api: Api) -> bool:
    for crd in api.items("apiextensions.k8s.io/v1", "CustomResourceDefinition"):
        conditions = (crd.get("status") or {}).get("conditions") or []
        if not any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
            return False
    return True


def load(
    plane: ControlPlane, api: Api, env: Environment, skip: Callable[[dict], bool] | None = None
) -> list[str]:
    """Nodes and system pods from the profile, then every layer in order (CRDs and Namespaces
    of each layer first, as `trainops verify` orders them), Kueue started once its CRDs are in
    and its webhooks registered before anything it admits. Returns what was not applied and
    why (one line each)."""
    skipped = []
    make_nodes(api, env.profile)
    make_storage_classes(api, env.profile)
    make_system_pods(api, env.profile)
    kueue_started = False
    for layer, docs in env.layers:
        prepared = [p for d in docs if (p := _prepared(d, plane)) is not None]
        first = [d for d in prepared if d["kind"] in ("CustomResourceDefinition", "Namespace")]
        rest = [d for d in prepared if d not in first]
        for doc in first:
            api.apply(doc)
        wait_for("CRDs established", lambda: _established(api))
        api.dynamic.resources.invalidate_cache()
        if not kueue_started and any(
            d.get("kind") == "CustomResourceDefinition"
            and d["spec"].get("group") == "kueue.x-k8s.io"
            for d in first
        ):
            plane.start_kueue(env.kueue_configuration())
            for hook in kueue_webhooks(env, plane):
                api.apply(hook)
            kueue_started = True
        for doc in rest:
            if skip is not None and skip(doc):
                continue
            if doc["kind"] == "PersistentVolumeClaim":
                _storage(api, env.profile, doc)
            try:
                _apply_retrying(api, doc)
            except Exception as error:  # noqa: BLE001 - recorded as what the cluster refused
                skipped.append(f"{layer}: {doc['kind']} {doc['metadata'].get('name')}: {error}")
    return skipped


def _apply_retrying(api: Api, doc: dict) -> None:
    from kubernetes.client.exceptions import ApiException

    for attempt in range(20):
        try:
            api.apply(doc)
            return
        except ApiException as error:
            # A namespace's default ServiceAccount is made a moment after the namespace; a
            # webhook's server may be a moment from serving.
            if error.status not in (403, 404, 500) or attempt == 19:
                raise
            time.sleep(0.5)


# --- what the controllers decided ----------------------------------------------------------------


def workloads(api: Api) -> list[dict]:
    """Kueue's Workloads: the job they stand for, its ClusterQueue, whether admitted (quota
    reserved) and with which flavors, and its latest condition's reason and message."""
    found = []
    for wl in api.items("kueue.x-k8s.io/v1beta2", "Workload"):
        meta, spec, status = wl["metadata"], wl.get("spec") or {}, wl.get("status") or {}
        owner = next(iter(meta.get("ownerReferences") or []), {})
        conditions = {c["type"]: c for c in status.get("conditions") or []}
        admission = status.get("admission") or {}
        flavors = sorted(
            {
                flavor
                for assignment in admission.get("podSetAssignments") or []
                for flavor in (assignment.get("flavors") or {}).values()
            }
        )
        quota = conditions.get("QuotaReserved") or {}
        found.append(
            {
                "job": f"{owner.get('kind')} {owner.get('name')}",
                "namespace": meta.get("namespace"),
                "queue": admission.get("clusterQueue") or spec.get("queueName"),
                "admitted": (conditions.get("Admitted") or {}).get("status") == "True",
                "flavors": flavors,
                "reason": quota.get("reason", ""),
                "message": quota.get("message", ""),
                "evicted": (conditions.get("Evicted") or {}).get("status") == "True",
                "pods": sum(int(p.get("count", 0)) for p in spec.get("podSets") or []),
            }
        )
    return sorted(found, key=lambda w: w["job"])


def pods(api: Api, namespaces: set[str]) -> list[dict]:
    found = []
    for pod in api.core.list_pod_for_all_namespaces().items:
        if pod.metadata.namespace not in namespaces:
            continue
        owner = next(iter(pod.metadata.owner_references or []), None)
        scheduled = next((c for c in pod.status.conditions or [] if c.type == "PodScheduled"), None)
        found.append(
            {
                "pod": f"{pod.metadata.namespace}/{pod.metadata.name}",
                "owner": f"{owner.kind} {owner.name}" if owner else "",
                "node": pod.spec.node_name or "",
                "phase": pod.status.phase,
                "unschedulable": (scheduled.message or "")
                if scheduled is not None and scheduled.status == "False"
                else "",
            }
        )
    return sorted(found, key=lambda p: p["pod"])


# A namespace no layer names: what a webhook scoped to the namespaces it manages must leave alone.
ELSEWHERE = "probe-elsewhere"
# In the Status the API server returns, JSON-escaped: failed calling webhook \"NAME\".
_FAILED_CALLING = re.compile(r'failed calling webhook \\?"([^"\\]+)')


def probe_job(namespace: str) -> dict:
    """A batch Job, the kind of Volcano's PreSync certificate Job (issue 43, 5)."""
    job = _plain_job("webhook-probe", "10m", 1, queued=False)
    job["metadata"]["namespace"] = namespace
    return job


def webhook_reach(plane: ControlPlane, api: Api, env: Environment) -> dict[str, str | None]:
    """With Kueue stopped, which webhook refuses a batch Job in each namespace of the environment
    and in one it does not name (None: the Job is admitted). The API server calls the webhooks a
    create matches and, with failurePolicy Fail, refuses it at the first that cannot answer
    (k8s.io/apiserver v0.32.13 webhook/mutating and webhook/validating dispatchers); a dry run
    goes through admission, webhooks of sideEffects None included, and stores nothing."""
    from kubernetes.client.exceptions import ApiException

    process = plane.processes["kueue"]
    process.terminate()
    process.wait(timeout=30)
    api.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ELSEWHERE}})
    namespaces = sorted(
        {d["metadata"]["name"] for d in env.objects() if d.get("kind") == "Namespace"} | {ELSEWHERE}
    )
    jobs = api.resource("batch/v1", "Job")
    found: dict[str, str | None] = {}
    for namespace in namespaces:
        try:
            jobs.create(body=probe_job(namespace), namespace=namespace, dry_run="All")
            found[namespace] = None
        except ApiException as error:
            refused = _FAILED_CALLING.search(str(error.body))
            found[namespace] = refused[1] if refused else f"refused: {error.reason}"
    return found


def settle(api: Api, seconds: float = 60) -> None:
    """Wait until Kueue's Workloads and the pods stop changing (two passes alike) or `seconds`."""
    deadline, last = time.monotonic() + seconds, None
    time.sleep(3)
    while time.monotonic() < deadline:
        now = json.dumps([workloads(api), pods(api, {"bookstore-ml"})], sort_keys=True)
        if now == last:
            return
        last = now
        time.sleep(3)


@contextlib.contextmanager
def cluster(
    behaviour: Callable[[dict], str] | None = None, pods_ready_timeout: str | None = None
) -> Iterator[tuple[ControlPlane, Api, Kubelet]]:
    plane = ControlPlane(pods_ready_timeout=pods_ready_timeout)
    try:
        plane.start()
        api = Api(plane)
        with Kubelet(api, behaviour) as kubelet:
            yield plane, api, kubelet
    finally:
        plane.stop()


# A Job Kueue does not admit (no queue-name label: manageJobsWithoutQueueName is false) beside one
# it admits: kind's quota (1800m) holds the queued Job's 1200m, but the node has 1850m left after
# kube-system and the operators, 800m of which the Job outside the quota takes first.
def _plain_job(name: str, cpu: str, pods: int, queued: bool) -> dict:
    labels = {"kueue.x-k8s.io/queue-name": "bookstore-ml-lq"} if queued else {}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "bookstore-ml", "labels": labels},
        "spec": {
            "parallelism": pods,
            "completions": pods,
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "securityContext": {
                        "runAsNonRoot": True,
                        "runAsUser": 65532,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    "containers": [
                        {
                            "name": "main",
                            "image": PAUSE_IMAGE,
                            "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}},
                            "securityContext": {
                                "allowPrivilegeEscalation": False,
                                "capabilities": {"drop": ["ALL"]},
                            },
                        }
                    ],
                }
            },
        },
    }


def _pytorch_job(name: str, master_cpu: str, worker_cpu: str, workers: int) -> dict:
    """A PyTorchJob of a Master and `workers` Workers, queued: Kueue admits it (no operator runs
    here, so no pods follow)."""

    def replica(cpu: str, count: int) -> dict:
        template = _plain_job(name, cpu, 1, queued=True)["spec"]["template"]
        template["spec"]["containers"][0]["name"] = "pytorch"
        template["spec"].pop("restartPolicy")
        return {"replicas": count, "restartPolicy": "Never", "template": template}

    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {
            "name": name,
            "namespace": "bookstore-ml",
            "labels": {"kueue.x-k8s.io/queue-name": "bookstore-ml-lq"},
        },
        "spec": {
            "pytorchReplicaSpecs": {
                "Master": replica(master_cpu, 1),
                "Worker": replica(worker_cpu, workers),
            }
        },
    }


JOB_KINDS = {"Job", "PyTorchJob", "RayJob", "JobSet", "MPIJob", "CronJob", "RayCluster"}


@dataclass(frozen=True)
class Scenario:
    environment: str
    extra: tuple[dict, ...] = ()
    own_jobs: bool = True  # False: the environment's jobs left out


def scenarios() -> dict[str, Scenario]:
    found = {name: Scenario(name) for name in sorted(Path(f).name for f in config().environments)}
    found["kind-over-committed"] = Scenario(
        "kind",
        (
            _plain_job("outside", "400m", 2, queued=False),
            _plain_job("queued", "600m", 2, queued=True),
        ),
        own_jobs=False,
    )
    # The cloud queue's on-demand (32 CPU) and spot (64 CPU) flavors: `split` fits neither whole
    # (90 CPU), only its Master in one and its Workers in the other; `too-big`'s Workers (60)
    # fit only spot, where its Master (40) does not fit beside them: never admitted.
    found["cloud-split"] = Scenario(
        "cloud",
        (_pytorch_job("split", "30", "30", 2), _pytorch_job("too-big", "40", "30", 2)),
        own_jobs=False,
    )
    return found


def decide(scenario: Scenario) -> dict:
    """One scenario through the real controllers: what Kueue admitted and why the rest wait,
    where the scheduler put the pods and why not, and what the cluster refused; with the objects
    applied (CRDs aside), which the recorded test judges with trainops."""
    env = environment(scenario.environment)
    if not scenario.own_jobs:
        env.layers = [
            (layer, [d for d in docs if d.get("kind") not in JOB_KINDS])
            for layer, docs in env.layers
        ]
    if scenario.extra:
        name, docs = env.layers[-1]
        env.layers[-1] = (name, docs + list(scenario.extra))
    with cluster() as (plane, api, _):
        refused = load(plane, api, env)
        settle(api)
        decided = {
            "environment": scenario.environment,
            "layers": {
                layer: [d for d in docs if d.get("kind") != "CustomResourceDefinition"]
                for layer, docs in env.layers
            },
            "workloads": workloads(api),
            "pods": pods(api, {"bookstore-ml"}),
            "refused": refused,
        }
        if scenario.own_jobs:  # last: it stops Kueue
            decided["webhook_reach"] = webhook_reach(plane, api, env)
        return decided


def recorded() -> dict[str, dict]:
    with gzip.open(RECORD, "rt") as text:
        return json.load(text)


def record(names: list[str]) -> None:
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    known = recorded() if RECORD.exists() else {}
    every = scenarios()
    for name in names:
        print(f"{name}: standing a cluster up", file=sys.stderr)
        known[name] = decide(every[name])
    text = json.dumps(dict(sorted(known.items())), indent=1, sort_keys=True) + "\n"
    with gzip.GzipFile(RECORD, "wb", mtime=0) as out:  # the same decisions, the same bytes
        out.write(text.encode())
    print(f"recorded {', '.join(names)} in {RECORD.relative_to(REPO)}", file=sys.stderr)


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "record"
    reason = missing()
    if reason is not None:
        print(reason, file=sys.stderr)
        return 2
    if command == "record":
        names = argv[1:] or list(scenarios())
        record(names)
        return 0
    print("usage: cluster_harness.py record [SCENARIO...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
