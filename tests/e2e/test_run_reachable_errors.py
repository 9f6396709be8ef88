"""One workflow's problem stays with that workflow (issue 22, point 1): `arazzo run` runs each selected
workflow that can run with one meaning and reports the others as not run, with their findings, in the
console, `--format json`, JUnit and the JSON report; a workflow that reaches a broken one (dependsOn, a
workflow step, a goto) is not run either. Exit 2 only when nothing could run; otherwise 1 when a workflow
failed or was not run. `arazzo validate` still reports the whole document. Over a real local server."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET

import pytest

import arazzo_runner
from arazzo_runner.errors import DocumentError, NotRunnable
from tests.e2e.conftest import PETS_OPENAPI, arazzo_doc
from tests.e2e.execkit import listing, ok200
from tests.e2e.helpers import cli, run_json

GOOD = {"workflowId": "good", "steps": [listing("list", successCriteria=ok200())]}
BROKEN = {  # a literal output: an error of the document, located in workflow 'broken'
    "workflowId": "broken",
    "steps": [listing("list", outputs={"count": "$respons.body#/count"})],
}
NO_PATH = {"workflowId": "nopath", "steps": [{"stepId": "get", "operationId": "getPet"}]}  # no petId
MISSHAPEN = {"workflowId": "misshapen", "steps": [{"operationId": "listPets"}]}  # no stepId


def line_of(path, text: str) -> int:
    """The 1-based line of `path` holding `text`."""
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.fixture
def answering(server):
    server.reply("GET", "/pets", (200, []))
    return server


def test_every_workflow_that_can_run_runs_and_the_others_are_reported_not_run(
    write, answering, capsys, tmp_path
) -> None:
    path = write(arazzo_doc(GOOD, BROKEN, NO_PATH))
    junit, report = tmp_path / "run.xml", tmp_path / "run.json"
    run = run_json(capsys, path, "--junit", junit, "--report-json", report, server=answering)

    assert run.code == 1  # something was not run
    workflows = {w["workflowId"]: w for w in run.json["workflows"]}
    assert [w["workflowId"] for w in run.json["workflows"]] == ["good", "broken", "nopath"]
    assert workflows["good"]["status"] == "passed"
    assert workflows["broken"]["status"] == "not_run" and workflows["broken"]["steps"] == []
    (problem,) = workflows["broken"]["problems"]
    assert (problem["rule"], problem["line"], problem["path"]) == (
        "output-value",
        line_of(path, "count: $respons"),
        "/workflows/1/steps/0/outputs/count",
    )
    assert problem["file"] == str(path)
    assert workflows["nopath"]["problems"][0]["rule"] == "parameter-required"
    assert "path parameter 'petId'" in workflows["nopath"]["error"]["message"]
    assert [r.path for r in answering.requests] == ["/pets"]  # the good workflow's only
    where = f"{path}:{line_of(path, 'count: $respons')}:"
    assert (  # why, on the same line (issue 37, point 2)
        "error: workflow 'broken' is not run: output 'count' is not a runtime expression: "
        "\"$respons.body#/count\" would be returned as it is written; did you mean '$response.body#/count'? "
        f"(output-value at {where}" in run.err
    )
    nopath = "error: workflow 'nopath' is not run: operation 'getPet' requires the path parameter 'petId'"
    assert nopath in run.err

    cases = {c.get("classname"): c for c in ET.parse(junit).getroot().iter("testcase")}
    error = cases["broken"].find("error")
    assert error is not None and error.get("type") == "not-run"
    assert "output-value" in (error.text or "")
    assert f"{path}:{line_of(path, 'count: $respons')}:" in (error.text or "")
    assert json.loads(report.read_text())["workflows"][1]["status"] == "not_run"


def test_the_console_names_each_workflow_not_run_and_counts_them(write, answering, capsys) -> None:
    path = write(arazzo_doc(GOOD, BROKEN))
    run = cli(capsys, "run", path, "--server", f"pets={answering.url}")
    assert run.code == 1
    assert "✗ broken not run (nothing was sent)" in run.out
    where = f"{path}:{line_of(path, 'count: $respons')}:"
    assert f"{where}14: output-value: output 'count' is not a runtime expression" in run.out
    assert run.out.rstrip().endswith("1 of 2 workflows passed, 1 not run")


def test_exit_2_only_when_nothing_could_run(write, answering, capsys) -> None:
    path = write(arazzo_doc(GOOD, BROKEN))
    run = run_json(capsys, path, "--workflow", "broken", server=answering)
    assert run.code == 2
    assert run.json["status"] == "error"
    assert [(e["kind"], e["rule"], e["line"]) for e in run.json["errors"]] == [
        ("validation", "output-value", line_of(path, "count: $respons"))
    ]
    assert "nothing was run" in run.err

    only_broken = write(arazzo_doc(BROKEN, NO_PATH), name="broken.arazzo.yaml")
    run = cli(capsys, "run", only_broken, "--server", f"pets={answering.url}")
    assert run.code == 2
    lines = run.err.splitlines()  # each workflow and why, a line each; then the verdict
    assert len(lines) == 3, run.err
    assert lines[0].startswith("error: workflow 'broken' is not run: output 'count' is not a runtime")
    assert lines[0].endswith(f"(output-value at {only_broken}:{line_of(only_broken, 'count: $respons')}:14)")
    assert lines[1].startswith("error: workflow 'nopath' is not run: operation 'getPet' requires the path")
    assert lines[1].endswith(
        f"(parameter-required at {only_broken}:{line_of(only_broken, '- stepId: get')}:5)"
    )
    assert lines[2] == f"error: {only_broken} has 2 error(s); nothing was run"
    assert answering.requests == []
    assert cli(capsys, "validate", path, "--offline").code == 1  # the document still has the error


def test_a_run_of_a_workflow_that_cannot_reach_the_error_runs(write, answering, capsys) -> None:
    path = write(arazzo_doc(GOOD, BROKEN))
    run = run_json(capsys, path, "--workflow", "good", server=answering)

    assert run.code == 0
    assert [w["workflowId"] for w in run.json["workflows"]] == ["good"]
    assert run.err == ""  # nothing of a workflow the run does not touch (issue 37, point 4)
    assert [r.path for r in answering.requests] == ["/pets"]


@pytest.mark.parametrize(
    "link",
    [
        {"dependsOn": ["broken"]},
        {"steps": [listing("list"), {"stepId": "call", "workflowId": "broken"}]},
        {"steps": [listing("list", onFailure=[{"reference": "$components.failureActions.toBroken"}])]},
        {"failureActions": [{"name": "away", "type": "goto", "workflowId": "broken"}]},
    ],
    ids=["dependsOn", "workflow-step", "component-goto", "workflow-level-goto"],
)
def test_a_workflow_reaching_a_broken_one_is_not_run(write, answering, capsys, link) -> None:
    good = {**copy.deepcopy(GOOD), **link}
    other = {"workflowId": "other", "steps": [listing("list", successCriteria=ok200())]}
    components = {
        "failureActions": {"toBroken": {"name": "toBroken", "type": "goto", "workflowId": "broken"}}
    }
    path = write(arazzo_doc(good, BROKEN, other, components=components))
    run = run_json(capsys, path, server=answering)
    assert run.code == 1, run.err
    status = {w["workflowId"]: w["status"] for w in run.json["workflows"]}
    assert status == {"good": "not_run", "broken": "not_run", "other": "passed"}
    good_result = run.json["workflows"][0]
    assert [p["rule"] for p in good_result["problems"]] == ["output-value"]  # the one it reaches
    assert [r.path for r in answering.requests] == ["/pets"]  # 'other' only

    alone = cli(capsys, "run", path, "--server", f"pets={answering.url}", "--workflow", "good")
    assert alone.code == 2 and "error output-value" in alone.err


def test_a_misshapen_workflow_does_not_stop_the_document_from_loading(write, answering, capsys) -> None:
    path = write(arazzo_doc(GOOD, MISSHAPEN))
    run = run_json(capsys, path, server=answering)
    assert run.code == 1, run.err
    misshapen = run.json["workflows"][1]
    assert misshapen["status"] == "not_run"
    assert "missing required field 'stepId'" in misshapen["problems"][0]["message"]

    refused = cli(capsys, "run", path, "--server", f"pets={answering.url}", "--workflow", "misshapen")
    assert refused.code == 2
    assert "missing required field 'stepId'" in refused.err
    assert [r.path for r in answering.requests] == ["/pets"]


def test_the_library_runs_what_can_run_and_raises_only_when_nothing_can(write, answering) -> None:
    path = write(arazzo_doc(GOOD, MISSHAPEN, BROKEN))
    result = arazzo_runner.run(path, servers={"pets": answering.url})
    assert [(w.workflow_id, w.status) for w in result.workflows] == [
        ("good", "passed"),
        ("misshapen", "not_run"),
        ("broken", "not_run"),
    ]
    assert result.status == "failed" and not result.ok
    assert result.workflow("broken").problems[0]["rule"] == "output-value"
    assert arazzo_runner.run(path, "good", servers={"pets": answering.url}).status == "passed"
    with pytest.raises(DocumentError, match="missing required field 'stepId'"):
        arazzo_runner.run(path, "misshapen", servers={"pets": answering.url})
    with pytest.raises(NotRunnable) as raised:
        arazzo_runner.run(path, ["misshapen", "broken"], servers={"pets": answering.url})
    assert [workflow_id for workflow_id, _ in raised.value.refused] == ["misshapen", "broken"]
    assert [r.path for r in answering.requests] == ["/pets", "/pets"]


def test_a_run_past_an_unreachable_error_does_not_mark_the_document_clean(write, answering, capsys) -> None:
    path = write(arazzo_doc(GOOD, BROKEN))
    for _ in range(2):  # the cache of clean verdicts (on in tests) must not remember this document
        assert run_json(capsys, path, "--workflow", "good", server=answering).code == 0
    refused = cli(capsys, "run", path, "--server", f"pets={answering.url}", "--workflow", "broken")
    assert refused.code == 2
    assert "error output-value" in refused.err


def test_a_malformed_piece_of_a_description_stops_only_the_workflows_calling_it(
    write, answering, capsys
) -> None:
    # As a jentic-public-apis description writes one parameter: `in: None`.
    openapi = copy.deepcopy(PETS_OPENAPI)
    openapi["paths"]["/odd"] = {
        "get": {
            "operationId": "oddOne",
            "parameters": [{"name": "q", "in": "None", "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok"}},
        }
    }
    odd = {"workflowId": "odd", "steps": [{"stepId": "o", "operationId": "oddOne"}]}
    path = write(arazzo_doc(GOOD, odd), openapi=openapi)
    run = run_json(capsys, path, server=answering)
    assert run.code == 1, run.err
    status = {w["workflowId"]: w["status"] for w in run.json["workflows"]}
    assert status == {"good": "passed", "odd": "not_run"}
    (problem,) = run.json["workflows"][1]["problems"]
    assert "parameter 'q' has 'in: None'" in problem["message"]
    assert problem["file"].endswith("pets.openapi.yaml") and problem["line"] > 0
    assert [r.path for r in answering.requests] == ["/pets"]


def at(path, text: str) -> str:
    """`file:line:column` of `text`'s first character in `path`."""
    number = line_of(path, text)
    column = path.read_text().splitlines()[number - 1].index(text) + 1
    return f"{path}:{number}:{column}"


