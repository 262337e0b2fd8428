"""An AdmissionCheck: one port of what an operator or a GitOps controller refuses."""

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
