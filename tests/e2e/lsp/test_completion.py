"""`arazzo lsp`: completion of operations, step and workflow ids, runtime expressions, response body
pointers, parameters and field names, at a cursor in a text being typed (which may not parse)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from .kit import change, open_document, position_of, wait_diagnostics

pytestmark = pytest.mark.asyncio


async def _complete(client, edit: tuple[str, str], cursor_after: str) -> list[types.CompletionItem]:
    """Replace `edit[0]` by `edit[1]` in the document, and complete after `cursor_after`."""
    path = client.folder / "adopt.yaml"
    base = path.read_text()
    uri = path.as_uri()
    if uri not in client.diagnostics:
        await open_document(client, path)
    text = base.replace(*edit)
    assert text != base
    client.doc_version = getattr(client, "doc_version", 1) + 1
    change(client, uri, client.doc_version, text)
    await wait_diagnostics(client, uri, version=client.doc_version)
    position = position_of(text, cursor_after, shift=len(cursor_after))
    found = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), position)
    )
    for item in found.items:  # every item replaces what is typed, up to the cursor
        assert item.text_edit.range.end == position
    return found.items


def _labels(items):
    return [(item.label, item.detail) for item in items]


async def test_operation_ids_with_method_path_and_summary(client):
    items = await _complete(client, ("operationId: listPets", "operationId: li"), "operationId: li")
    assert _labels(items) == [("listPets", "GET /pets"), ("getPet", "GET /pets/{petId}")]
    assert items[0].documentation.value == "**GET /pets** (source `pets`)\n\nList the pets"
    assert items[0].text_edit.new_text == "listPets"
    assert items[0].text_edit.range.start.character == len("        operationId: ")


async def test_operation_paths(client):
    items = await _complete(client, ("operationId: listPets", "operationPath: "), "operationPath: ")
    assert [item.label for item in items] == [
        "{$sourceDescriptions.pets.url}#/paths/~1pets/get",
        "{$sourceDescriptions.pets.url}#/paths/~1pets~1{petId}/get",
    ]


async def test_step_outputs_inputs_and_roots_in_expressions(client):
    first = "first: $steps.find.outputs.name"
    items = await _complete(client, (first, "first: $steps."), "first: $steps.")
    assert _labels(items) == [("find", "step"), ("list", "step")]
    items = await _complete(client, (first, "first: $steps.find.outputs.n"), "first: $steps.find.outputs.n")
    assert _labels(items) == [("name", "output of step find")]
    assert items[0].text_edit.range.start.character == len("          first: $steps.find.outputs.")
    items = await _complete(client, (first, "first: $inputs."), "first: $inputs.")
    assert _labels(items) == [("petId", "input: integer")]
    items = await _complete(client, (first, "first: $workflows.adopt.outputs."), "outputs.")
    assert _labels(items) == [("petName", "output of workflow adopt")]
    items = await _complete(client, (first, "first: $sourceDescriptions.pets."), "Descriptions.pets.")
    assert _labels(items) == [
        ("url", "the source's URL"),
        ("listPets", "GET /pets"),
        ("getPet", "GET /pets/{petId}"),
    ]
    items = await _complete(client, (first, "first: $"), "first: $")
    assert {"$inputs.", "$steps.", "$workflows.", "$sourceDescriptions.", "$statusCode"} <= {
        i.label for i in items
    }


async def test_response_body_pointers_from_the_operations_schema(client):
    name = "name: $response.body#/name"
    items = await _complete(client, (name, "name: $response.body#/"), "name: $response.body#/")
    assert _labels(items) == [("id", "integer"), ("name", "string"), ("owner", "object")]
    assert items[1].documentation.value == "the pet's name"
    items = await _complete(client, (name, "name: $response.body#/owner/"), "body#/owner/")
    assert _labels(items) == [("email", "string")]
    first = "first: $steps.find.outputs.name"  # listPets answers an array of pets
    items = await _complete(client, (first, "first: $response.body#/0/"), "body#/0/")
    assert [item.label for item in items] == ["id", "name", "owner"]


async def test_parameter_names_and_locations_from_the_operation(client):
    items = await _complete(client, ("- name: petId", "- name: "), "          - name: ")
    assert _labels(items) == [("petId", "in: path (required)"), ("X-Trace", "in: header")]
    items = await _complete(client, ("in: path", "in: "), "            in: ")
    assert [item.label for item in items] == ["path", "header"]  # the named parameter's first


async def test_step_ids_in_a_goto_and_workflow_ids_in_depends_on(client):
    goto = "        onSuccess:\n          - name: go\n            type: goto\n"
    goto += "            stepId: \n        outputs:\n"
    items = await _complete(
        client, ("        outputs:\n          first", goto + "          first"), "            stepId: "
    )
    assert _labels(items) == [("find", "step"), ("list", "step")]
    items = await _complete(
        client,
        ("    outputs:\n      petName", "    dependsOn:\n      - \n    outputs:\n      petName"),
        "dependsOn:\n      - ",
    )
    assert _labels(items) == [("adopt", "workflow")]


async def test_field_names_of_the_object_under_the_cursor(client):
    items = await _complete(
        client,
        ("        operationId: listPets\n", "        operationId: listPets\n        su\n"),
        "        su",
    )
    labels = [item.label for item in items]
    assert labels[:3] == ["stepId", "description", "operationId"] and "successCriteria" in labels
    assert items[0].text_edit.new_text == "stepId: "
    items = await _complete(client, ("  version: 1.0.0\n", "  version: 1.0.0\n  su\n"), "\n  su")
    assert [item.label for item in items] == ["title", "summary", "description", "version"]
