"""`trainops verify`, `drift` and `status` against a real kube-apiserver (v1.32.13, from
../shared/tools/kube-apiserver): run when TRAINOPS_TEST_KUBECONFIG names its kubeconfig, skipped
saying so otherwise.

The server has no controllers, scheduler or kubelet, and serves no operator's webhooks: the tests
write, as its admin, the state controllers would (a Workload's conditions, a Pod's phase, through
the status subresource) and trainops reads it. Each test works in a namespace of its own
(`trainops-live-…`, removed afterwards); the kind environment's CRDs and Namespaces, and its
platform layer, are created when missing (CRDs without their conversion webhooks, as
tests/conformance/harness.py installs them) and what was created is removed at the end, except
the CRDs, which stay installed for every other test of the server.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import time
from pathlib import Path

import pytest
import yaml
from live_cluster import MANAGER, PREFIX, Admin, kubeconfig_or_skip, shared

from helpers import REPO, run_trainops
from trainops.check.validate import Root, load_or_fail

pytestmark = pytest.mark.apiserver


@pytest.fixture(scope="module")
def admin() -> Admin:
    return Admin(kubeconfig_or_skip())


@pytest.fixture
def namespace(admin):
    name = admin.new_namespace()
    yield name
    admin.remove_namespace(name)


def trainops(admin: Admin, *args: str, kubeconfig: Path | None = None, cwd: Path = REPO):
    return run_trainops(
        *args, "--kubeconfig", str(kubeconfig or admin.kubeconfig), cwd=cwd, timeout=120
    )


@pytest.fixture(scope="module")
def kind_ready(admin, renderer):
    """The kind environment's CRDs and Namespaces, and its platform layer, on the server. Only
    what is missing is created (an existing object is never changed: other tests' namespaces
    stay without Pod Security labels); what was created goes again at the end, CRDs apart."""
    operators, platform = load_or_fail(
        [Root(REPO / "overlays/kind/operators"), Root(REPO / "overlays/kind/platform")], renderer
    )

    def set_up() -> list[dict]:
        crds = [o.doc for o in operators.objects if o.kind == "CustomResourceDefinition"]
        for doc in crds:
            if admin.get(doc) is None:
                crd = copy.deepcopy(doc)
                crd["spec"].pop("conversion", None)  # no operator serves the conversion here
                admin.apply(crd)
        admin.wait_established([doc["metadata"]["name"] for doc in crds])
        created = []
        namespaces = [o.doc for o in operators.objects if o.kind == "Namespace"]
        for doc in namespaces + [o.doc for o in platform.objects]:
            if admin.get(doc) is None:
                admin.apply(doc)
                created.append(doc)
        return created

    def tear_down(created: list[dict]) -> None:
        for doc in reversed(created):
            admin.delete(doc)
            if doc["kind"] == "Namespace" and (namespace := admin.get(doc)) is not None:
                namespace["spec"]["finalizers"] = []
                path = f"/api/v1/namespaces/{doc['metadata']['name']}/finalize"
                admin.request("PUT", path, namespace)

    with shared("kind-platform", set_up, tear_down):
        yield


# --- verify ----------------------------------------------------------------------------------


@pytest.mark.parametrize("env", ["kind", "cloud", "gpu", "volcano"])
def test_verify_every_environment_is_clean(admin, kind_ready, env):
    started = time.perf_counter()
    done = trainops(admin, "verify", env)
    seconds = time.perf_counter() - started
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("clean")
    assert "0 rejected" in done.stderr.splitlines()[-1]
    if env == "kind":
        # The issue asks for at most 10 s. Most of it is the server's (a dry run of each large CRD
        # costs it up to a second of CPU), so on a machine busy with other work it says nothing.
        load, cores = os.getloadavg()[0], os.cpu_count() or 1
        print(f"trainops verify kind: {seconds:.1f} s (load average {load:.1f} on {cores} cores)")
        if load <= cores:
            assert seconds <= 10


def test_verify_finds_a_change_the_server_rejects_at_its_line(admin, kind_ready, tmp_path):
    layer = tmp_path / "workloads"
    shutil.copytree(REPO / "workloads/bookstore-ml", layer, ignore=shutil.ignore_patterns("train"))
    source = layer / "pytorchjob.yaml"
    lines = source.read_text().splitlines(keepends=True)
    worker = next(i for i, line in enumerate(lines) if line.strip() == "Worker:")
    replicas = next(i for i in range(worker, len(lines)) if lines[i].strip() == "replicas: 1")
    lines[replicas] = lines[replicas].replace("replicas: 1", "replicas: two")
    source.write_text("".join(lines))
    done = trainops(admin, "verify", str(layer), "--format", "json")
    assert done.returncode == 1, done.stderr
    [finding] = json.loads(done.stdout)
    assert (finding["rule"], finding["file"], finding["line"]) == (
        "apiserver-rejected",
        str(source),
        replicas + 1,
    )
    assert finding["path"] == "spec.pytorchReplicaSpecs.Worker.replicas"
    assert (
        finding["object"]["kind"] == "PyTorchJob"
        and "the API server rejects it" in finding["message"]
    )
    text = trainops(admin, "verify", str(layer))
    assert (
        f"{source}:{replicas + 1}: error [apiserver-rejected] PyTorchJob/bookstore-ml/recommender-train-pt"
        in text.stdout
    )
    sarif = json.loads(trainops(admin, "verify", str(layer), "--format", "sarif").stdout)
    [result] = sarif["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == replicas + 1


def _write(path: Path, *docs: dict) -> Path:
    path.write_text(yaml.safe_dump_all(list(docs)))
    return path


def test_verify_waits_for_the_layer_with_a_crd_or_namespace(admin, namespace, tmp_path):
    group = f"{namespace}.trainops.test"
    fresh = f"{namespace}-new"
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {
                "kind": "Widget",
                "plural": "widgets",
                "singular": "widget",
                "listKind": "WidgetList",
            },
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                        }
                    },
                }
            ],
        },
    }
    first = _write(
        tmp_path / "first.yaml",
        crd,
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": fresh}},
    )
    widget = {
        "apiVersion": f"{group}/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": namespace},
    }
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": fresh},
    }
    second = _write(tmp_path / "second.yaml", widget, config_map)
    done = trainops(admin, "verify", str(first), str(second))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        f"note: {second}: Widget/{namespace}/w waits for its layer: its CRD comes with {first}"
        in done.stderr
    )
    assert (
        f"note: {second}: ConfigMap/{fresh}/c waits for its layer: its Namespace {fresh} comes with {first}"
        in done.stderr
    )
    assert "2 accepted, 0 rejected, 2 waiting for their layer" in done.stderr
    # Alone, the second layer asks for what nothing installs.
    alone = trainops(admin, "verify", str(second), "--format", "json")
    assert alone.returncode == 1
    messages = sorted(f["message"] for f in json.loads(alone.stdout))
    assert messages == [
        f"the API server rejects it: namespace {fresh} does not exist and no layer creates it",
        f"the API server rejects it: the cluster has no Widget in {group}: no CRD serves it and no layer installs one",
    ]
    # A dry run: neither the CRD nor the Namespace exists.
    assert (
        admin.get(crd) is None
        and admin.get({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": fresh}})
        is None
    )


def test_the_commands_never_write(admin, namespace, tmp_path):
    kept = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kept", "namespace": namespace},
        "data": {"a": "1"},
    }
    before = admin.apply(kept)
    changed = {
        **kept,
        "data": {"a": "2"},
        "metadata": {**kept["metadata"], "labels": {"new": "label"}},
    }
    new = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "new", "namespace": namespace},
    }
    new_namespace = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": f"{namespace}-x"},
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": namespace},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox:1.36.1"}],
                }
            }
        },
    }
    objects = _write(tmp_path / "objects.yaml", changed, new, new_namespace, job)
    for command in ("verify", "drift", "status"):
        done = trainops(admin, command, str(objects))
        assert done.returncode in (0, 1), done.stderr
    after = admin.get(kept)
    assert after is not None
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert {m["manager"] for m in after["metadata"]["managedFields"]} == {MANAGER}
    assert after["data"] == {"a": "1"}
    assert admin.get(new) is None and admin.get(new_namespace) is None and admin.get(job) is None


# --- drift -----------------------------------------------------------------------------------

PROFILE = """
profiles:
  kind:
    cloud: kind
    storageClasses: {standard: {provisioner: rancher.io/local-path, accessModes: [ReadWriteOnce]}}
    nodePools: [{name: node, allocatable: {cpu: "4", memory: 8Gi}}]
