"""Property: any field of a realistic object replaced by a value of the wrong type ends every command
with exit 0, 1 or 2, never a traceback (as found: 38% of such mutations crashed `validate`)."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import datetime
import io
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, example, given, seed, settings
from hypothesis import strategies as st

from helpers import REPO, commit_slice, load_yaml, load_yaml_all
from trainops import cli
from trainops.check.validate import Root, catalog_for, load_root, load_roots, run_rules
from trainops.knowledge.profiles import profile_of
from trainops.model.config import load_config
from trainops.model.rendered import Cluster
from trainops.rules import RULES
from trainops.rules.schema import withhold_ill_shaped

SOURCES = [
    "base/namespace.yaml",
    "base/kueue.yaml",
    "base/network-policies.yaml",
    "base/service-account.yaml",
    "workloads/bookstore-ml/job.yaml",
    "workloads/bookstore-ml/pytorchjob.yaml",
    "workloads/bookstore-ml/rayjob.yaml",
    "workloads/bookstore-ml/pvc.yaml",
]
DOCS = [
    doc
    for source in SOURCES
    for doc in load_yaml_all((REPO / source).read_text())
    if isinstance(doc, dict)
]


def _paths(node: object, prefix: tuple = ()) -> list[tuple]:
    found = [prefix] if prefix else []
    children = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else []
    )
    for key, child in children:
        found += _paths(child, (*prefix, key))
    return found


FIELDS = [(index, path) for index, doc in enumerate(DOCS) for path in _paths(doc)]
WRONG = st.one_of(
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.dates(min_value=datetime.date(1970, 1, 1), max_value=datetime.date(2100, 1, 1)),
    st.sampled_from(["1.5", "-1", "", "true", "2024-01-01", "\x1b[2J", "10Qi", "a" * 300]),
    st.lists(st.one_of(st.integers(), st.text(max_size=3), st.none()), max_size=3),
    st.dictionaries(st.text(max_size=4), st.one_of(st.integers(), st.none()), max_size=2),
)
# What a value can be once trainops has parsed it (the parser turns YAML timestamps into text).
JSON_WRONG = st.one_of(
    st.integers(-(2**40), 2**40),
    st.booleans(),
    st.none(),
    st.sampled_from(["1.5", "", "true", "\x1b[2J", "a" * 300]),
    st.lists(st.one_of(st.integers(), st.text(max_size=3), st.none()), max_size=3),
    st.dictionaries(st.text(max_size=4), st.one_of(st.integers(), st.none()), max_size=2),
)
MUTATIONS = st.lists(st.tuples(st.sampled_from(FIELDS), WRONG), min_size=1, max_size=3)
# Each run of the suite tries a sixth of the examples, a slice chosen by the commit
# (helpers.commit_slice): the slice's own seed, the same examples for the same commit. `make slices`
# (TRAINOPS_TEST_ALL_SLICES=1) tries them all: the whole number, derandomized.
# TRAINOPS_EXPLORE=1 searches anew; TRAINOPS_EXAMPLES sets the whole number.
EXAMPLES = int(os.environ.get("TRAINOPS_EXAMPLES", "60"))
EXPLORE = os.environ.get("TRAINOPS_EXPLORE") is not None
SLICES = 6
_CHOSEN, _ = commit_slice(list(range(SLICES)), SLICES, lambda _: 1)
WHOLE = len(_CHOSEN) == SLICES
SETTINGS = settings(
    max_examples=EXAMPLES if WHOLE else max(1, EXAMPLES // SLICES),
    deadline=None,
    derandomize=WHOLE and not EXPLORE,
    database=None if not EXPLORE else settings.default.database,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _sliced(test):
    """SETTINGS, and the chosen slice's seed unless every slice or a new search is asked for."""
    test = SETTINGS(test)
    return test if WHOLE or EXPLORE else seed(_CHOSEN[0])(test)


def _mutated(mutations: list) -> str:
    docs = copy.deepcopy(DOCS)
    for (index, path), value in mutations:
        node = docs[index]
        try:
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation replaced this field's parent
    return yaml.safe_dump_all(docs)


def _exit_code(argv: list[str]) -> int:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    assert "Traceback" not in err.getvalue()
    return code


# Found by exploring (TRAINOPS_EXPLORE=1): each raised in a rule as it was.
HEAD_CONTAINERS = ("spec", "rayClusterSpec", "headGroupSpec", "template", "spec", "containers")
FOUND = [
    [((12, ("spec", "rayClusterSpec")), 1)],  # traffic: the dashboard port of a RayJob
    [((12, HEAD_CONTAINERS), "x")],  # runnable: the head's image
    [((12, HEAD_CONTAINERS), {"0": 1})],
    [((2, ("spec", "resourceGroups", 0, "flavors", 0)), {})],  # kueue-admission: a flavor's name
    [
        (
            (2, ("spec", "resourceGroups", 0, "flavors", 0, "resources", 0, "nominalQuota")),
            "2000-01-01",
        )
    ],
]


