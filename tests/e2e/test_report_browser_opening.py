"""Where the HTML report opens, and what its header and flow graph say at first sight (issue 37, point 1),
in a real browser (Debian's headless Chromium, browserkit.py), over runs of the real CLI against a real
local server. The page opens on what went wrong: the step that failed the first workflow that did not
pass (followed into the run of a workflow step, down to the step where it went wrong), or the problems of
the first workflow not run; over the grid of several runs, without leaving the grid. The header counts
workflows by outcome before it counts step executions. The end and failed nodes of the flow graph say
what they mean and whether the execution got there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.browserkit import browser  # noqa: F401  (the module's browser fixture)
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import listing, ok200
from tests.e2e.helpers import cli, op_step, workflow
from tests.e2e.reportkit import run_with_reports, two_runs

PASSES = workflow("passes", listing("list", successCriteria=ok200()))
PET_7 = [{"name": "petId", "in": "path", "value": 7}]
INNER = workflow("inner", op_step("get", "getPet", parameters=PET_7, successCriteria=ok200()))  # 404: fails
CALL = {"stepId": "call", "workflowId": "inner"}
OUTER = workflow("outer", listing("first", successCriteria=ok200()), CALL)
NOT_RUN = workflow("broken", listing("list", outputs={"count": "$respons.body#/count"}))  # output-value


def _clean(browser) -> None:  # noqa: F811
    assert browser.console_errors() == []
    assert browser.requests() == [browser.uri]


def _text(browser, css: str) -> str:  # noqa: F811
    return browser.find(css).text


def _node_text(driver, kind: str) -> str:
    """The second line of the graph's `end` or `failed` node."""
    return driver.execute_script(
        f"return document.querySelector('#graph-svg g.node.kind-{kind} text.detail').textContent"
    )


def _page(capsys, write, server, tmp_path: Path, *workflows: dict, code: int = 1) -> Path:
    """`arazzo run --html` of a document of `workflows` against `server` (GET /pets answers 200, GET
    /pets/7 404): the page's path."""
    server.reply("GET", "/pets", (200, []))
    server.reply("GET", "/pets/{petId}", (404, {"error": "no such pet"}))
    path = write(arazzo_doc(*workflows))
    page = tmp_path / "run.html"
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "--html", page, "--github", "off")
    assert result.code == code, result.err
    return page


@pytest.fixture
def failed_page(capsys, write, server, tmp_path) -> Path:
    result = run_with_reports(capsys, write, server, tmp_path, "-w", "flow")
    assert result.code == 1
    return tmp_path / "report.html"


def test_the_page_opens_on_the_step_that_failed(browser, failed_page):  # noqa: F811
    driver = browser.open(failed_page)
    assert _text(browser, "#detail h2") == "failed step check"  # no click
    assert "successCriteria failed" in _text(browser, "#step-error")
    selected = driver.find_elements("css selector", "#steps tr.selected")
    assert [row.get_attribute("data-step-id") for row in selected] == ["check"]
    node = driver.find_element("css selector", '#graph-svg g.node[data-step-id="check"]')
    assert "selected" in node.get_attribute("class").split()
    assert _text(browser, "#meta").startswith("1 workflow: 1 failed · 1 run, 5 step executions · ")
    _clean(browser)


def test_the_end_node_of_a_failed_run_says_it_was_not_reached(browser, failed_page):  # noqa: F811
    driver = browser.open(failed_page)
    assert _node_text(driver, "end") == "not reached: the workflow passes here"
    assert _node_text(driver, "failed") == "reached: the workflow failed"
    end = driver.find_element("css selector", "#graph-svg g.node.kind-end")
    assert "passed" not in end.get_attribute("class").split()
    assert "end: the workflow passes when it gets here" in _text(browser, "#execution .legend")
    _clean(browser)


def test_a_failure_in_a_workflow_step_opens_on_the_step_where_it_went_wrong(
    capsys,
    browser,  # noqa: F811
    write,
    server,
    tmp_path,
):
    page = _page(capsys, write, server, tmp_path, PASSES, OUTER, INNER, NOT_RUN)
    driver = browser.open(page)
    assert _text(browser, "#detail h2") == "failed step get"
    assert _text(browser, "#execution > h2") == "failed workflow inner (from outer/call)"
    selected = driver.find_element("css selector", "#runs button.selected")
    assert selected.text == "failed inner (from outer/call)"
    # four workflows at the top (`inner` also as the run of outer's step, not counted), worst last
    meta = _text(browser, "#meta")
    assert meta.startswith("4 workflows: 1 passed, 2 failed, 1 not run · 1 run, 5 step executions · ")
    _clean(browser)


