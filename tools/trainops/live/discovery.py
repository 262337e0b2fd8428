"""What the cluster serves: each kind's resource name, scope and verbs, per group version.

Asked once per run with aggregated discovery (`/api` and `/apis` with
`Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`, GA in Kubernetes
1.30, v2beta1 since 1.27): two requests instead of one per group version, as kubectl's cached
discovery client does. An older server answers with the legacy lists, and each group version is
then asked on its own. A group's versions come in the server's order of preference.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from trainops.live.client import ReadOnlyClient, path_segment
from trainops.model.shape import mapping, mappings, strings

_AGGREGATED = (
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
    "application/json"
)


@dataclass(frozen=True)
class Resource:
    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    verbs: frozenset[str]

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None = None, name: str | None = None) -> str:
        top = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        scope = f"/namespaces/{path_segment(namespace)}" if self.namespaced and namespace else ""
        tail = f"/{path_segment(name)}" if name is not None else ""
        return f"{top}{scope}/{self.plural}{tail}"


@dataclass
class Discovery:
    resources: dict[tuple[str, str, str], Resource] = field(default_factory=dict)  # g, v, kind
    preferred: dict[str, str] = field(default_factory=dict)  # group -> version

    def resource(self, api_version: str, kind: str) -> Resource | None:
        group, _, version = api_version.rpartition("/")
        return self.resources.get((group, version, kind))

    def versions(self, group: str, kind: str) -> list[str]:
        """The versions serving `kind` in `group`."""
        return [v for (g, v, k) in self.resources if g == group and k == kind]

    def preferred_resource(self, group: str, kind: str) -> Resource | None:
        version = self.preferred.get(group)
        found = self.resources.get((group, version or "", kind))
        if found is not None:
            return found
        return next(
            (r for (g, _, k), r in self.resources.items() if g == group and k == kind), None
        )

    def listable(self) -> list[Resource]:
        """One resource per kind (its group's preferred version first) that can be listed."""
        chosen: dict[tuple[str, str], Resource] = {}
        for (group, version, kind), resource in self.resources.items():
            if "list" not in resource.verbs:
                continue
            key = (group, kind)
            if key not in chosen or version == self.preferred.get(group):
                chosen[key] = resource
        return list(chosen.values())

    def _add(self, group: str, version: str, entries: list[dict]) -> None:
        for entry in entries:
            name = entry.get("resource") or entry.get("name")
            kind = mapping(entry.get("responseKind")).get("kind") or entry.get("kind")
            if not isinstance(name, str) or "/" in name or not isinstance(kind, str):
                continue  # a subresource
            scope = entry.get("scope")
            namespaced = (
                scope == "Namespaced" if scope is not None else bool(entry.get("namespaced"))
            )
            self.resources.setdefault(
                (group, version, kind),
                Resource(
                    group, version, kind, name, namespaced, frozenset(strings(entry.get("verbs")))
                ),
            )


def discover(client: ReadOnlyClient) -> Discovery:
    found = Discovery()
    legacy: list[str] = []  # group versions to ask one by one
    for top in ("/api", "/apis"):
        body = mapping(client.require(client.get(top, accept=_AGGREGATED), f"list {top}"))
        if body.get("kind") == "APIGroupDiscoveryList":
            for group in mappings(body.get("items")):
                name = mapping(group.get("metadata")).get("name") or ""
                versions = mappings(group.get("versions"))
                if versions:
                    found.preferred.setdefault(name, str(versions[0].get("version")))
                for version in versions:
                    found._add(
                        name, str(version.get("version")), mappings(version.get("resources"))
                    )
        elif body.get("kind") == "APIVersions":  # legacy /api
            legacy += [f"/api/{v}" for v in strings(body.get("versions"))]
            found.preferred.setdefault("", "v1")
        else:  # legacy /apis: APIGroupList
            for group in mappings(body.get("groups")):
                name = str(group.get("name"))
                preferred = mapping(group.get("preferredVersion")).get("version")
                if isinstance(preferred, str):
                    found.preferred[name] = preferred
                legacy += [
                    f"/apis/{v['groupVersion']}"
                    for v in mappings(group.get("versions"))
                    if isinstance(v.get("groupVersion"), str)
                ]
    if legacy:
        with ThreadPoolExecutor(max_workers=8) as pool:
            replies = list(pool.map(client.get, legacy))
        for path, reply in zip(legacy, replies):
            if not reply.ok:
                continue  # an aggregated API that is down: its kinds are simply not served
            group_version = path.removeprefix("/api/").removeprefix("/apis/")
            group, _, version = group_version.rpartition("/")
            found._add(group, version, mappings(mapping(reply.body).get("resources")))
    return found
