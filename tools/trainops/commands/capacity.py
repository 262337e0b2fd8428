"""`trainops capacity [ENVIRONMENT…]`: each environment as a whole — its node pools, what already
runs there, what Kueue may admit — as a table or JSON; exit 1 when Kueue's quota promises more
than the nodes can run (what only a worst case cannot clear is said, as a warning, and exits 0)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from trainops.check.validate import Root, clusters, load_or_fail
from trainops.commands.options import add_config_option, add_mirror_option, renderer_from
from trainops.knowledge import capacity
from trainops.model.config import load_config
from trainops.model.errors import CannotRun
from trainops.render import kustomization
from trainops.report import capacity_report
from trainops.rules import RULES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "capacity",
        help="each environment's node pools, what already runs there and what Kueue may admit",
        description="Render the layers of each environment of trainops.yaml (default: all) and "
        "print, per node pool of its cluster profile, the allocatable, what system and operator "
        "pods already request, the Kueue quota of the flavors placed there, and whether every "
        f"set of jobs Kueue may admit at once fits, pod by pod (past {capacity.MOST_SETS} sets of a queue beyond "
        "each job alone, a worst case bounds the rest and says so). Exit 1 when one does not, "
        "or the worst case cannot clear a job.",
    )
    parser.add_argument(
        "environments",
        nargs="*",
        metavar="ENVIRONMENT",
        help="an environment by name (kind) or folder (overlays/kind)",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    add_config_option(parser)
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def _chosen(folders: list[str], wanted: list[str]) -> list[str]:
    if not wanted:
        return folders
    chosen = []
    for name in wanted:
        match = [f for f in folders if name in (f, Path(f).name)]
        if not match:
            raise CannotRun(f"no environment {name!r} (environments: {', '.join(folders)})")
        chosen += match
    return list(dict.fromkeys(chosen))


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config, RULES)
    if config is None or not config.environments:
        raise CannotRun("no environments: trainops.yaml declares none")
    folders = _chosen(list(config.environments), args.environments)
    configured = kustomization.configured_roots(config)
    roots = [
        Root(path)
        for path in configured
        if any(path.resolve().parent == (config.folder / f).resolve() for f in folders)
    ]
    if not roots:
        raise CannotRun(f"no roots of {config.file} lie in {', '.join(folders)}")
    renderer = renderer_from(args, config) if any(r.is_kustomization for r in roots) else None
    loaded = load_or_fail(roots, renderer)
    cluster_of = clusters(loaded)
    models = []
    for folder in folders:
        where = (config.folder / folder).resolve()
        rendered = next(
            (r for r in loaded if r.path is not None and r.path.resolve().parent == where), None
        )
        if rendered is None:
            continue
        cluster = cluster_of[id(rendered)]
        cluster.config, cluster.everything = config, loaded
        model = capacity.model_of(cluster)
        if model is not None:
            models.append(model)
    if args.format == "json":
        json.dump(capacity_report.as_json(models), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(capacity_report.text(models))
    return 0 if all(capacity_report.environment_ok(m) for m in models) else 1