"""


def _repository(top: Path, namespace: str) -> Path:
    """A repository of one environment, `live`: two layers, Argo CD Applications (the workloads'
    ignoring Job.spec.suspend, as the repository's do) and Flux Kustomizations."""
    files = {
        "trainops.yaml": "roots: [env/live/*, gitops/argocd/live/apps, gitops/flux/live]\n"
        "environments: {env/live: kind}\n" + PROFILE,
        "env/live/platform/kustomization.yaml": "resources: [objects.yaml]\n",
        "env/live/platform/objects.yaml": f"""apiVersion: v1
kind: ServiceAccount
metadata: {{name: trainer, namespace: {namespace}}}
automountServiceAccountToken: false
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: settings, namespace: {namespace}}}
data:
  epochs: "3"
  learning-rate: "0.01"
""",
        "env/live/workloads/kustomization.yaml": "resources: [job.yaml]\n",
        "env/live/workloads/job.yaml": f"""apiVersion: batch/v1
kind: Job
metadata: {{name: train, namespace: {namespace}}}
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: bookstore/recommender-train:dev
""",
        "gitops/argocd/live/apps/kustomization.yaml": "resources: [apps.yaml]\n",
        "gitops/argocd/live/apps/apps.yaml": """apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: live-workloads, namespace: argocd, annotations: {argocd.argoproj.io/sync-wave: "2"}}
spec:
  source: {path: env/live/workloads}
  ignoreDifferences:
    - {group: batch, kind: Job, jsonPointers: [/spec/suspend]}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: live-platform, namespace: argocd, annotations: {argocd.argoproj.io/sync-wave: "1"}}
spec:
  source: {path: env/live/platform}
""",
        "gitops/flux/live/kustomization.yaml": "resources: [layers.yaml]\n",
        "gitops/flux/live/layers.yaml": """apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: live-workloads, namespace: flux-system}
spec: {path: ./env/live/workloads, dependsOn: [{name: live-platform}]}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: live-platform, namespace: flux-system}
spec: {path: ./env/live/platform}
""",
    }
    for name, text in files.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text)
    return top


