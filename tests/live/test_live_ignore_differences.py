"""Argo CD's ignoreDifferences as `trainops drift` honours them: the repository's own entries on
live-shaped objects, and each mechanism (JSON pointers, jq path expressions, managedFields
managers) with the matching rules of argo-cd's diff normalizer."""

from __future__ import annotations

import pytest

from helpers import REPO
from trainops.check.validate import Root, load_or_fail
from trainops.live.drift import compare
from trainops.live.ignore_differences import (
    Unsupported,
    entries,
    fields_v1_paths,
    jq_paths,
    normalised,
)
from trainops.live.layers import Layer
from trainops.model.objects import K8sObject


@pytest.fixture(scope="module")
def applications(renderer) -> dict[str, K8sObject]:
    [apps] = load_or_fail([Root(REPO / "gitops" / "argocd" / "kind" / "apps")], renderer)
    return {o.name: o for o in apps.objects if o.kind == "Application"}


def _drifted_fields(layer: Layer, live: dict, desired: dict) -> list[str]:
    changes, notes = compare(live, desired, layer)
    assert notes == []
    return [f.path for change in changes for f in change.fields]


def test_the_workloads_application_ignores_kueues_suspend_flips(applications):
    layer = Layer(Root(REPO / "overlays/kind/workloads"), applications["trainops-kind-workloads"])
    git = {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": {"name": "j", "namespace": "bookstore-ml"},
        "spec": {"runPolicy": {"suspend": True, "backoffLimit": 1}},
    }
    live = {**git, "spec": {"runPolicy": {"suspend": False, "backoffLimit": 3}}}
    assert _drifted_fields(layer, live, git) == ["spec.runPolicy.backoffLimit"]
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "t"},
        "spec": {"suspend": True},
    }
    assert _drifted_fields(layer, {**job, "spec": {"suspend": False}}, job) == []
    cluster = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "c"},
        "spec": {
            "workerGroupSpecs": [
                {"groupName": "w", "replicas": 1},
                {"groupName": "x", "replicas": 1},
            ]
        },
    }
    scaled = {
        **cluster,
        "spec": {
            "workerGroupSpecs": [
                {"groupName": "w", "replicas": 4},
                {"groupName": "x", "replicas": 0},
            ]
        },
    }
    assert _drifted_fields(layer, scaled, cluster) == []


def test_the_operators_application_ignores_injected_ca_bundles(applications):
    layer = Layer(Root(REPO / "overlays/kind/operators"), applications["trainops-kind-operators"])
    webhook = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "w"},
        "webhooks": [{"name": "a", "clientConfig": {"service": {"name": "s"}}}],
    }
    injected = {
        **webhook,
        "webhooks": [{"name": "a", "clientConfig": {"service": {"name": "s"}, "caBundle": "Q0E="}}],
    }
    assert _drifted_fields(layer, injected, webhook) == []
    moved = {**injected, "webhooks": [{"name": "a", "clientConfig": {"service": {"name": "t"}}}]}
    assert _drifted_fields(layer, moved, webhook) == ["webhooks[name=a].clientConfig.service.name"]
    service = {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": "v"},
        "spec": {},
    }
    assert _drifted_fields(layer, {**service, "spec": {"caBundle": "Q0E="}}, service) == []
    # The platform layer's Application declares none: the same field is a difference there.
    platform = Layer(Root(REPO / "overlays/kind/platform"), applications["trainops-kind-platform"])
    assert _drifted_fields(platform, injected, webhook) == [
        "webhooks[name=a].clientConfig.caBundle"
    ]


def test_matching_follows_argo_cd():
    rules = entries(
        [
            {"group": "*", "kind": "Deploy*", "name": "web", "jsonPointers": ["/spec/replicas"]},
            {"group": "", "kind": "ConfigMap", "namespace": "a", "jsonPointers": ["/data/x"]},
        ]
    )
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 3},
    }
    live, desired, _ = normalised(deployment, {**deployment, "spec": {"replicas": 1}}, rules)
    assert live["spec"] == desired["spec"] == {}
    other = {**deployment, "metadata": {"name": "api"}}
    assert normalised(other, other, rules)[0]["spec"] == {"replicas": 3}
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "b"},
        "data": {"x": "1"},
    }
    assert normalised(config_map, config_map, rules)[0]["data"] == {"x": "1"}


