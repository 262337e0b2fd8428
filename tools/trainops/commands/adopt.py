"""`trainops adopt --repository URL --registry REG`: re-point the whole repository at its owner's
Git repository and image registry in one change, then validate it."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from pathlib import Path

from trainops.commands import rewrite, validate
from trainops.commands.options import add_config_option, add_mirror_option
from trainops.commands.rewrite import Original
from trainops.knowledge import provenance
from trainops.model.config import CONFIG_NAME, load_config
from trainops.model.errors import CannotRun
from trainops.report.visible import visible
from trainops.rules import RULES

# Folders whose files describe the repository to its readers or test the tool, never configure it.
_LEFT_ALONE = {".git", ".venv", ".cache", "node_modules", "site", "tests", "docs", "bench"}
_PLACEHOLDER_LINE = re.compile(r"^[ \t]+placeholder:[ \t]*true[ \t]*(#.*)?\r?\n", re.MULTILINE)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "adopt",
        help="re-point the repository's Git URL and image registry at once, then validate",
        description="Replace the repository URL and the image registry trainops.yaml `provenance` "
        "names, wherever a YAML file of the repository names them (trainops.yaml, the overlays' "
        "`images:` entries, the Argo CD Applications' repoURL, the Flux GitRepositories' url, "
        "mkdocs.yml…; docs/, tests/ and bench/ are left alone), drop `provenance.placeholder`, "
        "and validate the result as `trainops validate` does. Exit 0 clean, 1 on findings, 2 "
        "when it cannot run (then nothing is written). With --dry-run nothing is written: the "
        "change is printed as a unified diff.",
    )
    parser.add_argument(
        "--repository",
        required=True,
        metavar="URL",
        help="the Git URL Argo CD and Flux fetch the repository from, e.g. "
        "https://github.com/<owner>/trainops.git",
    )
    parser.add_argument(
        "--registry",
        required=True,
        metavar="REG",
        help="the registry and path the repository's own images are pushed to, e.g. "
        "ghcr.io/<owner> (lower case)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="write nothing; print the change as a unified diff"
    )
    add_config_option(parser)
    add_mirror_option(parser)
    parser.set_defaults(run=run)


def _checked_repository(url: str) -> str:
    url = url.strip()
    if provenance.git_url(url) is None:
        raise CannotRun(
            f"--repository {url!r} is not a Git URL: give https://<host>/<owner>/<repo>.git, "
            "ssh://git@<host>/<owner>/<repo>.git or git@<host>:<owner>/<repo>.git"
        )
    why = provenance.placeholder_in_url(url)
    if why:
        raise CannotRun(f"--repository {url}: {why}; adopt names the real owner's repository")
    return url


def _checked_registry(registry: str) -> str:
    registry = registry.strip().rstrip("/")
    if registry != registry.lower() and provenance.registry_parts(registry.lower()):
        raise CannotRun(
            f"--registry {registry!r}: image references are lower case; give {registry.lower()}"
        )
    parts = provenance.registry_parts(registry)
    if parts is None:
        raise CannotRun(
            f"--registry {registry!r} is not a registry reference: give a host with a dot (and "
            "an optional :port) and a lower-case path, no scheme, tag or digest, e.g. "
            "ghcr.io/<owner>"
        )
    why = provenance.placeholder(*parts)
    if why:
        raise CannotRun(f"--registry {registry}: {why}; adopt names the real owner's registry")
    return registry


def _files(top: Path) -> list[Path]:
    """The repository's YAML files, tools' and readers' folders (and links) aside."""
    found = []
    for folder, subfolders, names in os.walk(top):
        subfolders[:] = sorted(d for d in subfolders if d not in _LEFT_ALONE)
        for name in names:
            path = Path(folder) / name
            if name.endswith((".yaml", ".yml")) and path.is_file() and not path.is_symlink():
                found.append(path)
    return sorted(found)


def _replacer(old_url: str, new_url: str, old_registry: str, new_registry: str):
    """text -> text with the old repository URL (with or without .git) and the old registry (as a
    whole registry or an image's prefix) replaced."""
    old_base, new_base = old_url.removesuffix(".git"), new_url.removesuffix(".git")
    url = re.compile(re.escape(old_base) + r"(\.git)?(?![\w.-]|/[\w.-])")
    registry = re.compile(r"(?<![\w./-])" + re.escape(old_registry) + r"(?=/|[\s'\"`,)\]}]|$)")

    def replace(text: str) -> str:
        text = url.sub(lambda m: new_base + (".git" if m.group(1) else ""), text)
        return registry.sub(lambda _: new_registry, text)

    return replace


def run(args: argparse.Namespace) -> int:
    new_url = _checked_repository(args.repository)
    new_registry = _checked_registry(args.registry)
    config = load_config(args.config, RULES)
    if config is None or config.file is None:
        raise CannotRun(f"no {CONFIG_NAME} here or above: adopt re-points the one it finds")
    if config.provenance is None:
        raise CannotRun(
            f"{config.file} declares no provenance: add `provenance: {{repository: URL, registry: "
            "REG}` with the values the repository names now, then run adopt"
        )
    old = config.provenance
    replace = _replacer(old.repository, new_url, old.registry, new_registry)
    changes: list[tuple[Original, str]] = []
    for path in _files(config.folder):
        original = Original.read(str(path))
        text = original.text
        updated = replace(text)
        if path.resolve() == config.file.resolve():
            updated = _PLACEHOLDER_LINE.sub("", updated, count=1)
        if updated != text:
            changes.append((original, updated))
    if not changes:
        print(f"nothing to change: the repository already names {new_url} and {new_registry}")
        return 0 if args.dry_run else validate.run(_validate_args(args))
    if args.dry_run:
        for original, updated in changes:
            name = original.path.relative_to(config.folder).as_posix()
            sys.stdout.writelines(
                difflib.unified_diff(
                    original.text.splitlines(keepends=True),
                    updated.splitlines(keepends=True),
                    visible(f"a/{name}"),
                    visible(f"b/{name}"),
                )
            )
        print(f"{len(changes)} file(s) would change", file=sys.stderr)
        return 0
    # Every file is checked before any is written: a refusal leaves the repository as it was.
    for original, _ in changes:
        refusal = rewrite.refusal(original, config.folder, "adopt", "re-point it")
        if refusal:
            raise CannotRun(f"{original.path}: {refusal}")
    for original, updated in changes:
        rewrite.write(original, updated, "adopt")
        print(visible(f"{original.path.relative_to(config.folder).as_posix()}: re-pointed"))
    print(f"{len(changes)} file(s) changed; validating", file=sys.stderr)
    return validate.run(_validate_args(args))


def _validate_args(args: argparse.Namespace) -> argparse.Namespace:
    return argparse.Namespace(
        paths=[],
        format="text",
        config=args.config,
        jobs=None,
        select=None,
        verbose=False,
        ignore=None,
        output=None,
        mirror=args.mirror,
    )
