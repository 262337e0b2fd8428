"""What the server's answers mean, from canned answers in the real server's shapes: waiting for a
layer, rejections with their field at the source line, recreation of marked jobs; and the layers of
each environment in the order its Argo CD and Flux entry points apply them."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from helpers import REPO
from trainops.check.validate import Root
from trainops.commands.cluster_options import plan_from
from trainops.live.client import Reply
from trainops.live.connection import Target
from trainops.live.discovery import Discovery, Resource
from trainops.live.dry_run import ACCEPTED, RECREATED, REJECTED, WAITING, Installs, ask, causes_of
from trainops.live.layers import Layer, Plan, Rendering, plan_environment, plan_paths
from trainops.live.verify import Verification, findings
from trainops.model.config import load_config
from trainops.model.errors import CannotRun
from trainops.model.objects import K8sObject, parse_file
from trainops.model.rendered import Rendered
from trainops.rules import RULES


class FakeClient:
    """Answers a dry run as given; records what was sent."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.sent: list[tuple[str, str, dict]] = []
        self.target = Target("https://k", "c", "u", "kubeconfig k", "default")

    def dry_run_apply(self, path: str, doc: dict) -> Reply:
        self.sent.append(("apply", path, doc))
        return self.replies.pop(0)

    def dry_run_create(self, path: str, doc: dict) -> Reply:
        self.sent.append(("create", path, doc))
        return self.replies.pop(0)


def discovery(*resources: Resource) -> Discovery:
    found = Discovery()
    for r in resources:
        found.resources[(r.group, r.version, r.kind)] = r
    return found


CONFIG_MAP = Resource("", "v1", "ConfigMap", "configmaps", True, frozenset({"get", "patch"}))
JOB = Resource("batch", "v1", "Job", "jobs", True, frozenset({"get", "patch", "create"}))
NAMESPACE = Resource("", "v1", "Namespace", "namespaces", False, frozenset({"get", "patch"}))
QUEUE_V1BETA1 = Resource(
    "kueue.x-k8s.io", "v1beta1", "LocalQueue", "localqueues", True, frozenset()
)


def obj(doc: dict, file: str = "f.yaml", line: int = 1) -> K8sObject:
    return K8sObject(doc, file, line)


QUEUE = obj(
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": "q", "namespace": "ml"},
    }
)


def test_a_custom_resource_waits_for_the_layer_with_its_crd():
    crd = obj(
        {
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "localqueues.kueue.x-k8s.io"},
            "spec": {
                "group": "kueue.x-k8s.io",
                "names": {"kind": "LocalQueue"},
                "versions": [{"name": "v1beta2"}],
            },
        }
    )
    installs = Installs()
    installs.add([crd], "overlays/kind/operators")
    answer = ask(FakeClient(), discovery(), QUEUE, "overlays/kind/platform", installs)  # type: ignore[arg-type]
    assert (answer.verdict, answer.message) == (
        WAITING,
        "its CRD comes with overlays/kind/operators",
    )
    same = ask(FakeClient(), discovery(), QUEUE, "overlays/kind/operators", installs)  # type: ignore[arg-type]
    assert same.message == "its CRD comes with this layer (applied first)"


def test_a_kind_no_layer_installs_is_rejected_at_its_apiversion_or_kind():
    answer = ask(FakeClient(), discovery(QUEUE_V1BETA1), QUEUE, "p", Installs())  # type: ignore[arg-type]
    assert answer.verdict == REJECTED
    assert answer.causes == [
        (
            "apiVersion",
            "the cluster serves LocalQueue (kueue.x-k8s.io) at v1beta1, not v1beta2, and no layer "
            "installs a CRD serving it",
        )
    ]
    widget = obj({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
    answer = ask(FakeClient(), discovery(), widget, "p", Installs())  # type: ignore[arg-type]
    assert answer.causes[0] == (
        "kind",
        "the cluster has no Widget in example.com: no CRD serves it and no layer installs one",
    )


NO_NAMESPACE = Reply(
    404,
    {
        "kind": "Status",
        "message": 'namespaces "ml" not found',
        "reason": "NotFound",
        "details": {"name": "ml", "kind": "namespaces"},
        "code": 404,
    },
)


def test_an_object_waits_for_the_layer_with_its_namespace():
    config_map = obj(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "ml"}}
    )
    installs = Installs(namespaces={"ml": "overlays/kind/platform"})
    answer = ask(FakeClient(NO_NAMESPACE), discovery(CONFIG_MAP), config_map, "w", installs)  # type: ignore[arg-type]
    assert (answer.verdict, answer.message) == (
        WAITING,
        "its Namespace ml comes with overlays/kind/platform",
    )
    answer = ask(FakeClient(NO_NAMESPACE), discovery(CONFIG_MAP), config_map, "w", Installs())  # type: ignore[arg-type]
    assert answer.verdict == REJECTED and answer.causes[0][0] == "metadata.namespace"


