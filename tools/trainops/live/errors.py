"""Why a cluster could not be asked, in one line: the connection and permission failures.

Each is a CannotRun (exit 2, no traceback), since no answer the command gives without the cluster
would be true: the server unreachable (refused, no such host), TLS failing (an unknown certificate
authority, a wrong host name), credentials refused (401: an expired or invalid token, a client
certificate the server does not trust), RBAC denying a request (403 with the authorizer's reason,
which names the verb and the resource: k8s.io/apiserver pkg/endpoints/handlers/responsewriters
`forbiddenMessage`), and a request that timed out. A 403 that is not RBAC's (Pod Security, a
webhook, a quota) is the server's verdict on an object, not on the caller: it is not mapped here.
"""

from __future__ import annotations

import re
import ssl

from trainops.live.connection import Target
from trainops.model.errors import CannotRun

# forbiddenMessage: `User "u" cannot <verb> resource "<resource>[/<sub>]" in API group "<g>"
# [in the namespace "<ns>" | at the cluster scope]`, or `cannot <verb> path "<url>"`.
_RBAC = re.compile(
    r'User "(?P<user>[^"]*)" cannot (?P<verb>\S+) '
    r'(?:resource "(?P<resource>[^"]*)"(?: in API group "(?P<group>[^"]*)")?'
    r'(?: in the namespace "(?P<namespace>[^"]*)"| (?P<cluster>at the cluster scope))?'
    r'|path "(?P<path>[^"]*)")'
)

# A dry run is authorized as the request it stands for, and a server-side apply of an object that
# does not exist yet as a create too (k8s.io/apiserver pkg/endpoints/handlers/patch.go).
PERMISSIONS = {
    "verify": "get, patch and create (the last two only ever as dry runs)",
    "drift": "get, list, patch and create (the last two only ever as dry runs)",
    "status": "get and list",
}


def rbac_denial(message: str) -> str | None:
    """`<user> cannot <verb> <resource> in <where>` when `message` is RBAC's refusal, else None."""
    match = _RBAC.search(message)
    if match is None:
        return None
    if match["path"] is not None:
        return f"{match['user']} cannot {match['verb']} {match['path']}"
    group = f".{match['group']}" if match["group"] else ""
    where = (
        f" in namespace {match['namespace']}"
        if match["namespace"]
        else " (cluster-wide)"
        if match["cluster"]
        else ""
    )
    return f"{match['user']} cannot {match['verb']} {match['resource']}{group}{where}"


def status_error(status: int, body: object, target: Target, command: str) -> CannotRun | None:
    """The CannotRun for a reply that refuses the caller rather than judging an object."""
    message = str(body.get("message", "")) if isinstance(body, dict) else ""
    if status == 401:
        who = f" of user {target.user}" if target.user else ""
        return CannotRun(
            f"the API server {target.describe()} refused the credentials{who} (401 Unauthorized): "
            "the token is expired or invalid, or the client certificate is not trusted; "
            "log in again or refresh the kubeconfig"
        )
    if status == 403:
        denial = rbac_denial(message)
        if denial is not None:
            needs = PERMISSIONS.get(command, "get")
            return CannotRun(
                f"permission denied by RBAC on {target.server}: {denial}; "
                f"`trainops {command}` needs {needs} on the layers' objects"
            )
    return None


def transport_error(error: BaseException, target: Target, timeout: float) -> CannotRun:
    """The CannotRun for a request that never got an HTTP answer."""
    import urllib3.exceptions as u3

    where = target.describe()
    if isinstance(error, u3.NameResolutionError):
        return CannotRun(f"cannot reach the API server {where}: its host name does not resolve")
    if isinstance(error, u3.NewConnectionError):
        return CannotRun(f"cannot reach the API server {where}: {_reason(error)}")
    if isinstance(error, u3.ConnectTimeoutError | u3.ReadTimeoutError | TimeoutError):
        return CannotRun(
            f"the API server {where} did not answer within {timeout:g} s (--request-timeout)"
        )
    if isinstance(error, u3.SSLError | ssl.SSLError):
        return CannotRun(f"TLS with the API server {where} failed: {_tls_reason(str(error))}")
    if isinstance(error, u3.ProtocolError):
        return CannotRun(f"the API server {where} closed the connection: {_reason(error)}")
    if isinstance(error, u3.MaxRetryError) and error.reason is not None:
        return transport_error(error.reason, target, timeout)
    if isinstance(error, u3.LocationValueError | ValueError):
        return CannotRun(f"the API server address {target.server!r} is not a URL: {error}")
    return CannotRun(f"cannot talk to the API server {where}: {type(error).__name__}: {error}")


def api_exception(error, target: Target, timeout: float) -> CannotRun:
    """The kubernetes client wraps TLS failures as ApiException(status=0, reason='SSLError\\n…')."""
    reason = str(getattr(error, "reason", "") or "")
    if reason.startswith("SSLError"):
        return CannotRun(
            f"TLS with the API server {target.describe()} failed: {_tls_reason(reason)}"
        )
    return CannotRun(f"cannot talk to the API server {target.describe()}: {reason or error}")


def _reason(error: BaseException) -> str:
    text = str(error)
    errno_text = re.search(r"\[Errno -?\d+\] ([^)'\"]+)", text)
    if errno_text:
        return errno_text.group(1).strip().lower()
    return text.rpartition(": ")[2] or text


_TLS_HINTS = (
    (
        "certificate verify failed",
        "the server's certificate is not signed by the kubeconfig's certificate-authority",
    ),
    ("Hostname mismatch", "the server's certificate is for another host name"),
    ("wrong version number", "the server does not speak TLS at that address (http:// port?)"),
    ("record layer failure", "the server does not speak TLS at that address (http:// port?)"),
)


def _tls_reason(text: str) -> str:
    detail = re.search(r"certificate verify failed: ([^(')]+)", text)
    for marker, meaning in _TLS_HINTS:
        if marker in text:
            return meaning + (f" ({detail.group(1).strip()})" if detail else "")
    return " ".join(text.replace("SSLError", "").split())[:300]
