"""Report files written alongside the console output: --junit (validated against the JUnit schema CI
systems use), --har (HAR 1.2), --report-json (the result with every exchange)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow
from tests.servers.scripted import RESET

SCHEMA = Path(__file__).with_name("junit.xsd")


def _document() -> dict:
    poll = op_step(
        "poll",
        "flaky",
        onSuccess=[
            {
                "name": "again",
                "type": "goto",
                "stepId": "poll",
                "criteria": [{"condition": "$statusCode == 202"}],
            }
        ],
    )
    call = {"stepId": "call", "workflowId": "child"}
    check = op_step("check", "listPets", successCriteria=[{"condition": "$statusCode == 200"}])
    inner = op_step("inner", "getPet", parameters=[{"name": "petId", "in": "path", "value": "7"}])
    gone = op_step("gone", "deletePet", parameters=[{"name": "petId", "in": "path", "value": "7"}])
    return arazzo_doc(
        workflow("flow", poll, call, check),
        workflow("child", inner),
        workflow("broken", gone),
        workflow("dependent", op_step("never", "listPets"), dependsOn=["broken"]),
    )


@pytest.fixture
def reports(capsys, write, server, tmp_path):
    server.reply("GET", "/flaky", (202, {}), (200, {}))
    server.reply("GET", "/pets/{petId}", (200, {"id": 7}))
    server.reply("GET", "/pets", (503, {"error": "busy"}))
    server.reply("DELETE", "/pets/{petId}", (RESET, None))
    files = {kind: tmp_path / f"report.{kind}" for kind in ("xml", "har", "json")}
    result = cli(
        capsys,
        "run",
        write(_document()),
        "--server",
        f"pets={server.url}",
        *("-w", "flow", "-w", "broken", "-w", "dependent"),
        *("--junit", files["xml"], "--har", files["har"], "--report-json", files["json"]),
    )
    assert result.code == 1, result.out
    return files


def test_junit_validates_against_the_junit_schema(reports):
    import xmlschema  # a test dependency (the `test` extra): a real XSD validator, not a look-alike check

    schema = xmlschema.XMLSchema(str(SCHEMA))
    schema.validate(str(reports["xml"]))
    assert not schema.is_valid('<testsuites><testsuite name="x"/></testsuites>')  # the schema has teeth


def test_junit_has_a_suite_per_workflow_and_a_case_per_executed_step(reports):
    root = ET.parse(reports["xml"]).getroot()
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert list(suites) == ["flow", "child (from flow/call)", "broken", "dependent"]
    flow = suites["flow"]
    assert [c.get("name") for c in flow.iter("testcase")] == ["poll", "poll#2", "call", "check"]
    assert (flow.get("tests"), flow.get("failures"), flow.get("errors")) == ("4", "1", "0")
    (failure,) = flow.iter("failure")
    assert failure.get("type") == "successCriteria"
    assert (
        failure.text
        == 'failed: $statusCode == 200: got 503\nresponse 503 (application/json): {"error": "busy"}'
    )
    assert "GET " in flow.find("testcase[@name='check']/system-out").text
    (error,) = suites["broken"].iter("error")
    assert "connection reset" in error.get("message")
    (case,) = suites["dependent"].iter("testcase")
    assert case.get("name") == "(workflow)"
    assert "dependency 'broken' failed" in case.find("error").get("message")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("7", "1", "2")
    for suite in suites.values():
        datetime.fromisoformat(suite.get("timestamp"))
        assert float(suite.get("time")) >= 0


def test_har_is_har_1_2_with_every_exchange(reports):
    log = json.loads(reports["har"].read_text(encoding="utf-8"))["log"]
    assert log["version"] == "1.2"
    assert log["creator"]["name"] == "arazzo-engine" and log["creator"]["version"]
    entries = log["entries"]
    methods = [(e["request"]["method"], e["response"]["status"]) for e in entries]
    assert methods == [("GET", 202), ("GET", 200), ("GET", 200), ("GET", 503), ("DELETE", 0)]
    for entry in entries:
        assert set(entry) >= {"startedDateTime", "time", "request", "response", "cache", "timings"}
        datetime.fromisoformat(entry["startedDateTime"].replace("Z", "+00:00"))
        request, response = entry["request"], entry["response"]
        assert set(request) >= {
            "method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize",
        }  # fmt: skip
        assert set(response) >= {
            "status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL",
            "headersSize", "bodySize",
        }  # fmt: skip
        assert set(response["content"]) >= {"size", "mimeType"}
        assert {"send", "wait", "receive"} <= set(entry["timings"])
        assert entry["timings"]["wait"] == entry["time"]
    assert entries[3]["response"]["content"]["text"] == '{"error": "busy"}'
    assert entries[3]["response"]["statusText"] == "Service Unavailable"
    assert "connection reset" in entries[4]["_error"]
    starts = [e["startedDateTime"] for e in entries]
    assert starts == sorted(starts)


def test_har_post_data_and_query_string(capsys, write, server, tmp_path):
    server.reply("POST", "/pets", (201, {"id": 1}))
    server.reply("GET", "/pets", (200, []))
    create = op_step("create", "createPet", requestBody={"payload": {"name": "rex"}})
    find = op_step("find", "listPets", parameters=[{"name": "limit", "in": "query", "value": 5}])
    har = tmp_path / "run.har"
    path = write(arazzo_doc(workflow("flow", create, find)))
    assert cli(capsys, "run", path, "--server", f"pets={server.url}", "--har", har).code == 0
    post, get = json.loads(har.read_text())["log"]["entries"]
    assert post["request"]["postData"] == {
        "mimeType": "application/json",
        "params": [],
        "text": '{"name":"rex"}',
    }
    assert post["request"]["bodySize"] == len('{"name":"rex"}')
    assert get["request"]["queryString"] == [{"name": "limit", "value": "5"}]
    assert "postData" not in get["request"]


def test_report_json_is_the_result_with_each_exchange(reports):
    data = json.loads(reports["json"].read_text(encoding="utf-8"))
    assert data["status"] == "failed" and data["masked"] is True
    assert data["tool"]["name"] == "arazzo-engine"
    flow = data["workflows"][0]
    poll = flow["steps"][0]
    (exchange,) = poll["exchanges"]
    assert exchange["request"]["method"] == "GET"
    assert exchange["request"]["url"].endswith("/flaky")
    assert exchange["response"]["status"] == 202
    assert exchange["response"]["body"] == "{}"
    nested = flow["steps"][2]["workflow"]["steps"][0]
    assert nested["exchanges"][0]["response"]["body"] == '{"id": 7}'
    broken = data["workflows"][1]["steps"][0]["exchanges"][0]
    assert broken["response"] is None and "connection reset" in broken["error"]


def test_a_missing_report_folder_is_a_usage_error_before_running(capsys, write, server, tmp_path):
    path = write(_document())
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "--junit", tmp_path / "no" / "x.xml")
    assert result.code == 2
    assert "--junit" in result.err and "folder does not exist" in result.err
    assert server.requests == []