def test_a_refused_workflow_says_why_on_its_own_line_and_which_workflow_it_reaches(
    write, answering, capsys
) -> None:
    caller = {"workflowId": "caller", "steps": [{"stepId": "call", "workflowId": "broken"}]}
    outputs = {"count": "$respons.body#/count", "other": "$respons.body#/x"}
    broken = {"workflowId": "broken", "steps": [listing("list", outputs=outputs)]}
    path = write(arazzo_doc(GOOD, caller, broken))
    run = cli(capsys, "run", path, "--server", f"pets={answering.url}")
    assert run.code == 1
    count = (
        "output 'count' is not a runtime expression: \"$respons.body#/count\" would be returned as it is "
        "written; did you mean '$response.body#/count'?"
    )
    other = (
        "output 'other' is not a runtime expression: \"$respons.body#/x\" would be returned as it is "
        "written; did you mean '$response.body#/x'?"
    )
    first, second = at(path, "$respons.body#/count"), at(path, "$respons.body#/x")
    assert run.err.splitlines() == [
        f"error: workflow 'caller' is not run: it reaches workflow 'broken', which cannot run: {count} "
        f"(output-value at {first})",
        f"{second}: error output-value: {other}",
        f"error: workflow 'broken' is not run: {count} (output-value at {first})",
        f"{second}: error output-value: {other}",
    ]
    assert [r.path for r in answering.requests] == ["/pets"]  # 'good' ran


