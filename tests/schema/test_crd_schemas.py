"""Custom resources against the CRDs the operators layer renders: every kind the repository uses."""

from __future__ import annotations

import copy

import pytest

from helpers import REPO, rendered_docs, rendered_each
from trainops.knowledge.schema.catalog import Catalog
from trainops.knowledge.schema.crd import convert

CRD_ROOTS = [
    "operators/training-operator",
    "operators/kuberay",
    "operators/kueue",
    "operators/jobset",
    "operators/volcano",
    "gitops/crds/argo-cd",
    "gitops/crds/flux",
]


@pytest.fixture(scope="module")
def catalog(renderer) -> Catalog:
    crds = [
        d
        for docs in rendered_each(renderer, [REPO / root for root in CRD_ROOTS])
        for d in docs
        if d["kind"] == "CustomResourceDefinition"
    ]
    return Catalog(["v1.32"], crds)


@pytest.fixture(scope="module")
def repository_objects(overlays):
    return {(d["apiVersion"], d["kind"]): d for docs in overlays.values() for d in docs}


def errors(catalog, doc) -> list[tuple[str, str]]:
    lookup = catalog.lookup(doc["apiVersion"], doc["kind"])
    assert lookup is not None, (doc["apiVersion"], doc["kind"])
    from trainops.rules.schema import json_path

    return [
        (json_path(e.instance_path), e.message)
        for t in lookup.targets
        for e in t.validator.iter_errors(doc)
    ]


CUSTOM_KINDS = [
    ("kubeflow.org/v1", "PyTorchJob"),
    ("ray.io/v1", "RayJob"),
    ("kueue.x-k8s.io/v1beta2", "ClusterQueue"),
    ("kueue.x-k8s.io/v1beta2", "LocalQueue"),
    ("kueue.x-k8s.io/v1beta2", "ResourceFlavor"),
    ("batch.volcano.sh/v1alpha1", "Job"),
    ("scheduling.volcano.sh/v1beta1", "Queue"),
]


@pytest.mark.parametrize(("api_version", "kind"), CUSTOM_KINDS)
def test_every_custom_resource_the_repository_ships_is_valid(
    catalog, repository_objects, api_version, kind
):
    assert errors(catalog, repository_objects[(api_version, kind)]) == []


@pytest.mark.parametrize(("api_version", "kind"), CUSTOM_KINDS)
def test_every_custom_resource_with_an_unknown_field_is_rejected(
    catalog, repository_objects, api_version, kind
):
    doc = copy.deepcopy(repository_objects[(api_version, kind)])
    doc.setdefault("spec", {})["unknownSetting"] = True
    assert errors(catalog, doc) == [
        ("spec", "Additional properties are not allowed ('unknownSetting' was unexpected)")
    ]


def test_gitops_objects_are_valid_against_argo_cd_and_flux_crds(catalog, renderer):
    for root in ("gitops/argocd/kind/apps", "gitops/flux/kind"):
        for doc in rendered_docs(renderer, REPO / root):
            assert errors(catalog, doc) == [], (root, doc["kind"])
    bad_app = next(
        d
        for d in rendered_docs(renderer, REPO / "gitops/argocd/kind/apps")
        if d["kind"] == "Application"
    )
    bad_app["spec"]["syncPolicy"]["retry"]["limit"] = "five"
    assert [p for p, _ in errors(catalog, bad_app)] == ["spec.syncPolicy.retry.limit"]


def test_a_crd_version_without_a_schema_is_accepted_and_noted():
    crd = {
        "metadata": {"name": "loose.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Loose"},
            "versions": [{"name": "v1", "served": True}],
        },
    }
    catalog = Catalog(["v1.32"], [crd])
    assert catalog.notes == [
        "CRD loose.example.com serves v1 without a schema: objects of those versions are accepted unchecked"
    ]
    lookup = catalog.lookup("example.com/v1", "Loose")
    assert lookup.targets[0].validator.is_valid(
        {
            "apiVersion": "example.com/v1",
            "kind": "Loose",
            "metadata": {"name": "x"},
            "spec": {"any": 1},
        }
    )


