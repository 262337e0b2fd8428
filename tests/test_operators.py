"""The operators layer renders offline from the mirror, pinned, patched and restricted."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from helpers import REPO, rendered_each
from restricted import restricted_problems

OPERATORS = {
    # folder: (namespace, deployment, CRD names it must carry)
    "training-operator": (
        "kubeflow",
        "training-operator",
        {"pytorchjobs.kubeflow.org", "tfjobs.kubeflow.org"},
    ),
    "kuberay": (
        "ray-system",
        "kuberay-operator",
        {"rayjobs.ray.io", "rayclusters.ray.io", "rayservices.ray.io"},
    ),
    "kueue": (
        "kueue-system",
        "kueue-controller-manager",
        {"clusterqueues.kueue.x-k8s.io", "localqueues.kueue.x-k8s.io"},
    ),
    "jobset": ("jobset-system", "jobset-controller-manager", {"jobsets.jobset.x-k8s.io"}),
    "mpi-operator": ("mpi-operator", "mpi-operator", {"mpijobs.kubeflow.org"}),
}


@pytest.fixture(scope="module")
def rendered(renderer) -> dict[str, list[dict]]:
    names = sorted(OPERATORS)
    return dict(zip(names, rendered_each(renderer, [REPO / "operators" / n for n in names])))


def only(docs: list[dict], kind: str, name: str | None = None) -> dict:
    matches = [
        d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)
    ]
    assert len(matches) == 1, f"expected one {kind} {name or ''}, found {len(matches)}"
    return matches[0]


@pytest.mark.parametrize("operator", sorted(OPERATORS))
def test_operator_renders_crds_deployment_and_own_namespace(rendered, operator):
    namespace, deployment, crds = OPERATORS[operator]
    docs = rendered[operator]
    assert only(docs, "Namespace")["metadata"]["name"] == namespace
    assert only(docs, "Deployment", deployment)["metadata"]["namespace"] == namespace
    assert crds <= {d["metadata"]["name"] for d in docs if d["kind"] == "CustomResourceDefinition"}


@pytest.mark.parametrize("operator", sorted(OPERATORS))
def test_operator_pod_templates_meet_restricted(rendered, operator):
    for doc in rendered[operator]:
        if doc["kind"] in ("Deployment", "StatefulSet", "DaemonSet", "Job"):
            spec = doc["spec"]["template"]["spec"]
            assert restricted_problems(spec) == [], doc["metadata"]["name"]
            for container in spec["containers"]:
                assert {"cpu", "memory"} <= set(container["resources"]["limits"]), container["name"]
                assert {"cpu", "memory"} <= set(container["resources"]["requests"]), container[
                    "name"
                ]


@pytest.mark.parametrize("operator", sorted(OPERATORS))
def test_crds_are_marked_for_server_side_apply_and_never_deleted_by_gitops(rendered, operator):
    crds = [d for d in rendered[operator] if d["kind"] == "CustomResourceDefinition"]
    assert crds
    for crd in crds:
        annotations = crd["metadata"]["annotations"]
        assert (
            annotations["argocd.argoproj.io/sync-options"]
            == "ServerSideApply=true,Prune=false,Delete=false"
        )
        assert annotations["kustomize.toolkit.fluxcd.io/prune"] == "disabled"
        assert crd["metadata"]["labels"]["trainops.dev/apply"] == "server-side"


def test_some_crds_really_exceed_the_client_side_apply_limit(rendered):
    # The reason for server-side apply: client-side apply keeps the object as compact JSON in the
    # last-applied-configuration annotation, and annotations hold 262144 bytes at most.
    sizes = [
        len(json.dumps(d, separators=(",", ":")))
        for docs in rendered.values()
        for d in docs
        if d["kind"] == "CustomResourceDefinition"
    ]
    assert max(sizes) > 262144


def test_no_image_from_a_staging_registry_or_floating_tag(rendered):
    for docs in rendered.values():
        for doc in docs:
            if doc["kind"] == "Deployment":
                for container in doc["spec"]["template"]["spec"]["containers"]:
                    image = container["image"]
                    assert "staging" not in image, image
                    assert ":" in image.rsplit("/", 1)[-1], image
                    assert image.rsplit(":", 1)[1] not in ("latest", "main", "master", "nightly"), (
                        image
                    )


def test_kueue_runs_the_release_image(rendered):
    deployment = only(rendered["kueue"], "Deployment", "kueue-controller-manager")
    images = [c["image"] for c in deployment["spec"]["template"]["spec"]["containers"]]
    assert images == ["registry.k8s.io/kueue/kueue:v0.18.6"]


def test_jobset_runs_the_release_image(rendered):
    deployment = only(rendered["jobset"], "Deployment", "jobset-controller-manager")
    assert (
        deployment["spec"]["template"]["spec"]["containers"][0]["image"]
        == "registry.k8s.io/jobset/jobset:v0.12.0"
    )


@pytest.mark.parametrize("operator", ["kueue", "jobset"])
def test_controller_config_rolls_out_on_change(rendered, operator):
    # Mounted through subPath, which never sees an update: the name's content hash must change instead.
    [config_map] = [
        d
        for d in rendered[operator]
        if d["kind"] == "ConfigMap" and "-config" in d["metadata"]["name"]
    ]
    name = config_map["metadata"]["name"]
    assert re.fullmatch(rf"{operator}-controller-config-[a-z0-9]{{10}}", name)
    deployment = only(rendered[operator], "Deployment", f"{operator}-controller-manager")
    volumes = deployment["spec"]["template"]["spec"]["volumes"]
    assert {"name": name} == next(v["configMap"] for v in volumes if v["name"] == "manager-config")


def test_kueue_registers_webhooks_only_for_its_kinds_and_enabled_integrations(rendered):
    resources = {
        (w["name"], r)
        for d in rendered["kueue"]
        if d["kind"].endswith("WebhookConfiguration")
        for w in d["webhooks"]
        for rule in w["rules"]
        for r in rule["resources"]
    }
    assert {r for _, r in resources} == {
        "jobs",
        "jobsets",
        "mpijobs",
        "pytorchjobs",
        "rayclusters",
        "rayjobs",
        "workloads",
        "workloads/status",
        "clusterqueues",
        "cohorts",
        "resourceflavors",
    }


def test_kueue_config_enables_exactly_our_integrations(rendered):
    [config_map] = [d for d in rendered["kueue"] if d["kind"] == "ConfigMap"]
    config = yaml.safe_load(config_map["data"]["controller_manager_config.yaml"])
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert config["manageJobsWithoutQueueName"] is False
    assert config["integrations"]["frameworks"] == [
        "batch/job",
        "kubeflow.org/pytorchjob",
        "kubeflow.org/mpijob",
        "ray.io/rayjob",
        "ray.io/raycluster",
        "jobset.x-k8s.io/jobset",
    ]
    # The Deployment mounts the ConfigMap it reads its --config from.
    deployment = only(rendered["kueue"], "Deployment", "kueue-controller-manager")
    volumes = deployment["spec"]["template"]["spec"]["volumes"]
    assert {"name": config_map["metadata"]["name"]} == next(
        v["configMap"] for v in volumes if "configMap" in v
    )


def test_training_operator_uses_a_restricted_init_container_template(rendered):
    docs = rendered["training-operator"]
    deployment = only(docs, "Deployment", "training-operator")
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    flag = next(
        a for a in container["args"] if a.startswith("--pytorch-init-container-template-file=")
    )
    template_path = Path(flag.split("=", 1)[1])

    mount = next(
        m for m in container["volumeMounts"] if template_path.is_relative_to(m["mountPath"])
    )
    volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
    config_map = only(docs, "ConfigMap", volume["configMap"]["name"])
    template = config_map["data"][template_path.name]

    # The operator fills in Go template fields; give them values to read the result as YAML.
    filled = template.replace("{{.MasterAddr}}", "job-master-0").replace("{{.MaxTries}}", "100")
    init_containers = yaml.safe_load(filled)
    assert [c["name"] for c in init_containers] == ["init-pytorch"]
    image = init_containers[0]["image"]
    assert image.split(":")[-1] not in ("latest", "3.10") and "alpine:3.10" not in image
    pod_with_init = {"containers": [], "initContainers": init_containers}
    assert restricted_problems(pod_with_init) == []
    assert init_containers[0]["resources"]["limits"]


def test_training_operator_init_container_waits_for_the_masters_port_not_its_name(rendered):
    """DNS alone says nothing of whether the master listens: the template connects to its port."""
    config_map = only(rendered["training-operator"], "ConfigMap")
    [template] = config_map["data"].values()
    [init] = yaml.safe_load(
        template.replace("{{.MasterAddr}}", "job-master-0").replace("{{.MaxTries}}", "3")
    )
    script = init["command"][-1]
    assert "nslookup" not in script
    job = yaml.safe_load((REPO / "workloads" / "bookstore-ml" / "pytorchjob.yaml").read_text())
    master = job["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]
    port = next(p["containerPort"] for p in master["ports"] if p["name"] == "pytorchjob-port")
    assert f"nc -z -w 2 job-master-0 {port}" in script


def test_a_non_compliant_spec_is_caught_by_the_test_helper():
    # The helper behind the restricted assertions above can fail.
    problems = restricted_problems({"containers": [{"name": "c", "image": "x:1"}]})
    assert "c: allowPrivilegeEscalation is not false" in problems
    assert "c: runAsNonRoot is not true" in problems


def test_one_mpijob_crd_the_mpi_operators_and_no_v1_mpijob_controller(rendered):
    """Both the Training Operator v1.8.1 and the MPI Operator v0.8.0 ship mpijobs.kubeflow.org: the
    MPI Operator's (v2beta1, which Kueue's kubeflow.org/mpijob integration admits) is the one; the
    Training Operator drops its v1 CRD and starts every controller but MPIJob's."""
    crds = {
        operator: {
            d["metadata"]["name"]: d for d in docs if d["kind"] == "CustomResourceDefinition"
        }
        for operator, docs in rendered.items()
    }
    assert "mpijobs.kubeflow.org" not in crds["training-operator"]
    mpijobs = crds["mpi-operator"]["mpijobs.kubeflow.org"]
    assert [v["name"] for v in mpijobs["spec"]["versions"] if v["served"]] == ["v2beta1"]
    deployment = only(rendered["training-operator"], "Deployment", "training-operator")
    [container] = deployment["spec"]["template"]["spec"]["containers"]
    schemes = [a.split("=", 1)[1] for a in container["args"] if a.startswith("--enable-scheme=")]
    assert sorted(schemes) == ["mxjob", "paddlejob", "pytorchjob", "tfjob", "xgboostjob"]
    operator = only(rendered["mpi-operator"], "Deployment", "mpi-operator")
    assert operator["spec"]["template"]["spec"]["containers"][0]["image"] == (
        "mpioperator/mpi-operator:0.8.0"
    )
