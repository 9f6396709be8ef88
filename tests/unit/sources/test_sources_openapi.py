"""The operation index: lookups, parameters, servers, security, rejection of non-OpenAPI documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arazzo_runner.errors import SourceError
from arazzo_runner.sources import (
    DEFAULT_SERVER,
    SWAGGER_MESSAGE,
    OpenAPIDescription,
    ParameterSpec,
    Server,
    ServerVariable,
    SourceCache,
    load_openapi,
)
from arazzo_runner.sources import cache as cache_module
from tests.shared import MISSING, SHARED

PETS = """\
openapi: 3.0.3
info: {title: Pets, version: "1"}
servers:
  - url: https://api.example.com/v1
security: [{bearer: []}]
paths:
  /pets/{id}:
    servers: [{url: "https://path.example.com"}]
    parameters:
      - {name: id, in: path, schema: {type: string}}
      - {name: verbose, in: query, schema: {type: boolean}}
      - $ref: '#/components/parameters/TraceId'
    get:
      operationId: getPet
      summary: Get a pet
      parameters:
        - name: verbose
          in: query
          required: true
          style: spaceDelimited
          schema: {type: array, items: {type: string}}
        - {name: X-Trace-ID, in: header, deprecated: true, schema: {type: integer}}
        - {name: session, in: cookie}
        - name: filter
          in: query
          content: {application/json: {schema: {$ref: '#/components/schemas/Filter'}}}
      responses:
        "200": {$ref: '#/components/responses/Pet'}
    delete:
      operationId: deletePet
      deprecated: true
      security: []
      servers:
        - url: "https://{region}.example.com"
          variables: {region: {default: eu, enum: [eu, us], description: where}}
      responses: {"204": {description: gone}}
  /pets:
    post:
      operationId: createPet
      security: [{apiKey: []}]
      requestBody: {$ref: '#/components/requestBodies/Pet'}
      responses: {"201": {description: created}}
  /a/b~c:
    get: {operationId: tilde, responses: {}}
  /dup:
    get: {operationId: getPet, responses: {}}
    put: {responses: {}}
components:
  parameters:
    TraceId: {name: x-trace-id, in: header, schema: {type: string}}
  schemas:
    Filter: {type: object, properties: {q: {type: string}}}
    Pet: {type: object, properties: {name: {type: string}}}
  responses:
    Pet:
      description: a pet
      content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
  requestBodies:
    Pet:
      required: true
      content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    apiKey: {$ref: '#/components/x-schemes/key'}
  x-schemes:
    key: {type: apiKey, in: header, name: X-Key}
