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
        by_root[finding.root].append(finding)
    suites = ET.Element("testsuites", name="trainops validate", time=f"{outcome.seconds:.3f}")
    for rendered in outcome.rendered:
        findings = by_root.get(rendered.root, [])
        cases: dict[str, list] = {visible(obj.ref): [] for obj in rendered.objects}
        for finding in findings:
            cases.setdefault(_case_name(finding), []).append(finding)
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=visible(rendered.root),
            tests=str(len(cases)),
            errors="0",
            skipped="0",
        )
        for name, case_findings in cases.items():
            case = ET.SubElement(suite, "testcase", classname=visible(rendered.root), name=name)
            for finding in case_findings:
                where = (
                    f"{finding.file}:{finding.line}"
                    if finding.line
                    else (finding.file or finding.root)
                )
                text = visible(
                    f"{where}: {finding.path + ': ' if finding.path else ''}{finding.message}"
                )
                if finding.severity is Severity.ERROR:
                    ET.SubElement(
                        case, "failure", message=visible(finding.message), type=finding.rule
                    ).text = text
                else:
                    ET.SubElement(case, "system-out").text = f"warning [{finding.rule}] {text}"
        suite.set("failures", str(sum(1 for c in suite if c.find("failure") is not None)))
    ET.indent(suites)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(suites, encoding="unicode"))
    out.write("\n")
