"""Clean means judged: `trainops coverage` is read from the registries the rules use, every report
says how many objects were fully judged, an object whose kind's API-server validation is not
modelled gets a note (never a failure), and rules that need context or declarations say what
they used or what is missing instead of guessing."""

from __future__ import annotations

import io
import json

import yaml

from helpers import WIDGET_CRD, write_tree
from trainops.check.validate import Root, validate
from trainops.knowledge import admission, coverage, webhooks
from trainops.knowledge.apivalidation import kinds
from trainops.knowledge.schema.catalog import Catalog
from trainops.model.findings import Severity
from trainops.model.objects import K8sObject
from trainops.report import REPORTERS
from trainops.rules import RULES

# ControllerRevision: a kind whose API-server validation is not ported (kinds.KIND_CHECKS; the
# first test says so, and names the kind to change here once it is).
UNPORTED = ("apps", "ControllerRevision")
ACCOUNTS = """apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: trainer-7d9c5, namespace: default}
revision: 1
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
data: {a: b}
---
apiVersion: apps/v1
kind: ControllerRevision
metadata: {name: trainer-5f6b8, namespace: default}
revision: 2
"""


def test_the_examples_kind_is_still_not_ported():
    assert UNPORTED not in kinds.KIND_CHECKS, (
        "ControllerRevision's validation is ported now: take another kind trainops coverage "
        "shows as not judged for the examples in this file and in "
        "tests/rules/fixtures/not-judged/bad.yaml"
    )


def _catalog() -> Catalog:
    return Catalog(["v1.32"], [])


def _row(rows: list[coverage.KindCoverage], group: str, kind: str) -> coverage.KindCoverage:
    [row] = [r for r in rows if (r.group, r.kind) == (group, kind)]
    return row


def test_the_table_holds_every_kind_the_versions_serve():
    rows = coverage.table(_catalog())
    served = {(r.group, r.kind) for r in rows}
    # From kubernetes-validate's schemas, List kinds and apimachinery's own types aside.
    assert {("", "Pod"), ("coordination.k8s.io", "Lease"), ("storage.k8s.io", "StorageClass")} <= (
        served
    )
    assert ("", "PodList") not in served and ("meta", "Status") not in served
    assert _row(rows, "apps", "Deployment").judgement == coverage.JUDGED
    assert _row(rows, "", "Pod").judgement == coverage.JUDGED
    assert _row(rows, *UNPORTED).judgement == coverage.NOT_JUDGED
    assert _row(rows, "", "ReplicationController").judgement == coverage.JUDGED
    assert _row(rows, "apiregistration.k8s.io", "APIService").judgement == coverage.JUDGED


def test_new_ports_and_admission_checks_show_with_no_change_here(monkeypatch):
    """What other ports add to KIND_CHECKS, LEFT_OUT and admission CHECKS is printed as is."""
    capacity = UNPORTED
    monkeypatch.setitem(kinds.KIND_CHECKS, capacity, lambda doc: [])
    monkeypatch.setitem(kinds.LEFT_OUT, capacity, "the revision's data")
    check = admission.AdmissionCheck(
        "Kueue v0.18.6",
        (("batch", "Job"),),
        "pkg/webhooks/job_webhook.go validate",
        "webhook",
        lambda doc: [],
        left_out="the queue's existence",
    )
    monkeypatch.setattr(admission, "CHECKS", [*admission.CHECKS, check])
    rows = coverage.table(_catalog())
    row = _row(rows, *capacity)
    assert (row.api_validation.status, row.api_validation.detail) == (
        coverage.PARTLY,
        "the revision's data",
    )
    assert row.judgement == coverage.PARTLY
    job = _row(rows, "batch", "Job")
    assert job.webhook.status == coverage.PARTLY and "the queue's existence" in job.webhook.detail
    assert job.controller.status == coverage.NONE


