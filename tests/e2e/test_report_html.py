"""The HTML report as a file (the browser tests are in test_report_browser.py): what a run records for it
(`trace`: criteria values, resolved expressions, attempts, the step's line), that the page holds no
secret in any form, fetches nothing (its CSP), cannot be broken out of by a body, stays small, and that
`arazzo report` reads saved runs, several at once, and compares two."""

from __future__ import annotations

import base64
import hashlib
import json
import re

from arazzo_runner.report.html import render_page, script_json
from arazzo_runner.report.html.model import PAGE_BODY_LIMIT
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow
from tests.e2e.reportkit import BREAKOUT, page_json, run_with_reports, secret_forms, two_runs


def _steps(report: dict) -> dict:
    return {s["stepId"]: s for s in report["workflows"][0]["steps"]}


def test_the_report_json_records_each_step_in_detail(capsys, write, server, tmp_path):
    result = run_with_reports(capsys, write, server, tmp_path, "-w", "flow")
    assert result.code == 1
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    steps = _steps(report)
    document = (tmp_path / "flow.arazzo.yaml").read_text(encoding="utf-8").splitlines()
    for step_id, step in steps.items():
        where = step["trace"]["location"]
        assert where["file"].endswith("flow.arazzo.yaml")
        assert document[where["line"] - 1].strip() in (f"- stepId: {step_id}", f"stepId: {step_id}")
        assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$", step["startedAt"])
    check = steps["check"]["trace"]["attempts"][-1]
    assert [(c["condition"], c["passed"]) for c in check["criteria"]] == [
        ("$statusCode == 200", True),
        ("$response.body#/count > 0", False),
    ]
    assert check["criteria"][1]["values"] == [{"expression": "$response.body#/count", "value": 0}]
    assert check["criteria"][1]["message"] == "$response.body#/count > 0: got 0"
    poll = steps["poll"]["trace"]["attempts"]
    assert [(a["attempt"], a["status"], a["statusCode"]) for a in poll] == [
        (1, "failed", 503),
        (2, "passed", 200),
    ]
    assert poll[0]["retry"] == {"action": "busy", "delaySeconds": 0.0}
    expressions = {x["where"]: x for x in steps["create"]["trace"]["attempts"][0]["expressions"]}
    assert expressions["output id"] == {"where": "output id", "expression": "$response.body#/id", "value": 7}
    body = [x for x in steps["create"]["trace"]["attempts"][0]["expressions"] if x["where"] == "request body"]
    assert {x["expression"]: x["value"] for x in body} == {"$inputs.name": "rex", "$inputs.password": "***"}
    assert report["document"].endswith("flow.arazzo.yaml")
    assert [w["workflowId"] for w in report["graph"]["workflows"]] == ["flow", "child"]


def test_the_plain_json_output_is_unchanged_by_tracing(capsys, write, server, tmp_path):
    result = run_with_reports(capsys, write, server, tmp_path, "-w", "flow", "--format", "json")
    step = result.json["workflows"][0]["steps"][0]
    assert "trace" not in step and "startedAt" not in step and "exchanges" not in step


def test_no_secret_in_any_form_in_the_page_summary_or_report(capsys, write, server, tmp_path):
    result = run_with_reports(capsys, write, server, tmp_path, "-w", "flow")
    assert result.code == 1
    sent = next(r for r in server.requests if r.path.startswith("/pets/"))
    assert sent.headers["authorization"].startswith("Basic ")  # the credentials went out
    for name in ("report.html", "report.json", "summary.md"):
        text = (tmp_path / name).read_text(encoding="utf-8")
        leaked = [form for form in secret_forms() if form in text]
        assert not leaked, (name, leaked)
    page = page_json((tmp_path / "report.html").read_text(encoding="utf-8"))
    assert "***" in json.dumps(page)
    cut = re.sub(r"\s", "", json.dumps(page))  # nor in a form split over lines
    assert not [form for form in secret_forms() if len(form) > 8 and form in cut]