def _apply_git(admin: Admin, repository: Path) -> None:
    for path in ("env/live/platform/objects.yaml", "env/live/workloads/job.yaml"):
        for doc in yaml.safe_load_all((repository / path).read_text()):
            admin.apply(doc)


def test_drift_after_a_hand_edit_then_in_sync_after_applying_git(admin, namespace, tmp_path):
    repository = _repository(tmp_path, namespace)
    _apply_git(admin, repository)
    done = trainops(admin, "drift", "live", cwd=repository)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "env/live/platform (Argo CD Application live-platform, Flux Kustomization flux-system/live-platform) in sync"
        in done.stdout
    )

    settings = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": namespace},
    }
    admin.merge_patch(settings, {"data": {"epochs": "30"}})  # the hand edit (kubectl edit)
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "train", "namespace": namespace},
    }
    admin.merge_patch(job, {"spec": {"suspend": False}}, manager="kueue")  # Kueue admits the job
    stray = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "stray",
            "namespace": namespace,
            "labels": {
                "kustomize.toolkit.fluxcd.io/name": "live-platform",
                "kustomize.toolkit.fluxcd.io/namespace": "flux-system",
            },
        },
    }
    admin.apply(
        stray, manager="kustomize-controller"
    )  # applied by Flux once, since removed from git

    done = trainops(admin, "drift", "live", "--format", "json", cwd=repository)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    platform, workloads = report["layers"]
    assert (platform["layer"], workloads["layer"], workloads["inSync"]) == (
        "env/live/platform",
        "env/live/workloads",
        True,
    )
    [edited, extra] = platform["objects"]
    assert (edited["drift"], edited["kind"], edited["name"]) == ("changed", "ConfigMap", "settings")
    assert edited["fields"] == [
        {"path": "data.epochs", "change": "changed", "old": "30", "new": "3"}
    ]
    assert (extra["drift"], extra["name"], extra["why"]) == (
        "extra",
        "stray",
        "Flux Kustomization flux-system/live-platform owns it and would prune it",
    )
    text = trainops(admin, "drift", "live", cwd=repository).stdout
    assert f"~ v1 ConfigMap {namespace}/settings (differs from git)" in text
    assert "data.epochs: 30 → 3" in text
    assert f"- v1 ConfigMap {namespace}/stray (in the cluster, not in git;" in text
    markdown = trainops(admin, "drift", "live", "--format", "markdown", cwd=repository).stdout
    assert f"! v1 ConfigMap {namespace}/settings  (differs from git)" in markdown

    _apply_git(admin, repository)
    admin.delete(stray)
    done = trainops(admin, "drift", "live", cwd=repository)
    assert done.returncode == 0, done.stdout
    assert done.stdout.rstrip().endswith(
        "0 of 2 layer(s) drifted: 0 object(s) differ from git, 0 missing from the cluster, 0 not in git, "
        f"0 git's version of which the server rejects ({done.stdout.rstrip().rpartition('(')[2]}"
    )


