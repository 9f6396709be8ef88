"""The runs of a trusted `--inputs-file` batch (issue 43, sixth round: every row passed the check pass, and
the rows run are the rows checked) reuse what the first run's checks found and only have their inputs
validated (`preflight.BatchChecks.trusted_inputs`); each must still be the run a row alone would be. A
row written to the file after the check pass is checked whole in its run, its inputs' names too."""

from __future__ import annotations

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, run_json, workflow
from tests.e2e.test_rows_checked_once import _doc


def test_a_row_written_while_the_rows_run_with_a_misspelled_input_is_a_usage_error_naming_it(
    capsys, write, server, tmp_path
):
    """The batch is no longer trusted once its file changed: the appended row's run checks its inputs'
    names, as the check pass would have (`trace` misspelled: a usage error, not an input ignored), and
    the error names the row, as the check pass's do."""
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"petId": 1}\n{"petId": 2}\n')

    @server.route("GET", "/pets/{id}")
    def pet(request):
        if request.params["id"] == "1":  # row 1's request: a row with a misspelled name is appended
            with rows.open("a") as more:
                more.write('{"petId": 3, "tarce": "row"}\n')
        return 200, {"name": "pet"}

    result = run_json(capsys, write(_doc()), "--inputs-file", rows, "--concurrency", "1", server=server)
    assert result.code == 2, result.out
    [error] = result.json["errors"]
    assert error["kind"] == "usage"
    assert error["message"].startswith("unknown input 'tarce': did you mean 'trace'?\n")
    assert error["message"].endswith(" (--inputs-file row 3, line 3)")
    assert [r.path for r in server.requests] == ["/pets/1", "/pets/2"]  # row 3 sent nothing


def _get(step_id: str) -> dict:
    return op_step(step_id, "getPet", parameters=[{"name": "petId", "in": "path", "value": "$inputs.petId"}])


def _inputs(**properties: dict) -> dict:
    return {"type": "object", "properties": {"petId": {"type": "integer"}, **properties}}


def test_each_trusted_run_of_several_workflows_is_the_run_of_its_row_alone(capsys, write, server, tmp_path):
    """Rows 2 and 3 reuse row 1's checks: each workflow still gets only the inputs its schema declares
    (`b` reads no `secret`, `a` no `note`), and a workflow the admission refuses (`c`: an output naming
    no step) has its inputs left alone as in row 1's run, its `format: password` not making `a`'s plain
    `secret` a secret: the rows' outputs are row 1's."""
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    plain = {"type": "string"}
    a = workflow(
        "a",
        _get("ga"),
        inputs=_inputs(secret=plain),
        outputs={"secret": "$inputs.secret", "note": "$inputs.note"},
    )
    b = workflow(
        "b",
        _get("gb"),
        inputs=_inputs(note=plain),
        outputs={"note": "$inputs.note", "secret": "$inputs.secret"},
    )
    password = {"type": "string", "format": "password"}
    c = workflow("c", _get("gc"), inputs=_inputs(secret=password), outputs={"x": "$steps.nope.outputs.y"})
    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        "".join(f'{{"petId": {n}, "note": "row-note", "secret": "row-secret"}}\n' for n in (1, 2, 3))
    )
    path = write(arazzo_doc(a, b, c))
    selected = ("-w", "a", "-w", "b", "-w", "c", "--concurrency", "1")
    result = run_json(capsys, path, "--inputs-file", rows, *selected, server=server)
    assert result.code == 1, result.err  # `c` is not run
    assert "workflow 'c' is not run: $steps.nope.outputs.y: workflow 'c' has no step 'nope'" in result.err
    seen = [
        [(w["workflowId"], w["status"], w["outputs"]) for w in row["result"]["workflows"]]
        for row in result.json["rows"]
    ]
    expected = [
        ("a", "passed", {"secret": "row-secret", "note": None}),
        ("b", "passed", {"note": "row-note", "secret": None}),
        ("c", "not_run", {}),
    ]
    assert seen == [expected] * 3
    assert sorted(r.path for r in server.requests) == [f"/pets/{n}" for n in (1, 1, 2, 2, 3, 3)]


def test_a_trusted_run_knows_its_dependencys_secret_inputs_before_its_first_step(
    capsys, write, server, tmp_path
):
    """`a` depends on `dep`, whose `secret` is a `format: password` input; `b`, run first, sends the same
    value as a plain input of its own. Row 1's checks read the dependency's inputs before the run, so
    the value is a secret from its first line on (`b`'s header in the trace, before `dep` runs); the
    trusted runs of rows 2 and 3 must read them too."""
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    password = {"type": "string", "format": "password"}
    path_id = {"name": "petId", "in": "path", "value": "$inputs.petId"}
    header = {"name": "X-Secret", "in": "header", "value": "$inputs.secret"}
    sent = op_step("gb", "getPet", parameters=[path_id, header])
    dep = workflow("dep", _get("gd"), inputs=_inputs(secret=password))
    a = workflow("a", _get("ga"), dependsOn=["dep"], inputs=_inputs())
    b = workflow("b", sent, inputs=_inputs(secret={"type": "string"}))
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(f'{{"petId": {n}, "secret": "row-secret"}}\n' for n in (1, 2, 3)))
    path = write(arazzo_doc(dep, a, b))
    flags = ("--server", f"pets={server.url}", "-w", "b", "-w", "a", "--concurrency", "2", "--verbose")
    result = cli(capsys, "run", path, "--inputs-file", rows, *flags)
    assert result.code == 0, result.err
    assert "row-secret" not in result.out
    assert result.out.count("    > X-Secret: ***\n") == 3
    sent_to_2 = sorted(str(r.headers.get("x-secret")) for r in server.requests if r.path == "/pets/2")
    assert sent_to_2 == ["None", "None", "row-secret"]  # the value sent as given, masked only where shown