def test_a_body_cannot_break_out_of_the_data_block(capsys, write, server, tmp_path):
    run_with_reports(capsys, write, server, tmp_path, "-w", "flow")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert html.count("</script>") == 2  # the data block's and the script's own: none from a body
    assert html.count("<script") == 2
    page = page_json(html)  # parses back: the escapes mean the same text
    bodies = [x["response"]["body"] for s in page["steps"] for x in s.get("exchanges", []) if x["response"]]
    assert any(BREAKOUT in body for body in bodies)
    tricky = {"a": "</script><!--<script>", "b": "\u2028\u2029&<>", "c": "</SCRIPT >"}
    text = script_json(tricky)
    assert not re.search(r"[<>&\u2028\u2029]", text)
    assert json.loads(text) == tricky


def test_the_page_fetches_nothing_and_allows_only_its_own_script_and_style(capsys, write, server, tmp_path):
    run_with_reports(capsys, write, server, tmp_path, "-w", "flow")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html).group(1)
    assert csp.startswith("default-src 'none'; ")
    assert "unsafe" not in csp and "http" not in csp
    script = re.search(r"<script>(.*)</script>", html, re.S).group(1)
    style = re.search(r"<style>(.*)</style>", html, re.S).group(1)
    for text in (script, style):
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp
    markup = re.sub(r'<script type="application/json" id="arazzo-data">.*?</script>', "", html, flags=re.S)
    loads = r"(src|href)\s*=|@import|(?<![A-Za-z])url\((?!#)|import\("
    assert not re.search(loads + r"|fetch\(|XMLHttpRequest|WebSocket|sendBeacon|EventSource", markup)


def test_bodies_longer_than_the_page_limit_are_cut_with_a_note(capsys, write, server, tmp_path):
    big = "x" * (PAGE_BODY_LIMIT + 5000)
    server.route("GET", "/pets")(lambda r: (200, {"blob": big}))
    path = write(arazzo_doc(workflow("flow", op_step("list", "listPets"))))
    page_file = tmp_path / "page.html"
    result = cli(
        capsys, "run", path, "--server", f"pets={server.url}", "--html", page_file, "--github", "off"
    )
    assert result.code == 0
    page = page_json(page_file.read_text(encoding="utf-8"))
    response = page["steps"][0]["exchanges"][0]["response"]
    assert len(response["body"]) == PAGE_BODY_LIMIT
    assert response["pageCutChars"] == len(json.dumps({"blob": big})) - PAGE_BODY_LIMIT


def _many_steps(count: int) -> dict:
    steps = [
        op_step(
            f"s{i}",
            "listPets",
            successCriteria=[{"condition": "$statusCode == 200"}],
            outputs={"n": "$response.body#/n"},
        )
        for i in range(count)
    ]
    return arazzo_doc(workflow("flow", *steps))


def test_a_200_step_run_makes_a_page_well_under_a_megabyte(capsys, write, server, tmp_path):
    server.route("GET", "/pets")(
        lambda r: (200, {"n": 1, "pets": [{"id": i, "name": f"pet{i}"} for i in range(10)]})
    )
    path = write(_many_steps(200))
    page_file = tmp_path / "page.html"
    result = cli(
        capsys, "run", path, "--server", f"pets={server.url}", "--html", page_file, "--github", "off"
    )
    assert result.code == 0
    size = page_file.stat().st_size
    assert 100_000 < size < 1_000_000, size  # each step: its exchange, criteria, expressions, graph node
    assert len(page_json(page_file.read_text(encoding="utf-8"))["steps"]) == 200


