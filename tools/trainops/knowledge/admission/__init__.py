"""What the operators and the GitOps controllers refuse that the API server accepts: their
validating admission webhooks and the checks their controllers make before acting, ported from
the pinned sources, one package per operator (as upstream lays out its webhooks).

Each port is an AdmissionCheck in CHECKS; the `operator-admission` rule applies every check that
names an object's kind, and `trainops coverage` reads the same registry, so what is ported and
what each port leaves out is printed from here, not from a hand-kept list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

# (path, message): where the object is refused, and the refusal in the operator's own words.
Refusal = tuple[str, str]


@dataclass(frozen=True)
class AdmissionCheck:
    # Who refuses, as a user knows it: "Kueue v0.18.6", "kustomize-controller v1.9.4".
    operator: str
    # (group, kind) of the objects this check judges.
    kinds: tuple[tuple[str, str], ...]
    # The upstream function ported, with its file at the pinned tag.
    upstream: str
    # "webhook": refused when applied; "controller": accepted, then refused by its controller.
    stage: Literal["webhook", "controller"]
    check: Callable[[dict], Iterable[Refusal]]
    # What the port leaves out ("" when nothing): printed by `trainops coverage`.
    left_out: str = ""


CHECKS: list[AdmissionCheck] = []


def checks_for(group: str, kind: str) -> list[AdmissionCheck]:
    return [c for c in CHECKS if (group, kind) in c.kinds]


# Each operator's package appends its ports to CHECKS when imported; imported last, once the
# registry above exists.
from trainops.knowledge.admission import (  # noqa: E402, F401
    jobset,
    kuberay,
    kueue,
    mpi_operator,
    training_operator,
)
