"""A row's header (`== row N (line L): ...`) shows the row's values as they are only when masking could
change none of them (`batch_text._flat_without_at`): a URL's password in a list of the row, or in a
key, is masked as the rest of the run masks it (mutation round 52: a header taking a list, or a key
with an `@`, as flat passed every test)."""

from __future__ import annotations

from types import SimpleNamespace

from arazzo_runner.cli.batch_text import header
from arazzo_runner.masking.secrets import Masker
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, op_step, workflow

SCHEMA = {
    "type": "object",
    "required": ["petId"],
    "properties": {"petId": {"type": "integer"}, "mirrors": {"type": "array", "items": {"type": "string"}}},
}


def test_a_urls_password_in_a_rows_list_is_masked_in_its_header(capsys, write, server, tmp_path):
    @server.route("GET", "/pets/{id}")
    def pet(request):
        return 200, {"name": f"pet-{request.params['id']}"}

    get = op_step(
        "get",
        "getPet",
        parameters=[{"name": "petId", "in": "path", "value": "$inputs.petId"}],
        successCriteria=[{"condition": "$statusCode == 200"}],
    )
    path = write(arazzo_doc(workflow("flow", get, inputs=SCHEMA)))
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"petId": 1, "mirrors": ["https://user:pw-in-list@m.example/x"]}\n{"petId": 2}\n')
    result = cli(capsys, "run", path, "--server", f"pets={server.url}", "--inputs-file", rows)
    assert result.code == 0, result.err
    headers = [line for line in result.out.splitlines() if line.startswith("== row")]
    assert headers == [
        '== row 1 (line 1): petId=1, mirrors=["https://user:***@m....',
        "== row 2 (line 2): petId=2",
    ]
    assert "pw-in-list" not in result.out


def test_a_urls_password_in_a_rows_key_is_masked_in_its_header():
    row = SimpleNamespace(number=1, line=1, values={"via https://u:pw-in-key@h": 1})
    assert header(row, Masker(), []) == "== row 1 (line 1): via https://u:***@h=1"
    row.values = {"list": ["https://u:pw@h"]}
    assert header(row, Masker(), [1]) == '\n== row 1 (line 1): list=["https://u:***@h"]'
    row.values = {"n": {"u": "http://u:pw@h"}}  # short enough to be shown whole
    assert header(row, Masker(), [1]) == '\n== row 1 (line 1): n={"u": "http://u:***@h"}'
