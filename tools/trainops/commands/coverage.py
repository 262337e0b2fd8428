"""`trainops coverage`: what is judged of every kind, generated from trainops' own registries."""

from __future__ import annotations

import argparse
import sys

from trainops.check.validate import Root, catalog_for, load_roots, load_with_crd_roots
from trainops.commands.options import add_config_option, add_mirror_option, renderer_from
from trainops.knowledge import webhooks
from trainops.knowledge.coverage import table
from trainops.model.config import DEFAULT_KUBERNETES_VERSIONS, load_config
from trainops.model.errors import CannotRun
from trainops.report import coverage_report
from trainops.rules import RULES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "coverage",
        help="print what is judged of every kind: schema, API-server validation, defaulting, "
        "operator webhooks and controllers, CEL",
        description="For every kind the Kubernetes versions of trainops.yaml serve and every "
        "custom resource kind of the CRDs its crdRoots render, say whether validate judges its "
        "schema, the API server's validation (the upstream function ported), the defaults the "
        "server applies first, the operators' admission webhooks and controllers, and its CEL "
        "rules: judged, partly (what is left out) or not judged. Read from the registries the "
        "rules use, so it is never out of date (docs/coverage.md).",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "markdown"),
        default="text",
        help="output format (default: text)",
    )
    parser.add_argument(
        "--details",
        "-d",
        action="store_true",
        help="what the partly and not judged columns leave out: under each kind (text), in each cell (markdown)",
    )
    add_config_option(parser)
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config, RULES)
    crd_roots = [Root(p, schemas_only=True) for p in (config.crd_root_paths() if config else [])]
    renderer = renderer_from(args, config) if crd_roots else None
    loaded = load_with_crd_roots(
        [], crd_roots, renderer, lambda some, seen=None: load_roots(some, renderer)
    )
    for result in loaded.crd_roots:
        problem = result.failure or (result.syntax_errors or [None])[0]
        if problem is not None:
            where = f"{problem.file}:{problem.line}" if problem.line else problem.file
            raise CannotRun(f"{where}: {problem.message}")
    versions = config.kubernetes_versions if config else list(DEFAULT_KUBERNETES_VERSIONS)
    catalog = catalog_for(
        loaded.crd_roots, versions, crd_roots, config.folder if config else None, loaded.schemas
    )
    hooked = None
    if renderer is not None:
        # What the CRD roots' webhook configurations register: a custom kind none registers has
        # no webhook to judge ("–"), not one left unjudged. Read again when the schemas came
        # from the cache (their renders are cached too).
        read = loaded.crd_roots or load_roots(crd_roots, renderer)
        if all(result.loaded for result in read):
            hooked = webhooks.registered(obj for result in read for obj in result.objects)
        renderer.release()
    rows = table(catalog, hooked)
    if args.format == "json":
        coverage_report.write_json(rows, sys.stdout)
    elif args.format == "markdown":
        coverage_report.write_markdown(rows, sys.stdout, args.details)
    else:
        coverage_report.write_text(rows, sys.stdout, args.details)
    return 0
