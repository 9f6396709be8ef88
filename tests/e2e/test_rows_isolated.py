"""Rows of `--inputs-file` share what is the same for every row (issue 43, sixth round: the options of the
flags copied from one template, the run's checks found by the first row of a trusted batch), never what
is a row's own: each row's inputs are validated for its run alone (its defaults applied), its secrets
are its own (a value one row gives as a `format: password` input is not masked in another row that gives
it as plain text), and each sends only its own credentials."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow

INPUTS = {
    "type": "object",
    "required": ["petId"],
    "properties": {
        "petId": {"type": "integer"},
        "password": {"type": "string", "format": "password"},
        "note": {"type": "string"},
        "label": {"type": "string", "default": "dflt"},
    },
}
ROWS = (
    '{"petId": 1, "password": "first-row-secret", "label": "one"}\n'
    '{"petId": 2, "note": "first-row-secret"}\n'
    '{"petId": 3, "password": "third-row-secret", "note": "shown"}\n'
)


def _doc() -> dict:
    get = op_step(
        "get",
        "getPet",
        parameters=[
            {"name": "petId", "in": "path", "value": "$inputs.petId"},
            {"name": "X-Trace", "in": "header", "value": "$inputs.password"},
        ],
        successCriteria=[{"condition": "$statusCode == 200"}],
    )
    outputs = {"label": "$inputs.label", "note": "$inputs.note"}
    return arazzo_doc(workflow("flow", get, inputs=INPUTS, outputs=outputs))


@pytest.mark.parametrize("concurrency", ["1", "3"])
def test_each_row_has_its_own_inputs_defaults_secrets_and_credentials(
    capsys, write, server, tmp_path, concurrency
):
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    rows = tmp_path / "rows.jsonl"
    rows.write_text(ROWS)
    result = cli(capsys, "run", write(_doc()), "--server", f"pets={server.url}", "--inputs-file", rows,
                 "--concurrency", concurrency)  # fmt: skip
    assert result.code == 0, result.err
    texts = {int(part.split(" ", 1)[0]): part for part in result.out.split("== row ")[1:]}
    assert sorted(texts) == [1, 2, 3]
    assert texts[1].startswith("1 (line 1): petId=1, password=***, label=one\n")
    assert '    label: "one"\n' in texts[1]
    # row 1's password is row 1's secret alone: row 2 gives the same text as a plain input, shown
    assert texts[2].startswith("2 (line 2): petId=2, note=first-row-secret\n")
    assert '    label: "dflt"\n' in texts[2]  # its default, applied in its own run
    assert '    note: "first-row-secret"\n' in texts[2]
    assert texts[3].startswith("3 (line 3): petId=3, password=***, note=shown\n")
    assert "third-row-secret" not in result.out
    assert "first-row-secret" not in texts[1] + texts[3]
    sent = sorted((r.path, r.headers.get("x-trace")) for r in server.requests)
    assert sent == [("/pets/1", "first-row-secret"), ("/pets/2", None), ("/pets/3", "third-row-secret")]
