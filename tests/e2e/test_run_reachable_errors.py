"""One broken workflow does not block another: `arazzo run -w good` runs when only workflows it cannot
reach have errors (one warning line each on stderr); a run that can reach the error is refused (exit 2,
nothing sent); `arazzo validate` still reports the whole document. Over a real local server."""

from __future__ import annotations

import copy

import pytest

import arazzo_runner
from arazzo_runner.errors import DocumentError
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import listing, ok200
from tests.e2e.helpers import cli, run_json

GOOD = {"workflowId": "good", "steps": [listing("list", successCriteria=ok200())]}
BROKEN = {  # a literal output: an error of the document, located in workflow 'broken'
    "workflowId": "broken",
    "steps": [listing("list", outputs={"count": "$respons.body#/count"})],
}
MISSHAPEN = {"workflowId": "misshapen", "steps": [{"operationId": "listPets"}]}  # no stepId


@pytest.fixture
def answering(server):
    server.reply("GET", "/pets", (200, []))
    return server


def test_a_run_of_a_workflow_that_cannot_reach_the_error_runs(write, answering, capsys) -> None:
    path = write(arazzo_doc(GOOD, BROKEN))
    run = run_json(capsys, path, "--workflow", "good", server=answering)

    assert run.code == 0
    assert [w["workflowId"] for w in run.json["workflows"]] == ["good"]
    assert run.err == (
        f"warning: workflow 'broken' has 1 error(s) and is not run by this run "
        f"(`arazzo validate {path}` lists them)\n"
    )
    assert [r.path for r in answering.requests] == ["/pets"]


def test_a_run_that_reaches_the_error_is_refused(write, answering, capsys) -> None:
    path = write(arazzo_doc(GOOD, BROKEN))
    for argv in (["--workflow", "broken"], []):  # selected, or every workflow
        run = cli(capsys, "run", path, "--server", f"pets={answering.url}", *argv)
        assert run.code == 2
        assert "error output-value" in run.err and "nothing was run" in run.err
    assert answering.requests == []
    assert cli(capsys, "validate", path, "--offline").code == 1  # the document still has the error


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
def test_every_way_of_reaching_a_workflow_counts(write, answering, capsys, link) -> None:
    good = {**copy.deepcopy(GOOD), **link}
    components = {
        "failureActions": {"toBroken": {"name": "toBroken", "type": "goto", "workflowId": "broken"}}
    }
    path = write(arazzo_doc(good, BROKEN, components=components))
    run = cli(capsys, "run", path, "--server", f"pets={answering.url}", "--workflow", "good")
    assert run.code == 2, run.err
    assert "error output-value" in run.err
    assert answering.requests == []


def test_a_misshapen_workflow_does_not_stop_the_document_from_loading(write, answering, capsys) -> None:
    path = write(arazzo_doc(GOOD, MISSHAPEN))
    run = run_json(capsys, path, "--workflow", "good", server=answering)
    assert run.code == 0, run.err
    assert "warning: workflow 'misshapen' has 1 error(s)" in run.err

    refused = cli(capsys, "run", path, "--server", f"pets={answering.url}", "--workflow", "misshapen")
    assert refused.code == 2
    assert "missing required field 'stepId'" in refused.err
    assert [r.path for r in answering.requests] == ["/pets"]


def test_the_library_runs_the_good_workflow_and_refuses_the_misshapen_one(write, answering) -> None:
    path = write(arazzo_doc(GOOD, MISSHAPEN))
    result = arazzo_runner.run(path, "good", servers={"pets": answering.url})
    assert result.status == "passed"
    with pytest.raises(DocumentError, match="missing required field 'stepId'"):
        arazzo_runner.run(path, "misshapen", servers={"pets": answering.url})
    assert [r.path for r in answering.requests] == ["/pets"]


def test_a_run_past_an_unreachable_error_does_not_mark_the_document_clean(write, answering, capsys) -> None:
    path = write(arazzo_doc(GOOD, BROKEN))
    for _ in range(2):  # the cache of clean verdicts (on in tests) must not remember this document
        assert run_json(capsys, path, "--workflow", "good", server=answering).code == 0
    refused = cli(capsys, "run", path, "--server", f"pets={answering.url}", "--workflow", "broken")
    assert refused.code == 2
    assert "error output-value" in refused.err


def test_a_shared_inputs_schema_that_is_not_an_object_stops_only_its_workflows(
    write, answering, capsys
) -> None:
    # As Redocly's reusable-components fixture writes it: inputs $ref a components.inputs string schema.
    odd = {"workflowId": "odd", "inputs": {"$ref": "#/components/inputs/text"}, "steps": [listing("list")]}
    path = write(arazzo_doc(GOOD, odd, components={"inputs": {"text": {"type": "string"}}}))

    run = run_json(capsys, path, "--workflow", "good", server=answering)
    assert run.code == 0, run.err
    assert "warning: workflow 'odd' has 1 error(s)" in run.err
    refused = cli(capsys, "run", path, "--server", f"pets={answering.url}", "--workflow", "odd")
    assert refused.code == 2
    assert "error inputs-schema: the inputs schema of workflow 'odd' has type string" in refused.err
    assert [r.path for r in answering.requests] == ["/pets"]
