"""The only way trainops talks to a cluster, and it cannot write.

`ReadOnlyClient` sends GETs, and PATCH (server-side apply) or POST (create) only with
`dryRun=All`: the API server runs admission and validation and answers with the object it would
store, and stores nothing (k8s.io/apiserver pkg/endpoints/handlers: a dry-run request never reaches
the storage's write; `kubectl apply --server-side --dry-run=server` relies on the same). The guard
sits on the kubernetes client's transport itself (`RESTClientObject.request`), so even a typed API
built on this client's ApiClient (`CoreV1Api(...).delete_namespace`) is refused before a byte
leaves: there is no code path from trainops to a write.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from urllib.parse import parse_qs, quote, urlsplit

from trainops.live import errors
from trainops.live.connection import Target
from trainops.model.errors import CannotRun

FIELD_MANAGER = "trainops"
JSON = "application/json"
APPLY_PATCH = "application/apply-patch+yaml"  # server-side apply; JSON is YAML
_READS = frozenset({"GET", "HEAD"})
_DRY_RUN_ONLY = frozenset({"PATCH", "POST"})


class WriteRefused(RuntimeError):
    """A request that could change the cluster: a bug in trainops, never sent."""


def refuse_writes(method: str, url: str) -> None:
    """Raise WriteRefused unless the request only reads or is a dry run."""
    verb = method.upper()
    if verb in _READS:
        return
    if verb in _DRY_RUN_ONLY and parse_qs(urlsplit(url).query).get("dryRun") == ["All"]:
        return
    raise WriteRefused(f"trainops never writes to a cluster: refused {verb} {urlsplit(url).path}")


def guard(api_client) -> None:
    """Put refuse_writes in front of every request `api_client` can send."""
    rest = api_client.rest_client
    send = rest.request

    def request(method, url, *args, **kwargs):
        refuse_writes(method, url)
        return send(method, url, *args, **kwargs)

    rest.request = request


@dataclass
class Reply:
    status: int
    body: object  # parsed JSON (a Status on failure), or None
    warnings: list[str] = field(default_factory=list)  # the server's `Warning` headers

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def message(self) -> str:
        return str(self.body.get("message", "")) if isinstance(self.body, dict) else ""


# RFC 7234 warn-value as the API server writes it: `299 - "text"` (k8s.io/apiserver
# pkg/endpoints/handlers/responsewriters/warning.go), several joined by commas in one header.
_WARNING = re.compile(r'\d{3} \S+ "((?:[^"\\]|\\.)*)"')


def warnings_of(headers) -> list[str]:
    values = headers.getlist("Warning") if hasattr(headers, "getlist") else []
    found = []
    for value in values:
        for match in _WARNING.finditer(value):
            found.append(match.group(1).replace('\\"', '"').replace("\\\\", "\\"))
    return found


def path_segment(text: str) -> str:
    return quote(text, safe="")


class ReadOnlyClient:
    """GETs and dry runs against one cluster; a refusal of the caller is a CannotRun."""

    def __init__(self, api_client, target: Target, timeout: float, command: str) -> None:
        guard(api_client)
        self._api = api_client
        self.target = target
        self.timeout = timeout
        self.command = command

    def get(
        self,
        path: str,
        query: list[tuple[str, str]] | None = None,
        accept: str = JSON,
        *,
        denial_answers: bool = False,
    ) -> Reply:
        """GET `path`; an RBAC denial stops the command unless `denial_answers`, when it is
        the reply (for reads that are worth doing where allowed, such as listing every kind)."""
        return self._send("GET", path, query or [], None, None, accept, denial_answers)

    def dry_run_apply(self, path: str, doc: dict) -> Reply:
        """Server-side apply of `doc` as field manager trainops, forcing conflicts as Argo CD's and
        Flux's appliers do (a field another manager set is taken over, not a refusal), with strict
        field validation (an unknown field is an error, as `kubectl apply` makes it)."""
        query = [
            ("dryRun", "All"),
            ("fieldManager", FIELD_MANAGER),
            ("force", "true"),
            ("fieldValidation", "Strict"),
        ]
        body = json.dumps(doc, default=str).encode()
        return self._send("PATCH", path, query, body, APPLY_PATCH, JSON)

    def dry_run_create(self, path: str, doc: dict) -> Reply:
        query = [("dryRun", "All"), ("fieldManager", FIELD_MANAGER), ("fieldValidation", "Strict")]
        body = json.loads(json.dumps(doc, default=str))  # the client serialises JSON bodies itself
        return self._send("POST", path, query, body, JSON, JSON)

    def _send(
        self, method, path, query, body, content_type, accept, denial_answers: bool = False
    ) -> Reply:
        from kubernetes.client.exceptions import ApiException

        headers = {"Accept": accept}
        if content_type:
            headers["Content-Type"] = content_type
        verb, url, headers, _, _ = self._api.param_serialize(
            method, path, query_params=query, header_params=headers, auth_settings=["BearerToken"]
        )
        attempts = 3
        for attempt in range(attempts):
            try:
                response = self._api.call_api(
                    verb, url, header_params=headers, body=body, _request_timeout=self.timeout
                )
                data = response.read()
            except WriteRefused:
                raise
            except ApiException as error:
                raise errors.api_exception(error, self.target, self.timeout) from None
            except Exception as error:  # noqa: BLE001 - urllib3's, socket's and ssl's
                raise errors.transport_error(error, self.target, self.timeout) from None
            reply = Reply(response.status, _parsed(data), warnings_of(response.headers))
            # 429: API Priority and Fairness asks to come back (Retry-After, in seconds).
            if reply.status == 429 and attempt < attempts - 1:
                time.sleep(min(_seconds(response.getheader("Retry-After")), 2.0))
                continue
            refusal = errors.status_error(reply.status, reply.body, self.target, self.command)
            if refusal is not None and not (denial_answers and reply.status == 403):
                raise refusal
            return reply
        raise AssertionError("unreachable: the last attempt returns")

    def require(self, reply: Reply, what: str) -> object:
        """The body of a read that must succeed; any other answer stops the command."""
        if reply.ok:
            return reply.body
        raise CannotRun(
            f"the API server {self.target.describe()} could not {what}: "
            f"{reply.status} {reply.message or '(no message)'}"
        )


def _seconds(text: str | None) -> float:
    try:
        return max(float(text or 1), 0.0)
    except ValueError:
        return 1.0


def _parsed(data: bytes) -> object:
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return {"message": data.decode("utf-8", errors="replace")[:500]}
