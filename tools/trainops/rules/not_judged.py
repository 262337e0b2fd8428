"""Say which objects the API server judges by rules trainops does not model, instead of passing them.

What it catches (as notes): objects of a built-in kind whose API-server validation has no port here (no
upstream validation function in knowledge/apivalidation — `trainops coverage` lists them: a Lease,
a StorageClass, a ValidatingAdmissionPolicy…). Their schema and ObjectMeta are checked, nothing
else of what kube-apiserver refuses: a Lease whose time lacks microseconds or a RuntimeClass whose
handler is no DNS label would pass. One note per kind and root, at its first object, so that a
clean run says what "clean" leaves out; the closing summary counts the objects fully judged.

Custom resources are judged by their CRD's schema (and CEL rules), which is the API server's
validation of them; a kind no schema describes is schema-missing's to report.

Why it matters: "clean" must mean judged, not "nothing I know of".

How to fix: nothing to fix in the object; `trainops verify` asks a live API server (a server-side
dry run) for a verdict on it. A note never fails a run; turn the rule off in trainops.yaml
(`rules: {not-judged: {enabled: false}}`) if you do not want to see it.
"""

from __future__ import annotations

from collections.abc import Iterator

from trainops.knowledge.coverage import NOT_JUDGED, kind_of
from trainops.knowledge.schema.catalog import catalog_of
from trainops.model.findings import Finding, Severity, on_object
from trainops.model.rendered import Cluster, Rendered

ID = "not-judged"
SEVERITY = Severity.NOTE
SUMMARY = "objects whose kind's API-server validation is not modelled are noted, not passed"

_HINT = "trainops verify asks a live API server; trainops coverage lists what is judged"


def check(rendered: Rendered, cluster: Cluster) -> Iterator[Finding]:
    catalog = catalog_of(cluster)
    noted: set[tuple[str, str]] = set()
    for obj in rendered.objects:
        key = (obj.api_version, obj.kind)
        if key in noted:
            continue
        coverage = kind_of(catalog, obj.api_version, obj.kind)
        if coverage is None or coverage.judgement != NOT_JUDGED:
            continue
        noted.add(key)
        count = sum(1 for o in rendered.objects if (o.api_version, o.kind) == key)
        yield on_object(
            ID,
            SEVERITY,
            rendered.root,
            obj,
            f"not judged as the API server judges it: kube-apiserver's validation of "
            f"{obj.kind} ({obj.api_version}) is not modelled, so this object"
            + (" and the other objects of its kind in this root are" if count > 1 else " is")
            + " checked against the schema and ObjectMeta only",
            None,
            _HINT,
        )
