"""Helpers for validator tests: write an Arazzo document (and a small OpenAPI description) and validate it."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from arazzo_runner.validate import Report, validate_path

OPENAPI = """\
openapi: 3.1.0
info: {title: Pets, version: '1'}
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-API-Key}
  schemas:
    Pet:
      type: object
      required: [id, name]
      properties:
        id: {type: integer}
        name: {type: string}
        tags: {type: array, items: {type: string}}
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}
    post:
      operationId: createPet
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              additionalProperties: false
              properties:
                name: {type: string}
                age: {type: integer}
                kind: {enum: [cat, dog]}
      responses:
        '201':
          description: created
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
  /pets/{petId}/photo:
    get:
      operationId: getPhoto
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: 'https://schemas.invalid/photo.json#photo'}  # an anchor: never fetched
  /pets/{petId}:
    parameters:
      - {name: petId, in: path, required: true, schema: {type: integer}}
    get:
      operationId: getPet
      parameters:
        - {name: verbose, in: query, schema: {type: boolean}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
"""

Check = Callable[..., Report]


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str], Path]:
    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return _write


@pytest.fixture
def check(write: Callable[[str, str], Path]) -> Check:
    """Validate a document written next to `api.yaml` (the OpenAPI description above)."""
    write("api.yaml", OPENAPI)

    def _check(
        text: str, *, sources: bool = False, name: str = "flow.arazzo.yaml", **options: object
    ) -> Report:
        return validate_path(write(name, text), load_sources=sources, remote=False, **options)

    return _check


def marked_line(text: str, marker: str = "# !") -> int:
    """1-based line of the (single) line ending with the marker comment."""
    lines = [
        i for i, line in enumerate(textwrap.dedent(text).splitlines(), 1) if line.rstrip().endswith(marker)
    ]
    assert len(lines) == 1, f"expected exactly one line marked {marker!r}"
    return lines[0]


def summary(report: Report) -> list[str]:
    return [f"{f.line}:{f.column} {f.severity} {f.rule}: {f.message}" for f in report.findings]
