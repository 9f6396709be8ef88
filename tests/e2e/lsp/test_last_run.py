"""`arazzo lsp` hover: the value an expression had in the last run, from the `--report-json` file beside
the document (`<name>.report.json`, else `report.json`): a real `arazzo run` against a real local server
writes the report, then the hover shows the values, a secret masked, and says when they may be stale."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from lsprotocol import types

from tests.servers.scripted import ScriptedServer

from .kit import SERVER, change, open_document, position_of, server_env, wait_diagnostics

pytestmark = pytest.mark.asyncio

NAMES = {"7": "Rex", "8": "Fido"}
SECRET = "tok-5ecret-value"
# a secret input (`format: password`) sent in a header: the report masks it
TOKEN_INPUT = (
    "        petId:\n          type: integer\n"
    "        token:\n          type: string\n          format: password\n"
)
TOKEN_PARAMETER = (
    "            value: $inputs.petId\n"
    "          - name: X-Trace\n            in: header\n            value: $inputs.token\n"
)


def _document(folder) -> str:
    path = folder / "adopt.yaml"
    text = path.read_text()
    text = text.replace("        petId:\n          type: integer\n", TOKEN_INPUT)
    text = text.replace("            value: $inputs.petId\n", TOKEN_PARAMETER)
    path.write_text(text)
    return text


def _run(folder, report: str, *arguments: str) -> None:
    """`arazzo run adopt.yaml --report-json REPORT` in `folder`, against a real server naming pets by id."""
    with ScriptedServer() as server:

        @server.route("GET", "/pets/{id}")
        def pet(request):
            return 200, {"id": int(request.params["id"]), "name": NAMES[request.params["id"]]}

        server.reply("GET", "/pets", (200, []))
        command = [*SERVER[:-2], "run", "adopt.yaml", "--server", f"pets={server.url}"]
        command += ["--report-json", report, "--github", "off", *arguments]
        proc = subprocess.run(
            command, cwd=folder, env=server_env(), capture_output=True, text=True, timeout=300
        )
    assert proc.returncode == 0, proc.stdout + proc.stderr


async def _hover(client, uri: str, text: str, needle: str, shift: int = 1, nth: int = 0) -> str | None:
    at = position_of(text, needle, shift, nth)
    found = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), at))
    return None if found is None else found.contents.value


async def test_hover_shows_the_last_runs_values_masked_and_says_when_stale(client):
    folder = client.folder
    text = _document(folder)
    uri = await open_document(client, folder / "adopt.yaml")
    assert await _hover(client, uri, text, "$statusCode") is None  # no report yet: no value
    _run(folder, "adopt.report.json", "--input", "petId=7", "--input", f"token={SECRET}")

    shown = await _hover(client, uri, text, "$statusCode")
    assert shown.startswith("**last run**: `$statusCode` = `200`\n\nstep `find`, from `adopt.report.json` (")
    assert "stale" not in shown
    shown = await _hover(client, uri, text, "$response.body#/name", len("$response.body#/n"))
    assert shown.startswith("**`$response.body#/name`**: string")  # the schema, then the value
    assert '---\n\n**last run**: `$response.body#/name` = `"Rex"`\n\nstep `find`' in shown
    shown = await _hover(client, uri, text, "$inputs.token")
    assert shown.startswith("**input `token`**") and '= `"***"`' in shown and SECRET not in shown
    shown = await _hover(client, uri, text, "$steps.find.outputs.name", nth=1)  # the workflow's output
    assert shown.startswith('**last run**: `$steps.find.outputs.name` = `"Rex"`\n\nstep `find`')
    shown = await _hover(client, uri, text, "name: $response", 0)  # the output's name
    assert shown.startswith('**last run**: output `name` = `"Rex"`')

    change(client, uri, 2, text + "\n")
    await wait_diagnostics(client, uri, 2)
    shown = await _hover(client, uri, text, "$statusCode")
    assert shown.endswith("_The document has unsaved changes since this run: the value may be stale._")
    report = folder / "adopt.report.json"
    os.utime(folder / "adopt.yaml", ns=(report.stat().st_mtime_ns + 10**9,) * 2)
    shown = await _hover(client, uri, text, "$statusCode")
    assert shown.endswith("_The document was saved after this run: the value may be stale._")


async def test_the_last_execution_of_the_step_is_shown_and_another_documents_report_is_not(client):
    folder = client.folder
    text = _document(folder)
    rows = folder / "rows.jsonl"
    rows.write_text("".join(json.dumps({"petId": int(k), "token": SECRET}) + "\n" for k in NAMES))
    _run(folder, "report.json", "--inputs-file", "rows.jsonl")
    uri = await open_document(client, folder / "adopt.yaml")
    shown = await _hover(client, uri, text, "$steps.find.outputs.name", nth=1)
    assert shown.startswith('**last run**: `$steps.find.outputs.name` = `"Fido"`')  # the second row's
    assert "from `report.json`" in shown

    other = folder / "other.yaml"
    other.write_text(text)
    other_uri = await open_document(client, other)
    assert await _hover(client, other_uri, text, "$statusCode") is None  # report.json is adopt.yaml's
    (folder / "other.report.json").write_text("{not json")
    assert await _hover(client, other_uri, text, "$statusCode") is None