def test_pointers_escape_and_index_and_miss_quietly():
    doc = {"metadata": {"annotations": {"a/b": "1", "c~d": "2"}}, "items": [1, 2, 3]}
    rules = entries(
        [
            {
                "kind": "*",
                "group": "*",
                "jsonPointers": [
                    "/metadata/annotations/a~1b",
                    "/metadata/annotations/c~0d",
                    "/items/1",
                    "/nothing/here",
                ],
            }
        ]
    )
    live, _, _ = normalised(doc, doc, rules)
    assert live == {"metadata": {"annotations": {}}, "items": [1, 3]}


def test_jq_path_expressions():
    doc = {
        "spec": {
            "containers": [
                {"name": "a", "image": "x", "env": [{"name": "E", "value": "1"}]},
                {"name": "b", "image": "y"},
            ]
        },
        "weird key": {"k": 1},
    }
    assert list(jq_paths(doc, ".spec.containers[]?.image")) == [
        ("spec", "containers", 0, "image"),
        ("spec", "containers", 1, "image"),
    ]
    assert list(jq_paths(doc, '.spec.containers[] | select(.name == "b") | .image')) == [
        ("spec", "containers", 1, "image")
    ]
    assert list(jq_paths(doc, '.spec.containers[] | select(.name != "b").env[0].value')) == [
        ("spec", "containers", 0, "env", 0, "value")
    ]
    assert list(jq_paths(doc, '."weird key".k')) == [("weird key", "k")]
    assert list(jq_paths(doc, '.["weird key"]')) == [("weird key",)]
    assert list(jq_paths(doc, ".spec.containers[-1].name")) == [("spec", "containers", 1, "name")]
    assert list(jq_paths(doc, ".missing[]?.x")) == []
    for unsupported in (".. | select(.nullable?)", ".spec | keys", ".a // .b"):
        with pytest.raises(Unsupported):
            list(jq_paths(doc, unsupported))


def test_an_unsupported_expression_is_a_note_not_a_guess():
    doc = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "1"}}
    rules = entries(
        [{"group": "", "kind": "ConfigMap", "jqPathExpressions": [".data | to_entries"]}]
    )
    live, _, notes = normalised(doc, doc, rules)
    assert live["data"] == {"a": "1"}
    assert notes == [
        "ignoreDifferences jqPathExpression '.data | to_entries': only path expressions "
        "(.a, [n], [], select(.a == value), |) are supported, not 'to_entries'"
    ]


def test_managed_fields_managers():
    live = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "d",
            "managedFields": [
                {
                    "manager": "hpa",
                    "fieldsV1": {
                        "f:spec": {
                            "f:replicas": {},
                            "f:template": {
                                "f:spec": {
                                    "f:containers": {'k:{"name":"a"}': {".": {}, "f:resources": {}}}
                                }
                            },
                        }
                    },
                }
            ],
        },
        "spec": {
            "replicas": 5,
            "template": {
                "spec": {
                    "containers": [
                        {"name": "a", "resources": {"limits": {"cpu": "2"}}, "image": "i"}
                    ]
                }
            },
        },
    }
    assert sorted(fields_v1_paths(live["metadata"]["managedFields"][0]["fieldsV1"], live)) == [
        ("spec", "replicas"),
        ("spec", "template", "spec", "containers", 0, "resources"),
    ]
    desired = {
        **live,
        "spec": {
            "replicas": 1,
            "template": {"spec": {"containers": [{"name": "a", "resources": {}, "image": "j"}]}},
        },
    }
    rules = entries([{"group": "apps", "kind": "Deployment", "managedFieldsManagers": ["hpa"]}])
    left, right, _ = normalised(live, desired, rules)
    assert left["spec"]["template"]["spec"]["containers"][0] == {"name": "a", "image": "i"}
    assert right["spec"]["template"]["spec"]["containers"][0] == {"name": "a", "image": "j"}
    assert "replicas" not in left["spec"] and "replicas" not in right["spec"]