def _with_found(found: list):
    def with_examples(test):
        for mutations in found:
            test = example(mutations)(test)
        return test

    return with_examples


@_with_found(FOUND)
@_sliced
@given(MUTATIONS)
def test_validate_and_psa_never_crash_on_wrong_types(tmp_path_factory, mutations):
    file = tmp_path_factory.mktemp("mutated") / "objects.yaml"
    file.write_text(_mutated(mutations))
    with contextlib.chdir(file.parent):  # no trainops.yaml: the files alone, core schemas only
        assert _exit_code(["validate", str(file), "--format", "json"]) in (0, 1, 2)
        assert _exit_code(["psa", "--level", "restricted", str(file)]) in (0, 1, 2)


@pytest.fixture(scope="module")
def crd_catalog(renderer):
    """The schema catalog with the pinned operators' CRDs, rendered once."""
    config = load_config(REPO / "trainops.yaml", RULES)
    assert config is not None
    crd_roots = [Root(p) for p in config.crd_root_paths()]
    return catalog_for(
        load_roots(crd_roots, renderer), config.kubernetes_versions, crd_roots, config.folder
    )


@_with_found(FOUND)
@_sliced
@given(MUTATIONS)
def test_every_rule_reads_custom_resources_of_the_wrong_shape_safely(
    tmp_path_factory, crd_catalog, mutations
):
    _judged_as_an_environment(tmp_path_factory.mktemp("mutated"), _mutated(mutations), crd_catalog)


def _judged_as_an_environment(top: Path, text: str, crd_catalog) -> Path:
    """Run every rule on `text` as the one file of an environment; the file."""
    (top / "env").mkdir()
    file = top / "env" / "objects.yaml"
    file.write_text(text)
    rendered = load_root(Root(Path(file)), None, None)
    withhold_ill_shaped(rendered, crd_catalog)
    # The repository's configuration, with this folder as an environment on a cloud profile:
    # without one, the storage, schedulable and runnable rules have no facts and return at once.
    config = load_config(REPO / "trainops.yaml", RULES)
    assert config is not None
    config = dataclasses.replace(config, folder=top, environments={"env": "gke"})
    cluster = Cluster([rendered], crd_catalog, config, [rendered])
    assert profile_of(cluster) is not None
    for finding in run_rules(rendered, cluster):
        assert finding.rule and finding.message
    return file


# Every kind trainops judges, as the repository writes it: the platform and workloads, and the
# GitOps entry points (Argo CD Applications, Flux Kustomizations and sources), JobSets, MPIJobs
# and Volcano's Jobs and Queues (the Queues in the volcano platform layer).
EVERY_KIND = [
    doc
    for source in sorted(
        [
            path
            for folder in ("base", "workloads", "gitops", "components")
            for path in (REPO / folder).rglob("*.yaml")
            if path.name != "kustomization.yaml"
        ]
        + [REPO / "overlays/volcano/platform/volcano-queues.yaml"]
    )
    for doc in load_yaml_all(source.read_text())
    if isinstance(doc, dict) and "metadata" in doc
]
EVERY_FIELD = [(index, path) for index, doc in enumerate(EVERY_KIND) for path in _paths(doc)]


def _field_of(kind: str, path: tuple) -> tuple[int, tuple]:
    return next(i for i, doc in enumerate(EVERY_KIND) if doc["kind"] == kind), path


# As found: an empty name (KeyError: 'generateName'), a mapping for a dependsOn name (unhashable).
EVERY_KIND_FOUND = [
    [(_field_of("Job", ("metadata", "name")), "")],
    [(_field_of("Kustomization", ("metadata", "name")), "")],
    [(_field_of("Kustomization", ("spec", "dependsOn", 0, "name")), {"a": {"b": 1}})],
    [(_field_of("Kustomization", ("spec", "dependsOn", 0, "name")), [1])],
    [(_field_of("Kustomization", ("spec", "dependsOn", 0, "namespace")), {"a": 1})],
]


def test_every_kind_the_repository_writes_is_fuzzed():
    kinds = {doc["kind"] for doc in EVERY_KIND}
    judged = {"Application", "Kustomization", "GitRepository", "JobSet", "MPIJob", "Queue"}
    assert judged | {"Job", "PyTorchJob", "RayJob", "ClusterQueue", "NetworkPolicy"} <= kinds


