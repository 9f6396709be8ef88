"""The runs of a trusted `--inputs-file` batch (issue 43, sixth round: every row passed the check pass, and
the rows run are the rows checked) reuse what the first run's checks found and only have their inputs
validated (`preflight.BatchChecks.trusted_inputs`); each must still be the run a row alone would be. A
row written to the file after the check pass is checked whole in its run, its inputs' names too."""

from __future__ import annotations

from tests.e2e.helpers import run_json
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
