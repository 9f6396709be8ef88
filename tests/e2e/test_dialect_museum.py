"""Redocly's museum example (`../shared/corpus/redocly-museum`, and the copy in Respect's own fixtures)
runs against a local server started from its OpenAPI description (`tests/servers/openapi_mock.py`,
which answers each operation with its documented example, as Redocly's mock server does): both
workflows, with Respect's `operationId: museum-api.getMuseumHours`, the legacy
`$sourceDescriptions.<source>.workflows.<id>` and the `$sourceDescriptions.<name>#` operation paths;
then once more after `arazzo validate --fix`, sending the same requests."""

from __future__ import annotations

import shutil

import pytest

from tests.e2e.dialectkit import CORPUS, fix_in_place, run_recorded
from tests.e2e.helpers import cli
from tests.servers.openapi_mock import OpenAPIMock
from tests.shared import MISSING

MUSEUM = CORPUS / "redocly-museum"
RESPECT = CORPUS / "redocly-respect-fixtures" / "resources"
# the nested document's own `museum-api` reads the same description, so one `--server` pins both
SOURCES = ("museum-api",)
pytestmark = pytest.mark.skipif(not MUSEUM.is_dir(), reason=MISSING)


def _museum(tmp_path, name):
    """The published layout: the documents in a folder, their OpenAPI description one level up."""
    folder = tmp_path / name / "docs"
    folder.mkdir(parents=True)
    shutil.copy(MUSEUM / "openapi.yaml", tmp_path / name / "openapi.yaml")
    for document in ("museum-api.arazzo.yaml", "museum-tickets.arazzo.yaml"):
        shutil.copy(MUSEUM / document, folder / document)
    return folder / "museum-api.arazzo.yaml", tmp_path / name / "openapi.yaml"


def _both_workflows(capsys, document, description):
    code, result, requests, err = run_recorded(capsys, document, OpenAPIMock(description), sources=SOURCES)
    return code, result, requests, err


def test_the_museum_example_runs_against_its_openapi_description(tmp_path, capsys) -> None:
    document, description = _museum(tmp_path, "original")
    checked = cli(capsys, "validate", document)
    assert checked.code == 0, checked.out
    for rule in ("operation-id-source-prefix", "workflow-id-legacy", "operation-path-form"):
        assert f"warning {rule}:" in checked.out, rule

    code, result, requests, err = _both_workflows(capsys, document, description)
    assert code == 0, (err, result)
    assert [w["workflowId"] for w in result["workflows"]] == ["get-museum-hours", "events-crud"]
    assert [(method, path) for method, path, *_ in requests] == [
        ("GET", "/museum-hours"),
        ("POST", "/tickets"),
        ("GET", "/special-events"),
        ("POST", "/special-events"),
        ("GET", "/special-events/dad4bce8-f5cb-4078-a211-995864315e39"),
        ("PATCH", "/special-events/dad4bce8-f5cb-4078-a211-995864315e39"),
        ("DELETE", "/special-events/dad4bce8-f5cb-4078-a211-995864315e39"),
    ]
    hours = result["workflows"][0]
    assert hours["steps"][1]["outputs"] == {"ticketId": "382c0820-0530-4f4b-99af-13811ad0f17a"}
    assert all(("authorization", "Basic Og==") in headers for _, _, _, headers, _ in requests)

    fixed, _ = _museum(tmp_path, "fixed")
    summary = fix_in_place(capsys, fixed)
    assert "operation-id-source-prefix 1" in summary and "workflow-id-legacy 1" in summary
    text = fixed.read_text(encoding="utf-8")
    assert "operationId: $sourceDescriptions.museum-api.getMuseumHours\n" in text
    assert "workflowId: $sourceDescriptions.tickets-from-museum-api.get-museum-tickets\n" in text
    assert "operationPath: '{$sourceDescriptions.museum-api.url}#/paths/~1special-events/get'\n" in text
    assert '    x-serverUrl: "http://localhost:4000/_mock/openapi" # For local development testing\n' in text
    code2, result2, requests2, err2 = _both_workflows(capsys, fixed, description)
    assert (code2, requests2) == (code, requests), err2
    assert [w["outputs"] for w in result2["workflows"]] == [w["outputs"] for w in result["workflows"]]


@pytest.mark.skipif(not RESPECT.is_dir(), reason=MISSING)
def test_respects_copy_of_the_museum_runs_too(tmp_path, capsys) -> None:
    folder = tmp_path / "resources"
    shutil.copytree(RESPECT, folder)
    document = folder / "museum-api.arazzo.yaml"
    code, result, requests, err = run_recorded(
        capsys, document, OpenAPIMock(folder / "museum.yaml"), sources=SOURCES
    )
    assert code == 0, (err, result)
    fix_in_place(capsys, document)
    code2, _, requests2, err2 = run_recorded(
        capsys, document, OpenAPIMock(folder / "museum.yaml"), sources=SOURCES
    )
    assert (code2, requests2) == (code, requests), err2