"""


@pytest.fixture
def pets(write) -> OpenAPIDescription:
    return load_openapi(str(write("pets.yaml", PETS)), None)


def test_description_fields(pets: OpenAPIDescription) -> None:
    assert (pets.version, pets.title) == ("3.0.3", "Pets")
    assert pets.servers == [Server("https://api.example.com/v1")]
    assert pets.security == [{"bearer": []}]
    assert pets.security_schemes["apiKey"] == {"type": "apiKey", "in": "header", "name": "X-Key"}
    pointers = [op.pointer for op in pets.operations]
    assert pointers[:2] == ["/paths/~1pets~1{id}/get", "/paths/~1pets~1{id}/delete"]


def test_lookup_by_id_and_duplicates(pets: OpenAPIDescription) -> None:
    op = pets.operation("getPet")
    assert (op.method, op.path, op.summary, op.source) == ("get", "/pets/{id}", "Get a pet", pets)
    assert pets.operation("nope") is None
    assert pets.duplicate_operation_ids == {"getPet": ["/paths/~1pets~1{id}/get", "/paths/~1dup/get"]}
    assert pets.operation_at("/paths/~1dup/put").operation_id is None


def test_operation_at_accepts_fragments_and_escapes(pets: OpenAPIDescription) -> None:
    op = pets.operation("getPet")
    assert pets.operation_at("/paths/~1pets~1{id}/get") is op
    assert pets.operation_at("#/paths/~1pets~1{id}/get") is op
    assert pets.operation_at("#/paths/~1pets~1%7Bid%7D/get") is op
    assert pets.operation_at("https://x/pets.yaml#/paths/~1pets~1{id}/get") is op
    assert pets.operation_at("/paths/~1a~1b~0c/get") is pets.operation("tilde")
    assert pets.operation_at("/paths/~1pets/get") is None
    assert pets.operation_at("/paths/~2bad") is None


def test_suggestions(pets: OpenAPIDescription) -> None:
    assert pets.suggest("getpet")[0] == "getPet"
    assert pets.suggest("deletPet")[0] == "deletePet"
    assert pets.suggest("createPets") == ["createPet"]
    assert pets.suggest("zzzzzz") == []


def test_parameters_merge_and_defaults(pets: OpenAPIDescription) -> None:
    params = {(p.in_, p.name): p for p in pets.operation("getPet").parameters}
    assert list(params) == [
        ("path", "id"),
        ("query", "verbose"),
        ("header", "X-Trace-ID"),
        ("cookie", "session"),
        ("query", "filter"),
    ]
    assert params["path", "id"] == ParameterSpec(
        "id", "path", required=True, style="simple", explode=False, schema={"type": "string"}
    )
    verbose = params["query", "verbose"]  # the operation's definition replaced the path item's
    assert (verbose.required, verbose.style, verbose.explode) == (True, "spaceDelimited", False)
    assert params["header", "X-Trace-ID"].deprecated  # header names match case-insensitively
    assert params["header", "X-Trace-ID"].schema == {"type": "integer"}
    session = params["cookie", "session"]
    assert (session.style, session.explode, session.required, session.schema) == ("form", True, False, None)
    filter_ = params["query", "filter"]
    filter_schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    assert filter_.content == {"application/json": {"schema": filter_schema}}
    delete = {p.name: p for p in pets.operation("deletePet").parameters}
    assert delete["x-trace-id"].style == "simple"  # a $ref'd path-item parameter


def test_request_body_and_responses_are_resolved(pets: OpenAPIDescription) -> None:
    pet = {"type": "object", "properties": {"name": {"type": "string"}}}
    body = pets.operation("createPet").request_body
    assert body == {"required": True, "content": {"application/json": {"schema": pet}}}
    assert pets.operation("getPet").responses["200"]["content"]["application/json"]["schema"] == pet
    assert pets.operation("getPet").request_body is None


def test_effective_servers(pets: OpenAPIDescription, write) -> None:
    region = ServerVariable("eu", ("eu", "us"), "where")
    regional = Server("https://{region}.example.com", None, {"region": region})
    assert pets.operation("deletePet").servers == [regional]
    assert pets.operation("getPet").servers == [Server("https://path.example.com")]
    assert pets.operation("createPet").servers == [Server("https://api.example.com/v1")]
    bare = load_openapi(
        str(
            write(
                "bare.json",
                json.dumps(
                    {
                        "openapi": "3.1.0",
                        "info": {"title": "t", "version": "1"},
                        "servers": [],
                        "paths": {"/x": {"get": {"operationId": "x"}}},
                    }
                ),
            )
        ),
        None,
    )
    assert bare.servers == [DEFAULT_SERVER]
    assert bare.operation("x").servers == [DEFAULT_SERVER] == [Server("/")]


def test_effective_security(pets: OpenAPIDescription) -> None:
    assert pets.operation("getPet").security == [{"bearer": []}]
    assert pets.operation("deletePet").security == []  # an empty list switches security off
    assert pets.operation("createPet").security == [{"apiKey": []}]
    assert pets.operation("deletePet").deprecated and not pets.operation("getPet").deprecated


def test_yaml_integer_keys_become_strings(write) -> None:
    spec = write(
        "ints.yaml",
        "openapi: 3.0.0\ninfo: {title: t, version: 1}\npaths:\n"
        "  /x: {get: {operationId: x, responses: {200: {description: ok}}}}\n",
    )
    assert list(load_openapi(str(spec), None).operation("x").responses) == ["200"]


def test_swagger_2_is_rejected(write) -> None:
    spec = write("swagger.yaml", "swagger: '2.0'\ninfo: {title: t, version: '1'}\npaths: {}\n")
    with pytest.raises(SourceError) as caught:
        load_openapi(str(spec), None)
    assert caught.value.message == SWAGGER_MESSAGE
    assert "convert to OpenAPI 3 (e.g. with swagger2openapi)" in str(caught.value)
    assert caught.value.file == str(spec)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("asyncapi: 3.0.0\n", "not an OpenAPI description: this is an AsyncAPI 3.0.0 document"),
        ("arazzo: 1.0.1\n", "not an OpenAPI description: this is an Arazzo 1.0.1 document"),
        ("info: {title: t}\n", "not an OpenAPI description: there is no top-level 'openapi' field"),
        ("- a\n- b\n", "not an OpenAPI description: the document is a list, not a mapping"),
        ("openapi: 4.0.0\n", "unsupported OpenAPI version '4.0.0'; 3.0.x and 3.1.x are supported"),
    ],
)
def test_other_documents_are_rejected(write, text: str, message: str) -> None:
    with pytest.raises(SourceError) as caught:
        load_openapi(str(write("doc.yaml", text)), None)
    assert caught.value.message == message


def test_the_official_asyncapi_example_is_rejected() -> None:
    example = SHARED / "arazzo/examples/1.1.0/pet-asyncapi.yaml"
    if not example.exists():
        pytest.skip(MISSING)
    with pytest.raises(SourceError, match=r"this is an AsyncAPI 3\.0\.0 document"):
        load_openapi(str(example), None)


def test_cache_parses_a_location_once(write, tmp_path: Path, monkeypatch) -> None:
    write("specs/pets.yaml", PETS)
    calls: list[str] = []
    real = cache_module.parse_source

    def counting(content: bytes, where: str) -> object:
        calls.append(where)
        return real(content, where)

    monkeypatch.setattr(cache_module, "parse_source", counting)
    cache = SourceCache()
    first = load_openapi("specs/pets.yaml", str(tmp_path / "a.arazzo.yaml"), cache=cache)
    second = load_openapi("../specs/pets.yaml", str(tmp_path / "flows/b.arazzo.yaml"), cache=cache)
    assert first is second
    assert calls == [str(tmp_path / "specs/pets.yaml")]
    assert load_openapi("specs/pets.yaml", str(tmp_path / "a.arazzo.yaml")) is not first  # no hidden sharing


def test_querystring_parameters_and_bad_locations(write) -> None:
    spec = write(
        "qs.yaml",
        """\
        openapi: 3.2.0
        info: {title: t, version: "1"}
        paths:
          /search:
            query:
              operationId: search
              parameters:
                - {name: q, in: querystring, content: {application/x-www-form-urlencoded: {}}}
            get:
              operationId: bad
              parameters: [{name: q, in: body}]
        """,
    )
    api = load_openapi(str(spec), None)
    (q,) = api.operation("search").parameters
    form = {"application/x-www-form-urlencoded": {}}
    assert (q.in_, q.style, q.explode, q.content) == ("querystring", None, False, form)
    assert api.operation("search").method == "query"
    with pytest.raises(SourceError, match="parameter 'q' has 'in: body'; expected one of path, query"):
        _ = api.operation("bad").parameters


def test_cache_holds_other_per_run_objects() -> None:
    cache = SourceCache()
    assert cache.get(("arazzo", "/a.yaml")) is None
    first = object()
    assert cache.put(("arazzo", "/a.yaml"), first) is first
    assert cache.put(("arazzo", "/a.yaml"), object()) is first  # the first stored wins
    assert cache.get(("arazzo", "/a.yaml")) is first
