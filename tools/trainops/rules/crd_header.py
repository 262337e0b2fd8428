"""A file holding custom resources starts with a note naming them and where their CRDs come from.

What it catches: a local source file with a CRD-backed kind (anything whose schema comes from a
CRD, not from Kubernetes itself) that does not start with the note, or whose note is wrong: a
kind or apiVersion the file does not hold, a kind it holds but the note omits, the wrong folder,
a mangled error line. The note, for each such kind: the kind and apiVersion, the folder that
installs its CRD, and the `no matches for kind "<Kind>" in version "<group/version>"` message a
client-side dry-run prints until that CRD exists.

Why it matters: applying a layer before the operators layer fails with exactly that message; the
note tells a reader (and the person staring at a failed sync) which folder to apply first.

How to fix: `trainops fix` writes or corrects the notes in place, leaving the rest of each file
byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from trainops.knowledge.schema.catalog import catalog_of
from trainops.model import headers
from trainops.model.findings import Finding, Severity
from trainops.model.objects import Parsed, Unreadable, parse_stream, read_parsed
from trainops.model.rendered import Cluster, Rendered

ID = "crd-header"
SEVERITY = Severity.ERROR
SUMMARY = "files holding custom resources start with an accurate CRD note"


def expected_entries(
    text: str, file: str, catalog, parsed: Parsed | None = None
) -> list[headers.Entry]:
    entries: dict[tuple[str, str], headers.Entry] = {}
    for obj in (parsed or parse_stream(text, file, lines=False)).objects:
        folder = catalog.installer_of(obj.api_version, obj.kind)
        if folder is not None:
            entries.setdefault(
                (obj.kind, obj.api_version), headers.Entry(obj.kind, obj.api_version, folder)
            )
    return list(entries.values())


def source_files(rendered: Rendered) -> list[str]:
    """The local files a root's objects come from, in order."""
    files = dict.fromkeys(
        obj.file for obj in rendered.objects if obj.file and "://" not in obj.file
    )
    return [file for file in files if Path(file).is_file()]


def problems(
    text: str, file: str, catalog, parsed: Parsed | None = None
) -> tuple[list[headers.Entry], list[str]]:
    """(what the note should list, what is wrong with the note there is)."""
    wanted = expected_entries(text, file, catalog, parsed)
    found, _, form = headers.read(text)
    if found is None:
        return wanted, [
            f"no note for {', '.join(f'{e.kind} {e.api_version}' for e in wanted)}"
        ] if wanted else []
    issues = list(form)
    have = {(e.kind, e.api_version): e for e in found}
    want = {(e.kind, e.api_version): e for e in wanted}
    issues += [
        f"the note names {kind} {version}, which this file does not hold"
        for kind, version in have.keys() - want.keys()
    ]
    issues += [f"the note omits {kind} {version}" for kind, version in want.keys() - have.keys()]
    issues += [
        f"the note says {kind} {version} comes from {have[(kind, version)].folder}; its CRD comes from {entry.folder}"
        for (kind, version), entry in want.items()
        if (kind, version) in have and have[(kind, version)].folder != entry.folder
    ]
    return wanted, issues


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    catalog = catalog_of(cluster)
    if catalog is None:
        return
    for file in source_files(rendered):
        try:
            # The file as the loader read and parsed it: each file is read once per run.
            text, parsed = read_parsed(Path(file))
        except Unreadable:
            continue  # the loader reports a file it cannot read
        _, issues = problems(text, file, catalog, parsed)
        for issue in issues:
            yield Finding(
                ID,
                SEVERITY,
                issue,
                rendered.root,
                file,
                1,
                hint="run `trainops fix` to write the note",
            )
