"""JUnit XML: one testsuite, one testcase per (trace, check); warn-severity failures are skipped; a
harness error and an unreplayable trace are an ``<error>`` (the latter's failing checks skipped)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

from wslmcp.evals.report_human import block


def render(traces: Sequence[Mapping[str, Any]]) -> str:
    suite = ET.Element("testsuite", name="wslmcp-eval")
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for trace in traces:
        human = "\n".join(block(trace))
        cases: list[ET.Element] = []
        if trace["verdict"] == "error":
            case = ET.SubElement(suite, "testcase", classname=str(trace["id"]), name="harness")
            ET.SubElement(case, "error", message=str(trace.get("error") or "harness error"))
            counts["errors"] += 1
            cases.append(case)
        graded = trace["verdict"] != "unreplayable"
        if not graded:
            case = ET.SubElement(suite, "testcase", classname=str(trace["id"]), name="replay")
            missed = [c for c in trace["calls"] if c.get("unreplayable")]
            message = "; ".join(f"call {c['n']} {c['tool']}: {c['unreplayable']}" for c in missed)
            ET.SubElement(case, "error", message=f"unreplayable: {message}")
            counts["errors"] += 1
            cases.append(case)
        for check in trace["checks"]:
            case = ET.SubElement(suite, "testcase", classname=str(trace["id"]), name=str(check["id"]))
            cases.append(case)
            if check["status"] == "fail" and not graded:
                ET.SubElement(case, "skipped", message=f"not graded (unreplayable): {check['message']}")
                counts["skipped"] += 1
            elif check["status"] == "fail" and check["severity"] == "error":
                failure = ET.SubElement(case, "failure", message=str(check["message"]))
                failure.text = "evidence: " + ", ".join(str(e) for e in check.get("evidence", []))
                counts["failures"] += 1
            elif check["status"] == "fail":
                ET.SubElement(case, "skipped", message=f"warn: {check['message']}")
                counts["skipped"] += 1
            elif check["status"] == "skip":
                ET.SubElement(case, "skipped", message=str(check["message"]))
                counts["skipped"] += 1
        if cases:
            ET.SubElement(cases[0], "system-out").text = human
        counts["tests"] += len(cases)
    for key, value in counts.items():
        suite.set(key, str(value))
    return ET.tostring(suite, encoding="unicode", xml_declaration=True) + "\n"