def test_a_custom_resource_kind_is_judged_by_its_schema_and_its_cel_rules():
    crd = yaml.safe_load(WIDGET_CRD)
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["q"] = {"type": "string"}
    spec["x-kubernetes-validations"] = [
        {"rule": "self.size > 0"},
        {"rule": "quantity(self.q).isPositive()"},
        {"rule": "self == oldSelf"},
    ]
    [row] = [r for r in coverage.table(Catalog(["v1.32"], [crd])) if r.kind == "Widget"]
    assert row.custom and row.schema.status == coverage.JUDGED
    assert row.webhook.status == coverage.NOT_JUDGED
    # Two create-time rules (the oldSelf one runs on update only), one not evaluated here.
    assert row.cel.status == coverage.PARTLY and row.cel.detail.startswith("1 of 2 rule(s)")
    assert row.judgement == coverage.PARTLY


def _webhook_configuration(group: str, resource: str) -> K8sObject:
    doc = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "checks"},
        "webhooks": [
            {
                "name": "v.example.com",
                "rules": [
                    {"apiGroups": [group], "resources": [resource], "operations": ["CREATE"]}
                ],
            }
        ],
    }
    return K8sObject(doc, "hooks.yaml", 1)


def test_a_custom_kind_no_webhook_is_registered_for_has_none_to_judge():
    # As found: Flux's and Argo CD's kinds, which no webhook admits, were "not judged".
    catalog = Catalog(["v1.32"], [yaml.safe_load(WIDGET_CRD)])
    elsewhere = webhooks.registered([_webhook_configuration("apps", "deployments")])
    [row] = [r for r in coverage.table(catalog, elsewhere) if r.kind == "Widget"]
    assert row.webhook.status == coverage.NONE and "registers" in row.webhook.detail
    # A rule for its status alone calls no webhook for the object itself.
    status = webhooks.registered([_webhook_configuration("example.com", "widgets/status")])
    [row] = [r for r in coverage.table(catalog, status) if r.kind == "Widget"]
    assert row.webhook.status == coverage.NONE
    # Registered (by name, `*` or `*/*`), and no port of it here: left unjudged.
    for group, resource in (("example.com", "widgets"), ("*", "*/*"), ("example.com", "*")):
        hooked = webhooks.registered([_webhook_configuration(group, resource)])
        [row] = [r for r in coverage.table(catalog, hooked) if r.kind == "Widget"]
        assert row.webhook.status == coverage.NOT_JUDGED, (group, resource)
    # Unknown (the CRD roots not read): never taken for none.
    [row] = [r for r in coverage.table(catalog) if r.kind == "Widget"]
    assert row.webhook.status == coverage.NOT_JUDGED


def test_registered_reads_webhook_configurations_only():
    hooks = _webhook_configuration("kueue.x-k8s.io", "workloads")
    other = K8sObject({**hooks.doc, "kind": "ConfigMap", "apiVersion": "v1"}, "cm.yaml", 1)
    assert webhooks.registered([hooks, other]) == {("kueue.x-k8s.io", "workloads")}
    broken = K8sObject({**hooks.doc, "webhooks": [{"rules": "all"}, None]}, "bad.yaml", 1)
    assert webhooks.registered([broken]) == set()