def test_arazzo_report_reads_saved_runs_several_in_one_page(capsys, write, server, other_server, tmp_path):
    before, after = two_runs(capsys, write, server, other_server, tmp_path)
    page_file = tmp_path / "both.html"
    result = cli(capsys, "report", before, after, "-o", page_file, "--github", "off")
    assert result.code == 0, result.err
    assert re.match(
        rf"wrote {re.escape(str(page_file))} \(\d+ KiB\): 2 workflows: 1 passed, 1 failed · 2 runs, "
        r"10 step executions\n",  # the words the page's header starts with (issue 37, point 1)
        result.out,
    )
    page = page_json(page_file.read_text(encoding="utf-8"))
    assert [r["label"] for r in page["runs"]] == ["before.json", "after.json"]
    assert [r["status"] for r in page["runs"]] == ["failed", "passed"]
    assert page["grid"]["columns"] == ["flow"]
    cells = [[page["executions"][i]["status"] for i in row["cells"]] for row in page["grid"]["rows"]]
    assert cells == [["failed"], ["passed"]]


def test_arazzo_report_diff_names_what_changed(capsys, write, server, other_server, tmp_path):
    before, after = two_runs(capsys, write, server, other_server, tmp_path)
    result = cli(capsys, "report", before, after, "--diff", "-o", tmp_path / "diff.html")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert re.match(r"\d+ change\(s\): 2 of status", lines[0])
    changes = [line for line in lines[1:] if ": time: " not in line]  # a busy machine may add times
    assert changes[0].startswith("  flow: status") and "failed" in changes[0]
    assert changes[1].startswith("  flow / check: status, error") and ": failed, HTTP 200" in changes[1]
    page = page_json((tmp_path / "diff.html").read_text(encoding="utf-8"))
    steps = [c["step"] for c in page["diff"]["changes"] if c["changed"] != ["time"]]
    assert steps == [None, "check"]


def test_arazzo_report_refuses_what_is_not_a_report(capsys, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"workflows": [\n  1,,\n]}', encoding="utf-8")
    result = cli(capsys, "report", broken, "-o", tmp_path / "x.html")
    assert result.code == 2
    assert f"{broken}:2:5: not valid JSON" in result.err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"hello": 1}), encoding="utf-8")
    result = cli(capsys, "report", other, "-o", tmp_path / "x.html")
    assert result.code == 2 and "not a report of `arazzo run --report-json`" in result.err
    result = cli(capsys, "report", other)
    assert result.code == 2 and "nothing to write" in result.err
    assert not (tmp_path / "x.html").exists()


def test_a_page_renders_a_report_without_trace_or_graph():
    """An older report (no graph, no trace): the page still builds (the script draws the steps in order)."""
    from arazzo_runner.report.html import Source, page_data

    step = {"stepId": "a", "status": "passed", "attempts": 1, "statusCode": 200, "durationMs": 1}
    flow = {"workflowId": "w", "status": "passed", "outputs": {}, "steps": [step], "durationMs": 2}
    old = {"status": "passed", "workflows": [flow]}
    page = page_data([Source("old.json", old)])
    assert page["runs"][0]["graph"] is None and page["steps"][0]["name"] == "a"
    assert "<script>" in render_page(page)


def test_a_report_file_name_holding_markup_is_text_in_the_title(capsys, tmp_path):
    """The page's <title> names the report files: a name is text there (escaped), never markup."""
    import html

    step = {"stepId": "a", "status": "passed", "attempts": 1, "statusCode": 200, "durationMs": 1}
    flow = {"workflowId": "w", "status": "passed", "outputs": {}, "steps": [step], "durationMs": 2}
    name = "run<img src=x onerror=alert(1)>&amp;<title>.json"
    saved = tmp_path / name
    saved.write_text(json.dumps({"status": "passed", "workflows": [flow]}), encoding="utf-8")
    page_file = tmp_path / "page.html"
    assert cli(capsys, "report", saved, "-o", page_file, "--github", "off").code == 0
    text = page_file.read_text(encoding="utf-8")
    (title,) = re.findall(r"<title>(.*?)</title>", text, re.S)
    assert "<" not in title and html.unescape(title) == f"Arazzo report: {name}"
    assert "<img" not in text


