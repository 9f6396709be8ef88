"""A document for the `--fix` tests: step `s` has output `id`, step `t`'s outputs are the test's own (they
hold the fixable strings), with the small OpenAPI description beside it."""

from __future__ import annotations

from pathlib import Path

from .conftest import OPENAPI

HEAD = """\
arazzo: 1.0.1
info: {title: t, version: '1'}
sourceDescriptions:
  - {name: api, url: ./api.yaml, type: openapi}
workflows:
  - workflowId: w
    steps:
      - stepId: s
        operationId: listPets
        outputs:
          id: $response.body#/0/id
      - stepId: t
        operationId: listPets
        outputs:
"""


def write_fixable(folder: Path, outputs: str, name: str = "flow.arazzo.yaml") -> Path:
    """`HEAD` + `outputs` (lines indented 10 spaces) in `folder`, with `api.yaml`; the document's path."""
    (folder / "api.yaml").write_text(OPENAPI, encoding="utf-8")
    path = folder / name
    path.write_text(HEAD + outputs, encoding="utf-8")
    return path
