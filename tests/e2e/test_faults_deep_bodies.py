"""Bodies nesting without end: a response of a thousand nested `[` (or `{"a":`) is a step failure with its
cause, like any unusable body, and every report is still written; a body at the bound is read."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from arazzo_runner.bounds.limits import MAX_BODY_DEPTH
from tests.e2e.conftest import arazzo_doc
from tests.e2e.faultkit import failed_at, fault_run, list_step
from tests.e2e.helpers import cli, op_step, workflow
from tests.servers import faults

JSON = {"Content-Type": "application/json"}
TOO_DEEP = f"HTTP 200: the response body nests deeper than {MAX_BODY_DEPTH} levels: it was not parsed"


def _nested(depth: int, kind: str = "list") -> bytes:
    if kind == "list":
        return b"[" * depth + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


@pytest.mark.parametrize("kind", ["list", "object"])
def test_a_thousand_nested_brackets_fail_the_step_and_every_report_is_written(capsys, write, tmp_path, kind):
    body = _nested(1000, kind)
    doc = arazzo_doc(workflow("flow", list_step(), op_step("after", "listPets")))
    files = {name: tmp_path / f"report.{name}" for name in ("json", "xml", "har")}
    with faults.FaultServer() as server:
        server.script("/pets", faults.answer(200, {**JSON, "Content-Length": str(len(body))}, body))
        result = cli(
            capsys,
            "run",
            write(doc),
            *("--server", f"pets={server.url}", "--format", "json"),
            *("--report-json", files["json"], "--junit", files["xml"], "--har", files["har"]),
        )
    assert result.code == 1, result.out
    [flow] = result.json["workflows"]
    [step] = flow["steps"]  # the step failed: the one after it never ran
    assert (step["status"], step["error"]) == ("failed", TOO_DEEP)
    assert step["outputs"]["body"] == body.decode()  # the text that arrived stays visible
    report = json.loads(Path(files["json"]).read_text())
    assert report["workflows"][0]["steps"][0]["error"] == TOO_DEEP
    [failure] = ET.parse(files["xml"]).getroot().iter("failure")
    assert TOO_DEEP in (failure.get("message") or "") + (failure.text or "")
    [entry] = json.loads(Path(files["har"]).read_text())["log"]["entries"]
    assert entry["response"]["content"]["text"] == body.decode()


def test_a_body_at_the_bound_is_read(capsys, write):
    body = _nested(MAX_BODY_DEPTH)
    path = "/0" * (MAX_BODY_DEPTH - 1)
    step = list_step(outputs={"innermost": f"$response.body#{path}"})
    with faults.FaultServer() as server:
        server.script("/pets", faults.answer(200, {**JSON, "Content-Length": str(len(body))}, body))
        doc = arazzo_doc(workflow("flow", step))
        result = cli(capsys, "run", write(doc), "--server", f"pets={server.url}", "--format", "json")
    assert result.code == 0, result.out
    [flow] = result.json["workflows"]
    assert flow["steps"][0]["outputs"] == {"innermost": []}


def test_one_level_past_the_bound_fails(capsys, write):
    body = _nested(MAX_BODY_DEPTH + 1)
    behaviour = faults.answer(200, {**JSON, "Content-Length": str(len(body))}, body)
    run = fault_run(capsys, write, behaviour, steps=(list_step(successCriteria=[{"condition": "true"}]),))
    assert failed_at(run)["error"] == TOO_DEEP


def test_an_untyped_body_nesting_too_deep_fails_too(capsys, write):
    """Without a content type a body that is JSON is parsed as JSON: one too deep is not quietly text."""
    body = _nested(1000)
    run = fault_run(capsys, write, faults.answer(200, {"Content-Length": str(len(body))}, body))
    assert failed_at(run)["error"] == TOO_DEEP


def test_brackets_inside_strings_do_not_count(capsys, write):
    data: Any = ["[" * 1000, {"k{": "}" * 1000}]
    run = fault_run(capsys, write, faults.reply(data))
    assert run.code == 0, run.cli.out
    assert run.step["outputs"]["body"] == data