def test_a_run_notes_forms_of_other_tools_only_in_what_it_reaches(write, answering, capsys) -> None:
    # Jentic's `$steps.list.count` (for `$steps.list.outputs.count`), in workflow 'other' only
    other = {
        "workflowId": "other",
        "steps": [listing("list", outputs={"count": "$response.body#/count"})],
        "outputs": {"n": "$steps.list.count"},
    }
    path = write(arazzo_doc(GOOD, other))
    for _ in range(2):  # and the cache of clean verdicts does not hide the note from a run of 'other'
        quiet = run_json(capsys, path, "--workflow", "good", server=answering)
        assert (quiet.code, quiet.err) == (0, "")
    noted = run_json(capsys, path, "--workflow", "other", server=answering)
    assert noted.err.startswith(f"note: {path} uses forms of other tools (step-output-shorthand 1); ")


BAD_RETRY = {  # a component whose criterion cannot be evaluated: an error located in the component
    "failureActions": {
        "again": {
            "name": "again",
            "type": "retry",
            "retryAfter": 0,
            "retryLimit": 1,
            "criteria": [{"condition": "$statusCode == == 500"}],
        }
    }
}


def test_a_broken_component_stops_the_workflows_using_it_only(write, answering, capsys) -> None:
    uses = [{"reference": "$components.failureActions.again"}]
    user = {"workflowId": "user", "steps": [listing("list", onFailure=uses)]}
    other = {"workflowId": "other", "steps": [listing("list", successCriteria=ok200())]}
    path = write(arazzo_doc(user, other, components=BAD_RETRY))
    run = run_json(capsys, path, server=answering)
    assert run.code == 1, run.err
    status = {w["workflowId"]: w["status"] for w in run.json["workflows"]}
    assert status == {"user": "not_run", "other": "passed"}
    (problem,) = run.json["workflows"][0]["problems"]
    assert problem["rule"] == "condition-syntax"
    assert problem["path"].startswith("/components/failureActions/again/")
    assert [r.path for r in answering.requests] == ["/pets"]  # 'other' only


def test_a_broken_component_no_workflow_uses_stops_none(write, answering, capsys) -> None:
    path = write(arazzo_doc(GOOD, {**GOOD, "workflowId": "again"}, components=BAD_RETRY))
    run = run_json(capsys, path, server=answering)
    assert run.code == 0, run.err
    assert [(w["workflowId"], w["status"]) for w in run.json["workflows"]] == [
        ("good", "passed"),
        ("again", "passed"),
    ]
    assert [r.path for r in answering.requests] == ["/pets", "/pets"]