def _pytorchjob(repository_objects):
    return copy.deepcopy(repository_objects[("kubeflow.org/v1", "PyTorchJob")])


def test_unknown_field_is_rejected(catalog, repository_objects):
    job = _pytorchjob(repository_objects)
    job["spec"]["runPolicy"]["backoffLimits"] = 3
    assert errors(catalog, job) == [
        ("spec.runPolicy", "Additional properties are not allowed ('backoffLimits' was unexpected)")
    ]


def test_wrong_type_is_rejected(catalog, repository_objects):
    job = _pytorchjob(repository_objects)
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = "two"
    assert errors(catalog, job) == [
        ("spec.pytorchReplicaSpecs.Worker.replicas", '"two" is not of type "integer"')
    ]


def test_missing_required_field_is_rejected(catalog, repository_objects):
    queue = copy.deepcopy(repository_objects[("kueue.x-k8s.io/v1beta2", "ClusterQueue")])
    del queue["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"]
    [(path, message)] = errors(catalog, queue)
    assert (
        path == "spec.resourceGroups[0].flavors[0].resources[0]"
        and "nominalQuota" in message
        and "required" in message
    )


def test_enum_violation_is_rejected(catalog, repository_objects):
    queue = copy.deepcopy(repository_objects[("kueue.x-k8s.io/v1beta2", "ClusterQueue")])
    queue["spec"]["queueingStrategy"] = "Random"
    [(path, message)] = errors(catalog, queue)
    assert path == "spec.queueingStrategy" and "Random" in message


def test_int_or_string_accepts_both_and_nothing_else(catalog, repository_objects):
    job = _pytorchjob(repository_objects)
    resources = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0][
        "resources"
    ]
    resources["limits"]["cpu"] = 2
    resources["requests"]["cpu"] = "500m"
    assert errors(catalog, job) == []
    resources["limits"]["cpu"] = [2]
    assert [p for p, _ in errors(catalog, job)] == [
        "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources.limits.cpu"
    ]


def test_preserve_unknown_fields_subtree_is_accepted(catalog):
    # A Flux Kustomization's patches target a free-form object; an Argo CD Application's
    # source.helm.valuesObject is x-kubernetes-preserve-unknown-fields.
    app = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "a", "namespace": "argocd"},
        "spec": {
            "project": "default",
            "destination": {"server": "https://kubernetes.default.svc"},
            "source": {
                "repoURL": "https://example.com/r.git",
                "path": ".",
                "helm": {"valuesObject": {"any": {"thing": [1, "x"]}}},
            },
        },
    }
    assert errors(catalog, app) == []


def test_conversion_rules():
    crd = {
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "properties": {
                                "spec": {
                                    "type": "object",
                                    "x-kubernetes-validations": [{"rule": "self.size > 0"}],
                                    "properties": {
                                        "size": {"x-kubernetes-int-or-string": True},
                                        "note": {
                                            "type": "string",
                                            "nullable": True,
                                            "default": "x",
                                            "format": "byte",
                                        },
                                        "free": {
                                            "type": "object",
                                            "x-kubernetes-preserve-unknown-fields": True,
                                        },
                                        "embedded": {
                                            "type": "object",
                                            "x-kubernetes-embedded-resource": True,
                                            "properties": {"spec": {"type": "object"}},
                                        },
                                    },
                                }
                            },
                        }
                    },
                },
                {"name": "v0", "served": False, "schema": {"openAPIV3Schema": {"type": "object"}}},
            ],
        },
    }
    converted = convert(crd)
    assert list(converted.versions) == ["v1"] and converted.cel_rules
    spec = converted.versions["v1"]["properties"]["spec"]
    assert spec["additionalProperties"] is False
    assert spec["properties"]["size"] == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert spec["properties"]["note"] == {"type": ["string", "null"]}
    assert "additionalProperties" not in spec["properties"]["free"]
    assert set(spec["properties"]["embedded"]["properties"]) == {
        "apiVersion",
        "kind",
        "metadata",
        "spec",
    }


