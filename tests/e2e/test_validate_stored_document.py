"""A second `arazzo validate` of an unchanged YAML document reads it, and its clean official-schema verdict,
back from the parsed-source store (`validate/stored_document.py`): it imports neither PyYAML nor
jsonschema-rs (nor the XPath/JSONPath engines, which only a document naming XPath needs), says the same
as a validation without the store, and an edited document is read and checked again, its findings at
the same line and column as without the store."""

from __future__ import annotations

import yaml

from tests.e2e.conftest import PETS_OPENAPI
from tests.e2e.test_import_costs import _modules_after

FLOW = """arazzo: 1.0.1
info: {title: t, version: 1.0.0}
sourceDescriptions:
  - {name: pets, url: ./pets.openapi.yaml, type: openapi}
workflows:
  - workflowId: w
    steps:
      - stepId: get
        operationId: getPet
        parameters: [{name: petId, in: path, value: '1'}]
        successCriteria: [{condition: $statusCode == 200}]
"""


def _validate(folder, cache: str | None) -> dict:
    setting = (
        f"os.environ['ARAZZO_CACHE_DIR'] = {cache!r}" if cache else "os.environ['ARAZZO_NO_CACHE'] = '1'"
    )
    code = (
        f"import contextlib, io, os\n{setting}\n"
        "from arazzo_runner.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    code = main(['validate', 'flow.arazzo.yaml'])\n"
        "report = {'code': code, 'out': out.getvalue()}\n"
    )
    return _modules_after(code, folder)


def test_a_second_validate_reads_the_document_and_its_verdict_back(tmp_path) -> None:
    (tmp_path / "pets.openapi.yaml").write_text(yaml.safe_dump(PETS_OPENAPI))
    (tmp_path / "flow.arazzo.yaml").write_text(FLOW)
    cache = str(tmp_path / "cache")
    first = _validate(tmp_path, cache)
    assert first["code"] == 0 and "yaml" in first["modules"]  # parsed, checked: kept
    second = _validate(tmp_path, cache)
    assert second["code"] == 0 and second["out"] == first["out"]
    heavy = [
        "yaml",
        "jsonschema_rs",
        "jsonschema",
        "arazzo_runner.query",
        "arazzo_runner.criteria.contextual",
    ]
    assert [name for name in heavy if name in second["modules"]] == []
    # an edit (a typo in a field, an unknown operation) is never missed, and located as without the store
    (tmp_path / "flow.arazzo.yaml").write_text(
        FLOW.replace("operationId: getPet", "operationId: getPets").replace(
            "successCriteria", "sucessCriteria"
        )
    )
    edited = _validate(tmp_path, cache)
    fresh = _validate(tmp_path, None)
    assert edited["code"] == fresh["code"] == 1
    assert edited["out"] == fresh["out"]
    assert "flow.arazzo.yaml:9:22: error operation-exists: operationId 'getPets'" in edited["out"]
    assert "flow.arazzo.yaml:11:9:" in edited["out"] and "sucessCriteria" in edited["out"]
    again = _validate(tmp_path, cache)  # its entry and positions read back: the same words and places
    assert again["out"] == fresh["out"]  # (its schema problems are explained afresh: never kept)
    # a document that does not parse: said as without the store, and never kept
    (tmp_path / "flow.arazzo.yaml").write_text(FLOW + "  - workflowId: [\n")
    kept = set((tmp_path / "cache" / "sources").glob("*.data"))
    broken = _validate(tmp_path, cache)
    assert broken["code"] == 2 and broken["out"] == _validate(tmp_path, None)["out"]
    assert set((tmp_path / "cache" / "sources").glob("*.data")) == kept