def test_the_coverage_command_prints_json_and_markdown(tmp_path, monkeypatch, capsys):
    from trainops.cli import main

    monkeypatch.chdir(tmp_path)  # no trainops.yaml: the default versions, no CRD roots
    assert main(["coverage", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    account = next(r for r in rows if r["kind"] == "ControllerRevision")
    assert account["apiValidation"]["status"] == "not judged"
    assert account["judgement"] == "not judged"
    assert main(["coverage", "--format", "markdown"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("| kind | schema | API server | defaulting |")
    assert "| ControllerRevision.apps | judged | not judged |" in shown


def test_an_object_of_a_kind_not_modelled_is_a_note_and_every_report_counts(tmp_path):
    file = write_tree(tmp_path, {"accounts.yaml": ACCOUNTS}) / "accounts.yaml"
    outcome = validate([Root(file)], None)
    [note] = [f for f in outcome.findings if f.rule == "not-judged"]
    assert note.severity is Severity.NOTE and note.line == 1  # one per kind and root
    assert "validation of ControllerRevision (apps/v1) is not modelled" in note.message
    assert "trainops verify" in (note.hint or "")
    assert (outcome.judgement.total, outcome.judgement.judged) == (3, 1)
    assert outcome.judgement.not_judged == {"ControllerRevision": 2}
    said = "1 of 3 object(s) fully judged; 2 not judged (ControllerRevision 2)"
    for name in ("text", "junit", "sarif", "github"):
        out = io.StringIO()
        REPORTERS[name](outcome, out)
        assert said in out.getvalue(), name
    text = io.StringIO()
    REPORTERS["text"](outcome, text)
    assert "clean, 1 note(s)" in text.getvalue()
    assert RULES["not-judged"].SEVERITY is Severity.NOTE


def test_a_run_judging_every_object_says_so(tmp_path):
    file = write_tree(tmp_path, {"cm.yaml": ACCOUNTS.split("---\n")[1]}) / "cm.yaml"
    outcome = validate([Root(file)], None)
    assert outcome.findings == []
    out = io.StringIO()
    REPORTERS["text"](outcome, out)
    assert "1 of 1 object(s) fully judged" in out.getvalue()
    listed = io.StringIO()
    REPORTERS["json"](outcome, listed)
    assert json.loads(listed.getvalue()) == []  # no summary entry: every object was judged


def test_a_json_report_is_findings_and_the_count_is_said_beside_it(tmp_path, monkeypatch, capsys):
    from trainops.cli import main

    write_tree(tmp_path, {"accounts.yaml": ACCOUNTS})
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "--format", "json", "accounts.yaml"]) == 0  # a note never fails
    done = capsys.readouterr()
    assert [f["rule"] for f in json.loads(done.out)] == ["not-judged"]
    assert "note: 1 of 3 object(s) fully judged; 2 not judged (ControllerRevision 2)" in done.err


def test_a_run_leaving_out_the_servers_rules_judges_nothing(tmp_path):
    file = write_tree(tmp_path, {"accounts.yaml": ACCOUNTS}) / "accounts.yaml"
    outcome = validate([Root(file)], None, selected={"no-secret-data"})
    assert outcome.judgement.judged == 0 and not outcome.judgement.complete
    assert outcome.judgement.summary() == (
        "none of 3 object(s) judged as the API server judges them: the run left out schema, "
        "cel-rules, api-validation"
    )


def test_the_readmes_excerpt_is_what_the_command_prints():
    """The README's rows of built-in kinds are the table of today's registries (the custom
    resource rows need the CRD roots rendered: `trainops coverage --format markdown`)."""
    from helpers import REPO
    from trainops.model.config import load_config
    from trainops.report.coverage_report import write_markdown

    config = load_config(REPO / "trainops.yaml", RULES)
    assert config is not None
    out = io.StringIO()
    write_markdown(coverage.table(Catalog(config.kubernetes_versions, [])), out, details=False)
    printed = set(out.getvalue().splitlines())
    readme = (REPO / "README.md").read_text().split("## What is judged", 1)[1].split("\n## ")[0]
    rows = [line for line in readme.splitlines() if line.startswith("| ") and "." not in line]
    rows += [
        line
        for line in readme.splitlines()
        if line.startswith(("| Job.batch |", "| Lease.", "| StorageClass."))
    ]
    assert len(rows) >= 4 and all(row in printed for row in rows), rows


def test_the_readmes_custom_resource_rows_are_what_the_command_prints(mirror):
    """The README's rows of custom resource kinds are the command's, on this repository's CRD
    roots (renders the suite's cache holds)."""
    from helpers import REPO, run_trainops

    done = run_trainops("coverage", "--format", "markdown")
    assert done.returncode == 0, done.stderr
    printed = set(done.stdout.splitlines())
    readme = (REPO / "README.md").read_text().split("## What is judged", 1)[1].split("\n## ")[0]
    rows = [
        line
        for line in readme.splitlines()
        if line.startswith("| ") and "." in line.split("|")[1] and "judged" in line
    ]
    assert len(rows) >= 7 and all(row in printed for row in rows), [
        row for row in rows if row not in printed
    ]
