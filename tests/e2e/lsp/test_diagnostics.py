"""`arazzo lsp`: diagnostics as the document is edited, from `arazzo validate`'s rules and messages."""

from __future__ import annotations

import pytest
from lsprotocol import types

from arazzo_runner.validate import validate_path
from tests.servers.scripted import ScriptedServer

from .kit import change, open_document, position_of, range_of, wait_diagnostics

pytestmark = pytest.mark.asyncio


async def test_a_valid_document_has_no_diagnostics(client):
    uri = await open_document(client, client.folder / "adopt.yaml")
    assert list(client.diagnostics[uri]) == []


async def test_edits_bring_the_validators_findings_with_codes_ranges_and_related_places(client):
    path = client.folder / "adopt.yaml"
    text = path.read_text()
    uri = await open_document(client, path)
    broken = (
        text.replace("name: petId", "name: petID")
        .replace("operationId: listPets", "operationId: listPet")
        .replace("      - stepId: list", "      - stepId: find")
    )
    change(client, uri, 2, broken)
    published = await wait_diagnostics(client, uri, version=2)
    path.write_text(broken)  # what `arazzo validate` says of the same text: the same rules and messages
    expected = validate_path(path, remote=False).findings
    assert [(d.code, d.message, d.range.start.line + 1) for d in published] == [
        (f.rule, f.message, f.line) for f in expected
    ]
    found = {d.code: d for d in published}
    assert {"operation-exists", "parameter-required", "parameter-unknown", "step-id-unique"} <= set(found)

    unknown = found["parameter-unknown"]
    assert unknown.message == "operation 'getPet' has no path parameter 'petID'; did you mean 'petId'?"
    assert unknown.severity == types.DiagnosticSeverity.Warning
    assert unknown.source == "arazzo"
    start = range_of(broken, "name: petID").start  # the finding is at the parameter: its first key
    assert unknown.range == types.Range(start, types.Position(start.line, start.character + len("name")))
    [operation] = unknown.related_information
    assert operation.location.uri == (client.folder / "pets.openapi.yaml").as_uri()
    openapi = (client.folder / "pets.openapi.yaml").read_text()
    assert operation.location.range.start == position_of(openapi, "operationId: getPet")  # its first member
    assert operation.message == "operation getPet: GET /pets/{petId}"

    missing = found["operation-exists"]
    assert missing.severity == types.DiagnosticSeverity.Error
    assert missing.message == "operationId 'listPet' was not found in source 'pets'; did you mean listPets?"
    assert missing.range == range_of(broken, "listPet")

    duplicate = found["step-id-unique"]
    assert duplicate.range == range_of(broken, "find", nth=1)
    [first] = duplicate.related_information
    assert first.location.uri == uri
    assert first.location.range.start.line == range_of(broken, "stepId: find").start.line

    change(client, uri, 3, text)  # undone: the diagnostics go away
    assert await wait_diagnostics(client, uri, version=3) == []


async def test_a_text_that_does_not_parse_is_one_parse_diagnostic(client):
    path = client.folder / "adopt.yaml"
    uri = await open_document(client, path)
    broken = path.read_text().replace("  version: 1.0.0", "  version: [1.0.0")
    change(client, uri, 2, broken)
    [parse] = await wait_diagnostics(client, uri, version=2)
    path.write_text(broken)
    [expected] = validate_path(path).findings
    assert (parse.code, parse.message) == ("document-parse", expected.message)
    assert (parse.range.start.line + 1, parse.range.start.character + 1) == (expected.line, expected.column)


async def test_an_openapi_file_changed_on_disk_is_read_again(client):
    path = client.folder / "adopt.yaml"
    uri = await open_document(client, path)
    source = client.folder / "pets.openapi.yaml"
    source.write_text(source.read_text().replace("operationId: listPets", "operationId: listAllPets"))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(source.as_uri(), types.FileChangeType.Changed)])
    )
    [missing] = await wait_diagnostics(client, uri)
    assert missing.code == "operation-exists"
    assert "did you mean listAllPets?" in missing.message


async def test_offline_a_remote_source_is_never_fetched_not_even_by_completion(client):
    """The server runs with --offline (kit.SERVER): the validation skips the remote source's checks with
    a warning, and completion, hover and definition read nothing over the network either."""
    path = client.folder / "adopt.yaml"
    openapi = (client.folder / "pets.openapi.yaml").read_text()
    with ScriptedServer() as server:
        server.reply("GET", "/pets.openapi.yaml", (200, openapi, {"content-type": "application/yaml"}))
        text = path.read_text().replace("./pets.openapi.yaml", f"{server.url}/pets.openapi.yaml")
        uri = await open_document(client, path, text)
        [skipped] = client.diagnostics[uri]
        assert skipped.code == "source-unavailable"
        assert skipped.message.endswith("is remote and was not fetched; its checks are skipped")
        at = position_of(text, "operationId: getPet", shift=len("operationId: ge"))
        document = types.TextDocumentIdentifier(uri)
        found = await client.text_document_completion_async(types.CompletionParams(document, at))
        assert list(found.items) == []
        assert await client.text_document_hover_async(types.HoverParams(document, at)) is None
        assert await client.text_document_definition_async(types.DefinitionParams(document, at)) is None
        assert server.requests == []


async def test_incremental_changes_are_applied_to_the_text_validated(client):
    path = client.folder / "adopt.yaml"
    text = path.read_text()
    uri = await open_document(client, path)
    where = range_of(text, "listPets")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [types.TextDocumentContentChangePartial(range=where, text="listPet")],
        )
    )
    [missing] = await wait_diagnostics(client, uri, version=2)
    assert (missing.code, missing.range) == ("operation-exists", range_of(text, "listPet"))
