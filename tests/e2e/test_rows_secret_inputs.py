"""A row's secret inputs of any type (a numeric `format: password` input) in its header and entry: a row
whose values are all flat (no object, no `@`) and no secret text known is still shown with them as
`***`, and `--no-mask` shows them as they are (nothing masked, by name or by value). A real local
server."""

from __future__ import annotations

import json

from tests.e2e.helpers import cli
from tests.e2e.test_secrets_members import PIN, _serve, _write
from tests.servers.scripted import ScriptedServer


def _run(tmp_path, capsys, *extra):
    path = _write(tmp_path)
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"pin": PIN, "name": "bob"}) + "\n")
    with ScriptedServer() as server:
        _serve(server)
        base = ("run", path, "--workflow", "flow", "--server", f"api={server.url}", "--inputs-file", rows)
        text = cli(capsys, *base, *extra)
        data = cli(capsys, *base, "--format", "json", *extra)
        assert [r.json()["pin"] for r in server.requests] == [PIN, PIN]  # sent, twice
    assert text.code == 0 and data.code == 0, text.out + text.err + data.out
    (entry,) = json.loads(data.out)["rows"]
    return text.out.splitlines()[0], entry["inputs"], text.out + text.err + data.out + data.err


def test_a_flat_rows_secret_number_is_masked_when_no_secret_text_is_known(tmp_path, capsys):
    header, inputs, printed = _run(tmp_path, capsys)
    assert header == "== row 1 (line 1): pin=***, name=bob"
    assert inputs == {"pin": "***", "name": "bob"}
    assert str(PIN) not in printed


def test_no_mask_shows_a_rows_secret_number_as_it_is(tmp_path, capsys):
    header, inputs, _ = _run(tmp_path, capsys, "--no-mask")
    assert header == f"== row 1 (line 1): pin={PIN}, name=bob"
    assert inputs == {"pin": PIN, "name": "bob"}