def test_drift_with_a_namespaced_role_says_what_it_could_not_look_for(admin, namespace, tmp_path):
    repository = _repository(tmp_path, namespace)
    _apply_git(admin, repository)
    deployer = admin.service_account_kubeconfig(
        namespace,
        "deployer",
        [
            {
                "apiGroups": [""],
                "resources": ["configmaps", "serviceaccounts"],
                "verbs": ["get", "patch"],
            },
            {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["get", "patch"]},
        ],
        tmp_path,
    )
    done = trainops(admin, "drift", "live", kubeconfig=deployer, cwd=repository)
    assert done.returncode == 0, done.stdout + done.stderr
    [note] = [
        line for line in done.stderr.splitlines() if line.startswith("note: not allowed to list")
    ]
    assert "configmaps, " in note and "jobs.batch" in note
    assert note.endswith("objects of those kinds git no longer has are not looked for")


# --- status ----------------------------------------------------------------------------------


def _training_jobs(renderer, namespace: str, folder: Path) -> tuple[Path, dict[str, dict]]:
    """The kind environment's jobs, moved to `namespace`, as a file to give `status`, plus a
    copy of the Job whose pods are refused by an unavailable webhook."""
    [workloads] = load_or_fail([Root(REPO / "overlays/kind/workloads")], renderer)
    jobs = {}
    for obj in workloads.objects:
        if obj.kind in ("Job", "PyTorchJob", "RayJob"):
            doc = copy.deepcopy(obj.doc)
            doc["metadata"]["namespace"] = namespace
            jobs[obj.kind] = doc
    probe = copy.deepcopy(jobs["Job"])
    probe["metadata"]["name"] = "webhook-probe"
    jobs["probe"] = probe
    return _write(folder / "jobs.yaml", *jobs.values()), jobs


