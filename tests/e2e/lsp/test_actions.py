"""`arazzo lsp`: each `validate --fix` fix as a quick fix, fix all, and "run this workflow" as a command
returning the result's summary (against a real local server)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from arazzo_runner.validate.fix import fix_path
from tests.servers.scripted import ScriptedServer

from .kit import change, open_document, range_of, wait_diagnostics

pytestmark = pytest.mark.asyncio


def _fixable(text: str) -> str:
    """Two findings `--fix` fixes: Respect's `<source>.<operationId>`, and an unquoted template."""
    text = text.replace("operationId: getPet", "operationId: pets.getPet")
    return text.replace("value: $inputs.petId", "value: {$inputs.petId}")


def _apply(text: str, edit: types.TextEdit) -> str:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    start = offsets[edit.range.start.line] + edit.range.start.character
    end = offsets[edit.range.end.line] + edit.range.end.character
    return text[:start] + edit.new_text + text[end:]


async def test_each_fix_is_a_quick_fix_and_fix_all_is_validate_fix(client):
    path = client.folder / "adopt.yaml"
    text = _fixable(path.read_text())
    uri = await open_document(client, path, text)
    found = {d.code: d for d in client.diagnostics[uri]}
    assert set(found) == {"operation-id-source-prefix", "unquoted-template"}

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=found["operation-id-source-prefix"].range,
            context=types.CodeActionContext(
                diagnostics=[found["operation-id-source-prefix"]], only=[types.CodeActionKind.QuickFix]
            ),
        )
    )
    [fix] = actions
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.title == "Fix operation-id-source-prefix: 'pets.getPet' -> '$sourceDescriptions.pets.getPet'"
    [edit] = fix.edit.changes[uri]
    start = range_of(text, "pets.getPet").start  # only what changes: the text put before the id
    assert (edit.range, edit.new_text) == (types.Range(start, start), "$sourceDescriptions.")
    fixed_one = _apply(text, edit)
    assert fixed_one == text.replace("pets.getPet", "$sourceDescriptions.pets.getPet")
    change(client, uri, 2, fixed_one)
    assert [d.code for d in await wait_diagnostics(client, uri, version=2)] == ["unquoted-template"]

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=types.Range(types.Position(0, 0), types.Position(0, 0)),
            context=types.CodeActionContext(diagnostics=[], only=["source.fixAll"]),
        )
    )
    [fix_all] = actions
    assert fix_all.kind == "source.fixAll.arazzo" and fix_all.edit is None  # computed when chosen
    resolved = await client.code_action_resolve_async(fix_all)
    [edit] = resolved.edit.changes[uri]
    path.write_text(fixed_one)
    assert _apply(fixed_one, edit) == fix_path(path).after  # what `arazzo validate --fix` writes


async def test_run_this_workflow_returns_the_result_summary(client):
    path = client.folder / "adopt.yaml"
    uri = await open_document(client, path)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri),
            range=range_of(path.read_text(), "stepId: find"),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.Source]),
        )
    )
    [run] = actions
    assert run.title == "Run workflow adopt"
    assert (run.command.command, list(run.command.arguments)) == ("arazzo.runWorkflow", [uri, "adopt"])

    with ScriptedServer() as server:
        server.reply("GET", "/pets/{id}", (200, {"id": 7, "name": "Rex"}))
        server.reply("GET", "/pets", (200, [{"id": 7, "name": "Rex"}]))
        arguments = [uri, "adopt", {"petId": 7}, {"pets": server.url}]
        result = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="arazzo.runWorkflow", arguments=arguments)
        )
        assert [request.path for request in server.requests] == ["/pets/7", "/pets"]
    assert result["status"] == "passed"
    [workflow] = result["workflows"]
    assert workflow["workflowId"] == "adopt" and workflow["outputs"] == {"petName": "Rex"}
    assert [(s["stepId"], s["status"], s["statusCode"]) for s in workflow["steps"]] == [
        ("find", "passed", 200),
        ("list", "passed", 200),
    ]

    arguments = [uri, "adopt", {"petId": "seven"}, {"pets": "http://127.0.0.1:9"}]
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="arazzo.runWorkflow", arguments=arguments)
    )
    assert result["status"] == "error"
    assert "petId" in result["error"]
