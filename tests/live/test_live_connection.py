"""Connection and permission failures are one line and exit 2, never a traceback: the kubeconfig
resolved as kubectl resolves it, and each failure mapped from what the client raises or the server
answers. The canned answers are the real server's (kube-apiserver v1.32.13, as
tests/live/test_live_apiserver.py meets them); the end-to-end cases run against sockets on
loopback that refuse, never answer, or do not speak TLS."""

from __future__ import annotations

import contextlib
import http.server
import socket
import threading
from pathlib import Path

import pytest

from helpers import run_trainops
from trainops.live import errors
from trainops.live.connection import Target, connect, kubeconfig_files
from trainops.model.errors import CannotRun

urllib3 = pytest.importorskip("urllib3")

TARGET = Target("https://127.0.0.1:16443", "local", "admin", "kubeconfig k")


def kubeconfig(
    tmp_path: Path, server: str, *, context: str = "local", current: bool = True
) -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(
        f"""apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {{server: "{server}", insecure-skip-tls-verify: true}}
users:
- name: u
  user: {{token: not-a-token}}
contexts:
- name: {context}
  context: {{cluster: c, user: u, namespace: team}}
{"current-context: " + context if current else ""}
"""
    )
    return path


# --- resolution ------------------------------------------------------------------------------


def test_files_as_kubectl_finds_them(tmp_path, monkeypatch):
    one, two = kubeconfig(tmp_path, "https://a"), tmp_path / "missing"
    assert kubeconfig_files(None, {"KUBECONFIG": f"{two}:{one}"}) == [one]
    assert kubeconfig_files(one, {"KUBECONFIG": str(two)}) == [one]  # --kubeconfig wins
    monkeypatch.setenv("HOME", str(tmp_path))
    assert kubeconfig_files(None, {}) == []  # no ~/.kube/config: in-cluster or nothing
    with pytest.raises(CannotRun, match="--kubeconfig .*: no such file"):
        kubeconfig_files(two)


def test_context_namespace_and_target(tmp_path):
    _, target = connect(kubeconfig(tmp_path, "https://127.0.0.1:1"), None, 2, {})
    assert (target.server, target.context, target.user, target.namespace) == (
        "https://127.0.0.1:1",
        "local",
        "u",
        "team",
    )