def _owned_by(job: dict) -> list[dict]:
    return [
        {
            "apiVersion": job["apiVersion"],
            "kind": job["kind"],
            "name": job["metadata"]["name"],
            "uid": job["metadata"]["uid"],
            "controller": True,
        }
    ]


def _workload(admin: Admin, job: dict, conditions: list[tuple[str, str, str, str]]) -> None:
    namespace = job["metadata"]["namespace"]
    workload = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": f"{job['kind'].lower()}-{job['metadata']['name']}-1a2b3",
            "namespace": namespace,
            "ownerReferences": _owned_by(job),
        },
        "spec": {
            "queueName": "bookstore-ml-lq",
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}},
                }
            ],
        },
    }
    admin.apply(workload)
    now = "2026-01-01T00:00:00Z"
    admin.merge_patch(
        workload,
        {
            "status": {
                "conditions": [
                    {
                        "type": kind,
                        "status": status,
                        "reason": reason,
                        "message": message,
                        "lastTransitionTime": now,
                    }
                    for kind, status, reason, message in conditions
                ]
            }
        },
        subresource="status",
        manager="kueue",
    )


def _pod(admin: Admin, job: dict, name: str, status: dict) -> dict:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": job["metadata"]["namespace"],
            "ownerReferences": _owned_by(job),
        },
        "spec": {"containers": [{"name": "train", "image": "bookstore/recommender-train:dev"}]},
    }
    admin.apply(pod)
    admin.merge_patch(pod, {"status": status}, subresource="status", manager="kubelet")
    return admin.get(pod) or {}


def _event(admin: Admin, involved: dict, reason: str, message: str) -> None:
    namespace = involved["metadata"]["namespace"]
    admin.ok(
        "POST",
        f"/api/v1/namespaces/{namespace}/events",
        {
            "metadata": {"generateName": "trainops-live-", "namespace": namespace},
            "involvedObject": {
                "apiVersion": involved["apiVersion"],
                "kind": involved["kind"],
                "name": involved["metadata"]["name"],
                "namespace": namespace,
                "uid": involved["metadata"]["uid"],
            },
            "type": "Warning",
            "reason": reason,
            "message": message,
            "lastTimestamp": "2026-01-01T00:00:00Z",
            "count": 3,
            "source": {"component": "test"},
        },
    )


QUOTA = (
    "couldn't assign flavors to pod set head: insufficient unused quota for cpu in flavor "
    "default-flavor, 2500m more needed"
)
UNSCHEDULABLE = "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available"
PSA = (
    'Error creating: pods "recommender-train-x" is forbidden: violates PodSecurity '
    '"restricted:v1.32": runAsNonRoot != true (pod or container "train" must set securityContext.runAsNonRoot=true)'
)
WEBHOOK = (
    'Internal error occurred: failed calling webhook "mpod.kb.io": failed to call webhook: Post '
    '"https://kueue-webhook-service.kueue-system.svc:443/mutate--v1-pod?timeout=10s": no endpoints '
    'available for service "kueue-webhook-service"'
)


