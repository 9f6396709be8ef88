"""The contract checks (`--contract warn|fail|off`, on by default) against a real server that drifts from
its description in each way (`tests/servers/drifting.py`): the lines they print, exit codes, the JSON,
the report files (JSON report, JUnit, HAR, Markdown summary, the HTML page's data), the library's
`RunOptions` and the older `--validate-responses`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

import arazzo_runner
from arazzo_runner.executor.options import RunOptions
from tests.e2e.helpers import cli
from tests.servers.drifting import description, drift
from tests.servers.scripted import ScriptedServer

OPERATIONS = ["undocumented", "wrongType", "nested", "nullable", "user", "pet", "bird", "limited", "fine"]
JSON = "response 200 application/json"


@pytest.fixture
def drifting():
    with ScriptedServer() as running:
        yield drift(running)


def _write(
    folder: Path, version: str, steps: list[dict[str, Any]] | None = None, operations: list[str] = OPERATIONS
) -> Path:
    api = description(version, xml=operations is not OPERATIONS)
    (folder / "api.openapi.yaml").write_text(yaml.safe_dump(api, sort_keys=False))
    if steps is None:  # one step per operation, each passing on any status: only the contract can fail it
        steps = [
            {"stepId": o, "operationId": o, "successCriteria": [{"condition": "$statusCode > 0"}]}
            for o in operations
        ]
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "drift", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.openapi.yaml", "type": "openapi"}],
        "workflows": [{"workflowId": "drift", "steps": steps}],
    }
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _expected(version: str) -> dict[str, list[str]]:
    """What each step's violations say (`nullable` differs: 3.1 has no `nullable` keyword)."""
    null_note = [] if version.startswith("3.0") else [f"{JSON}: body /note: wanted type string, got null"]
    return {
        "undocumented": ["response 418: status: wanted a documented status (200), got 418"],
        "wrongType": ["response 200 text/html: content-type: wanted one of application/json, got text/html"],
        "nested": [f'{JSON}: body /order/lines/1/qty: wanted type integer, got string "two"'],
        "nullable": [f"{JSON}: body /count: wanted type integer, got null", *null_note],
        "user": [
            f"{JSON}: body /id: wanted a value (required), got nothing",
            f"{JSON}: body /password: wanted no value: the property is writeOnly (sent in requests only), "
            "got a value (not shown: a writeOnly value may be a secret)",
        ],
        "pet": [f"{JSON}: body /bark: wanted a value (required), got nothing"],
        "bird": [
            f'{JSON}: body /petType: wanted one of "cat", "dog" (the discriminator\'s values), got "bird"'
        ],
        "limited": [f"{JSON}: header X-Rate-Limit: wanted the header (required), got nothing"],
        "fine": [],
    }


def _lines(path: Path, version: str) -> dict[str, list[str]]:
    """The warning lines of each step: `contract: step 'id' (file:line): ...`."""
    text = path.read_text().splitlines()
    out = {}
    for step_id, found in _expected(version).items():
        line = next(i for i, t in enumerate(text, 1) if t.strip() == f"- stepId: {step_id}")
        out[step_id] = [f"contract: step '{step_id}' ({path}:{line}): {f}" for f in found]
    return out


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
def test_warn_is_the_default_each_violation_a_line_and_the_run_unchanged(tmp_path, drifting, capsys, version):
    path = _write(tmp_path, version)
    result = cli(capsys, "run", path, "--server", f"api={drifting.url}", "--format", "json")
    assert result.code == 0, result.out
    steps = json.loads(result.out)["workflows"][0]["steps"]
    assert [s["status"] for s in steps] == ["passed"] * len(OPERATIONS)
    expected = _lines(path, version)
    assert {s["stepId"]: s.get("warnings", []) for s in steps} == expected
    nested = steps[OPERATIONS.index("nested")]["contract"]
    assert nested == [
        {
            "status": 200,
            "mediaType": "application/json",
            "part": "body",
            "pointer": "/order/lines/1/qty",
            "wanted": "type integer",
            "got": 'string "two"',
        }
    ]
    text = cli(capsys, "run", path, "--server", f"api={drifting.url}")  # the console says each line
    assert text.code == 0
    for lines in expected.values():
        for line in lines:
            assert f"warning: {line}" in text.out + text.err


XML_OPERATIONS = ["xmlOrder", "xmlBroken", "xmlRoot", "jsonHeader", "xmlFine"]


