"""Every layer asked of the cluster, in order: the server's verdict on each object, as findings.

Each object is asked with a server-side-apply dry run (`dry_run`); nothing is stored, so the layers
do not depend on one another's answers and are asked at once, while each object is judged against
what the layers up to its own install (a CRD, a Namespace). A rejection is a finding at the source
file and the line of the field the server names (`model.field_lines`), with the server's message;
a warning the server sends back (Pod Security's `warn` level, a deprecated API) is a warning
finding; an object waiting for its layer is a note, not a finding.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from trainops.check.redact import secret_values, without_secrets
from trainops.check.validate import Outcome
from trainops.live.client import ReadOnlyClient
from trainops.live.discovery import Discovery, discover
from trainops.live.dry_run import (
    ACCEPTED,
    RECREATED,
    REJECTED,
    WAITING,
    Answer,
    ask,
    layer_installs,
)
from trainops.live.layers import Plan, Rendering, render
from trainops.model.field_lines import field_line
from trainops.model.findings import Finding, Severity
from trainops.model.rendered import Rendered
from trainops.render.renderer import Renderer

REJECTED_RULE = "apiserver-rejected"
WARNING_RULE = "apiserver-warning"


def ask_all(
    client: ReadOnlyClient,
    discovery: Discovery,
    plan: Plan,
    rendered: list[Rendered],
    workers: int,
) -> list[list[Answer]]:
    """Every object of every layer asked at once, answers in layer and render order."""
    installs = layer_installs(plan, rendered)
    work = [
        (index, obj, layer.name, installs[index])
        for index, (layer, result) in enumerate(zip(plan.layers, rendered))
        for obj in result.objects
    ]
    # CRDs first: the server spends up to a second or two of CPU on a large one (its schema is
    # validated and converted on every write, dry runs included), so they must not be the tail.
    order = sorted(range(len(work)), key=lambda i: work[i][1].kind != "CustomResourceDefinition")
    with ThreadPoolExecutor(max_workers=workers) as pool:
        answered = dict(zip(order, pool.map(lambda i: ask(client, discovery, *work[i][1:]), order)))
    by_layer: list[list[Answer]] = [[] for _ in plan.layers]
    for position, (index, *_) in enumerate(work):
        by_layer[index].append(answered[position])
    return by_layer


@dataclass
class Verification:
    plan: Plan
    rendering: Rendering
    answers: list[list[Answer]]
    seconds: float
    notes: list[str] = field(default_factory=list)

    def count(self, verdict: str) -> int:
        return sum(a.verdict == verdict for layer in self.answers for a in layer)


def verify(
    client: ReadOnlyClient, plan: Plan, renderer: Renderer | None, workers: int
) -> Verification:
    started = time.perf_counter()
    rendering = render(plan, renderer)
    answers = ask_all(client, discover(client), plan, rendering.rendered, workers)
    verification = Verification(plan, rendering, answers, time.perf_counter() - started)
    verification.notes = list(plan.notes) + waiting_notes(verification)
    return verification


def waiting_notes(verification: Verification) -> list[str]:
    """One note per layer and reason: which objects wait, and for which layer."""
    notes = []
    for layer, answers in zip(verification.plan.layers, verification.answers):
        grouped: dict[tuple[str, str], list[str]] = {}
        for answer in answers:
            if answer.verdict in (WAITING, RECREATED):
                grouped.setdefault((answer.verdict, answer.message), []).append(str(answer.obj.ref))
        for (verdict, reason), refs in grouped.items():
            shown = ", ".join(refs[:4]) + (f" and {len(refs) - 4} more" if len(refs) > 4 else "")
            if verdict == RECREATED:
                notes.append(f"{layer.name}: {shown}: {reason}")
            else:
                what = "waits" if len(refs) == 1 else "wait"
                notes.append(f"{layer.name}: {shown} {what} for its layer: {reason}")
    return notes


def _at(answer: Answer, path: str | None) -> int | None:
    obj = answer.obj
    if path and obj.line and obj.file and "//" not in obj.file:
        return field_line(obj.file, obj.line, path) or obj.line
    return obj.line


def findings(verification: Verification) -> list[Finding]:
    environment = (verification.plan.environment,) if verification.plan.environment else ()
    found = []
    for answers in verification.answers:
        for answer in answers:
            obj, roots = answer.obj, (answer.layer,)
            if answer.verdict == REJECTED:
                for path, message in answer.causes or [(None, answer.message)]:
                    found.append(
                        Finding(
                            REJECTED_RULE,
                            Severity.ERROR,
                            f"the API server rejects it: {message}",
                            answer.layer,
                            obj.file,
                            _at(answer, path),
                            obj.ref,
                            path,
                            roots=roots,
                            environments=environment,
                        )
                    )
            for warning in answer.warnings:
                found.append(
                    Finding(
                        WARNING_RULE,
                        Severity.WARNING,
                        f"the API server warns: {warning}",
                        answer.layer,
                        obj.file,
                        obj.line,
                        obj.ref,
                        roots=roots,
                        environments=environment,
                    )
                )
    return without_secrets(found, secret_values(verification.rendering.rendered))


def outcome(verification: Verification) -> Outcome:
    rendering = verification.rendering
    return Outcome(
        findings(verification),
        rendering.rendered,
        verification.seconds,
        rendering.seconds,
        verification.notes,
        rendering.renders,
        rendering.from_cache,
    )


def summary(verification: Verification) -> str:
    return (
        f"{verification.count(ACCEPTED)} accepted, {verification.count(REJECTED)} rejected, "
        f"{verification.count(WAITING)} waiting for their layer"
        + (
            f", {verification.count(RECREATED)} to be recreated"
            if verification.count(RECREATED)
            else ""
        )
    )
