"""The HTML report in a real browser: Debian's headless Chromium, driven by Selenium (browserkit.py), opens
each page from disk with the network emulated offline. The graph renders with the path taken;
clicking the failed step shows its response body (as text: a `</script>` in it runs nothing) and its
criteria with the values seen; copy-as-curl leaves secrets as variables; the timeline, the grid and the
diff work; a 10,000-step run opens and its lists grow as they scroll. Every page: no console error, and
no request but the file itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.browserkit import browser  # noqa: F401  (the module's browser fixture)
from tests.e2e.helpers import cli
from tests.e2e.reportkit import BREAKOUT, SECRET, run_with_reports, secret_forms, two_runs


def _clean(browser) -> None:  # noqa: F811
    assert browser.console_errors() == []
    assert browser.requests() == [browser.uri]


def _text(browser, css: str) -> str:  # noqa: F811
    return browser.find(css).text


@pytest.fixture
def failed_page(capsys, write, server, tmp_path) -> Path:
    result = run_with_reports(capsys, write, server, tmp_path, "-w", "flow")
    assert result.code == 1
    return tmp_path / "report.html"


def test_the_graph_renders_with_the_path_taken(browser, failed_page):  # noqa: F811
    driver = browser.open(failed_page)
    browser.find("#graph-svg")
    nodes = driver.execute_script(
        "return Array.from(document.querySelectorAll('#graph-svg g.node')).map("
        "g => [g.getAttribute('data-step-id') || g.getAttribute('data-node'), g.getAttribute('class')])"
    )
    classes = {name: cls.split() for name, cls in nodes}
    assert [n for n, _ in nodes if not n.startswith("W")] == ["create", "poll", "call", "check"]
    assert "passed" in classes["create"] and "retried" in classes["poll"] and "failed" in classes["check"]
    taken = driver.execute_script(
        "return Array.from(document.querySelectorAll('#graph-svg path.edge.taken')).map("
        "p => p.getAttribute('data-from') + '>' + p.getAttribute('data-to'))"
    )
    assert len(taken) == 6, taken  # start>create>poll (and its retry)>call>check>failed
    assert any(t.split(">")[0] == t.split(">")[1] for t in taken)  # the retry loop on poll
    assert taken[-1].endswith("_FAIL")
    _clean(browser)


def test_clicking_the_failed_step_shows_its_response_and_criteria(browser, failed_page):  # noqa: F811
    driver = browser.open(failed_page)
    browser.click('#graph-svg g.node[data-step-id="check"]')
    assert _text(browser, "#detail h2").endswith("step check")
    criteria = browser.find("#criteria")
    rows = [
        [cell.text for cell in row.find_elements("css selector", "td")]
        for row in criteria.find_elements("css selector", "tbody tr")
    ]
    assert rows == [
        ["✓", "$statusCode == 200", "$statusCode = 200", "passed"],
        ["✗", "$response.body#/count > 0", "$response.body#/count = 0", "$response.body#/count > 0: got 0"],
    ]
    body = _text(browser, "#detail pre.response-body")
    assert BREAKOUT in body and '"echo": "***"' in body  # shown as text, masked
    assert driver.title.startswith("Arazzo report")  # the script in the body did not run
    assert "successCriteria failed" in _text(browser, "#step-error")
    _clean(browser)


def test_copy_as_curl_leaves_secrets_as_variables(browser, failed_page):  # noqa: F811
    browser.open(failed_page)
    browser.click('#runs button[data-execution="1"]')  # child (from flow/call)
    browser.click('#steps tr[data-step-id="inner"]')
    browser.click("#detail .curl-button")
    curl = browser.find("#detail textarea.curl").get_attribute("value")
    assert "# secrets are not in the report: set AUTHORIZATION first" in curl
    assert "-H 'Authorization: Basic '\"${AUTHORIZATION}\"" in curl
    assert "curl -X 'GET' 'http://127.0.0.1:" in curl and "/pets/7'" in curl
    browser.click('#runs button[data-execution="0"]')
    browser.click('#steps tr[data-step-id="create"]')
    browser.click("#detail .curl-button")
    curl = browser.find("#detail textarea.curl").get_attribute("value")
    assert """--data-raw '{"name":"rex","password":"'"${SECRET}"'"}'""" in curl
    assert not [form for form in secret_forms() if form in curl]
    _clean(browser)


def test_the_timeline_lists_steps_with_their_exchanges(browser, failed_page):  # noqa: F811
    driver = browser.open(failed_page)
    browser.click("#tab-timeline")
    browser.find("#waterfall .wf-row")
    labels = driver.execute_script(
        "return Array.from(document.querySelectorAll('#waterfall .wf-label')).map(e => e.textContent)"
    )
    assert labels[0] == "flow" and "flow / create" in labels and "flow / check" in labels
    assert labels.index("flow / create") < labels.index("flow / poll") < labels.index("flow / check")
    assert len(driver.find_elements("css selector", "#waterfall .wf-bar.exchange")) == 5  # poll's two
    browser.click('#waterfall .wf-row[data-timeline-step="4"]')  # steps: create, poll, call, inner, check
    assert _text(browser, "#detail h2") == "failed step check"
    _clean(browser)


def test_the_grid_opens_each_run(capsys, browser, write, server, other_server, tmp_path):  # noqa: F811
    before, after = two_runs(capsys, write, server, other_server, tmp_path)
    page = tmp_path / "grid.html"
    assert cli(capsys, "report", before, after, "-o", page).code == 0
    driver = browser.open(page)
    cells = browser.find("#grid")
    statuses = [c.text.split()[0] for c in cells.find_elements("css selector", "td.cell")]
    assert statuses == ["failed", "passed"]
    browser.click('#grid tr[data-run="1"] td.cell button')
    assert _text(browser, "#execution h2") == "passed workflow flow"
    first = driver.find_element("css selector", "#runs button[data-execution]")
    assert "selected" in first.get_attribute("class")
    _clean(browser)


def test_the_diff_shows_what_changed_and_opens_it(capsys, browser, write, server, other_server, tmp_path):  # noqa: F811
    before, after = two_runs(capsys, write, server, other_server, tmp_path)
    page = tmp_path / "diff.html"
    result = cli(capsys, "report", before, after, "--diff", "-o", page)
    assert result.code == 0
    browser.open(page)
    rows = browser.find("#diff").find_elements("css selector", "tbody tr")
    changed = {r.get_attribute("data-diff-step"): r.text for r in rows}  # (a step's time may change too)
    assert "" in changed and "check" in changed
    assert "status" in changed["check"] and "failed" in changed["check"] and "passed" in changed["check"]
    browser.click('#diff tr[data-diff-step="check"] td:last-child button')
    assert _text(browser, "#detail h2") == "passed step check"
    assert "2 workflows: 1 passed, 1 failed · 2 runs, 10 step executions" in _text(browser, "#meta")
    _clean(browser)


def _big_report(path: Path, count: int) -> None:
    """A saved run of `count` step executions (a goto loop's worth), each with its exchange."""
    steps = []
    for i in range(count):
        exchange = {
            "startedAt": f"2026-01-01T00:{i // 6000 % 60:02d}:{i // 100 % 60:02d}.{i % 100 * 10:03d}Z",
            "durationMs": 5.0,
            "request": {"method": "GET", "url": f"http://127.0.0.1:9/items/{i}", "headers": [], "body": None},
            "response": {"status": 200, "headers": [], "body": json.dumps({"item": i, "secret": "***"})},
        }
        steps.append(
            {"stepId": f"s{i % 50}", "status": "passed", "attempts": 1, "statusCode": 200,
             "outputs": {"i": i}, "durationMs": 6.0, "startedAt": exchange["startedAt"],
             "exchanges": [exchange]}
        )  # fmt: skip
    flow = {"workflowId": "loop", "status": "passed", "outputs": {}, "error": None, "steps": steps,
            "durationMs": count * 10.0, "startedAt": "2026-01-01T00:00:00.000Z"}  # fmt: skip
    path.write_text(json.dumps({"masked": True, "status": "passed", "workflows": [flow]}), encoding="utf-8")


def test_a_10000_step_run_opens_and_its_lists_grow_as_they_scroll(capsys, browser, tmp_path):  # noqa: F811
    report, page = tmp_path / "big.json", tmp_path / "big.html"
    _big_report(report, 10_000)
    assert cli(capsys, "report", report, "-o", page).code == 0
    size = page.stat().st_size
    assert size < 8 * 2**20, size  # ~400 bytes a step
    driver = browser.open(page)
    count = "return document.querySelectorAll('#steps tbody tr').length"
    assert driver.execute_script(count) == 300  # a slice at a time, not 10,000 rows at once
    driver.execute_script("document.querySelector('#execution .more').scrollIntoView()")
    browser.wait(lambda d: d.execute_script(count) >= 600)
    browser.click('#steps tr[data-step="450"]')
    assert _text(browser, "#detail h2") == "passed step s0#10"
    assert '"item": 450' in _text(browser, "#detail pre.response-body")
    browser.click("#tab-timeline")
    rows = "return document.querySelectorAll('#waterfall .wf-row').length"
    browser.wait(lambda d: d.execute_script(rows) >= 300)
    _clean(browser)


def test_an_agent_run_shows_its_turns_and_tool_calls(capsys, browser, tmp_path):  # noqa: F811
    agent = {
        "status": "answered", "answer": "It is sunny.", "error": None, "model": "agentaus",
        "endpoint": "http://127.0.0.1:9/v1", "stream": True, "turns": 2,
        "toolCalls": [{"turn": 1, "id": "c1", "name": "weather", "workflowId": "weather", "file": "w.yaml",
                       "arguments": {"city": "Sydney"}, "status": "passed", "outputs": {"sky": "sunny"},
                       "error": None}],
        "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}, "messages": [],
    }  # fmt: skip
    report, page = tmp_path / "agent.json", tmp_path / "agent.html"
    report.write_text(json.dumps(agent), encoding="utf-8")
    assert cli(capsys, "report", report, "-o", page).code == 0
    browser.open(page)
    panel = _text(browser, "#agent")
    assert "answered agent run" in panel and "It is sunny." in panel
    assert _text(browser, "#meta") == "1 run: all answered · 0 step executions"  # its workflows: tool calls
    assert 'weather {"city":"Sydney"}' in panel and "turn 1: 1 tool call(s)" in panel
    _clean(browser)


def test_a_page_written_with_no_mask_says_so(capsys, browser, write, server, tmp_path):  # noqa: F811
    run_with_reports(capsys, write, server, tmp_path, "-w", "flow", "--no-mask")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert SECRET in html  # asked for: local debugging
    browser.open(tmp_path / "report.html")
    assert "Written with --no-mask" in _text(browser, "#unmasked")
    _clean(browser)


def test_an_agent_run_report_shows_tool_calls_beside_their_http_calls(capsys, browser, tmp_path):  # noqa: F811
    from tests.e2e.agentkit import BOTH, assert_no_secret, serve_shop, tool_args, write_shop
    from tests.servers.scripted import ScriptedServer

    report, page = tmp_path / "agent.json", tmp_path / "agent.html"
    with ScriptedServer() as server:
        serve_shop(server)
        path = write_shop(tmp_path)
        result = cli(capsys, "agent", *tool_args(path, server), "--prompt", BOTH, "--report-json", report)
    assert result.code == 0, result.err
    data = json.loads(report.read_text(encoding="utf-8"))
    assert len(data["toolCalls"]) == 2 and all(call["run"]["workflows"] for call in data["toolCalls"])
    assert cli(capsys, "report", report, "-o", page).code == 0
    assert_no_secret(report.read_text(encoding="utf-8") + page.read_text(encoding="utf-8"))
    driver = browser.open(page)
    assert "turn 1: 2 tool call(s)" in _text(browser, "#agent")
    browser.click("#agent .turn button.link")  # the first call's workflow run
    assert "(from turn 1 / " in _text(browser, "#execution > h2")
    browser.click("#tab-timeline")
    browser.find("#waterfall .wf-row")
    labels = driver.execute_script(
        "return Array.from(document.querySelectorAll('#waterfall .wf-label')).map(e => e.textContent)"
    )
    assert sum("(from turn 1 / " in label and " / " in label.split(")")[-1] for label in labels) >= 2
    assert len(driver.find_elements("css selector", "#waterfall .wf-bar.exchange")) >= 2
    _clean(browser)


def test_messages_on_their_channels_and_a_workflow_not_run(capsys, browser, tmp_path):  # noqa: F811
    from tests.e2e.reportkit import events_report

    report, page = tmp_path / "events.json", tmp_path / "events.html"
    report.write_text(json.dumps(events_report()), encoding="utf-8")
    assert cli(capsys, "report", report, "-o", page).code == 0
    driver = browser.open(page)
    browser.click('#runs button[data-execution="1"]')
    assert _text(browser, "#execution > h2") == "not_run workflow refund"
    assert (
        _text(browser, "#problems li")
        == "orders.arazzo.yaml:42:9 [step-target] operationId 'nope' is not in any source"
    )
    browser.click("#tab-timeline")
    lanes = browser.find("#channels")
    labels = [e.text for e in lanes.find_elements("css selector", ".wf-label")]
    assert labels == ["mqtt://127.0.0.1:1883 orders/new", "mqtt://127.0.0.1:1883 orders/shipped"]
    ticks = driver.find_elements("css selector", "#channels .wf-tick")
    assert [t.get_attribute("class").split()[-1] for t in ticks] == ["send", "receive"]
    browser.click("#channels .wf-tick.receive")
    assert _text(browser, "#detail h2") == "passed step awaitShipment"
    _clean(browser)
