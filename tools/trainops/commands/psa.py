"""`trainops psa`: Pod Security evaluation of objects in YAML files, as admission would decide."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from trainops.knowledge.pod_templates import ill_shaped_templates
from trainops.knowledge.psa.evaluate import evaluate_object
from trainops.knowledge.psa.registry import (
    LEVELS,
    NEWEST_KUBERNETES_MINOR,
    PolicyError,
    parse_level,
    parse_version,
)
from trainops.model.errors import CannotRun
from trainops.model.objects import Unreadable, parse_stream, read_text
from trainops.render.kustomization import KUSTOMIZATION_NAMES
from trainops.report.visible import visible


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "psa",
        help="evaluate pods and pod templates in YAML files against a Pod Security level",
        description="Evaluate every Pod and pod-bearing object (workload controllers, Kubeflow, Ray, "
        "JobSet and Volcano jobs) in FILEs exactly as the Pod Security admission library does at "
        "LEVEL and VERSION. Exit 0 when all are allowed, 1 when any is not, 2 on bad input.",
    )
    parser.add_argument(
        "--level", required=True, metavar="LEVEL", help=f"one of {', '.join(LEVELS)}"
    )
    parser.add_argument(
        "--version",
        default="latest",
        metavar="VERSION",
        help=f"policy version v1.0 … v1.{NEWEST_KUBERNETES_MINOR}, or latest (default: latest)",
    )
    parser.add_argument(
        "--format", choices=("text", "json"), default="text", help="output format (default: text)"
    )
    parser.add_argument(
        "files",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="a YAML file of Pods and pod-bearing objects",
    )
    parser.set_defaults(run=run)


def _objects(files: list[Path]):
    for file in files:
        if file.name in KUSTOMIZATION_NAMES:
            # `psa overlays/kind/workloads/*` names the kustomization too: it holds no pods.
            print(
                f"note: {visible(str(file))}: a kustomization, not objects; skipped",
                file=sys.stderr,
            )
            continue
        try:
            text = read_text(file)
        except Unreadable as error:
            raise CannotRun(f"{file}: {error}") from None
        parsed = parse_stream(text, str(file))
        problem = (parsed.syntax_errors or parsed.malformed or [None])[0]
        if problem is not None:
            raise CannotRun(f"{problem.file}:{problem.line}: {problem.message}")
        for obj in parsed.objects:
            for path, message in ill_shaped_templates(obj.doc)[:1]:
                raise CannotRun(f"{obj.file}:{obj.line}: {obj.ref} at {path}: {message}")
        yield from parsed.objects


def run(args: argparse.Namespace) -> int:
    try:
        level, minor = parse_level(args.level), parse_version(args.version)
    except PolicyError as error:
        raise CannotRun(str(error)) from None
    results = []
    for obj in _objects(args.files):
        violations = evaluate_object(level, minor, obj)
        if violations is None:
            continue
        results.append(
            {
                "path": obj.file,
                "line": obj.line,
                "kind": obj.kind,
                "name": obj.name,
                "allowed": not violations,
                "violations": [v.as_dict() for v in violations],
            }
        )
    policy = f"{level}:{args.version}"
    if args.format == "json":
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for result in results:
            where = visible(f"{result['path']}:{result['line']}: {result['kind']}/{result['name']}")
            if result["allowed"]:
                print(f"{where}: allowed by {policy}")
            for violation in result["violations"]:
                print(
                    where
                    + visible(
                        f": violates {policy}: {violation['check']} at {violation['path']}: "
                        f"{violation['reason']} ({violation['detail']})"
                    )
                )
        allowed = sum(r["allowed"] for r in results)
        print(
            f"{len(results)} object(s) with pods, {allowed} allowed, {len(results) - allowed} not allowed by {policy}"
        )
    return 0 if all(r["allowed"] for r in results) else 1