def _mutated_every_kind(mutations: list) -> str:
    docs = copy.deepcopy(EVERY_KIND)
    for (index, path), value in mutations:
        _set(docs[index], path, value)
    return yaml.safe_dump_all(docs)


@_with_found(EVERY_KIND_FOUND)
@_sliced
@given(st.lists(st.tuples(st.sampled_from(EVERY_FIELD), WRONG), min_size=1, max_size=3))
def test_every_kind_of_the_wrong_shape_is_judged_safely(tmp_path_factory, crd_catalog, mutations):
    top = tmp_path_factory.mktemp("every-kind")
    file = _judged_as_an_environment(top, _mutated_every_kind(mutations), crd_catalog)
    with contextlib.chdir(top):  # and the whole command, as the hook runs it on the file
        assert _exit_code(["validate", str(file), "--format", "json"]) in (0, 1, 2)


# Every kind trainops reads goes through a shape contract: the CRDs the catalog converts, the
# repository's own trainops.yaml, and the Kueue configuration the operators layer ships.


@pytest.fixture(scope="module")
def crds(renderer) -> list[dict]:
    config = load_config(REPO / "trainops.yaml", RULES)
    assert config is not None
    rendered = load_roots([Root(p) for p in config.crd_root_paths()], renderer)
    return [
        obj.doc
        for result in rendered
        for obj in result.objects
        if obj.kind == "CustomResourceDefinition"
    ]


def _set(doc: object, path: tuple, value: object) -> None:
    node = doc
    try:
        for key in path[:-1]:
            node = node[key]  # type: ignore[index]
        node[path[-1]] = value  # type: ignore[index]
    except (KeyError, IndexError, TypeError):
        pass  # an earlier mutation replaced this field's parent


@_sliced
@given(st.data())
def test_a_crd_of_any_shape_is_converted_or_refused(crds, data):
    from trainops.knowledge.schema.catalog import Catalog
    from trainops.knowledge.schema.crd import convert

    crd = copy.deepcopy(crds[data.draw(st.integers(0, len(crds) - 1), label="crd")])
    paths = _paths(crd)
    for _ in range(data.draw(st.integers(1, 3))):
        _set(crd, data.draw(st.sampled_from(paths)), data.draw(JSON_WRONG))
    converted = convert(crd)
    assert (converted.problem is None) or not converted.versions
    catalog = Catalog(["v1.32"], [crd])
    for group, version, kind in list(catalog.crd_schemas):
        catalog.lookup(f"{group}/{version}", kind)  # compiles, or refuses: never raises


CONFIG_DOC = load_yaml((REPO / "trainops.yaml").read_text())


@_sliced
@given(st.lists(st.tuples(st.sampled_from(_paths(CONFIG_DOC)), WRONG), min_size=1, max_size=3))
def test_a_trainops_yaml_of_any_shape_loads_or_says_why(tmp_path_factory, mutations):
    from trainops.model.errors import CannotRun

    doc = copy.deepcopy(CONFIG_DOC)
    for path, value in mutations:
        _set(doc, path, value)
    top = tmp_path_factory.mktemp("config")
    (top / "trainops.yaml").write_text(yaml.safe_dump(doc))
    try:
        config = load_config(top / "trainops.yaml", RULES)
    except CannotRun as refused:
        assert str(refused).startswith(str(top / "trainops.yaml"))
        return
    assert config is not None
    profile_of(Cluster([], None, dataclasses.replace(config, folder=REPO), []))


KUEUE_CONFIG = load_yaml((REPO / "operators/kueue/controller-config.yaml").read_text())


@_sliced
@given(
    st.lists(
        st.tuples(st.sampled_from(_paths(KUEUE_CONFIG) or [()]), WRONG), min_size=1, max_size=3
    )
)
def test_a_kueue_configuration_of_any_shape_is_read_safely(mutations):
    from trainops.knowledge.kueue import Kueue, kueue_configuration
    from trainops.model.objects import K8sObject
    from trainops.model.rendered import Rendered

    config = copy.deepcopy(KUEUE_CONFIG)
    for path, value in mutations:
        if path:
            _set(config, path, value)
    text = yaml.safe_dump(config)
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
        "data": {"controller_manager_config.yaml": text},
    }
    rendered = Rendered("operators", objects=[K8sObject(config_map, "c.yaml", 1)])
    cluster = Cluster([rendered])
    kueue_configuration(cluster)
    Kueue(cluster)
    for rule in ("kueue-admission", "partial-scope", "gitops-lifecycle"):
        list(RULES[rule].check(rendered, cluster))