def test_paths_and_scope_sent_as_kubectl_sends_them():
    client = FakeClient(
        Reply(200, {"kind": "Namespace"}), Reply(201, {"kind": "ConfigMap"}, ["a warning"])
    )
    namespace = obj(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml", "namespace": "x"}}
    )
    assert ask(client, discovery(NAMESPACE), namespace, "l", Installs()).verdict == ACCEPTED  # type: ignore[arg-type]
    unnamespaced = obj({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    answer = ask(client, discovery(CONFIG_MAP), unnamespaced, "l", Installs())  # type: ignore[arg-type]
    assert answer.warnings == ["a warning"]
    assert [(verb, path) for verb, path, _ in client.sent] == [
        ("apply", "/api/v1/namespaces/ml"),
        ("apply", "/api/v1/namespaces/default/configmaps/c"),  # the context's namespace
    ]
    assert "namespace" not in client.sent[0][2]["metadata"]  # cluster-scoped: dropped


def test_causes_from_each_kind_of_refusal():
    invalid = Reply(
        422,
        {
            "message": 'PyTorchJob.kubeflow.org "pt" is invalid: spec.pytorchReplicaSpecs.Worker.replicas: Invalid value: "string": ...',
            "reason": "Invalid",
            "details": {
                "causes": [
                    {
                        "reason": "FieldValueTypeInvalid",
                        "message": 'Invalid value: "string": spec.pytorchReplicaSpecs.Worker.replicas in body must be of type integer: "string"',
                        "field": "spec.pytorchReplicaSpecs.Worker.replicas",
                    }
                ]
            },
        },
    )
    assert causes_of(invalid) == [
        (
            "spec.pytorchReplicaSpecs.Worker.replicas",
            'Invalid value: "string": spec.pytorchReplicaSpecs.Worker.replicas in body must be of type integer: "string"',
        )
    ]
    typed = Reply(
        500,
        {
            "message": 'failed to create typed patch object (ml/t; batch/v1, Kind=Job): .spec.template.spec.containers[name="train"].bogus: field not declared in schema'
        },
    )
    assert causes_of(typed) == [
        ("spec.template.spec.containers[train].bogus", "field not declared in schema")
    ]
    strict = Reply(400, {"message": 'strict decoding error: unknown field "spec.bogus"'})
    assert causes_of(strict) == [("spec.bogus", 'unknown field "spec.bogus"')]


IMMUTABLE = Reply(
    422,
    {
        "message": 'Job.batch "t" is invalid',
        "details": {
            "causes": [
                {"field": "spec.template", "message": "Invalid value: ...: field is immutable"}
            ]
        },
    },
)


def test_a_job_marked_for_recreation_is_asked_as_a_create():
    marked = obj(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": "t",
                "namespace": "ml",
                "annotations": {"argocd.argoproj.io/sync-options": "Replace=true,Force=true"},
            },
        }
    )
    client = FakeClient(IMMUTABLE, Reply(201, {}))
    answer = ask(client, discovery(JOB), marked, "w", Installs())  # type: ignore[arg-type]
    assert answer.verdict == RECREATED
    verb, path, sent = client.sent[1]
    assert (verb, path, sent["metadata"].get("name"), sent["metadata"]["generateName"]) == (
        "create",
        "/apis/batch/v1/namespaces/ml/jobs",
        None,
        "t-",
    )
    unmarked = obj({**marked.doc, "metadata": {"name": "t", "namespace": "ml"}})
    assert ask(FakeClient(IMMUTABLE), discovery(JOB), unmarked, "w", Installs()).verdict == REJECTED  # type: ignore[arg-type]


