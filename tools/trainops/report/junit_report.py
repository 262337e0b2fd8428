"""JUnit XML: one test suite per root, one test case per object checked, failures for findings."""

from __future__ import annotations

from collections import defaultdict
from typing import TextIO
from xml.etree import ElementTree as ET

from trainops.check.validate import Outcome
from trainops.model.findings import Severity
from trainops.report.visible import visible


def _case_name(finding) -> str:
    return visible(finding.object if finding.object else (finding.file or finding.root))


def write(outcome: Outcome, out: TextIO) -> None:
    by_root = defaultdict(list)
    for finding in outcome.findings:
        for root in finding.roots or (finding.root,):  # a shared finding fails in every root
            by_root[root].append(finding)
    suites = ET.Element("testsuites", name="trainops validate", time=f"{outcome.seconds:.3f}")
    checked = {rendered.root: rendered.objects for rendered in outcome.rendered}
    # A finding of no root checked (an ignore in trainops.yaml matching nothing) gets a suite too.
    for root in by_root:
        checked.setdefault(root, [])
    for root, objects in checked.items():
        findings = by_root.get(root, [])
        cases: dict[str, list] = {visible(obj.ref): [] for obj in objects}
        for finding in findings:
            cases.setdefault(_case_name(finding), []).append(finding)
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=visible(root),
            tests=str(len(cases)),
            errors="0",
            skipped="0",
        )
        counted = outcome.judged_in.get(root)
        if counted is not None:
            properties = ET.SubElement(suite, "properties")
            ET.SubElement(properties, "property", name="judged", value=visible(counted.summary()))
        for name, case_findings in cases.items():
            case = ET.SubElement(suite, "testcase", classname=visible(root), name=name)
            for finding in case_findings:
                where = (
                    f"{finding.file}:{finding.line}"
                    if finding.line
                    else (finding.file or finding.root)
                )
                text = visible(
                    f"{where}: {finding.path + ': ' if finding.path else ''}{finding.message} "
                    f"({finding.where_found})"
                )
                if finding.severity is Severity.ERROR:
                    ET.SubElement(
                        case, "failure", message=visible(finding.message), type=finding.rule
                    ).text = text
                else:
                    ET.SubElement(
                        case, "system-out"
                    ).text = f"{finding.severity.value} [{finding.rule}] {text}"
        suite.set("failures", str(sum(1 for c in suite if c.find("failure") is not None)))
    ET.indent(suites)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(suites, encoding="unicode"))
    out.write("\n")
