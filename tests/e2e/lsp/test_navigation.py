"""`arazzo lsp`: go to definition, find references, rename, document symbols and hover."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .kit import change, open_document, position_of, range_of, wait_diagnostics

pytestmark = pytest.mark.asyncio

GOTO = "        onSuccess:\n          - name: again\n            type: goto\n            stepId: find\n"
TEMPLATE = '      label: "pet {$steps.find.outputs.name}!"\n'


async def _opened(client) -> tuple[str, str]:
    """The document with a goto action naming step `find` and a template reading its output; its URI."""
    path = client.folder / "adopt.yaml"
    text = path.read_text()
    text = text.replace("        outputs:\n          first:", GOTO + "        outputs:\n          first:")
    text = text.replace(
        "      petName: $steps.find.outputs.name\n", "      petName: $steps.find.outputs.name\n" + TEMPLATE
    )
    uri = await open_document(client, path, text)
    assert list(client.diagnostics[uri]) == []
    return uri, text


def _id(uri):
    return types.TextDocumentIdentifier(uri)


def _at(text, needle, shift=1, nth=0):
    return position_of(text, needle, shift=shift, nth=nth)


async def test_definition_of_a_step_an_output_an_operation_and_an_input(client):
    uri, text = await _opened(client)
    step = range_of(text, "find")  # `stepId: find`, the first `find` of the document
    for needle, nth in (("find", 1), ("find", 2), ("$steps.find", 0)):  # the goto, a reference, an expression
        shift = 8 if needle == "$steps.find" else 1
        found = await client.text_document_definition_async(
            types.DefinitionParams(_id(uri), _at(text, needle, shift, nth))
        )
        assert found == types.Location(uri, step)
    found = await client.text_document_definition_async(
        types.DefinitionParams(_id(uri), _at(text, "outputs.name", len("outputs.n")))
    )
    declared = _at(text, "name: $response", 0)  # the output's key
    assert found.range == types.Range(declared, _at(text, "name: $response", 4))
    found = await client.text_document_definition_async(types.DefinitionParams(_id(uri), _at(text, "getPet")))
    openapi = (client.folder / "pets.openapi.yaml").read_text()
    assert found.uri == (client.folder / "pets.openapi.yaml").as_uri()
    assert found.range.start == position_of(openapi, "operationId: getPet")
    found = await client.text_document_definition_async(
        types.DefinitionParams(_id(uri), _at(text, "$inputs.petId", len("$inputs.p")))
    )
    assert found == types.Location(uri, range_of(text, "petId"))  # the inputs schema's property


async def test_references_of_a_step_and_of_an_output(client):
    uri, text = await _opened(client)
    found = await client.text_document_references_async(
        types.ReferenceParams(
            context=types.ReferenceContext(True),
            text_document=_id(uri),
            position=_at(text, "stepId: find", 9),
        )
    )
    expected = [range_of(text, "find", nth) for nth in range(text.count("find"))]
    assert [location.range for location in found] == expected
    assert all(location.uri == uri for location in found)
    found = await client.text_document_references_async(
        types.ReferenceParams(
            context=types.ReferenceContext(False),
            text_document=_id(uri),
            position=_at(text, "name: $response"),
        )
    )
    lines = [location.range.start.line for location in found]
    assert lines == [_at(text, "first: $steps").line, _at(text, "petName").line, _at(text, "label").line]


async def test_rename_a_step_and_an_output_with_every_reference(client):
    uri, text = await _opened(client)
    params = types.PrepareRenameParams(_id(uri), _at(text, "$steps.find", 9))
    assert await client.text_document_prepare_rename_async(params) == range_of(text, "find", 2)
    edit = await client.text_document_rename_async(
        types.RenameParams(_id(uri), _at(text, "stepId: find", 9), "lookup")
    )
    renamed = _apply(text, edit.changes[uri])
    assert renamed == text.replace("find", "lookup")  # the id, the goto, `$steps.find...` and the template
    change(client, uri, 2, renamed)
    assert await wait_diagnostics(client, uri, version=2) == []

    edit = await client.text_document_rename_async(
        types.RenameParams(_id(uri), _at(renamed, "outputs.name", 9), "petName")
    )
    again = _apply(renamed, edit.changes[uri])
    assert again.count("outputs.petName") == 3 and "outputs.name" not in again
    assert "          petName: $response.body#/name\n" in again  # the declaration; the pointer is left as is
    change(client, uri, 3, again)
    assert await wait_diagnostics(client, uri, version=3) == []

    with pytest.raises(Exception, match="not a valid name"):
        await client.text_document_rename_async(types.RenameParams(_id(uri), _at(again, "lookup"), "a b"))


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.split("\n")
    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        assert edit.range.start.line == edit.range.end.line
        line = lines[edit.range.start.line]
        lines[edit.range.start.line] = (
            line[: edit.range.start.character] + edit.new_text + line[edit.range.end.character :]
        )
    return "\n".join(lines)


async def test_document_symbols_are_the_workflows_and_their_steps(client):
    uri, text = await _opened(client)
    found = await client.text_document_document_symbol_async(types.DocumentSymbolParams(_id(uri)))
    [workflow] = found
    assert (workflow.name, workflow.kind) == ("adopt", types.SymbolKind.Function)
    assert workflow.selection_range == range_of(text, "adopt")
    assert [(s.name, s.detail, s.kind) for s in workflow.children] == [
        ("find", "getPet", types.SymbolKind.Method),
        ("list", "listPets", types.SymbolKind.Method),
    ]
    assert workflow.children[0].range.start == _at(text, "stepId: find", 0)
    assert workflow.children[0].range.end.line == _at(text, "name: $response").line


async def test_hover_shows_the_operation_and_the_schema_a_pointer_names(client):
    uri, text = await _opened(client)
    found = await client.text_document_hover_async(types.HoverParams(_id(uri), _at(text, "getPet")))
    assert found.contents.value == (
        "**GET /pets/{petId}** `getPet`\n\nOne pet by id\n\n"
        "| parameter | in | required | type |\n|---|---|---|---|\n"
        "| `petId` | path | yes | integer |\n| `X-Trace` | header | no | string |"
    )
    assert found.range == range_of(text, "getPet")
    found = await client.text_document_hover_async(types.HoverParams(_id(uri), _at(text, "body#/name", 7)))
    assert found.contents.value.startswith(
        "**`$response.body#/name`**: string (GET /pets/{petId})\n\n```json\n"
    )
    assert '"description": "the pet\'s name"' in found.contents.value


SECOND = """  - workflowId: again
    dependsOn:
      - adopt
    steps:
      - stepId: run
        workflowId: adopt
    outputs:
      name: $workflows.adopt.outputs.petName
"""


async def test_a_workflow_is_renamed_with_its_references_and_found_from_them(client):
    path = client.folder / "adopt.yaml"
    text = path.read_text() + SECOND
    uri = await open_document(client, path, text)
    assert list(client.diagnostics[uri]) == []
    found = await client.text_document_definition_async(
        types.DefinitionParams(_id(uri), _at(text, "$workflows.adopt", len("$workflows.a")))
    )
    assert found == types.Location(uri, range_of(text, "adopt"))
    found = await client.text_document_definition_async(
        types.DefinitionParams(_id(uri), _at(text, "outputs.petName", len("outputs.p")))
    )
    assert found.range == range_of(text, "petName")  # the workflow's output
    edit = await client.text_document_rename_async(
        types.RenameParams(_id(uri), _at(text, "- adopt", 3), "adoption")
    )
    renamed = _apply(text, edit.changes[uri])
    assert renamed == text.replace("adopt", "adoption")  # the id, dependsOn, workflowId, $workflows.adopt
    change(client, uri, 2, renamed)
    assert await wait_diagnostics(client, uri, version=2) == []