def test_a_crd_parsed_from_a_kept_text_is_converted_once_by_that_parse(tmp_path, monkeypatch):
    """A CRD's conversion is kept under the parse it came from (K8sObject.source), which names
    its content: no serialisation of its spec to key it. The same CRD in another text (a build
    with origin annotations, then one without) is found by its content, not converted again."""
    from trainops.knowledge.schema import cache as schema_cache
    from trainops.model.objects import parse_stream

    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path))

    def crd_text(kind: str, annotated: bool = False) -> str:
        plural = kind.lower() + "s"
        padding = "x" * 40_000  # past objects.CACHED_FROM: the parse is kept, and named
        annotations = ", annotations: {a: b}" if annotated else ""
        return (
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
            f"metadata: {{name: {plural}.example.com{annotations}}}\n"
            "spec:\n  group: example.com\n  scope: Namespaced\n"
            f"  names: {{kind: {kind}, plural: {plural}, singular: {kind.lower()}}}\n"
            "  versions:\n  - name: v1\n    served: true\n    storage: true\n"
            f"    schema: {{openAPIV3Schema: {{type: object, description: {padding}}}}}\n"
        )

    [first] = parse_stream(crd_text("Widget"), "a.yaml").objects
    [same] = parse_stream(crd_text("Widget"), "b.yaml").objects
    [elsewhere] = parse_stream(crd_text("Widget", annotated=True), "c.yaml").objects
    [other] = parse_stream(crd_text("Gadget"), "d.yaml").objects
    sources = {first.source, elsewhere.source, other.source}
    assert first.source == same.source and None not in sources and len(sources) == 3
    converted = schema_cache.converted(first.doc, [], first.source)
    assert converted.kind == "Widget" and converted.problem is None

    conversions = []
    convert = schema_cache.convert
    monkeypatch.setattr(
        schema_cache, "convert", lambda crd: conversions.append(crd) or convert(crd)
    )
    assert schema_cache.converted(elsewhere.doc, [], elsewhere.source) == converted
    assert conversions == []  # found by its content

    def no_serialising(*args, **kwargs):
        raise AssertionError("the spec was serialised to key its conversion")

    with monkeypatch.context() as patched:
        patched.setattr(schema_cache.json, "dumps", no_serialising)
        patched.setattr(schema_cache.marshal, "dumps", no_serialising)
        assert schema_cache.converted(same.doc, [], same.source) == converted
        assert schema_cache.converted(elsewhere.doc, [], elsewhere.source) == converted
    assert schema_cache.converted(other.doc, [], other.source).kind == "Gadget"
    assert len(conversions) == 1
    # Without a source, the content is the key, as before.
    assert schema_cache.converted(first.doc, []).kind == "Widget"
    assert len(conversions) == 1


def test_core_definitions_are_kept_read_until_their_file_changes(tmp_path, monkeypatch):
    from trainops.knowledge.schema import core

    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "v1.99.0-local-strict"
    folder.mkdir()
    source = folder / "_definitions.json"
    ref = core._REF_PREFIX + 'b"'
    source.write_text('{"$defs": {"a": {"$ref": ' + ref + '}, "b": {"type": "string"}}}')
    monkeypatch.setattr(core, "folder", lambda version: folder)

    def read() -> dict:
        core._definitions.cache_clear()  # a new run
        return core.definitions("v1.99")

    first = read()
    assert first == {"a": {"$ref": "#/$defs/b"}, "b": {"type": "string"}}
    monkeypatch.setattr(core.json, "loads", lambda text: pytest.fail("read again"))
    assert read() == first  # kept
    monkeypatch.undo()
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(core, "folder", lambda version: folder)
    source.write_text('{"$defs": {"c": {"type": "integer"}}}')
    assert read() == {"c": {"type": "integer"}}
    core._definitions.cache_clear()
