"""A row's header is a line of text like the console's others: a number in it whose text is a secret's is
masked by value as the step's line masks the same text in the URL (`petId=***`, `/pets/***`); the row's
entry in the JSON document is data, where a number is never masked by value (docs/semantics.md, *Reports
and masking*). A real local server records what was sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.e2e.helpers import cli
from tests.servers.scripted import ScriptedServer

OPENAPI = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/pets/{petId}": {
            "get": {
                "operationId": "pet",
                "parameters": [
                    {"name": "petId", "in": "path", "required": True, "schema": {"type": "integer"}},
                    {"name": "X-Key", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}
DOCUMENT = {
    "arazzo": "1.1.0",
    "info": {"title": "t", "version": "1"},
    "sourceDescriptions": [{"name": "api", "url": "./api.openapi.yaml", "type": "openapi"}],
    "workflows": [
        {
            "workflowId": "flow",
            "inputs": {
                "type": "object",
                "properties": {
                    "petId": {"type": "integer"},
                    "tags": {"type": "array"},
                    "password": {"type": "string", "format": "password"},
                },
            },
            "steps": [
                {
                    "stepId": "s",
                    "operationId": "pet",
                    "parameters": [
                        {"name": "petId", "in": "path", "value": "$inputs.petId"},
                        {"name": "X-Key", "in": "header", "value": "$inputs.password"},
                    ],
                    "successCriteria": [{"condition": "$statusCode == 200"}],
                }
            ],
        }
    ],
}


def _write(folder: Path) -> Path:
    (folder / "api.openapi.yaml").write_text(yaml.safe_dump(OPENAPI, sort_keys=False))
    path = folder / "flow.arazzo.yaml"
    path.write_text(yaml.safe_dump(DOCUMENT, sort_keys=False))
    return path


def _run_text_and_json(tmp_path: Path, capsys, row: dict) -> tuple[Any, Any, list[str]]:
    """The one row run twice against a real server, as text and as `--format json`: (text, json, the
    paths the server was asked)."""
    path = _write(tmp_path)
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(row) + "\n")
    with ScriptedServer() as server:
        server.route("GET", "/pets/{petId}")(lambda request: (200, {"ok": True}))
        run = ("run", path, "--server", f"api={server.url}", "--inputs-file", rows)
        text, data = cli(capsys, *run), cli(capsys, *run, "--format", "json")
        asked = [r.path for r in server.requests]
    assert text.code == 0 and data.code == 0, text.out + text.err + data.out
    return text, data, asked


def test_a_number_in_a_rows_header_whose_text_is_a_secret_is_masked_as_the_step_line_masks_it(
    tmp_path, capsys
):
    row = {"petId": 1234, "tags": [7, 1234], "password": "1234"}
    text, data, asked = _run_text_and_json(tmp_path, capsys, row)
    assert asked == ["/pets/1234", "/pets/1234"]  # sent as given
    lines = text.out.splitlines()
    assert lines[0] == '== row 1 (line 1): petId=***, tags=[7, "***"], password=***'
    assert "GET http://127.0.0.1:" in lines[2] and "/pets/***  200" in lines[2]
    assert "1234" not in text.out + text.err
    (entry,) = json.loads(data.out)["rows"]
    assert entry["inputs"] == {"petId": 1234, "tags": [7, 1234], "password": "***"}  # data: numbers stay
    assert entry["result"]["workflows"][0]["steps"][0]["request"]["url"].endswith("/pets/***")


def test_a_float_in_a_rows_header_whose_text_holds_a_secret_is_masked_as_text(tmp_path, capsys):
    """A float is a number like an int: written into the header's text, its text (`1234.5`) masked where
    it holds a secret's (`***.5`); the entry keeps it as data."""
    text, data, _ = _run_text_and_json(
        tmp_path, capsys, {"petId": 7, "tags": [1234.5, 2.5], "password": "1234"}
    )
    assert text.out.splitlines()[0] == '== row 1 (line 1): petId=7, tags=["***.5", 2.5], password=***'
    assert "1234" not in text.out + text.err
    (entry,) = json.loads(data.out)["rows"]
    assert entry["inputs"] == {"petId": 7, "tags": [1234.5, 2.5], "password": "***"}
