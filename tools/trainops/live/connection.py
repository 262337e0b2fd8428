"""Which cluster, as whom: the connection resolved the way kubectl resolves it.

client-go's loading rules (k8s.io/client-go tools/clientcmd/loader.go, `ClientConfigLoadingRules`):
an explicit `--kubeconfig` file, which must exist; else every file `KUBECONFIG` lists (merged, the
first to set a value wins, missing files skipped); else `~/.kube/config`. `--context` picks a context
of that configuration, else its `current-context`. When no file is found at all, a process running in
a Pod uses the in-cluster configuration (its ServiceAccount token and the
`KUBERNETES_SERVICE_HOST`/`_PORT` the kubelet sets), as clientcmd's `DeferredLoadingClientConfig`
falls back to `rest.InClusterConfig`.

The kubeconfig is never written: the client's token refresh may persist new credentials into it,
which `persist_config=False` turns off.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from trainops.model.errors import CannotRun
from trainops.model.shape import mapping

DEFAULT_KUBECONFIG = Path("~/.kube/config")
IN_CLUSTER_TOKEN = Path("/var/run/secrets/kubernetes.io/serviceaccount/token")


@dataclass(frozen=True)
class Target:
    """The cluster a command talks to, for messages: where the settings came from and to whom."""

    server: str
    context: str | None  # None in-cluster
    user: str | None
    source: str  # "kubeconfig /root/.kube/config", "in-cluster configuration"
    namespace: str = "default"  # the context's namespace: where an object without one goes

    def describe(self) -> str:
        context = f"context {self.context}, " if self.context else ""
        return f"{self.server} ({context}{self.source})"


def kubeconfig_files(explicit: Path | None, environ: Mapping[str, str] | None = None) -> list[Path]:
    """The kubeconfig files kubectl would read, in precedence order (none: try in-cluster)."""
    environ = os.environ if environ is None else environ
    if explicit is not None:
        if not explicit.is_file():
            raise CannotRun(f"--kubeconfig {explicit}: no such file")
        return [explicit]
    listed = environ.get("KUBECONFIG")
    if listed:
        found = [Path(p).expanduser() for p in listed.split(os.pathsep) if p]
        return [p for p in found if p.is_file()]
    default = DEFAULT_KUBECONFIG.expanduser()
    return [default] if default.is_file() else []


def _in_cluster(environ: Mapping[str, str]) -> bool:
    return bool(environ.get("KUBERNETES_SERVICE_HOST")) and IN_CLUSTER_TOKEN.is_file()


def connect(
    kubeconfig: Path | None,
    context: str | None,
    workers: int,
    environ: Mapping[str, str] | None = None,
):
    """(kubernetes.client.ApiClient, Target) for the resolved cluster; one line and exit 2 when
    there is none or the configuration cannot be read."""
    from kubernetes import client
    from kubernetes.config import ConfigException, kube_config
    from kubernetes.config.incluster_config import load_incluster_config

    env: Mapping[str, str] = os.environ if environ is None else environ
    files = kubeconfig_files(kubeconfig, env)
    configuration = client.Configuration()
    configuration.connection_pool_maxsize = workers
    # One attempt per request, failing as itself (urllib3 re-raises the cause when retries are
    # off): kubectl does not retry either, and a wrong address should fail now, not in 4 tries.
    configuration.retries = False
    if not files:
        if context is None and _in_cluster(env):
            try:
                load_incluster_config(client_configuration=configuration)
            except ConfigException as error:
                raise CannotRun(f"in-cluster configuration: {error}") from None
            target = Target(configuration.host, None, None, "in-cluster configuration")
            return _client(configuration), target
        where = (
            f"KUBECONFIG={env['KUBECONFIG']} names no existing file"
            if env.get("KUBECONFIG")
            else f"no {DEFAULT_KUBECONFIG} and not running in a Pod"
        )
        raise CannotRun(f"no cluster to talk to: {where}; pass --kubeconfig FILE or set KUBECONFIG")
    joined = os.pathsep.join(str(f) for f in files)
    shown = ", ".join(str(f) for f in files)
    try:
        merger = kube_config.KubeConfigMerger(joined)
        merged = merger.config
        if merged is None:
            raise CannotRun(f"kubeconfig {shown}: no configuration in it")
        contexts = [mapping(getattr(c, "value", c)) for c in merged.value.get("contexts") or []]
        names = [c.get("name") for c in contexts]
        # kubectl takes the first file's current-context (the client's merger keeps the last).
        current = next(
            (
                found
                for path in merger.paths
                if (found := mapping(merger.config_files.get(path)).get("current-context"))
            ),
            None,
        )
        chosen = context or current
        if not chosen:
            raise CannotRun(
                f"kubeconfig {shown}: no current-context; pass --context "
                f"(one of: {', '.join(map(str, names)) or 'none defined'})"
            )
        if chosen not in names:
            raise CannotRun(
                f"kubeconfig {shown}: no context {chosen!r} "
                f"(it has: {', '.join(map(str, names)) or 'none'})"
            )
        kube_config.load_kube_config(
            config_file=joined,
            context=chosen,
            client_configuration=configuration,
            persist_config=False,
        )
    except CannotRun:
        raise
    except ConfigException as error:
        raise CannotRun(f"kubeconfig {shown}: {_one_line(error)}") from None
    except Exception as error:  # noqa: BLE001 - a malformed file: the loader raises what it meets
        raise CannotRun(
            f"kubeconfig {shown}: cannot be read ({type(error).__name__}: {_one_line(error)})"
        ) from None
    entry = next(c for c in contexts if c.get("name") == chosen)
    settings = mapping(entry.get("context"))
    target = Target(
        configuration.host,
        chosen,
        settings.get("user"),
        f"kubeconfig {shown}",
        settings.get("namespace") or "default",
    )
    return _client(configuration), target


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


def _client(configuration):
    from kubernetes import client

    return client.ApiClient(configuration)
