"""`trainops capacity`: each environment's model as a table (pool, allocatable, already
requested, what Kueue may admit, verdict) and as JSON."""

from __future__ import annotations

from trainops.knowledge.capacity import Model, PoolRow, show
from trainops.report.visible import visible

HEADERS = ("pool", "nodes", "allocatable", "already requested", "Kueue may admit", "verdict")


def _left(row: PoolRow) -> dict[str, float]:
    return {n: v - row.requested.get(n, 0.0) for n, v in row.allocatable.items()}


def pool_verdict(model: Model, row: PoolRow) -> tuple[bool, str]:
    """(fine, what to say) for one pool."""
    problems = []
    for room in model.rooms:
        if row.pool.name not in room.pools:
            continue
        for name, (nominal, free) in sorted(room.over().items()):
            problems.append(
                f"{room.flavor} {show({name: nominal})} > {show({name: free})} left"
                + (f" on {', '.join(room.pools)}" if len(room.pools) > 1 else "")
            )
    short = {
        job.label
        for admission in model.failing()
        for job, names in admission.jobs
        if job in admission.short()
        and any(row.pool.name in room.pools for room in model.rooms if room.flavor in names)
    }
    if short:
        problems.append(f"gangs that do not fit: {', '.join(sorted(short))}")
    bounded = {
        bound.job.label
        for bound in model.bounded
        if any(row.pool.name in r.pools for r in model.rooms if r.flavor in bound.flavors)
    }
    # A warning, as the `capacity` rule has it: the worst case may flag a gang that every set
    # Kueue admits leaves room for.
    if bounded:
        caution = f"gangs a worst case cannot clear (not a placement): {', '.join(sorted(bounded))}"
        if not problems:
            return True, f"WARNING: {caution}"
        problems.append(caution)
    if problems:
        return False, "OVER: " + "; ".join(problems)
    return True, f"fits ({show(_left(row))} left)"


def environment_ok(model: Model) -> bool:
    """False where something does not fit. What only the worst case cannot clear (model.bounded)
    is said but does not fail: the `capacity` rule reports it as a warning, a gang it may flag can
    fit every set Kueue admits."""
    return (
        all(pool_verdict(model, row)[0] for row in model.pools)
        and not model.failing()
        and not any(room.over() for room in model.volcano)
    )


def _volcano(model: Model) -> list[str]:
    """A line for each Volcano Queue that jobs outside Kueue's quota run in."""
    lines = []
    for room in model.volcano:
        capability = show(room.capability) if room.capability is not None else "none (unbounded)"
        over = room.over()
        lines.append(
            f"Volcano Queue {room.name} (outside Kueue's quota: {', '.join(room.jobs)}): "
            f"capability {capability}; left beside Kueue's quota: {show(room.left)}"
            + (f"; OVER: {', '.join(sorted(over))}" if over else "")
        )
    return lines


def _summary(model: Model) -> list[str]:
    lines = []
    queues = {id(j.queue): j.queue for j in model.jobs}
    for queue in queues.values():
        jobs = [j for j in model.jobs if j.queue is queue]
        lines.append(
            f"jobs in ClusterQueue {queue.name}: "
            + "; ".join(
                f"{j.label} ({show(j.usage)}, {j.pods} pod{'s' if j.pods != 1 else ''})"
                for j in jobs
            )
        )
        admissions = [a for a in model.admissions if a.queue is queue]
        if admissions:
            largest = max(admissions, key=lambda a: (len(a.jobs), sum(a.usage.values())))
            usage: dict[str, float] = {}
            for (_, resource), amount in largest.usage.items():
                usage[resource] = usage.get(resource, 0.0) + amount
            failing = [a for a in admissions if a.short()]
            search = model.search_of(queue)
            if search is not None and not search.complete:
                bounded = [b.job.label for b in model.bounded if b.job.queue is queue]
                lines.append(
                    f"sets Kueue may admit at once: more than {len(admissions)}; placed pod by "
                    f"pod: every set of up to {search.size} job{'s' if search.size != 1 else ''}"
                    f" and {len(admissions)} in all, {len(failing)} of which do not fit the "
                    "nodes; every other set bounded by a worst case per job, "
                    + (
                        f"which cannot clear {', '.join(bounded)}"
                        if bounded
                        else "which clears every job not shown short"
                    )
                )
                continue
            lines.append(
                f"sets Kueue may admit at once: {len(admissions)} (largest: "
                f"{' + '.join(j.label for j, _ in largest.jobs)}, {show(usage)}); "
                + (
                    f"{len(failing)} do not fit the nodes"
                    if failing
                    else "every one fits the nodes, pod by pod"
                )
            )
    lines += _volcano(model)
    ready = model.wait_for_pods_ready
    if model.kueue_config is not None:
        lines.append(
            "waitForPodsReady: "
            + (f"timeout {ready.get('timeout', '?')}" if ready is not None else "off")
        )
    return lines