def test_status_of_jobs_whose_workload_conditions_were_set(
    admin, kind_ready, renderer, namespace, tmp_path
):
    path, jobs = _training_jobs(renderer, namespace, tmp_path)
    live = {key: admin.apply(doc) for key, doc in jobs.items()}
    # PyTorchJob: admitted, the master placed and running, the worker unschedulable.
    admin.merge_patch(live["PyTorchJob"], {"status": {"conditions": [
        {"type": "Created", "status": "True", "reason": "PyTorchJobCreated", "message": "created", "lastUpdateTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"},
        {"type": "Running", "status": "True", "reason": "PyTorchJobRunning", "message": "PyTorchJob recommender-train-pt is running.", "lastUpdateTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"},
    ]}}, subresource="status", manager="training-operator")  # fmt: skip
    _workload(admin, live["PyTorchJob"], [
        ("QuotaReserved", "True", "QuotaReserved", "Quota reserved in ClusterQueue bookstore-ml-cq"),
        ("Admitted", "True", "Admitted", "The workload is admitted"),
        ("PodsReady", "False", "PodsReady", "Not all pods are ready or succeeded"),
    ])  # fmt: skip
    _pod(admin, live["PyTorchJob"], "recommender-train-pt-master-0", {
        "phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"}],
    })  # fmt: skip
    _pod(admin, live["PyTorchJob"], "recommender-train-pt-worker-0", {
        "phase": "Pending",
        "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": UNSCHEDULABLE}],
    })  # fmt: skip
    # RayJob: queued, Kueue has no quota for it.
    admin.merge_patch(
        live["RayJob"],
        {"status": {"jobDeploymentStatus": "Suspended"}},
        subresource="status",
        manager="kuberay",
    )
    _workload(admin, live["RayJob"], [("QuotaReserved", "False", "Pending", QUOTA)])
    # Job: admitted; its pods refused by Pod Security, then one pulling an image that is not there.
    _workload(
        admin,
        live["Job"],
        [("QuotaReserved", "True", "QuotaReserved", ""), ("Admitted", "True", "Admitted", "")],
    )
    _event(admin, live["Job"], "FailedCreate", PSA)
    _pod(admin, live["Job"], "recommender-train-abcde", {
        "phase": "Pending",
        "conditions": [{"type": "PodScheduled", "status": "True"}],
        "containerStatuses": [{
            "name": "train", "image": "bookstore/recommender-train:dev", "imageID": "", "ready": False, "restartCount": 0,
            "state": {"waiting": {"reason": "ErrImageNeverPull", "message": 'Container image "bookstore/recommender-train:dev" is not present with pull policy of Never'}},
        }],
    })  # fmt: skip
    # The probe Job: Kueue's pod webhook has no endpoint.
    _workload(
        admin,
        live["probe"],
        [("QuotaReserved", "True", "QuotaReserved", ""), ("Admitted", "True", "Admitted", "")],
    )
    _event(admin, live["probe"], "FailedCreate", WEBHOOK)

    done = trainops(admin, "status", str(path), "--format", "json")
    assert done.returncode == 1, done.stderr  # problems diagnosed
    report = {job["name"]: job for job in json.loads(done.stdout)["jobs"]}
    pytorch = report["recommender-train-pt"]
    assert (pytorch["health"], pytorch["workload"]) == (
        "running",
        "pytorchjob-recommender-train-pt-1a2b3",
    )
    assert [(c["type"], c["status"], c["reason"]) for c in pytorch["workloadConditions"]] == [
        ("QuotaReserved", "True", "QuotaReserved"),
        ("Admitted", "True", "Admitted"),
        ("PodsReady", "False", "PodsReady"),
    ]
    assert [(p["name"], p["phase"]) for p in pytorch["pods"]] == [
        ("recommender-train-pt-master-0", "Running"),
        ("recommender-train-pt-worker-0", "Pending"),
    ]
    assert pytorch["diagnoses"] == [
        {
            "shape": "gang partly placed",
            "detail": f"1 of 2 pods scheduled, 1 unschedulable: {UNSCHEDULABLE}",
            "problem": True,
        }
    ]
    ray = report["recommender-train-ray"]
    assert (ray["health"], ray["message"]) == ("suspended", "Suspended (waiting for quota)")
    assert ray["diagnoses"] == [
        {"shape": "waiting for quota", "detail": f"{QUOTA} (Pending)", "problem": False}
    ]
    job = report["recommender-train"]
    assert [d["shape"] for d in job["diagnoses"]] == [
        "rejected by Pod Security",
        "image pull failing",
    ]
    assert job["events"][0]["reason"] == "FailedCreate" and job["events"][0]["count"] == 3
    assert [d["shape"] for d in report["webhook-probe"]["diagnoses"]] == ["webhook unavailable"]

    text = trainops(admin, "status", str(path)).stdout
    assert (
        f"PyTorchJob {namespace}/recommender-train-pt (queue bookstore-ml-lq): running: PyTorchJob recommender-train-pt is running."
        in text
    )
    assert "      QuotaReserved=False (Pending): couldn't assign flavors" in text
    assert f"→ gang partly placed: 1 of 2 pods scheduled, 1 unschedulable: {UNSCHEDULABLE}" in text
    assert (
        "→ waiting for quota:" in text
        and "→ webhook unavailable: mpod.kb.io: failed to call webhook" in text
    )