def test_kubeconfig_list_merges_as_kubectl(tmp_path):
    """The first file to set a value wins, current-context included (client-go's merge; the
    Python client's own merger would keep the last file's)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = kubeconfig(tmp_path / "a", "https://127.0.0.1:1", context="one")
    second = kubeconfig(tmp_path / "b", "https://127.0.0.1:2", context="two")
    _, target = connect(None, None, 2, {"KUBECONFIG": f"{first}:{second}"})
    assert (target.context, target.server) == ("one", "https://127.0.0.1:1")
    _, target = connect(None, "two", 2, {"KUBECONFIG": f"{first}:{second}"})
    assert target.context == "two"


@pytest.mark.parametrize(
    ("make", "context", "message"),
    [
        (lambda p: kubeconfig(p, "https://a"), "other", "no context 'other' \\(it has: local\\)"),
        (
            lambda p: kubeconfig(p, "https://a", current=False),
            None,
            "no current-context; pass --context",
        ),
        (lambda p: (p / "k").write_text("clusters: [oops") and p / "k", None, "cannot be read"),
        (lambda p: (p / "k").write_text("") or p / "k", None, "file is empty"),
        (lambda p: (p / "k").write_text("contexts: 7\n") and p / "k", None, "kubeconfig"),
    ],
)
def test_a_bad_kubeconfig_is_one_line(tmp_path, make, context, message):
    with pytest.raises(CannotRun, match=message) as caught:
        connect(make(tmp_path), context, 2, {})
    assert "\n" not in str(caught.value)


def test_nothing_to_connect_to(tmp_path):
    with pytest.raises(
        CannotRun, match="no cluster to talk to: KUBECONFIG=.* names no existing file"
    ):
        connect(None, None, 2, {"KUBECONFIG": str(tmp_path / "none")})


# --- what the client raises and the server answers -------------------------------------------


def test_refused_unresolvable_timed_out_tls_and_closed():
    cases = [
        (
            urllib3.exceptions.NewConnectionError(
                None, "Failed to establish a new connection: [Errno 111] Connection refused"
            ),
            "cannot reach the API server https://127.0.0.1:16443 (context local, kubeconfig k): connection refused",
        ),
        (
            urllib3.exceptions.NameResolutionError("nowhere.invalid", None, OSError("no")),
            "its host name does not resolve",
        ),
        (
            urllib3.exceptions.ReadTimeoutError(None, "/api", "Read timed out."),
            "did not answer within 7 s",
        ),
        (urllib3.exceptions.ConnectTimeoutError(None, "timed out"), "did not answer within 7 s"),
        (
            urllib3.exceptions.SSLError(
                "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)"
            ),
            "not signed by the kubeconfig's certificate-authority (unable to get local issuer certificate)",
        ),
        (
            urllib3.exceptions.ProtocolError(
                "Connection aborted.", ConnectionResetError(104, "Connection reset by peer")
            ),
            "closed the connection",
        ),
    ]
    for error, expected in cases:
        assert expected in str(errors.transport_error(error, TARGET, 7))


def test_the_clients_wrapped_tls_error():
    from kubernetes.client.exceptions import ApiException

    wrapped = ApiException(
        status=0, reason="SSLError\n[SSL: WRONG_VERSION_NUMBER] wrong version number (_ssl.c:1006)"
    )
    assert "does not speak TLS at that address" in str(errors.api_exception(wrapped, TARGET, 7))


# The real server's bodies (kube-apiserver v1.32.13).
DENIED_PATCH = {
    "kind": "Status",
    "status": "Failure",
    "message": 'configmaps "x" is forbidden: User "system:serviceaccount:t:narrow" cannot patch resource "configmaps" in API group "" in the namespace "t"',
    "reason": "Forbidden",
    "details": {"name": "x", "kind": "configmaps"},
    "code": 403,
}
DENIED_LIST = {
    "message": 'clusterqueues.kueue.x-k8s.io is forbidden: User "system:serviceaccount:t:narrow" cannot list resource "clusterqueues" in API group "kueue.x-k8s.io" at the cluster scope',
    "reason": "Forbidden",
    "code": 403,
}
POD_SECURITY = {
    "message": 'pods "p" is forbidden: violates PodSecurity "restricted:v1.32": allowPrivilegeEscalation != false',
    "reason": "Forbidden",
    "code": 403,
}


def test_rbac_denials_name_verb_and_resource():
    patch = str(errors.status_error(403, DENIED_PATCH, TARGET, "verify"))
    assert "system:serviceaccount:t:narrow cannot patch configmaps in namespace t" in patch
    assert (
        "`trainops verify` needs get, patch and create (the last two only ever as dry runs)"
        in patch
    )
    listing = str(errors.status_error(403, DENIED_LIST, TARGET, "status"))
    assert "cannot list clusterqueues.kueue.x-k8s.io (cluster-wide)" in listing
    path = errors.rbac_denial('forbidden: User "bob" cannot get path "/apis"')
    assert path == "bob cannot get /apis"


def test_credentials_refused_and_admission_not_mistaken_for_them():
    refused = str(
        errors.status_error(401, {"message": "Unauthorized", "code": 401}, TARGET, "drift")
    )
    assert "refused the credentials of user admin (401 Unauthorized)" in refused
    assert (
        errors.status_error(403, POD_SECURITY, TARGET, "verify") is None
    )  # a verdict on the object
    assert errors.status_error(422, {"message": "x"}, TARGET, "verify") is None


# --- end to end, on loopback ------------------------------------------------------------------


@contextlib.contextmanager
def _listening(handler=None):
    """A loopback TCP server: silent (accepts, never answers) or an HTTP one."""
    if handler is not None:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield server.server_address[1]
        finally:
            server.shutdown()
            server.server_close()
        return
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def objects(tmp_path) -> Path:
    path = tmp_path / "objects.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: team}\n")
    return path


@pytest.mark.parametrize("command", ["verify", "drift", "status"])
def test_unreachable_is_one_line_and_exit_2(tmp_path, objects, command):
    config = kubeconfig(tmp_path, f"https://127.0.0.1:{_closed_port()}")
    done = run_trainops(command, str(objects), "--kubeconfig", str(config), timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("trainops: error: cannot reach the API server https://127.0.0.1:")
    assert line.endswith(": connection refused")


def test_a_server_that_never_answers_times_out(tmp_path, objects):
    with _listening() as port:
        config = kubeconfig(tmp_path, f"https://127.0.0.1:{port}")
        done = run_trainops(
            "verify",
            str(objects),
            "--kubeconfig",
            str(config),
            "--request-timeout",
            "0.5",
            timeout=60,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"trainops: error: the API server https://127.0.0.1:{port} (context local, kubeconfig "
        f"{config}) did not answer within 0.5 s (--request-timeout)"
    ]


def test_a_server_without_tls(tmp_path, objects):
    with _listening(http.server.BaseHTTPRequestHandler) as port:
        config = kubeconfig(tmp_path, f"https://127.0.0.1:{port}")
        done = run_trainops("status", str(objects), "--kubeconfig", str(config), timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "TLS with the API server" in done.stderr and "does not speak TLS" in done.stderr


def test_a_bad_timeout_and_a_missing_context(tmp_path, objects):
    config = kubeconfig(tmp_path, "https://127.0.0.1:1")
    done = run_trainops(
        "verify", str(objects), "--kubeconfig", str(config), "--request-timeout", "0"
    )
    assert (done.returncode, done.stderr.strip()) == (
        2,
        "trainops: error: --request-timeout must be above 0, not 0",
    )
    done = run_trainops("drift", str(objects), "--kubeconfig", str(config), "--context", "prod")
    assert done.returncode == 2 and "no context 'prod' (it has: local)" in done.stderr
