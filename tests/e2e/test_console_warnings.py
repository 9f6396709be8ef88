"""Console warnings are for things to act on: an output that is null because its branch was not taken
(a step that did not run, a member the response does not have), and an optional parameter left out with
the declared input it reads, which was not given, are shown only with --verbose, and kept in the JSON
(test_console_left_out.py has the parameters that stay loud)."""

from __future__ import annotations

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, workflow

NULL_STEP_OUTPUT = "output 'tag': $response.body#/tag: "
NULL_WORKFLOW_OUTPUT = "workflow output 'later': step 'never' has not run"
NOT_SENT = "parameter 'X-Trace' (in header) not sent: "


def _doc() -> dict:
    get = op_step(
        "get",
        "getPet",
        parameters=[
            {"name": "petId", "in": "path", "value": "1"},
            {"name": "X-Trace", "in": "header", "value": "$inputs.trace"},
        ],
        outputs={
            "name": "$response.body#/name",
            "tag": "$response.body#/tag",  # the response has no tag: null as a whole
        },
        onSuccess=[{"name": "done", "type": "end"}],
    )
    never = op_step("never", "listPets", outputs={"x": "$statusCode"})  # after the end: never runs
    inputs = {"type": "object", "properties": {"trace": {"type": "string"}}}
    outputs = {"name": "$steps.get.outputs.name", "later": "$steps.never.outputs.x"}
    return arazzo_doc(workflow("flow", get, never, inputs=inputs, outputs=outputs))


def _warning_lines(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.strip().startswith("warning:")]


def test_null_outputs_are_not_warnings_in_the_default_output(capsys, write, server):
    server.reply("GET", "/pets/1", (200, {"name": "rex"}))
    result = cli(capsys, "run", write(_doc()), "--server", f"pets={server.url}")
    assert result.code == 0, result.err
    warnings = _warning_lines(result.out)
    assert [w for w in warnings if NULL_STEP_OUTPUT in w or NULL_WORKFLOW_OUTPUT in w] == []
    assert [w for w in warnings if NOT_SENT in w] == []  # input 'trace' is declared: left out by choice
    assert "    later: null" in result.out  # the value itself is still shown


def test_verbose_shows_them(capsys, write, server):
    server.reply("GET", "/pets/1", (200, {"name": "rex"}))
    result = cli(capsys, "run", write(_doc()), "--server", f"pets={server.url}", "--verbose")
    assert result.code == 0, result.err
    warnings = _warning_lines(result.out)
    assert any(NULL_STEP_OUTPUT in w for w in warnings), result.out
    assert any(NULL_WORKFLOW_OUTPUT in w for w in warnings), result.out
    assert f"warning: {NOT_SENT}input 'trace' was not provided" in warnings, result.out


def test_the_json_keeps_them(capsys, write, server):
    server.reply("GET", "/pets/1", (200, {"name": "rex"}))
    result = run_json(capsys, write(_doc()), server=server)
    assert result.code == 0, result.err
    flow = result.json["workflows"][0]
    step = flow["steps"][0]
    assert step["outputs"]["tag"] is None
    assert any(w.startswith(NULL_STEP_OUTPUT) for w in step["warnings"])
    assert any(w.startswith(NOT_SENT) for w in step["warnings"])
    assert flow["outputs"] == {"name": "rex", "later": None}
    assert [w for w in flow["warnings"] if w.startswith(NULL_WORKFLOW_OUTPUT)]