@pytest.mark.parametrize("version", ["3.0.3", "3.1.0"])
def test_xml_bodies_and_content_headers_are_checked(tmp_path, drifting, capsys, version):
    """An XML body is well-formed and read into its schema's value by the `xml` object (attribute,
    wrapped array, item names); a header given as `content` is read as its media type says."""
    path = _write(tmp_path, version, operations=XML_OPERATIONS)
    result = cli(capsys, "run", path, "--server", f"api={drifting.url}", "--format", "json")
    assert result.code == 0, result.out
    steps = {s["stepId"]: s for s in json.loads(result.out)["workflows"][0]["steps"]}
    said = {
        k: [f"{v['part']} {v['pointer']}: {v['wanted']} / {v['got']}" for v in s.get("contract", [])]
        for k, s in steps.items()
    }
    assert said == {
        "xmlOrder": ['body /lines/1/qty: type integer / string "two"'],
        "xmlBroken": [
            "body : well-formed XML / text that is not well-formed (mismatched tag: line 1, column 23)"
        ],
        "xmlRoot": ["body : the root element <order> / <invoice>"],
        "jsonHeader": [
            'header X-Page /next: type integer / string "3"',
            'header X-Trace : a value in application/json / "not json", not JSON',
        ],
        "xmlFine": [],
    }
    assert steps["xmlOrder"]["warnings"][0].endswith(
        'response 200 application/xml: body /lines/1/qty: wanted type integer, got string "two"'
    )
    failed = cli(
        capsys, "run", path, "--server", f"api={drifting.url}", "--format", "json", "--contract", "fail"
    )
    assert failed.code == 1
    [step] = json.loads(failed.out)["workflows"][0]["steps"]  # the first drift ends the workflow
    assert step["stepId"] == "xmlOrder" and "contract violated: " in step["error"]


def test_fail_fails_each_drifting_step_and_on_failure_applies(tmp_path, drifting, capsys):
    path = _write(tmp_path, "3.0.3")
    result = cli(
        capsys, "run", path, "--server", f"api={drifting.url}", "--format", "json", "--contract", "fail"
    )
    assert result.code == 1
    flow = json.loads(result.out)["workflows"][0]
    [step] = flow["steps"]  # the first drift ends the workflow
    assert step["status"] == "failed"
    assert step["error"] == (
        "HTTP 418: contract violated: response 418: status: wanted a documented status (200), got 418"
    )
    assert "warnings" not in step  # the error says it
    assert step["contract"][0]["part"] == "status"
    recover = [{"name": "recover", "type": "goto", "stepId": "fine"}]
    steps = [
        {"stepId": "nested", "operationId": "nested", "onFailure": recover},
        {"stepId": "never", "operationId": "limited"},
        {"stepId": "fine", "operationId": "fine"},
    ]
    path = _write(tmp_path, "3.1.0", steps)
    result = cli(
        capsys, "run", path, "--server", f"api={drifting.url}", "--format", "json", "--contract", "fail"
    )
    flow = json.loads(result.out)["workflows"][0]
    assert [(s["stepId"], s["status"]) for s in flow["steps"]] == [("nested", "failed"), ("fine", "passed")]
    assert flow["steps"][0]["error"] == f"HTTP 200: contract violated: {_expected('3.1.0')['nested'][0]}"


def test_off_checks_nothing(tmp_path, drifting, capsys):
    path = _write(tmp_path, "3.0.3")
    result = cli(
        capsys, "run", path, "--server", f"api={drifting.url}", "--format", "json", "--contract", "off"
    )
    assert result.code == 0
    steps = json.loads(result.out)["workflows"][0]["steps"]
    assert all("warnings" not in s and "contract" not in s for s in steps)
    assert len(drifting.requests) == len(OPERATIONS)


def test_the_older_flag_maps_to_a_mode_and_says_so(tmp_path, drifting, capsys):
    path = _write(tmp_path, "3.0.3")
    argv = ["run", path, "--server", f"api={drifting.url}", "--format", "json"]
    result = cli(capsys, *argv, "--validate-responses", "error")
    assert result.code == 1
    assert "note: --validate-responses error is --contract fail" in result.err
    assert cli(capsys, *argv, "--validate-responses", "off").code == 0
    both = cli(capsys, *argv, "--validate-responses", "warn", "--contract", "fail")
    assert both.code == 2
    assert "--validate-responses is the older name of --contract: give one of them" in both.out + both.err
    assert cli(capsys, *argv, "--contract", "sometimes").code == 2


