"""api-validation's errors of built-in objects found by the workers that parse files, on a cold
run (check/unit_worker.py, rules/api_validation.py precheck_unit): the same findings as the run
finding them itself, and only where the run's own catalog says the object is no custom resource."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from helpers import write_tree
from trainops.check.validate import Root, validate
from trainops.model import objects, parse_files
from trainops.model.config import load_config
from trainops.rules import RULES, api_validation

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
  labels: {{team: "{label}"}}
spec:
  backoffLimit: {backoff}
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: registry.example.com/train:1.0
          ports: [{{containerPort: {port}}}]
          resources: {{requests: {{cpu: "1"}}, limits: {{cpu: "500m"}}}}
"""
# A custom resource of a group no operator of ours serves: only the run's catalog (from the CRD
# below) says it is one, and only as one is its misspelt metadata field an error.
WIDGETS = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w, namespace: default, namepsace: typo}
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: p, namespace: default}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      template:
        spec:
          containers: [{name: pytorch, image: registry.example.com/train:1.0}, {name: pytorch, image: x}]
"""


@pytest.fixture
def corpus(tmp_path, monkeypatch) -> Path:
    """Files enough to be parsed in units, with errors in some of their Jobs, and workers forced."""
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(parse_files, "WORKERS_FROM", 0)
    monkeypatch.setattr(parse_files, "_workers", lambda size: 2)
    files = {
        f"jobs-{number}.yaml": "---\n".join(
            JOB.format(
                name=f"job-{number}-{n}" if n % 7 else f"Job_{number}_{n}",
                label="ok" if n % 5 else "not ok",
                backoff=-1 if n % 11 == 0 else 3,
                port=70000 if n % 13 == 0 else 8080,
            )
            for n in range(60)
        )
        for number in range(4)
    }
    files["widgets.yaml"] = WIDGETS
    return write_tree(tmp_path / "manifests", files)


def _findings(folder: Path) -> list[tuple]:
    objects.forget_parsed()
    outcome = validate([Root(folder)], None, selected={api_validation.ID})
    return sorted(
        (f.file, f.line, f.object, f.path, f.message)
        for f in outcome.findings
        if f.rule == api_validation.ID
    )


@pytest.fixture
def unit_keys(monkeypatch) -> list[str]:
    """The keys of the workers' entries the run looks up."""
    asked: list[str] = []
    real = api_validation._unit_key
    monkeypatch.setattr(
        api_validation, "_unit_key", lambda *args: asked.append(real(*args)) or asked[-1]
    )
    return asked


def test_the_workers_find_what_the_run_would(corpus, unit_keys, tmp_path, monkeypatch):
    judged_here: list[str] = []
    real = api_validation._errors

    def recorded(obj, cluster, relaxed, custom):
        judged_here.append(obj.kind)
        return real(obj, cluster, relaxed, custom)

    monkeypatch.setattr(api_validation, "_errors", recorded)
    prechecked = _findings(corpus)
    # Every Job was judged in a worker; this process judged the custom resources alone: the
    # PyTorchJob, which the worker left, and the Widget, which it judged as a built-in object
    # would be (it has no catalog) and this run, whose catalog holds the CRD, did not take.
    assert sorted(judged_here) == ["PyTorchJob", "Widget"]
    [key] = unit_keys  # the files are small: one unit holds them all
    kept = api_validation._prechecked(api_validation.cache.load(api_validation.RESULTS, key))
    assert kept is not None and len(kept) == 243 and kept.count(None) == 1

    # The same findings from a run that judges every object itself.
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "another-cache"))
    monkeypatch.setattr(parse_files, "_workers", lambda size: 1)
    judged_here.clear()
    assert _findings(corpus) == prechecked
    assert judged_here.count("Job") == 240
    messages = {message for *_, message in prechecked}
    assert any("must be greater than or equal to 0" in m for m in messages)
    assert any("must be between 1 and 65535" in m for m in messages)
    assert any("namepsace" in m for m in messages)  # the Widget, judged as a custom resource
    assert any('Duplicate value: "pytorch"' in m for m in messages)  # the PyTorchJob's Pods


def test_a_worker_entry_of_the_wrong_shape_is_judged_again(corpus, unit_keys, tmp_path):
    expected = _findings(corpus)
    results = tmp_path / "cache" / api_validation.RESULTS
    workers = {api_validation.cache.entry_path(api_validation.RESULTS, k) for k in unit_keys}
    assert workers
    for entry in results.glob("*.entry"):
        if entry not in workers:
            entry.unlink()  # the run's own entries: it judges again
            continue
        wrong = b'[["not a pair"]]'
        entry.write_bytes(hashlib.sha256(wrong).hexdigest().encode() + b"\n" + wrong)
    assert _findings(corpus) == expected


def test_what_a_worker_entry_may_hold():
    assert api_validation._prechecked(b'[null, [["a", "b"]], []]') == [None, [("a", "b")], []]
    for wrong in (b'[["not a pair"]]', b"{}", b"not json", b"[[1, 2]]", b"[[[1, 2]]]"):
        assert api_validation._prechecked(wrong) is None
    assert api_validation._prechecked(None) is None


# Pod templates with a field of the wrong type where the run sees it differently: by its kind's
# schema (withheld from every other rule), by no schema (apps/v1beta1 is served by no version
# checked), and by a field only SHAPE_VERSION knows (pod-level resources, new in v1.32): a run
# checking v1.30 alone finds an unknown field in the Job, and only the templates' own shape
# check keeps the template from the pod checks.
ILL_SHAPED = """\
apiVersion: batch/v1
kind: Job
metadata: {name: typed}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: {name: train, image: registry.example.com/train:1.0}
---
apiVersion: apps/v1beta1
kind: Deployment
metadata: {name: unserved}
spec:
  template:
    spec:
      containers: [{name: a, image: x, ports: [{containerPort: 70000}]}]
      volumes: "none"
---
apiVersion: batch/v1
kind: Job
metadata: {name: newer-field}
spec:
  template:
    spec:
      restartPolicy: Never
      resources: "all of it"
      containers: [{name: train, image: x, ports: [{containerPort: 70000}]}]
"""


@pytest.mark.parametrize("versions", [["v1.32"], ["v1.30"], ["v1.30", "v1.37"], ["v1.30", "v1.32"]])
def test_templates_of_the_wrong_shape_are_judged_as_the_run_would(
    corpus, tmp_path, monkeypatch, versions
):
    (corpus / "ill-shaped.yaml").write_text(ILL_SHAPED)
    (corpus / "trainops.yaml").write_text(f"kubernetesVersions: {versions}\n".replace("'", ""))
    config = load_config(corpus / "trainops.yaml", RULES)

    def findings() -> list[tuple]:
        objects.forget_parsed()
        outcome = validate([Root(corpus)], None, config=config, selected={api_validation.ID})
        return sorted((f.file, str(f.object), f.path, f.message) for f in outcome.findings)

    prechecked = findings()
    monkeypatch.setenv("TRAINOPS_CACHE_DIR", str(tmp_path / "another-cache"))
    monkeypatch.setattr(parse_files, "_workers", lambda size: 1)
    assert findings() == prechecked
    ill_shaped = [f for f in prechecked if f[0].endswith("ill-shaped.yaml")]
    # The templates of the wrong shape are never checked as pods: only their objects' metadata
    # and the kinds' own fields are.
    assert not [f for f in ill_shaped if "65535" in f[3]], ill_shaped
