"""No JSON Schema validator of the engine can fetch: each validator path runs with every way of fetching
patched to fail the test (urllib's urlopen, jsonschema-path's retriever and URL handlers), over a schema
whose references name a host and a local file that were never loaded. Each must refuse them by name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from arazzo_runner.sources import load_openapi
from arazzo_runner.sources.schema_registry import NOT_LOADED, anchors_of, refusal, registry

HOST = "http://127.0.0.1:9/x#foo"


class Fetched(AssertionError):
    pass


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise Fetched(f"a validator fetched {args!r}")


@pytest.fixture(autouse=True)
def no_fetching(monkeypatch: pytest.MonkeyPatch) -> None:
    import urllib.request

    import jsonschema_path.handlers.urllib as urllib_handler
    import jsonschema_path.retrievers as retrievers

    monkeypatch.setattr(urllib.request, "urlopen", _refuse)
    monkeypatch.setattr(retrievers, "urlopen", _refuse)
    monkeypatch.setattr(urllib_handler, "urlopen", _refuse, raising=False)
    monkeypatch.setattr(retrievers.SchemaRetriever, "__call__", _refuse)


def _description(tmp_path: Path, name_schema: dict) -> Any:
    schema = {"type": "object", "properties": {"name": name_schema}}
    stream = {"text/event-stream": {"itemSchema": {"properties": {"data": name_schema}}}}
    api = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/p": {
                "post": {
                    "operationId": "p",
                    "requestBody": {"content": {"application/json": {"schema": schema}}},
                    "responses": {
                        "200": {"description": "ok", "content": {"application/json": {"schema": schema}}}
                    },
                }
            },
            "/s": {
                "get": {"operationId": "s", "responses": {"200": {"description": "ok", "content": stream}}}
            },
        },
    }
    path = tmp_path / "api.yaml"
    path.write_text(yaml.safe_dump(api))
    return load_openapi(str(path))


class _Request:
    url = "http://arazzo.invalid/p"
    headers = [("content-type", "application/json")]
    content = b'{"name": "Rex"}'
    path_values: dict = {}


class _Response:
    status_code = 200
    content_type = "application/json"
    headers = {"content-type": "application/json"}
    content = b'{"name": "Rex"}'
    body = {"name": "Rex"}
    error = None


def _refs(tmp_path: Path) -> list[dict]:
    outside = tmp_path / "outside.json"
    outside.write_text('{"$anchor": "foo", "type": "integer"}')
    return [{"$ref": HOST}, {"$dynamicRef": HOST}, {"$ref": outside.as_uri() + "#foo"}]


@pytest.mark.parametrize("which", [0, 1, 2], ids=["http-anchor", "dynamic-ref", "file-anchor"])
def test_openapi_core_request_and_response_checks_refuse(tmp_path: Path, which: int) -> None:
    """The request check (openapi-core) and the response's contract check (http/contract.py) both say
    which reference they cannot resolve, and where, instead of fetching it."""
    from arazzo_runner.http.contract import check
    from arazzo_runner.http.openapi_checks import check_request

    ref = _refs(tmp_path)[which]
    description = _description(tmp_path, ref)
    operation = description.operation("p")
    text = next(iter(ref.values()))
    [finding] = check_request({}, description, operation, _Request())
    [violation] = check({}, description, operation, _Response())
    for said in (finding, violation.got):
        assert said.startswith(f"cannot resolve {next(iter(ref))} '{text}' (")
        assert "api.yaml:" in said and said.endswith(NOT_LOADED)


def test_the_event_stream_item_check_refuses(tmp_path: Path) -> None:
    from arazzo_runner.http.validation import _event_items

    description = _description(tmp_path, {"$ref": HOST})
    declared = description.operation("s").responses["200"]
    media = next(iter(declared["content"].values()))  # the event stream's media type

    class Stream:
        content = b"data: 1\n\n"

    [finding] = _event_items(media, Stream(), description)
    assert finding.startswith(f"cannot resolve $ref '{HOST}' (") and finding.endswith(NOT_LOADED)


def test_the_validate_payload_check_and_the_schema_reference_rule_refuse(tmp_path: Path) -> None:
    from arazzo_runner.validate.left_refs import unresolvable_refs
    from arazzo_runner.validate.openapi_schemas import payload_errors

    description = _description(tmp_path, {"$ref": HOST})
    operation = description.operation("p")
    schema = operation.request_body["content"]["application/json"]["schema"]
    assert payload_errors(schema, {"name": "Rex"}, set(), "3.1.0", description.data, description) == []
    [message] = unresolvable_refs(description, [operation.request_body, operation.responses])
    assert message.startswith(f"cannot resolve $ref '{HOST}' (") and message.endswith(NOT_LOADED)


def test_workflow_inputs_refuse_with_the_place_of_the_reference() -> None:
    from arazzo_runner.executor.inputs import UnresolvedSchemaRef, jsonschema_problems

    document = {"workflows": [{"inputs": {"type": "object", "properties": {"a": {"$dynamicRef": HOST}}}}]}
    with pytest.raises(UnresolvedSchemaRef) as caught:
        jsonschema_problems("/workflows/0/inputs", {"a": 1}, document)
    assert caught.value.pointer == ("workflows", "0", "inputs", "properties", "a", "$dynamicRef")
    assert str(caught.value).startswith(f"cannot resolve $dynamicRef '{HOST}' in an inputs schema")


def test_the_official_arazzo_schema_validator_cannot_fetch() -> None:
    from arazzo_runner.validate.schema import validator

    for line in ("1.0", "1.1"):
        resolver = validator(line)._resolver
        with pytest.raises(Exception) as caught:
            resolver.lookup(HOST)
        assert refusal(caught.value) == f"cannot resolve $ref '{HOST}': {NOT_LOADED}"


def test_a_registry_resolves_anchors_anywhere_in_a_loaded_document_and_nothing_else() -> None:
    document = {"components": {"schemas": {"Pet": {"$anchor": "pet", "type": "object"}}}}
    found = registry(resources={"urn:doc": document}).resolver("urn:doc")
    assert found.lookup("#pet").contents == {"$anchor": "pet", "type": "object"}
    assert anchors_of(document) == {"pet": ("components", "schemas", "Pet")}
    for uri in ("urn:other", "other.yaml#pet", "file:///etc/passwd", "ftp://h/x"):
        with pytest.raises(Exception) as caught:
            found.lookup(uri)
        assert refusal(caught.value) is not None


def test_a_crawl_walks_each_resource_once_and_keeps_no_document(monkeypatch) -> None:
    from arazzo_runner.sources import schema_registry
    from arazzo_runner.sources.schema_registry import crawled

    walked: list[Any] = []
    walk = schema_registry._walk

    def counting(contents: Any) -> Any:
        walked.append(contents)
        return walk(contents)

    monkeypatch.setattr(schema_registry, "_walk", counting)
    inner = {"$id": "urn:inner", "$schema": "https://json-schema.org/draft/2020-12/schema"}
    inner["$defs"] = {"Tag": {"$anchor": "tag", "type": "string"}}
    document = {"components": {"schemas": {"Pet": {"$anchor": "pet"}, "Inner": inner}}}
    found = crawled(registry(resources={"urn:doc": document})).resolver("urn:doc")
    assert found.lookup("#pet").contents == {"$anchor": "pet"}  # the anchor of the document
    assert found.lookup("urn:inner#tag").contents == {"$anchor": "tag", "type": "string"}  # its subresource's
    # one walk of the document for its anchors and its `$id` resources (the one with `$schema` is the
    # JSON Schema dialect's to crawl)
    assert [id(each) for each in walked] == [id(document)]
    assert schema_registry._last_walk == (None, ())  # the walk is not kept once the crawl has it