def test_reports_carry_the_violations(tmp_path, drifting, capsys):
    path = _write(tmp_path, "3.0.3")
    files = {k: tmp_path / f"report.{k}" for k in ("json", "xml", "har", "md")}
    argv = ["--report-json", files["json"], "--junit", files["xml"], "--har", files["har"]]
    result = cli(capsys, "run", path, "--server", f"api={drifting.url}", *argv, "--summary", files["md"])
    assert result.code == 0, result.out + result.err
    expected = _lines(path, "3.0.3")
    report = json.loads(files["json"].read_text())
    steps = {s["stepId"]: s for s in report["workflows"][0]["steps"]}
    assert steps["nested"]["warnings"] == expected["nested"]
    assert steps["limited"]["contract"][0]["part"] == "header X-Rate-Limit"
    assert steps["nested"]["exchanges"][0]["response"]["status"] == 200
    cases = {c.get("name"): c for c in ET.parse(files["xml"]).getroot().iter("testcase")}
    out = cases["nested"].find("system-out").text
    assert f"warning: {expected['nested'][0]}" in out
    har = json.loads(files["har"].read_text())["log"]["entries"]
    comments = [e["comment"] for e in har]
    assert f"drift / nested (attempt 1); contract: {_expected('3.0.3')['nested'][0]}" in comments
    assert "drift / fine (attempt 1)" in comments
    summary = files["md"].read_text()
    [(line, column)] = [
        (i, t.index("stepId") + 1)
        for i, t in enumerate(path.read_text().splitlines(), 1)
        if t.strip() == "- stepId: nested"
    ]
    assert f"#### Contract violations ({sum(map(len, _expected('3.0.3').values()))})" in summary
    assert f"- step `nested` ({path}:{line}:{column}): {_expected('3.0.3')['nested'][0]}" in summary


def test_the_html_page_holds_each_steps_violations(tmp_path, drifting, capsys):
    from arazzo_runner.report.html.model import Source, page_data

    path = _write(tmp_path, "3.1.0")
    report = tmp_path / "report.json"
    assert cli(capsys, "run", path, "--server", f"api={drifting.url}", "--report-json", report).code == 0
    page = page_data([Source("report.json", json.loads(report.read_text()))])
    by_name = {s["name"]: s for s in page["steps"]}
    assert by_name["pet"]["contract"][0]["pointer"] == "/bark"
    script = (Path(arazzo_runner.__file__).parent / "report" / "html" / "step.js").read_text()
    assert "contractTable(step.contract)" in script


def test_library_run_options(tmp_path, drifting):
    path = _write(tmp_path, "3.0.3")

    def run(**options: Any) -> list[dict[str, Any]]:
        options = {"servers": {"api": drifting.url}, "environ": {}, **options}
        result = arazzo_runner.run(path, None, {}, options=RunOptions(**options))
        return result.to_dict()["workflows"][0]["steps"]

    default = run()
    assert [s.get("warnings", []) for s in default] == list(_lines(path, "3.0.3").values())
    assert [s["status"] for s in run(contract="fail")] == ["failed"]
    assert all("contract" not in s for s in run(contract="off"))
    assert [s["status"] for s in run(validate_responses="error")] == ["failed"]  # the older name


def test_a_secret_in_a_violation_is_masked(tmp_path):
    secret = "s3cret-token-value"
    with ScriptedServer() as server:
        server.route("GET", "/nested")(lambda r: (200, {"order": {"lines": [{"qty": secret}]}}))
        path = _write(tmp_path, "3.1.0", [{"stepId": "nested", "operationId": "nested"}])
        options = RunOptions(servers={"api": server.url}, environ={}, secrets={secret})
        result = arazzo_runner.run(path, None, {}, options=options)
    [step] = result.to_dict()["workflows"][0]["steps"]
    assert step["contract"][0]["got"] == 'string "***"'
    assert step["warnings"][0].endswith('body /order/lines/0/qty: wanted type integer, got string "***"')


def test_the_example_description_is_the_one_the_server_drifts_from():
    """docs/testing.md runs examples/drift/ against this server: the two must not part."""
    from tests.e2e.helpers import ROOT

    written = yaml.safe_load((ROOT / "examples" / "drift" / "drift.openapi.yaml").read_text())
    assert written == {**description("3.0.3"), "servers": [{"url": "http://127.0.0.1:8080"}]}


