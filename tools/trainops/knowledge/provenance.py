"""Where the repository and its images come from: placeholder owners, Git URLs compared, and what
the image workflow under .github/workflows publishes.

A placeholder owner, precisely: a host reserved so that it never resolves (RFC 2606 and RFC 6761:
`localhost`, the top-level names `example`, `test`, `invalid`, `localhost`, and
`example.com`/`.net`/`.org` with their subdomains), or an owner — the first path segment after
the host of a Git URL or a registry reference, as in github.com/<owner>/… and ghcr.io/<owner> — that
is RFC 2606's word `example`, alone or followed by `-`, `_` or `.` and more (`example-org`), or one
of the words templates leave to be filled in (PLACEHOLDER_OWNERS).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from trainops.model.objects import Unreadable, read_text
from trainops.model.shape import mapping, mappings, strings
from trainops.model.yaml_bounds import Excessive, load_bounded

_RESERVED_TLDS = ("example", "test", "invalid", "localhost")
_RESERVED_DOMAINS = ("example.com", "example.net", "example.org")
PLACEHOLDER_OWNERS = frozenset(
    {"owner", "your-org", "your-name", "your-username", "your-user", "my-org", "changeme"}
)
_EXAMPLE_OWNER = re.compile(r"^example([-_.].*)?$")

# A Git URL as Argo CD and Flux take one: https://host/path, ssh://[user@]host[:port]/path, or
# the scp-like user@host:path.
_GIT_URL = re.compile(
    r"^(?:(?P<scheme>https|http|ssh)://(?:[^@/\s]+@)?(?P<host>[^/:\s]+)(?::\d+)?/(?P<path>[^\s]+)"
    r"|(?:[^@/\s]+@)(?P<scphost>[^/:\s]+):(?P<scppath>[^\s]+))$"
)
# A registry and path prefix as an image reference starts (distribution/reference's grammar: a
# domain with an optional port, then lower-case path components).
_REGISTRY = re.compile(
    r"^(?P<host>(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)"
    r"(?::[0-9]+)?(?P<path>(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)$"
)


def reserved(host: str) -> bool:
    """A name reserved so that it never resolves in public DNS (RFC 2606, RFC 6761)."""
    host = host.rstrip(".").lower()
    return (
        host == "localhost"
        or host.rsplit(".", 1)[-1] in _RESERVED_TLDS
        or any(host == d or host.endswith("." + d) for d in _RESERVED_DOMAINS)
    )


def git_url(url: str) -> tuple[str, str] | None:
    """(host, path without .git or slashes at the end) of a Git URL, None when it is not one."""
    match = _GIT_URL.match(url.strip())
    if not match:
        return None
    host = (match.group("host") or match.group("scphost")).lower()
    path = (match.group("path") or match.group("scppath")).strip("/")
    path = path.removesuffix(".git").strip("/").lower()  # hosts match owners in any case
    return (host, path) if path else None


def registry_parts(registry: str) -> tuple[str, str] | None:
    """(host, path) of a registry reference such as ghcr.io/owner, None when it is not one."""
    match = _REGISTRY.match(registry.strip())
    if not match or "." not in match.group("host") and match.group("host") != "localhost":
        return None
    return match.group("host"), match.group("path").strip("/")


def same_repository(url: str, declared: str) -> bool:
    """Whether two Git URLs name the same repository (host case, `.git` and scheme aside)."""
    one, other = git_url(url), git_url(declared)
    return one is not None and other is not None and one[0] == other[0] and one[1] == other[1]


def placeholder(host: str, path: str) -> str | None:
    """Why host/path names a placeholder owner (see the module's docstring), or None."""
    if reserved(host):
        return f"{host} is a name reserved so that it never resolves (RFC 2606, RFC 6761)"
    owner = path.split("/", 1)[0].lower() if path else ""
    if _EXAMPLE_OWNER.match(owner):
        return f"owner {owner!r} is RFC 2606's placeholder word, which nobody owns"
    if owner in PLACEHOLDER_OWNERS:
        return f"owner {owner!r} is a template's placeholder"
    return None


def placeholder_in_url(url: str) -> str | None:
    parts = git_url(url)
    return placeholder(*parts) if parts else None


def image_host(image: str) -> str | None:
    """The registry host of an image reference (None: Docker Hub, no host written)."""
    first, slash, _ = image.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        return first.split(":", 1)[0].lower()
    return None


def placeholder_in_image(image: str) -> str | None:
    """Why the image's registry names a placeholder owner (None: not one, or no host written)."""
    host = image_host(image)
    return placeholder(host, image.partition("/")[2]) if host is not None else None


# --------------------------------------------------------------------------- the image workflow

BUILD_PUSH = "docker/build-push-action@"


@dataclass(frozen=True)
class Published:
    """An image the workflow builds and pushes: the Dockerfile target, the image's name below
    the registry, and the git tag globs whose pushes publish it (tagged without the `v`)."""

    workflow: str  # the workflow file, relative to the repository
    job: str
    image: str
    target: str
    context: str
    tag_globs: tuple[str, ...]

    def publishes_tag(self, tag: str) -> bool:
        """Whether some pushed git tag v<tag> matching the workflow's globs publishes `tag`."""
        return any(fnmatch.fnmatchcase(f"v{tag}", glob) for glob in self.tag_globs)


def _load(path: Path) -> dict:
    try:
        data = load_bounded(read_text(path))
    except (Unreadable, Excessive, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def published_images(folder: Path) -> list[Published]:
    """What the repository's workflows (.github/workflows/*.yml|yaml) publish: every job with a
    docker/build-push-action step, one image per `strategy.matrix.include` entry naming an
    `image` and a `target` (the step's `target` and `tags` read them as ${{ matrix.target }} and
    ${{ matrix.image }}), pushed on the job's workflow's `on.push.tags`."""
    found: list[Published] = []
    workflows = folder / ".github" / "workflows"
    if not workflows.is_dir():
        return found
    for path in sorted([*workflows.glob("*.yml"), *workflows.glob("*.yaml")]):
        data = _load(path)
        # YAML 1.1 reads the key `on` as True.
        trigger = data.get("on", data.get(True))
        globs = tuple(strings(mapping(mapping(trigger).get("push")).get("tags")))
        for job_name, job in mapping(data.get("jobs")).items():
            steps = [s for s in mappings(mapping(job).get("steps"))]
            builds = [s for s in steps if str(s.get("uses", "")).startswith(BUILD_PUSH)]
            if not builds:
                continue
            step = mapping(builds[0].get("with"))
            if (
                step.get("push") not in (True, "true")
                or "${{ matrix.image }}" not in str(step.get("tags", ""))
                or step.get("target") != "${{ matrix.target }}"
            ):
                continue
            matrix = mapping(mapping(mapping(job).get("strategy")).get("matrix"))
            for entry in mappings(matrix.get("include")):
                if isinstance(entry.get("image"), str) and isinstance(entry.get("target"), str):
                    found.append(
                        Published(
                            path.relative_to(folder).as_posix(),
                            str(job_name),
                            entry["image"],
                            entry["target"],
                            str(step.get("context", ".")),
                            globs,
                        )
                    )
    return found


_STAGE = re.compile(r"^\s*FROM\s+\S+(?:\s+--\S+)*\s+AS\s+(\S+)\s*$", re.IGNORECASE | re.MULTILINE)


def dockerfile_targets(context: Path) -> set[str]:
    """The named stages (FROM … AS name) of the Dockerfile in a build context."""
    try:
        return {m.group(1) for m in _STAGE.finditer(read_text(context / "Dockerfile"))}
    except Unreadable:
        return set()
