"""`trainops schemas --out DIR`: every schema `validate` uses, for kubeconform and editors."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from trainops.check.validate import Root, catalog_for, load_or_fail
from trainops.commands.options import add_config_option, add_mirror_option, renderer_from
from trainops.knowledge.schema.export import export
from trainops.model.config import DEFAULT_KUBERNETES_VERSIONS, load_config
from trainops.model.errors import CannotRun
from trainops.report.visible import visible
from trainops.rules import RULES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "schemas",
        help="export the schema catalog (core kinds and CRDs) in kubeconform's layouts",
        description="Render the CRD roots of trainops.yaml and write every schema validate uses, "
        "standalone, where kubeconform's conventional locations look: core kinds in "
        "DIR/v<x.y.z>-standalone-strict/{kind}-{group's first label}-{version}.json per Kubernetes "
        "version, custom resources in DIR/{group}/{kind}_{version}.json (docs/checking.md: the "
        "command).",
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="folder to write (created)"
    )
    add_config_option(parser)
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = load_config(args.config, RULES)
    crd_roots = [Root(p) for p in (config.crd_root_paths() if config else [])]
    renderer = renderer_from(args, config) if crd_roots else None
    loaded = load_or_fail(crd_roots, renderer)
    versions = config.kubernetes_versions if config else list(DEFAULT_KUBERNETES_VERSIONS)
    catalog = catalog_for(loaded, versions, crd_roots, config.folder if config else None)
    try:
        exported = export(catalog, args.out)
    except OSError as error:
        raise CannotRun(f"{args.out}: cannot write: {error.strerror}") from None
    for folder, count in exported.core.items():
        version = folder.removeprefix("v").removesuffix("-standalone-strict")
        print(
            f"{visible(args.out / folder)}: {count} core schemas "
            f"(kubeconform -strict -kubernetes-version {version})"
        )
    print(f"{visible(args.out)}/<group>: {exported.crds} custom resource schemas")
    for name in exported.refused:
        print(
            f"note: {visible(name)}: not a group, version and kind a CRD can have: not written",
            file=sys.stderr,
        )
    return 0