def test_rows_of_an_inputs_file_make_a_grid(capsys, write, server, tmp_path):
    server.route("GET", "/pets/{petId}")(lambda r: (200 if r.path.endswith("/1") else 404, {}))
    doc = arazzo_doc(
        workflow(
            "flow",
            op_step("get", "getPet", parameters=[{"name": "petId", "in": "path", "value": "$inputs.id"}]),
            inputs={"type": "object", "properties": {"id": {"type": "string"}}},
        )
    )
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"id": "1"}\n{"id": "2"}\n', encoding="utf-8")
    page_file = tmp_path / "rows.html"
    result = cli(
        capsys,
        "run",
        write(doc),
        "--server",
        f"pets={server.url}",
        "--inputs-file",
        rows,
        "--html",
        page_file,
    )
    assert result.code == 1
    page = page_json(page_file.read_text(encoding="utf-8"))
    assert [r["label"] for r in page["runs"]] == ["flow.arazzo.yaml row 1", "flow.arazzo.yaml row 2"]
    assert [r["inputs"] for r in page["runs"]] == [{"id": "1"}, {"id": "2"}]
    statuses = [page["executions"][row["cells"][0]]["status"] for row in page["grid"]["rows"]]
    assert statuses == ["passed", "failed"]


def test_in_github_actions_a_summary_and_annotations_at_the_failed_step(
    capsys, write, server, tmp_path, monkeypatch
):
    step_summary = tmp_path / "step-summary.md"
    step_summary.write_text("earlier\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    result = run_with_reports(capsys, write, server, tmp_path, "-w", "flow", "--github", "auto")
    assert result.code == 1
    document = (tmp_path / "flow.arazzo.yaml").read_text(encoding="utf-8").splitlines()
    line = document.index("  - stepId: check") + 1
    (annotation,) = [text for text in result.out.splitlines() if text.startswith("::")]
    assert annotation == (
        f"::error file=flow.arazzo.yaml,line={line},col=5,title=workflow flow%2C step check failed::"
        "successCriteria failed: $response.body#/count > 0: got 0"
    )
    summary = step_summary.read_text(encoding="utf-8")
    assert summary.startswith("earlier\n### ❌ Arazzo: 0 of 1 workflow runs passed\n")  # appended
    assert (
        f"step check (flow.arazzo.yaml:{line}:5): successCriteria failed: $response.body\\#/count &gt; 0"
        in summary
    )
    assert summary.split("earlier\n")[1] == (tmp_path / "summary.md").read_text(encoding="utf-8")
    as_json = run_with_reports(
        capsys, write, server, tmp_path, "-w", "flow", "--format", "json", "--github", "on"
    )
    assert as_json.json["status"] == "failed"  # stdout: one JSON document; the annotation on stderr
    assert "::error file=flow.arazzo.yaml" in as_json.err


def test_the_python_example_of_docs_reports_runs(tmp_path):
    import subprocess
    import sys

    from tests.e2e.helpers import ROOT

    text = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)
    script = tmp_path / "example.py"
    script.write_text(example, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "### ✅ Arazzo: 1 of 1 workflow runs passed"


def test_a_workflow_not_run_is_summarised_and_annotated_at_its_problem(monkeypatch, tmp_path):
    from arazzo_runner.report.html import Source, page_data
    from arazzo_runner.report.summary import github_annotations, markdown_summary
    from tests.e2e.reportkit import events_report

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    page = page_data([Source("events.json", events_report())])
    summary = markdown_summary(page)
    assert summary.startswith("### ❌ Arazzo: 1 of 2 workflow runs passed\n")
    assert (
        "| ⏭ | `refund` | not run |  | orders.arazzo.yaml:42:9: operationId 'nope' is not in any source |"
        in summary
    )
    assert github_annotations(page) == [
        "::error file=orders.arazzo.yaml,line=42,col=9,title=workflow refund not run::"
        "operationId 'nope' is not in any source"
    ]