def test_a_workflow_not_run_before_any_failure_opens_on_its_problems(
    capsys,
    browser,  # noqa: F811
    write,
    server,
    tmp_path,
):
    page = _page(capsys, write, server, tmp_path, PASSES, NOT_RUN, INNER)
    browser.open(page)
    assert _text(browser, "#execution > h2") == "not_run workflow broken"
    problem = _text(browser, "#problems li")
    assert "[output-value] output 'count' is not a runtime expression" in problem
    assert _text(browser, "#detail-not-run") == (
        "Workflow broken was not run: nothing was sent. Why is listed under "
        "“Not run: problems in the document”."
    )
    assert _node_text(browser.driver, "end") == "not reached: the workflow passes here"
    assert _node_text(browser.driver, "failed") == "not reached: the workflow fails here"
    _clean(browser)


def test_a_page_where_everything_passed_opens_on_the_first_workflow(
    capsys,
    browser,  # noqa: F811
    write,
    server,
    tmp_path,
):
    page = _page(capsys, write, server, tmp_path, PASSES, workflow("again", listing("list")), code=0)
    driver = browser.open(page)
    assert _text(browser, "#execution > h2") == "passed workflow passes"
    assert _text(browser, "#detail p") == "Click a step to see what it sent, received and checked."
    assert driver.find_elements("css selector", "#steps tr.selected") == []
    assert _text(browser, "#meta").startswith("2 workflows: all passed · 1 run, 2 step executions · ")
    assert _node_text(driver, "end") == "reached: the workflow passed"
    assert _node_text(driver, "failed") == "not reached: the workflow fails here"
    _clean(browser)


def test_over_the_grid_the_page_keeps_the_grid_and_has_the_failure_open(
    capsys,
    browser,  # noqa: F811
    write,
    server,
    other_server,
    tmp_path,
):
    before, after = two_runs(capsys, write, server, other_server, tmp_path)
    page = tmp_path / "grid.html"
    assert cli(capsys, "report", after, before, "-o", page).code == 0  # the failed run second
    driver = browser.open(page)
    assert "active" in driver.find_element("css selector", "#tab-grid").get_attribute("class").split()
    assert _text(browser, "#meta").startswith("2 workflows: 1 passed, 1 failed · 2 runs, 10 step executions")
    browser.click("#tab-overview")
    assert _text(browser, "#detail h2") == "failed step check"
    assert _text(browser, "#execution dl.kv dd") == "before.json"  # the run it belongs to
    _clean(browser)


def test_a_failed_agent_run_beside_passed_workflows_is_counted_in_the_header(
    capsys,
    browser,  # noqa: F811
    write,
    server,
    tmp_path,
):
    # `arazzo report run.json agent.json`: the agent run has no workflow at the top (its workflows are
    # its tool calls); it failed, and the header must not read "all passed"
    _page(capsys, write, server, tmp_path, PASSES, code=0)
    run = tmp_path / "run.json"
    assert cli(capsys, "run", tmp_path / "flow.arazzo.yaml", "--server", f"pets={server.url}",
               "--report-json", run).code == 0  # fmt: skip
    agent = {
        "status": "failed", "answer": None, "model": "m", "endpoint": "http://127.0.0.1:9/v1", "stream": True,
        "error": {"kind": "chat", "message": "the chat API could not be reached"}, "turns": 0,
        "toolCalls": [], "usage": {}, "messages": [],
    }  # fmt: skip
    (tmp_path / "agent.json").write_text(json.dumps(agent), encoding="utf-8")
    page = tmp_path / "mixed.html"
    assert cli(capsys, "report", run, tmp_path / "agent.json", "-o", page).code == 0
    browser.open(page)
    meta = _text(browser, "#meta")
    counted = "1 workflow: all passed; 1 agent run: 1 failed · 2 runs, 1 step execution · "
    assert meta.startswith(counted), meta
    _clean(browser)
