"""The end of `arazzo load`: its thresholds as console lines and as JUnit XML (`--junit PATH`).

One `testsuite` "arazzo load": a `testcase` per threshold (its text as written; a broken one is a
`failure` saying the value measured), and a `testcase` "no failed requests", a `failure` listing
Locust's failure table when any step or workflow run failed (the exit code is then 1 as well).
Messages are already masked: they are made from the masked events (`load/reporting.py`).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from .thresholds import Verdict

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # not allowed in XML 1.0
ERRORS_SHOWN = 20


def verdict_lines(verdicts: list[Verdict]) -> list[str]:
    if not verdicts:
        return []
    lines = ["thresholds:"]
    lines += [f"  {'ok    ' if v.passed else 'BROKEN'} {v.message}" for v in verdicts]
    broken = [v for v in verdicts if not v.passed]
    if broken:
        names = ", ".join(v.threshold.text for v in broken)
        lines.append(f"{len(broken)} of {len(verdicts)} thresholds broken: {names}")
    else:
        lines.append(f"all {len(verdicts)} thresholds hold")
    return lines


def load_junit(verdicts: list[Verdict], stats: Any) -> str:
    root = ET.Element("testsuites", name="arazzo load")
    suite = ET.SubElement(root, "testsuite", name="arazzo load")
    failures = 0
    for verdict in verdicts:
        case = ET.SubElement(suite, "testcase", name=_clean(verdict.threshold.text), classname="threshold")
        case.set("time", "0")
        if not verdict.passed:
            failures += 1
            ET.SubElement(case, "failure", message=_clean(verdict.message), type="threshold").text = _clean(
                verdict.message
            )
    case = ET.SubElement(suite, "testcase", name="no failed requests", classname="requests", time="0")
    failed = stats.total.num_failures
    if failed:
        failures += 1
        message = f"{failed} of {stats.total.num_requests} requests failed"
        ET.SubElement(case, "failure", message=message, type="requests").text = "\n".join(
            [message, *_error_lines(stats)]
        )
    for element in (root, suite):
        element.set("tests", str(len(suite)))
        element.set("failures", str(failures))
        element.set("errors", "0")
    suite.set("skipped", "0")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_load_junit(path: str, verdicts: list[Verdict], stats: Any) -> None:
    """Written where asked, its folder made if need be (as Locust makes those of `--csv` and `--html`)."""
    Path(path).resolve().parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(load_junit(verdicts, stats))


def _error_lines(stats: Any) -> list[str]:
    errors = sorted(stats.errors.values(), key=lambda e: -e.occurrences)
    lines = [_clean(f"{e.occurrences} x {e.to_name()}") for e in errors[:ERRORS_SHOWN]]
    if len(errors) > ERRORS_SHOWN:
        lines.append(f"... and {len(errors) - ERRORS_SHOWN} more kinds of failure")
    return lines


def _clean(text: str) -> str:
    return _NOT_XML.sub("?", str(text))
