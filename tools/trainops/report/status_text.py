"""`trainops status` for a terminal: each layer's health as Argo CD and Flux would show it, the
objects that are not healthy, then each training job with its Workload, pods, events, diagnosis."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console

from trainops.live.health import State
from trainops.live.jobs import JobReport
from trainops.live.status import Status
from trainops.report.review_text import escape

_STYLE = {
    State.HEALTHY: "green",
    State.RUNNING: "cyan",
    State.SUSPENDED: "blue",
    State.SUSPENDING: "blue",
    State.PROGRESSING: "yellow",
    State.DEGRADED: "bold red",
    State.MISSING: "red",
    State.UNKNOWN: "magenta",
}
MAX_OBJECTS = 15  # not-healthy objects listed per layer


def _job(console: Console, job: JobReport) -> None:
    style = _STYLE[job.health.state]
    queue = f" [dim](queue {escape(job.queue)})[/dim]" if job.queue else ""
    console.print(
        f"\n  [bold]{escape(job.obj.kind)} {escape(job.obj.namespace or '')}/{escape(job.obj.name)}[/bold]{queue}: "
        f"[{style}]{job.health.state.value}[/]"
        + (f": {escape(job.health.message)}" if job.health.message else "")
    )
    if job.workload:
        console.print(f"    Workload {escape(job.workload)}")
        for condition in job.workload_conditions:
            reason = f" ({condition.get('reason')})" if condition.get("reason") else ""
            message = f": {condition.get('message')}" if condition.get("message") else ""
            console.print(
                f"      {escape(str(condition.get('type')))}={escape(str(condition.get('status')))}"
                f"{escape(reason)}{escape(message)}"
            )
    elif job.queue:
        console.print("    Workload: none")
    pods = job.pods
    console.print(f"    Pods: {len(pods)} of {job.expected_pods}")
    for pod in pods:
        node = f" on {pod['node']}" if pod["node"] else ""
        detail = f": {pod['detail']}" if pod["detail"] else ""
        console.print(
            f"      {escape(str(pod['name']))} {escape(str(pod['phase']))}{escape(node)}{escape(detail)}"
        )
    if job.events:
        console.print("    Warning events (newest first):")
        for event in job.events:
            count = f" ×{event['count']}" if event["count"] and event["count"] > 1 else ""
            console.print(
                f"      {escape(event['time'])} {escape(str(event['reason']))} {escape(event['object'])}{count}: "
                f"{escape(str(event['message']))}"
            )
    for diagnosis in job.diagnoses:
        style = "bold red" if diagnosis.problem else "blue"
        console.print(f"    [{style}]→ {escape(diagnosis.shape)}[/]: {escape(diagnosis.detail)}")


def write(status: Status, out: TextIO, target: str) -> None:
    console = Console(file=out, highlight=False, soft_wrap=True)
    name = f" {status.environment}" if status.environment else ""
    console.print(f"[bold]trainops status{escape(name)}[/bold]: {escape(target)}")
    for layer in status.layers:
        console.print(
            f"\n[bold]{escape(layer.layer)}[/bold]: Argo CD {layer.argocd}, Flux {layer.flux} "
            f"[dim]({len(layer.objects)} object(s), {len(layer.not_ready)} not healthy)[/dim]"
        )
        for item in layer.not_ready[:MAX_OBJECTS]:
            style = _STYLE[item.health.state]
            message = f": {item.health.message}" if item.health.message else ""
            console.print(
                f"  [{style}]{item.health.state.value}[/] {escape(str(item.obj.ref))}{escape(message)}"
            )
        if len(layer.not_ready) > MAX_OBJECTS:
            console.print(
                f"  [dim]… {len(layer.not_ready) - MAX_OBJECTS} more (--format json lists every one)[/dim]"
            )
    if status.jobs:
        console.print("\n[bold]Training jobs[/bold]")
        for job in status.jobs:
            _job(console, job)
    problems = sum(len(job.problems) for job in status.jobs)
    console.print(
        f"\n{len(status.layers)} layer(s), {len(status.jobs)} training job(s), {problems} problem(s) "
        f"diagnosed ({status.seconds:.1f}s)"
    )