def text(models: list[Model]) -> str:
    out = []
    for model in models:
        out.append(
            f"{model.environment} (profile {model.profile.name}, {model.profile.cloud}): "
            + (
                "OVER-COMMITTED"
                if not environment_ok(model)
                else "fits, with a warning"
                if model.bounded
                else "fits"
            )
        )
        rows: list[tuple[str, ...]] = [HEADERS]
        for row in model.pools:
            quota = "; ".join(f"{flavor}: {show(amounts)}" for flavor, amounts in row.quota) or "-"
            rows.append(
                (
                    row.pool.describe(),
                    str(row.pool.max_nodes),
                    show(row.allocatable),
                    show(row.requested),
                    quota,
                    pool_verdict(model, row)[1],
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS) - 1)]
        for r in rows:
            cells = [c.ljust(w) for c, w in zip(r, widths)] + [r[-1]]
            out.append("  " + "  ".join(visible(c) for c in cells).rstrip())
        out += [f"  {visible(line)}" for line in _summary(model)]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def as_json(models: list[Model]) -> list[dict]:
    return [
        {
            "environment": model.environment,
            "profile": model.profile.name,
            "fits": environment_ok(model),
            "pools": [
                {
                    "pool": row.pool.name,
                    "nodes": row.pool.max_nodes,
                    "allocatable": row.allocatable,
                    "requested": row.requested,
                    "kueue": {flavor: amounts for flavor, amounts in row.quota},
                    "verdict": pool_verdict(model, row)[1],
                }
                for row in model.pools
            ],
            "residents": [
                {
                    "owner": r.shown,
                    "requests": r.requests,
                    "pool": r.pool,
                    "perNode": r.per_node,
                    "pods": r.pods,
                }
                for r in model.residents
            ],
            "jobs": [
                {"job": j.label, "queue": j.queue.name, "requests": j.usage, "pods": j.pods}
                for j in model.jobs
            ],
            "admissions": [
                {
                    "jobs": {j.label: list(names) for j, names in a.jobs},
                    "placed": a.placed,
                    "fits": not a.short(),
                }
                for a in model.admissions
            ],
            # Per ClusterQueue: whether every set Kueue may admit was placed, and if not, the
            # jobs the worst case bounding the others cannot clear.
            "searches": [
                {
                    "queue": search.queue.name,
                    "placed": search.placed,
                    "complete": search.complete,
                    "bounded": [
                        {"job": b.job.label, "flavors": list(b.flavors), "podsAtLeast": b.at_least}
                        for b in model.bounded
                        if b.job.queue is search.queue
                    ],
                }
                for search in model.searches
            ],
            # Volcano Queues that jobs outside Kueue's quota run in (None: no capability).
            "volcanoQueues": [
                {
                    "queue": room.name,
                    "jobs": list(room.jobs),
                    "capability": room.capability,
                    "left": room.left,
                    "fits": not room.over(),
                }
                for room in model.volcano
            ],
            "waitForPodsReady": model.wait_for_pods_ready,
        }
        for model in models
    ]
