"""`--junit PATH`: JUnit XML in the shape CI systems read (Jenkins/Ant `junit-10.xsd`).

One `testsuite` per workflow execution (selected workflows, their dependencies, child runs of nested
workflows; with `--inputs-file`, those of every row, named `row N / flow`), one `testcase` per
executed step (a step reached again is `step#2`). A step that got a response and failed (criteria or
status) is a `failure` listing each failed criterion with the value seen, then the start of the
response (`response 503 (application/json): {...}`); a step that failed without
one (network error, request not built) is an `error`. A workflow that failed before or outside its
steps (a dependency, its inputs) gets a `(workflow)` test case with an `error`, and so does a workflow
the run refused (`type="not-run"`, each reason on a line of its text). A run interrupted (Ctrl-C) is
written as far as it went: each of its suites has the property `interrupted=true`, the step in flight an
`error` of type `interrupted`. Everything written is masked.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import datetime, timezone

from ..errors import problem_text
from ..masking.secrets import Masker
from ..result import INTERRUPTED_STEP, StepResult, WorkflowResult
from .bodies import answer_lines
from .walk import Part, executions, step_names

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # not allowed in XML 1.0


def junit_xml(parts: list[Part]) -> str:
    root = ET.Element("testsuites", name="arazzo")
    totals = Totals()
    for part in parts:
        for suite in part_suites(part, totals):
            root.append(suite)
    totals.put(root)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


class Totals:
    """The counts of the `testsuites` element, summed over the suites as they are made."""

    def __init__(self) -> None:
        self.counts = {"tests": 0, "failures": 0, "errors": 0}
        self.seconds = 0.0

    def put(self, root: ET.Element) -> None:
        for key, value in self.counts.items():
            root.set(key, str(value))
        root.set("time", _seconds(self.seconds * 1000))


def part_suites(part: Part, totals: Totals) -> Iterator[ET.Element]:
    """The suites of one run (a row), each added to `totals`."""
    for execution in executions(part.result):
        suite = _suite(part.name(execution.name), execution.workflow, part.masker)
        if part.result.interrupted:  # the run stopped: its suites hold what ran before
            properties = ET.Element("properties")
            ET.SubElement(properties, "property", name="interrupted", value="true")
            suite.insert(0, properties)
        for key in totals.counts:
            totals.counts[key] += int(suite.get(key, "0"))
        totals.seconds += execution.workflow.duration_ms / 1000 if execution.parent is None else 0.0
        yield suite


def suites_text(part: Part, totals: Totals) -> str:
    """One run's suites as `junit_xml` writes them inside `testsuites` ("" when it has none): the rows of
    `--inputs-file` are written one at a time, the head with the totals last (`junit_around`)."""
    wrapper = ET.Element("testsuites")
    wrapper.extend(part_suites(part, totals))
    if not len(wrapper):
        return ""
    ET.indent(wrapper)
    text = ET.tostring(wrapper, encoding="unicode")
    return text[len("<testsuites>\n  ") : -len("\n</testsuites>")]


def junit_around(totals: Totals) -> tuple[str, str]:
    """What goes before and after the suites' texts (joined by `SEPARATOR`) when there are any
    (`junit_xml([])` is the whole document then)."""
    root = ET.Element("testsuites", name="arazzo")
    totals.put(root)
    ET.SubElement(root, _PLACEHOLDER)
    ET.indent(root)
    head, tail = ET.tostring(root, encoding="unicode", xml_declaration=True).split(f"<{_PLACEHOLDER} />")
    return head, tail + "\n"


SEPARATOR = "\n  "
_PLACEHOLDER = "arazzo-suites"


def write_junit(path: str, parts: list[Part]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(junit_xml(parts))


def _suite(name: str, workflow: WorkflowResult, masker: Masker) -> ET.Element:
    suite = ET.Element("testsuite", name=_clean(name, masker))
    failures = errors = 0
    for step_name, step in step_names(workflow.steps):
        case = _case(step_name, step, workflow.workflow_id, masker)
        failures += case.find("failure") is not None
        errors += case.find("error") is not None
        suite.append(case)
    if workflow.error and not workflow.error.get("stepId"):
        case = ET.SubElement(suite, "testcase", name="(workflow)", classname=workflow.workflow_id, time="0")
        message = _clean(workflow.error["message"], masker)
        text = "\n".join([message, *(_clean(problem_text(p), masker) for p in workflow.problems)])
        kind = "workflow" if workflow.ran else "not-run"
        ET.SubElement(case, "error", message=_first_line(message), type=kind).text = text
        errors += 1
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    suite.set("errors", str(errors))
    suite.set("skipped", "0")
    suite.set("time", _seconds(workflow.duration_ms))
    suite.set("timestamp", _timestamp(workflow))
    return suite


def _case(name: str, step: StepResult, classname: str, masker: Masker) -> ET.Element:
    case = ET.Element("testcase", name=name, classname=classname, time=_seconds(step.duration_ms))
    if not step.passed:
        error = _clean(step.error or "failed", masker)
        if step.failed_criteria or step.status_code is not None:
            criteria = [_clean(c, masker) for c in step.failed_criteria]
            kind = "successCriteria" if criteria else "status"
            text = "\n".join(f"failed: {c}" for c in criteria) if criteria else error
            if step.response is not None:  # what the server answered
                text += "\n" + "\n".join(_clean(line, masker) for line in answer_lines(step.response))
            ET.SubElement(case, "failure", message=_first_line(error), type=kind).text = text
        else:
            kind = "interrupted" if step.error == INTERRUPTED_STEP else "error"
            ET.SubElement(case, "error", message=_first_line(error), type=kind).text = error
    out = _system_out(step, masker)
    if out:
        ET.SubElement(case, "system-out").text = out
    return case


def _system_out(step: StepResult, masker: Masker) -> str:
    lines = []
    if step.method:
        status = f" -> {step.status_code}" if step.status_code is not None else ""
        lines.append(f"{step.method} {masker.url(step.url or '')}{status}")
    for message in step.messages:  # an AsyncAPI step's messages, masked with the rest
        body = masker.clip((message.payload or b"").decode("utf-8", "replace"), 500)
        lines.append(f"{message.direction} {message.server} {message.channel}: {body}")
    if step.attempts > 1:
        lines.append(f"attempts: {step.attempts}")
    if step.action:
        lines.append(f"action: {step.action}")
    lines.extend(f"warning: {w}" for w in step.warnings)
    return _clean("\n".join(lines), masker)


def _clean(text: str, masker: Masker) -> str:
    return _NOT_XML.sub("?", masker.text(text))


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 500 else line[:497] + "..."


def _seconds(ms: float) -> str:
    return f"{max(ms, 0.0) / 1000:.3f}"


def _timestamp(workflow: WorkflowResult) -> str:
    """When the workflow's first exchange started (the run's clock otherwise), UTC without a zone
    suffix: the form both `junit-10.xsd` users and the stricter `junit-4.xsd` pattern accept."""
    starts = [e.started_at for s in workflow.steps for e in s.exchanges if e.started_at]
    moment = datetime.fromtimestamp(min(starts), timezone.utc) if starts else datetime.now(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")
