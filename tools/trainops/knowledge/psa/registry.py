"""Which checks run for a level and version, in the admission library's order.

Each check applies from its minimum version until the next; a version past the newest known one
evaluates as the newest ("latest"). The restricted level runs every restricted check plus the
baseline checks that no restricted check at that version overrides. Results come in check-id
order, baseline ids first, as the admission library reports them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from trainops.knowledge.psa.checks import BASELINE, CHECKS, RESTRICTED, CheckFn, Violation

PRIVILEGED = "privileged"
LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)
NEWEST_KUBERNETES_MINOR = 37  # versions the CLI accepts: v1.0 … v1.37, and latest
_NEWEST_POLICY_MINOR = max(v.minimum for check in CHECKS for v in check.versions)
_ORDER = sorted(c.id for c in CHECKS if c.level == BASELINE) + sorted(
    c.id for c in CHECKS if c.level == RESTRICTED
)
_VERSION = re.compile(r"v1\.(0|[1-9][0-9]*)")


class PolicyError(ValueError):
    """An unknown level or version."""


@dataclass(frozen=True)
class LevelVersion:
    level: str
    minor: int | None  # None: latest

    @property
    def version(self) -> str:
        return "latest" if self.minor is None else f"v1.{self.minor}"


def parse_level(text: str) -> str:
    if text not in LEVELS:
        raise PolicyError(f"unknown Pod Security level {text!r}: use one of {', '.join(LEVELS)}")
    return text


def parse_version(text: str, newest: int | None = NEWEST_KUBERNETES_MINOR) -> int | None:
    """Minor version of `v1.N` (None for `latest`)."""
    if text == "latest":
        return None
    match = _VERSION.fullmatch(text)
    if not match or (newest is not None and int(match.group(1)) > newest):
        bound = f"v1.0 … v1.{newest}" if newest is not None else "v1.N"
        raise PolicyError(f"unknown Pod Security version {text!r}: use {bound} or latest")
    return int(match.group(1))


def _active(check, minor: int):
    current = None
    for versioned in check.versions:
        if versioned.minimum <= minor:
            current = versioned
    return current


@cache
def checks_for(level: str, minor: int | None) -> tuple[tuple[str, CheckFn], ...]:
    """(check id, function) pairs run at this level and version."""
    if level == PRIVILEGED:
        return ()
    effective = _NEWEST_POLICY_MINOR if minor is None else min(minor, _NEWEST_POLICY_MINOR)
    active = {check.id: (check, _active(check, effective)) for check in CHECKS}
    active = {cid: (check, v) for cid, (check, v) in active.items() if v is not None}
    if level == BASELINE:
        chosen = {cid: v for cid, (check, v) in active.items() if check.level == BASELINE}
    else:
        overridden = {
            o for check, v in active.values() if check.level == RESTRICTED for o in v.overrides
        }
        chosen = {cid: v for cid, (check, v) in active.items() if cid not in overridden}
    return tuple((cid, chosen[cid].run) for cid in _ORDER if cid in chosen)


def evaluate(
    level: str, minor: int | None, metadata: dict, spec: dict
) -> list[tuple[str, Violation]]:
    """The violations of a pod (its metadata and spec) at a level and version."""
    found = []
    for check_id, run in checks_for(level, minor):
        violation = run(metadata or {}, spec or {})
        if violation is not None:
            found.append((check_id, violation))
    return found
