"""An output that is not a runtime expression. A misspelt expression (`$respons.body#/count`) is never
returned as its own text: `arazzo run` refuses the document (exit 2, nothing sent) and the library refuses
to compile it. Literal text (`Done`: one meaning, no MUST forbids it) runs, returned as written, with a
warning; `arazzo validate` warns (issue 37 item 14)."""

from __future__ import annotations

import json

import pytest

import arazzo_runner
from arazzo_runner.errors import DocumentError
from tests.e2e.conftest import arazzo_doc
from tests.e2e.execkit import listing, ok200
from tests.e2e.helpers import cli, run_json


def _doc(count: str, **workflow: object) -> dict:
    step = listing("list", successCriteria=ok200(), outputs={"count": count})
    return arazzo_doc({"workflowId": "w", "steps": [step], **workflow})


def test_the_command_line_refuses_a_misspelt_output_and_sends_nothing(write, server, capsys) -> None:
    server.reply("GET", "/pets", (200, {"count": 3}))
    path = write(_doc("$respons.body#/count"))

    run = run_json(capsys, path, server=server)
    assert run.code == 2
    (error,) = json.loads(run.out)["errors"]  # --format json: the error document names the finding
    assert (error["kind"], error["rule"]) == ("validation", "output-value")
    assert f"{path}:" in run.err
    assert "error output-value: output 'count' is not a runtime expression" in run.err
    assert "did you mean '$response.body#/count'?" in run.err
    assert server.requests == []


def test_the_corrected_output_runs_and_returns_the_value(write, server, capsys) -> None:
    server.reply("GET", "/pets", (200, {"count": 3}))
    run = run_json(capsys, write(_doc("$response.body#/count")), server=server)
    assert run.code == 0, run.err
    assert run.json["workflows"][0]["steps"][0]["outputs"] == {"count": 3}


def test_a_literal_output_runs_returned_as_written_with_a_warning(write, server, capsys) -> None:
    server.reply("GET", "/pets", (200, {"count": 3}))
    outputs = {"count": "$response.body#/count", "note": "Done"}
    step = listing("list", successCriteria=ok200(), outputs=outputs)
    path = write(arazzo_doc({"workflowId": "w", "steps": [step], "outputs": {"searchProcessed": "Done"}}))
    run = cli(capsys, "run", path, "--server", f"pets={server.url}", "--format", "json")
    assert run.code == 0, run.err
    (workflow,) = run.json["workflows"]
    assert workflow["outputs"] == {"searchProcessed": "Done"}
    assert workflow["steps"][0]["outputs"] == {"count": 3, "note": "Done"}
    # said on the step and the workflow, in JSON spelling; once each
    assert workflow["steps"][0]["warnings"] == [
        "output 'note' is not a runtime expression: \"Done\" is returned as it is written "
        "(an output is an expression such as $response.body#/id)"
    ]
    assert workflow["warnings"] == [
        "output 'searchProcessed' is not a runtime expression: \"Done\" is returned as it is written "
        "(an output is an expression such as $response.body#/id)"
    ]
    assert len(server.requests) == 1
    shown = cli(capsys, "run", path, "--server", f"pets={server.url}")
    assert shown.code == 0, shown.err
    assert "output 'searchProcessed' is not a runtime expression" in shown.out + shown.err
    # the judge keeps the rule, as a warning: the document is valid, with two warnings
    judged = cli(capsys, "validate", path, "--offline", "--format", "json")
    assert judged.code == 0
    assert [(f["rule"], f["severity"]) for f in judged.json["findings"]] == [("output-value", "warning")] * 2
    assert cli(capsys, "validate", path, "--offline", "--strict").code == 1


def test_a_null_output_is_spelt_null(write, server, capsys) -> None:
    # YAML `x:` is null: returned as null, and the warning spells it so (not Python's `None`)
    server.reply("GET", "/pets", (200, {"count": 3}))
    step = listing("list", successCriteria=ok200(), outputs={"nothing": None})
    run = cli(capsys, "run", write(_doc_of(step)), "--server", f"pets={server.url}", "--format", "json")
    assert run.code == 0, run.err
    (found,) = run.json["workflows"][0]["steps"]
    assert found["outputs"] == {"nothing": None}
    assert found["warnings"][0].startswith("output 'nothing' is not a runtime expression: null is returned")


def _doc_of(step: dict) -> dict:
    return arazzo_doc({"workflowId": "w", "steps": [step]})


def test_an_output_name_the_specification_forbids_runs_with_a_warning(write, server, capsys) -> None:
    # an error for `arazzo validate` (a MUST); its meaning is not in doubt, so a run goes on (issue 22)
    server.reply("GET", "/pets", (200, [{"id": 1}]))
    step = listing("list", outputs={"first pet": "$response.body#/0"})
    path = write(arazzo_doc({"workflowId": "w", "steps": [step]}))
    run = cli(capsys, "run", path, "--server", f"pets={server.url}", "--format", "json")
    assert run.code == 0, run.err
    assert "warning output-name: output name 'first pet' must match" in run.err
    assert run.json["workflows"][0]["steps"][0]["outputs"] == {"first pet": {"id": 1}}
    assert cli(capsys, "validate", path, "--offline").code == 1


def test_the_library_refuses_to_run_a_literal_output(write, server) -> None:
    path = write(_doc("$respons.body#/count"))
    with pytest.raises(DocumentError) as caught:
        arazzo_runner.run(path, servers={"pets": server.url})
    assert caught.value.line is not None and caught.value.file == str(path)
    assert "output 'count' is not a runtime expression" in caught.value.message
    assert "did you mean '$response.body#/count'?" in caught.value.message
    assert server.requests == []