# --- who may ask -------------------------------------------------------------------------------


def test_rbac_denials_name_the_verb_and_resource(admin, namespace, tmp_path):
    reader = admin.service_account_kubeconfig(
        namespace,
        "reader",
        [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}],
        tmp_path,
    )
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": namespace},
        "data": {"a": "1"},
    }
    admin.apply(config_map)
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "j", "namespace": namespace},
    }
    objects = _write(tmp_path / "objects.yaml", {**config_map, "data": {"a": "2"}})
    account = f"system:serviceaccount:{namespace}:reader"
    for command in ("verify", "drift"):
        done = trainops(admin, command, str(objects), kubeconfig=reader)
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr.strip().splitlines() == [
            f"trainops: error: permission denied by RBAC on {admin_server(admin)}: {account} cannot patch "
            f"configmaps in namespace {namespace}; `trainops {command}` needs "
            + (
                "get, patch and create (the last two only ever as dry runs)"
                if command == "verify"
                else "get, list, patch and create (the last two only ever as dry runs)"
            )
            + " on the layers' objects"
        ]
    # An apply that would create is authorized as a create too, dry run or not.
    patcher = admin.service_account_kubeconfig(
        namespace,
        "patcher",
        [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "patch"]}],
        tmp_path,
    )
    new = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "fresh", "namespace": namespace},
    }
    done = trainops(admin, "verify", str(_write(tmp_path / "new.yaml", new)), kubeconfig=patcher)
    assert done.returncode == 2
    assert (
        f"system:serviceaccount:{namespace}:patcher cannot create configmaps in namespace"
        in done.stderr
    )
    assert trainops(admin, "verify", str(objects), kubeconfig=patcher).returncode == 0
    done = trainops(admin, "status", str(_write(tmp_path / "job.yaml", job)), kubeconfig=reader)
    assert done.returncode == 2
    assert f"{account} cannot get jobs.batch in namespace {namespace}" in done.stderr
    assert "Traceback" not in done.stderr


def admin_server(admin: Admin) -> str:
    return yaml.safe_load(admin.kubeconfig.read_text())["clusters"][0]["cluster"]["server"]


def test_invalid_token_and_unknown_certificate_authority(admin, namespace, tmp_path):
    objects = _write(
        tmp_path / "o.yaml",
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "c", "namespace": namespace},
        },
    )
    bad_token = admin.kubeconfig_with(tmp_path / "bad-token", token="expired-or-invalid")
    done = trainops(admin, "verify", str(objects), kubeconfig=bad_token)
    assert done.returncode == 2
    assert (
        "refused the credentials of user admin (401 Unauthorized): the token is expired or invalid"
        in done.stderr
    )
    import certifi

    other_ca = (
        Path(certifi.where()).read_text().split("-----END CERTIFICATE-----")[0]
        + "-----END CERTIFICATE-----\n"
    )
    wrong_ca = admin.kubeconfig_with(
        tmp_path / "wrong-ca", ca=other_ca[other_ca.index("-----BEGIN") :].encode()
    )
    done = trainops(admin, "status", str(objects), kubeconfig=wrong_ca)
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert (
        "TLS with the API server" in line
        and "not signed by the kubeconfig's certificate-authority" in line
    )
    assert PREFIX in namespace  # the test's own namespace
