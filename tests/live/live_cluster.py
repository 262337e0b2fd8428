"""The test side of a real kube-apiserver (../shared/tools/kube-apiserver): what the tests write to
it as its admin, through the official client, so that trainops' read-only commands have something
to read. Every namespace a test makes is named `trainops-live-…` and removed with what is in it."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

KUBECONFIG_ENV = "TRAINOPS_TEST_KUBECONFIG"  # as tests/conformance/harness.py names it
PREFIX = "trainops-live-"
MANAGER = "trainops-live-tests"


def kubeconfig_or_skip() -> Path:
    value = os.environ.get(KUBECONFIG_ENV)
    if not value:
        pytest.skip(
            f"no API server: set {KUBECONFIG_ENV} to a kubeconfig "
            "(../shared/tools/kube-apiserver/cluster.sh start prints one)"
        )
    path = Path(value)
    if not path.is_file():
        pytest.skip(f"{KUBECONFIG_ENV}={value}: no such file")
    return path


class Admin:
    """Raw requests as the kubeconfig's admin (writes included: this is the test, not trainops)."""

    def __init__(self, kubeconfig: Path) -> None:
        from kubernetes import config

        self.kubeconfig = kubeconfig
        self.api = config.new_client_from_config(config_file=str(kubeconfig), persist_config=False)
        self._plurals: dict[tuple[str, str], tuple[str, bool]] = {}

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        query=(),
        content_type: str = "application/json",
    ) -> tuple[int, dict]:
        headers = {"Accept": "application/json", "Content-Type": content_type}
        verb, url, headers, _, _ = self.api.param_serialize(
            method,
            path,
            query_params=list(query),
            header_params=headers,
            auth_settings=["BearerToken"],
        )
        if body is not None and content_type.endswith("yaml"):  # the client serialises JSON itself
            body = json.dumps(body).encode()
        response = self.api.call_api(verb, url, header_params=headers, body=body)
        data = response.read()
        return response.status, (json.loads(data) if data else {})

    def ok(self, method: str, path: str, body: object = None, **kwargs) -> dict:
        status, answer = self.request(method, path, body, **kwargs)
        assert 200 <= status < 300, (method, path, status, answer.get("message"))
        return answer

    def _resource(self, api_version: str, kind: str) -> tuple[str, bool]:
        if (api_version, kind) not in self._plurals:
            top = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
            for entry in self.ok("GET", top)["resources"]:
                if "/" not in entry["name"]:  # not a subresource
                    self._plurals[(api_version, entry["kind"])] = (
                        entry["name"],
                        entry["namespaced"],
                    )
        return self._plurals[(api_version, kind)]

    def path(self, doc: dict, *, named: bool = True) -> str:
        api_version, kind = doc["apiVersion"], doc["kind"]
        plural, namespaced = self._resource(api_version, kind)
        top = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
        scope = f"/namespaces/{doc['metadata']['namespace']}" if namespaced else ""
        return f"{top}{scope}/{plural}" + (f"/{doc['metadata']['name']}" if named else "")

    def apply(self, doc: dict, manager: str = MANAGER) -> dict:
        """A real server-side apply, as kubectl apply --server-side --force-conflicts."""
        return self.ok(
            "PATCH",
            self.path(doc),
            doc,
            query=[("fieldManager", manager), ("force", "true")],
            content_type="application/apply-patch+yaml",
        )

    def get(self, doc: dict) -> dict | None:
        status, answer = self.request("GET", self.path(doc))
        return answer if status == 200 else None

    def merge_patch(
        self, doc: dict, patch: dict, *, subresource: str = "", manager: str = "kubectl-edit"
    ) -> dict:
        return self.ok(
            "PATCH",
            self.path(doc) + (f"/{subresource}" if subresource else ""),
            patch,
            query=[("fieldManager", manager)],
            content_type="application/merge-patch+json",
        )

    def delete(self, doc: dict) -> None:
        status, answer = self.request("DELETE", self.path(doc))
        assert status in (200, 202, 404), answer

    def wait_established(self, names: list[str]) -> None:
        for _ in range(150):
            pending = [
                name
                for name in names
                if not any(
                    c.get("type") == "Established" and c.get("status") == "True"
                    for c in self.ok(
                        "GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"
                    )
                    .get("status", {})
                    .get("conditions", [])
                )
            ]
            if not pending:
                return
            time.sleep(0.1)
        raise AssertionError(f"CRDs not Established: {pending}")

    # --- namespaces -----------------------------------------------------------------------

    def new_namespace(self, labels: dict | None = None) -> str:
        name = f"{PREFIX}{uuid.uuid4().hex[:8]}"
        self.ok("POST", "/api/v1/namespaces", {"metadata": {"name": name, "labels": labels or {}}})
        # No controller-manager: the ServiceAccount every Pod needs is not made for us.
        self.ok(
            "POST", f"/api/v1/namespaces/{name}/serviceaccounts", {"metadata": {"name": "default"}}
        )
        return name

    def remove_namespace(self, name: str) -> None:
        """Delete what the namespace holds, then the namespace, finalizing it by hand: with no
        namespace controller it would stay Terminating forever."""
        assert name.startswith(PREFIX)
        self._delete_all_in(name)
        status, _ = self.request("DELETE", f"/api/v1/namespaces/{name}")
        if status == 404:
            return
        namespace = self.ok("GET", f"/api/v1/namespaces/{name}")
        namespace["spec"]["finalizers"] = []
        with contextlib.suppress(AssertionError):
            self.ok("PUT", f"/api/v1/namespaces/{name}/finalize", namespace)

    def _delete_all_in(self, namespace: str) -> None:
        group_versions = ["/api/v1"] + [
            f"/apis/{g['preferredVersion']['groupVersion']}"
            for g in self.ok("GET", "/apis")["groups"]
        ]
        for top in group_versions:
            status, listing = self.request("GET", top)
            if status != 200:
                continue
            for entry in listing.get("resources", []):
                verbs = entry.get("verbs", [])
                if (
                    "/" in entry["name"]
                    or not entry["namespaced"]
                    or "deletecollection" not in verbs
                ):
                    continue
                # Immediately, and in the background: no kubelet confirms a bound pod's graceful
                # deletion here, and no garbage collector removes the `orphan` finalizer a Job's
                # default deletion adds (it would outlive its namespace).
                collection = f"{top}/namespaces/{namespace}/{entry['name']}"
                self.request(
                    "DELETE",
                    collection,
                    query=[("gracePeriodSeconds", "0"), ("propagationPolicy", "Background")],
                )
                status, left = self.request("GET", collection)
                for item in left.get("items", []) if status == 200 else []:
                    if item["metadata"].get("finalizers"):  # no controller will remove them
                        self.request(
                            "PATCH",
                            f"{collection}/{item['metadata']['name']}",
                            {"metadata": {"finalizers": None}},
                            content_type="application/merge-patch+json",
                        )

    # --- a ServiceAccount with narrow RBAC ------------------------------------------------

    def service_account_kubeconfig(
        self, namespace: str, name: str, rules: list[dict], folder: Path
    ) -> Path:
        """A kubeconfig of a ServiceAccount bound to a Role of `rules` in `namespace`, its token
        from the TokenRequest API (no controller makes token Secrets here)."""
        base = f"/api/v1/namespaces/{namespace}"
        self.ok("POST", f"{base}/serviceaccounts", {"metadata": {"name": name}})
        rbac = f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}"
        self.ok("POST", f"{rbac}/roles", {"metadata": {"name": name}, "rules": rules})
        self.ok(
            "POST",
            f"{rbac}/rolebindings",
            {
                "metadata": {"name": name},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
                "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": namespace}],
            },
        )
        token = self.ok(
            "POST",
            f"{base}/serviceaccounts/{name}/token",
            {
                "apiVersion": "authentication.k8s.io/v1",
                "kind": "TokenRequest",
                "spec": {"expirationSeconds": 600},
            },
        )["status"]["token"]
        return self.kubeconfig_with(folder / f"{name}.kubeconfig", token=token)

    def kubeconfig_with(
        self, path: Path, *, token: str | None = None, ca: bytes | None = None
    ) -> Path:
        """The admin kubeconfig with another token or certificate authority."""
        config = yaml.safe_load(self.kubeconfig.read_text())
        if token is not None:
            config["users"][0]["user"] = {"token": token}
        if ca is not None:
            config["clusters"][0]["cluster"]["certificate-authority-data"] = base64.b64encode(
                ca
            ).decode()
        path.write_text(yaml.safe_dump(config))
        return path


@contextlib.contextmanager
def shared(
    name: str, set_up: Callable[[], list[dict]], tear_down: Callable[[list[dict]], None]
) -> Iterator[None]:
    """A state of the server several test processes use at once (`make test` runs two): the
    first to arrive sets it up, the last to leave tears down what was set up."""
    folder = Path(tempfile.gettempdir()) / "trainops-live-tests"
    folder.mkdir(exist_ok=True)
    state = folder / f"{name}.json"

    @contextlib.contextmanager
    def locked() -> Iterator[dict]:
        with (folder / f"{name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            found = json.loads(state.read_text()) if state.exists() else {"users": 0, "created": []}
            yield found
            state.write_text(json.dumps(found))

    with locked() as found:
        if found["users"] == 0:
            found["created"] = set_up()
        found["users"] += 1
    try:
        yield
    finally:
        with locked() as found:
            found["users"] -= 1
            if found["users"] == 0:
                tear_down(found["created"])
                found["created"] = []
