"""`$ref` resolution: across files, recursive schemas, missing targets."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arazzo_runner.errors import SourceError
from arazzo_runner.sources import load_openapi

MAIN = """\
openapi: 3.1.0
info: {title: Split, version: "1"}
paths:
  /pets:
    $ref: 'paths/pets.yaml'
  /nodes:
    get:
      operationId: getTree
      responses:
        "200":
          description: a tree
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Node'}
components:
  schemas:
    Node:
      type: object
      properties:
        name: {type: string}
        children: {type: array, items: {$ref: '#/components/schemas/Node'}}
"""
PATHS = """\
get:
  operationId: listPets
  parameters:
    - $ref: '../common/parameters.yaml#/limit'
  responses:
    "200":
      description: pets
      content:
        application/json:
          schema: {type: array, items: {$ref: '../common/schemas.yaml#/Pet'}}
"""
PARAMETERS = """\
limit: {name: limit, in: query, schema: {type: integer, maximum: 100}}
"""
SCHEMAS = """\
Pet:
  type: object
  properties:
    owner: {$ref: '#/Owner'}
Owner:
  type: object
  properties:
    pets: {type: array, items: {$ref: '#/Pet'}}
"""


@pytest.fixture
def split(write) -> Path:
    write("api/paths/pets.yaml", PATHS)
    write("api/common/parameters.yaml", PARAMETERS)
    write("api/common/schemas.yaml", SCHEMAS)
    return write("api/openapi.yaml", MAIN)


def test_external_refs_resolve_relative_to_the_referring_file(split: Path) -> None:
    api = load_openapi(str(split), None)
    op = api.operation("listPets")
    assert op is api.operation_at("#/paths/~1pets/get")  # the logical pointer, through the path-item $ref
    assert [(p.name, p.schema) for p in op.parameters] == [("limit", {"type": "integer", "maximum": 100})]
    pet = op.responses["200"]["content"]["application/json"]["schema"]["items"]
    assert pet["properties"]["owner"]["type"] == "object"


def test_cycles_across_files_stop_with_an_absolute_ref(split: Path) -> None:
    api = load_openapi(str(split), None)
    pet = api.operation("listPets").responses["200"]["content"]["application/json"]["schema"]["items"]
    back = pet["properties"]["owner"]["properties"]["pets"]["items"]
    schemas = os.path.join(os.path.dirname(split), "common", "schemas.yaml")
    assert back == {"$ref": f"{Path(schemas).as_uri()}#/Pet"}  # a URI: validators resolve it as one
    assert api.resolve(back)["properties"]["owner"]["type"] == "object"  # one more level on demand


def test_recursive_schema_is_a_finite_tree(split: Path) -> None:
    api = load_openapi(str(split), None)
    node = api.operation("getTree").responses["200"]["content"]["application/json"]["schema"]
    assert node["properties"]["name"] == {"type": "string"}
    assert node["properties"]["children"]["items"] == {"$ref": "#/components/schemas/Node"}  # left in place
    assert api.resolve(node["properties"]["children"]["items"])["type"] == "object"


def test_mutually_recursive_internal_schemas(write) -> None:
    spec = write(
        "mutual.yaml",
        """\
        openapi: 3.0.3
        info: {title: t, version: "1"}
        paths:
          /a:
            post:
              operationId: postA
              requestBody:
                content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}
              responses: {}
        components:
          schemas:
            A: {type: object, properties: {b: {$ref: '#/components/schemas/B'}}}
            B: {type: object, properties: {a: {$ref: '#/components/schemas/A'}}}
        """,
    )
    body = load_openapi(str(spec), None).operation("postA").request_body
    a = body["content"]["application/json"]["schema"]
    assert a["properties"]["b"]["properties"]["a"] == {"$ref": "#/components/schemas/A"}


def test_missing_internal_ref_names_the_ref_the_file_and_the_place(write) -> None:
    spec = write(
        "missing.yaml",
        """\
        openapi: 3.0.3
        info: {title: t, version: "1"}
        paths:
          /x:
            get:
              operationId: x
              parameters:
                - $ref: '#/components/parameters/Nope'
              responses: {}
        """,
    )
    op = load_openapi(str(spec), None).operation("x")  # indexing does not need the parameters
    with pytest.raises(SourceError) as caught:
        _ = op.parameters
    error = caught.value
    assert error.message == (
        "unresolvable $ref '#/components/parameters/Nope': no member 'components' at the root"
    )
    assert (error.file, error.pointer) == (str(spec), "/paths/~1x/get/parameters/0/$ref")
    assert (error.line, error.column) == (8, 17)  # the $ref value


def test_missing_external_file_and_target(write, tmp_path: Path) -> None:
    write("other.yaml", "Known: {type: string}\n")
    spec = write(
        "main.yaml",
        """\
        openapi: 3.1.0
        info: {title: t, version: "1"}
        paths:
          /x:
            get:
              operationId: x
              responses:
                "200": {$ref: 'gone.yaml#/Ok'}
                "400":
                  description: bad
                  content: {application/json: {schema: {$ref: 'other.yaml#/Unknown'}}}
        """,
    )
    op = load_openapi(str(spec), None).operation("x")
    with pytest.raises(SourceError) as caught:
        _ = op.responses
    gone = tmp_path / "gone.yaml"
    assert caught.value.message == (
        f"cannot resolve $ref 'gone.yaml#/Ok': cannot read gone.yaml: file not found (resolved to {gone})"
    )
    assert caught.value.pointer == "/paths/~1x/get/responses/200/$ref"
    assert caught.value.line == 8
    (tmp_path / "gone.yaml").write_text("Ok: {description: fine}\n")
    with pytest.raises(SourceError) as again:  # a file that failed fails alike for the rest of the run
        _ = op.responses
    assert again.value.message == caught.value.message
    op = load_openapi(str(spec), None).operation("x")  # a new run reads it
    unknown = r"unresolvable \$ref 'other.yaml#/Unknown': no member 'Unknown' at the root in .*other.yaml"
    with pytest.raises(SourceError, match=unknown):
        _ = op.responses


def test_circular_reference_objects_are_an_error(write) -> None:
    spec = write(
        "loop.yaml",
        """\
        openapi: 3.0.3
        info: {title: t, version: "1"}
        paths:
          /x: {$ref: '#/paths/~1y'}
          /y: {$ref: '#/paths/~1x'}
        """,
    )
    with pytest.raises(SourceError, match=r"circular \$ref '#/paths/~1y'"):
        load_openapi(str(spec), None)


def test_literal_values_are_not_resolved(write) -> None:
    spec = write(
        "literal.yaml",
        """\
        openapi: 3.1.0
        info: {title: t, version: "1"}
        paths:
          /x:
            get:
              operationId: x
              responses:
                "200":
                  description: ok
                  x-vendor: {$ref: 'not-a-file.md'}
                  content:
                    application/json:
                      schema:
                        type: object
                        properties:
                          default: {$ref: '#/components/schemas/S'}
                        example: {$ref: 'literal'}
                      examples:
                        one: {value: {$ref: 'also literal'}}
        components:
          schemas:
            S: {type: string}
        """,
    )
    ok = load_openapi(str(spec), None).operation("x").responses["200"]
    media = ok["content"]["application/json"]
    assert media["schema"]["properties"]["default"] == {"type": "string"}  # a property named "default"
    assert media["schema"]["example"] == {"$ref": "literal"}
    assert media["examples"]["one"]["value"] == {"$ref": "also literal"}


def test_ref_siblings_in_31_schemas(write) -> None:
    spec = write(
        "siblings.yaml",
        """\
        openapi: 3.1.0
        info: {title: t, version: "1"}
        paths:
          /x:
            get:
              operationId: x
              parameters:
                - {name: a, in: query, schema: {$ref: '#/components/schemas/S', description: mine}}
                - {name: b, in: query, schema: {$ref: '#/components/schemas/S', maxLength: 3}}
              responses: {}
        components:
          schemas:
            S: {type: string, description: shared}
        """,
    )
    a, b = load_openapi(str(spec), None).operation("x").parameters
    assert a.schema == {"type": "string", "description": "mine"}
    assert b.schema == {"allOf": [{"type": "string", "description": "shared"}], "maxLength": 3}


def test_percent_encoded_file_refs(write) -> None:
    write("my schemas.yaml", "Id: {type: integer}\n")
    spec = write(
        "main.yaml",
        """\
        openapi: 3.0.3
        info: {title: t, version: "1"}
        paths:
          /x:
            get:
              operationId: x
              parameters: [{name: id, in: query, schema: {$ref: 'my%20schemas.yaml#/Id'}}]
        """,
    )
    (param,) = load_openapi(str(spec), None).operation("x").parameters
    assert param.schema == {"type": "integer"}