def test_a_rejection_is_a_finding_at_its_fields_line(tmp_path):
    source = tmp_path / "job.yaml"
    source.write_text(
        "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: pt\nspec:\n"
        "  pytorchReplicaSpecs:\n    Worker:\n      replicas: two\n"
    )
    [job] = parse_file(source).objects
    answer = ask(
        FakeClient(
            Reply(
                422,
                {
                    "message": "invalid",
                    "details": {
                        "causes": [
                            {
                                "field": "spec.pytorchReplicaSpecs.Worker.replicas",
                                "message": "must be of type integer",
                            }
                        ]
                    },
                },
            )
        ),
        discovery(Resource("kubeflow.org", "v1", "PyTorchJob", "pytorchjobs", True, frozenset())),
        job,
        "w",
        Installs(),
    )  # type: ignore[arg-type]
    plan = Plan("kind", [Layer(Root(source))])
    verification = Verification(
        plan, Rendering([Rendered("w", objects=[job])], 0, 0, 0), [[answer]], 0
    )
    [finding] = findings(verification)
    assert (finding.rule, finding.file, finding.line, finding.path, finding.environments) == (
        "apiserver-rejected",
        job.file,
        8,
        "spec.pytorchReplicaSpecs.Worker.replicas",
        ("kind",),
    )
    assert finding.message == "the API server rejects it: must be of type integer"


# --- layers --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def config():
    return load_config(REPO / "trainops.yaml", RULES)


@pytest.mark.parametrize("env", ["kind", "cloud", "gpu", "volcano"])
def test_layers_in_the_entry_points_order(config, renderer, env):
    plan = plan_environment(env, config, renderer)
    assert [Path(layer.root.path).name for layer in plan.layers] == [
        "operators",
        "platform",
        "workloads",
    ]
    assert [layer.application.name for layer in plan.layers if layer.application] == [
        f"trainops-{env}-operators",
        f"trainops-{env}-platform",
        f"trainops-{env}-workloads",
    ]
    assert [layer.kustomization.name for layer in plan.layers if layer.kustomization] == [
        "trainops-operators",
        "trainops-platform",
        "trainops-workloads",
    ]
    assert plan.notes == []


def test_a_layer_given_as_a_path_keeps_its_gitops_objects(config, renderer):
    plan = plan_paths([REPO / "overlays/kind/workloads"], config, renderer)
    [layer] = plan.layers
    assert (plan.environment, layer.application.name, len(layer.ignore_differences())) == (
        "kind",
        "trainops-kind-workloads",
        4,
    )
    owned = {
        "labels": {
            "kustomize.toolkit.fluxcd.io/name": "trainops-workloads",
            "kustomize.toolkit.fluxcd.io/namespace": "flux-system",
        }
    }
    assert layer.owner(owned) == "Flux Kustomization flux-system/trainops-workloads"
    tracked = {
        "annotations": {"argocd.argoproj.io/tracking-id": "trainops-kind-workloads:batch/Job:ml/t"}
    }
    assert layer.owner(tracked) == "Argo CD Application trainops-kind-workloads"
    assert layer.owner({"labels": {"app.kubernetes.io/instance": "someone-else"}}) is None


def test_choosing_the_environment(config, renderer, tmp_path):
    def args(*targets: str) -> argparse.Namespace:
        return argparse.Namespace(targets=list(targets))

    with pytest.raises(
        CannotRun,
        match="name the environment the cluster runs: one of kind, volcano, mpi, cloud, gpu",
    ):
        plan_from(args(), config, renderer)
    with pytest.raises(
        CannotRun,
        match=r"prod: neither an environment of trainops.yaml \(kind, volcano, mpi, cloud, gpu\) nor a file",
    ):
        plan_from(args("prod"), config, renderer)
    assert plan_from(args("kind"), config, renderer).environment == "kind"
    single = tmp_path / "one.yaml"
    single.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    assert [layer.name for layer in plan_from(args(str(single)), config, renderer).layers] == [
        str(single)
    ]
