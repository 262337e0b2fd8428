"""kube-aggregator's ValidateAPIService (v1.32.13) as apiregistration.py ports it. The harness
does not ask the server about APIServices (one would take a group over), so each case here holds
the path and message a server-side dry-run create of it got from kube-apiserver v1.32.13."""

from __future__ import annotations

import copy

import pytest

from trainops.knowledge.apivalidation import kinds, meta

GROUP = "apiregistration.k8s.io"
CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJ4ekNDQVcyZ0F3SUJBZ0lRCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K"
REQUIRED = 'must be `spec.version+"."+spec.group`: "v1beta1.metrics.k8s.io"'
PRIORITY = "must be positive and less than 20000"
VERSION_PRIORITY = "must be positive and less than 1000"
PORT = "port is not valid: must be between 1 and 65535, inclusive"
METRICS = {
    "apiVersion": f"{GROUP}/v1",
    "kind": "APIService",
    "metadata": {"name": "v1beta1.metrics.k8s.io"},
    "spec": {
        "group": "metrics.k8s.io",
        "version": "v1beta1",
        "groupPriorityMinimum": 100,
        "versionPriority": 100,
        "insecureSkipTLSVerify": True,
        "service": {"name": "metrics-server", "namespace": "kube-system"},
    },
}


def _errors(metadata: dict | None = None, drop: tuple[str, ...] = (), **spec: object) -> list:
    doc = copy.deepcopy(METRICS)
    doc["metadata"] = metadata if metadata is not None else doc["metadata"]
    doc["spec"].update(spec)
    for key in drop:
        doc["spec"].pop(key)
    return meta.validate(GROUP, "APIService", doc["metadata"], custom=False) + kinds.KIND_CHECKS[
        (GROUP, "APIService")
    ](doc)


def test_api_service_is_judged_wholly():
    assert (GROUP, "APIService") in kinds.KIND_CHECKS
    assert not kinds.LEFT_OUT.get((GROUP, "APIService"))


@pytest.mark.parametrize(
    ("metadata", "drop", "spec"),
    [
        (None, (), {}),  # metrics-server's own APIService
        (None, (), {"groupPriorityMinimum": 20000, "versionPriority": 1000}),
        (None, (), {"caBundle": CA, "insecureSkipTLSVerify": False}),
        # SetDefaults_ServiceReference: a null port is 443
        (None, (), {"service": {"name": "a", "namespace": "b", "port": None}}),
        # a local (service-less) legacy v1 with an empty group
        (
            {"name": "v1."},
            ("service",),
            {"group": "", "version": "v1", "insecureSkipTLSVerify": False},
        ),
        ({"generateName": "v1beta1.metrics.k8s.io"}, (), {}),  # the generateName alone passes
    ],
)
def test_accepted(metadata, drop, spec):
    errors = _errors(metadata, drop, **spec)
    if metadata and "generateName" in metadata:
        # ... but the name made of it (five random characters appended) does not
        assert [path for path, _ in errors] == ["metadata.name"]
    else:
        assert errors == []


@pytest.mark.parametrize(
    ("metadata", "drop", "spec", "expected"),
    [
        (
            {"name": "v1.metrics.k8s.io"},
            (),
            {},
            [("metadata.name", f'Invalid value: "v1.metrics.k8s.io": {REQUIRED}')],
        ),
        (
            {"name": "v1beta1/metrics"},
            (),
            {},
            [("metadata.name", "Invalid value: \"v1beta1/metrics\": may not contain '/'")],
        ),
        (
            {"generateName": "metrics-"},
            (),
            {},
            [
                ("metadata.generateName", f'Invalid value: "metrics-": {REQUIRED}'),
                ("metadata.name", f'Invalid value: "metrics-" + 5 random characters: {REQUIRED}'),
            ],
        ),
        (
            {"name": "v2."},
            (),
            {"group": "", "version": "v2"},
            [
                (
                    "spec.group",
                    "Required value: only v1 may have an empty group and it better be legacy kube",
                )
            ],
        ),
        (
            {"name": "v1beta1.metrics.k8s.io"},
            (),
            {"groupPriorityMinimum": 20001, "versionPriority": 1001},
            [
                ("spec.groupPriorityMinimum", f"Invalid value: 20001: {PRIORITY}"),
                ("spec.versionPriority", f"Invalid value: 1001: {VERSION_PRIORITY}"),
            ],
        ),
        (
            None,
            ("groupPriorityMinimum", "versionPriority"),
            {},
            [
                ("spec.groupPriorityMinimum", f"Invalid value: 0: {PRIORITY}"),
                ("spec.versionPriority", f"Invalid value: 0: {VERSION_PRIORITY}"),
            ],
        ),
        (
            None,
            ("service",),
            {"caBundle": CA},
            [
                (
                    "spec.caBundle",
                    'Invalid value: "75 bytes": local APIServices may not have a caBundle',
                ),
                (
                    "spec.insecureSkipTLSVerify",
                    "Invalid value: true: local APIServices may not have insecureSkipTLSVerify",
                ),
            ],
        ),
        (
            None,
            (),
            {"caBundle": CA},
            [
                (
                    "spec.insecureSkipTLSVerify",
                    "Invalid value: true: may not be true if caBundle is present",
                )
            ],
        ),
        (
            None,
            (),
            {"service": {}},
            [("spec.service.namespace", "Required value"), ("spec.service.name", "Required value")],
        ),
        (
            None,
            (),
            {"service": {"name": "a", "namespace": "b", "port": 70000}},
            [("spec.service.port", f"Invalid value: 70000: {PORT}")],
        ),
    ],
)
def test_rejected_as_the_server_words_it(metadata, drop, spec, expected):
    assert _errors(metadata, drop, **spec) == expected


def test_group_and_version_syntax():
    errors = _errors({"name": "1beta.Metrics.k8s.io"}, (), group="Metrics.k8s.io", version="1beta")
    assert [path for path, _ in errors] == ["spec.group", "spec.version"]
    assert errors[1][1].startswith('Invalid value: "1beta": a DNS-1035 label must consist of')
