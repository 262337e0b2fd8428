"""`verify`, `drift` and `status` cannot write to a cluster: the guard on the client's transport
refuses any request that is not a read or a dry run, before anything is sent (no server needed:
the client points at a closed loopback port, and a refused request never tries to connect)."""

from __future__ import annotations

import pytest

from trainops.live.client import ReadOnlyClient, WriteRefused, refuse_writes
from trainops.live.connection import Target

kubernetes = pytest.importorskip("kubernetes")


def _client() -> ReadOnlyClient:
    configuration = kubernetes.client.Configuration()
    configuration.host = "https://127.0.0.1:9"  # nothing listens; a refused request never connects
    configuration.retries = False
    target = Target(configuration.host, "test", "someone", "test kubeconfig")
    return ReadOnlyClient(kubernetes.client.ApiClient(configuration), target, 1.0, "verify")


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("DELETE", "https://h/api/v1/namespaces/x"),
        ("PUT", "https://h/api/v1/namespaces/x"),
        ("PATCH", "https://h/api/v1/namespaces/x"),
        ("PATCH", "https://h/api/v1/namespaces/x?dryRun=None"),
        ("PATCH", "https://h/api/v1/namespaces/x?dryRun=All&dryRun=None"),
        ("POST", "https://h/api/v1/namespaces"),
        ("POST", "https://h/api/v1/namespaces?fieldManager=dryRun%3DAll"),
        ("PUT", "https://h/api/v1/namespaces/x?dryRun=All"),  # a dry-run PUT: still not ours
        ("DELETE", "https://h/api/v1/namespaces/x?dryRun=All"),
        ("OPTIONS", "https://h/api"),
    ],
)
def test_every_write_is_refused(method, url):
    with pytest.raises(WriteRefused):
        refuse_writes(method, url)


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("GET", "https://h/api/v1/namespaces"),
        ("get", "https://h/api/v1/namespaces"),
        ("HEAD", "https://h/api"),
        ("PATCH", "https://h/api/v1/namespaces/x?dryRun=All&fieldManager=trainops"),
        ("POST", "https://h/api/v1/namespaces?dryRun=All"),
    ],
)
def test_reads_and_dry_runs_pass(method, url):
    refuse_writes(method, url)


def test_a_typed_api_on_the_guarded_client_cannot_write():
    """Not only trainops' own requests: anything built on the guarded ApiClient is refused."""
    client = _client()
    core = kubernetes.client.CoreV1Api(client._api)
    with pytest.raises(WriteRefused):
        core.delete_namespace("bookstore-ml")
    with pytest.raises(WriteRefused):
        core.create_namespace({"metadata": {"name": "x"}})
    with pytest.raises(WriteRefused):
        core.patch_namespace("x", {"metadata": {"labels": {"a": "b"}}})
    with pytest.raises(WriteRefused):
        core.create_namespace({"metadata": {"name": "x"}}, dry_run="None")


def test_the_client_has_no_method_that_writes():
    public = {name for name in dir(ReadOnlyClient) if not name.startswith("_")}
    assert public == {"get", "dry_run_apply", "dry_run_create", "require"}