def test_the_html_step_view_shows_the_violations(capsys, drifting, tmp_path):
    """In a real browser (browserkit.py): the step's view has a Contract violations table, a row each."""
    from tests.e2e.browserkit import Browser

    path = _write(tmp_path, "3.0.3")
    page = tmp_path / "report.html"
    assert cli(capsys, "run", path, "--server", f"api={drifting.url}", "--html", page).code == 0
    browser = Browser()
    try:
        browser.open(page)
        browser.click('#graph-svg g.node[data-step-id="user"]')
        browser.find("#contract")
        rows = browser.driver.execute_script(
            "return Array.from(document.querySelectorAll('#contract tbody tr')).map("
            "r => Array.from(r.cells).map(c => c.textContent))"
        )
        assert browser.console_errors() == []
    finally:
        browser.close()
    assert rows == [
        ["200", "application/json", "body /id", "a value (required)", "nothing"],
        [
            "200",
            "application/json",
            "body /password",
            "no value: the property is writeOnly (sent in requests only)",
            "a value (not shown: a writeOnly value may be a secret)",
        ],
    ]


@pytest.mark.parametrize("mode", ["warn", "fail"])
def test_a_response_schema_the_description_cannot_resolve_is_said_not_checked(tmp_path, mode):
    """A description whose response schema names a missing component (as some of Stripe's published
    descriptions do) is the description's fault, not the server's: the step says its contract was not
    checked and why, and the run goes on (it was exit 2 for the whole run, nothing reported)."""
    api = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/thing": {"get": {"operationId": "thing", "responses": {"200": {
            "description": "ok",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Missing"}}},
        }}}}},
    }  # fmt: skip
    (tmp_path / "api.openapi.yaml").write_text(yaml.safe_dump(api, sort_keys=False))
    doc = {
        "arazzo": "1.0.1",
        "info": {"title": "t", "version": "1"},
        "sourceDescriptions": [{"name": "api", "url": "./api.openapi.yaml", "type": "openapi"}],
        "workflows": [{"workflowId": "w", "steps": [
            {"stepId": "get", "operationId": "thing",
             "successCriteria": [{"condition": "$statusCode == 200"}]},
        ]}],
    }  # fmt: skip
    path = tmp_path / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    with ScriptedServer() as server:
        server.route("GET", "/thing")(lambda r: (200, {"ok": True}))
        result = arazzo_runner.run(
            path, None, {}, options=RunOptions(servers={"api": server.url}, contract=mode)
        )
    [step] = result.to_dict()["workflows"][0]["steps"]
    assert step["status"] == "passed"
    [warning] = [w for w in step["warnings"] if w.startswith("contract:")]
    assert "not checked, the operation's responses cannot be read: " in warning
    assert "unresolvable $ref '#/components/schemas/Missing'" in warning


def test_github_annotations_warn_at_each_violating_step(tmp_path, drifting, capsys, monkeypatch):
    """`--github on` with no report file: a `::warning` at the line of each step whose response violated
    its contract (under `warn`); under `fail` the failed step's `::error` says it, and no warning."""
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    path = _write(tmp_path, "3.0.3")
    result = cli(capsys, "run", path, "--server", f"api={drifting.url}", "--github", "on")
    assert result.code == 0
    annotations = [line for line in result.out.splitlines() if line.startswith("::")]
    text = path.read_text().splitlines()
    line = next(i for i, t in enumerate(text, 1) if t.strip() == "- stepId: nested")
    assert len(annotations) == len([o for o, said in _expected("3.0.3").items() if said])
    assert (
        f"::warning file=flow.arazzo.yaml,line={line},col=5,title=workflow drift%2C step nested%3A contract "
        f"violated::{_expected('3.0.3')['nested'][0]}"
    ) in annotations
    user = next(a for a in annotations if "step user%3A" in a)
    assert user.endswith("::" + "; ".join(_expected("3.0.3")["user"]))  # a step's violations in one
    failed = cli(
        capsys, "run", path, "--server", f"api={drifting.url}", "--github", "on", "--contract", "fail"
    )
    assert failed.code == 1
    annotations = [line for line in failed.out.splitlines() if line.startswith("::")]
    first = next(i for i, t in enumerate(text, 1) if t.strip() == "- stepId: undocumented")
    assert [a.split("::")[1] for a in annotations] == [
        f"error file=flow.arazzo.yaml,line={first},col=5,title=workflow drift%2C step undocumented failed"
    ]
