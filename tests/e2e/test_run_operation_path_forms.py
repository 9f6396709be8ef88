"""`operationPath: $sourceDescriptions.<name>#/paths/...` (an official 1.1 pass fixture's form, and Redocly's
museum example's) runs like `{$sourceDescriptions.<name>.url}#/paths/...`; `validate` warns with the
standard form. Over a real local server, with a synthetic document and with the museum example itself."""

from __future__ import annotations

import shutil

import pytest

import arazzo_runner
from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import cli, run_json
from tests.shared import MISSING, SHARED

MUSEUM = SHARED / "corpus" / "redocly-museum"


def _by_path(pointer: str) -> dict:
    step = {
        "stepId": "get",
        "operationPath": f"$sourceDescriptions.pets#{pointer}",
        "parameters": [{"name": "petId", "in": "path", "value": "7"}],
        "successCriteria": [{"condition": "$statusCode == 200"}],
        "outputs": {"name": "$response.body#/name"},
    }
    return arazzo_doc({"workflowId": "w", "steps": [step]})


def test_the_source_named_by_expression_runs(write, server, capsys) -> None:
    server.reply("GET", "/pets/{petId}", (200, {"name": "Rex"}))
    path = write(_by_path("/paths/~1pets~1{petId}/get"))

    result = arazzo_runner.run(path, servers={"pets": server.url})
    assert result.status == "passed"
    assert result.workflows[0].steps[0].outputs == {"name": "Rex"}
    run = run_json(capsys, path, server=server)
    assert run.code == 0, run.err
    assert [(r.method, r.path) for r in server.requests] == [("GET", "/pets/7"), ("GET", "/pets/7")]


def test_validate_warns_with_the_standard_form(write, capsys) -> None:
    path = write(_by_path("/paths/~1pets~1{petId}/get"))
    checked = cli(capsys, "validate", path)
    assert checked.code == 0, checked.out
    assert (
        "warning operation-path-form: operationPath '$sourceDescriptions.pets#/paths/~1pets~1{petId}/get' "
        "names the source description by a runtime expression, which works; the form the specification "
        "shows is '{$sourceDescriptions.pets.url}#/paths/~1pets~1{petId}/get'"
    ) in checked.out
    assert "0 errors, 1 warning" in checked.out


def test_a_pointer_to_no_operation_is_still_an_error(write, server, capsys) -> None:
    path = write(_by_path("/paths/~1pets~1{petId}/put"))
    checked = cli(capsys, "validate", path)
    assert checked.code == 1
    assert "error operation-exists: operationPath '$sourceDescriptions.pets#/paths/~1pets~1{petId}/put'" in (
        checked.out
    )
    assert cli(capsys, "run", path, "--server", f"pets={server.url}").code == 2
    assert server.requests == []


@pytest.mark.skipif(not MUSEUM.is_dir(), reason=MISSING)
def test_the_museum_example_runs_its_events_workflow(tmp_path, server, capsys) -> None:
    # As published: the document in a folder, its OpenAPI description one level up (`../openapi.yaml`).
    (tmp_path / "docs").mkdir()
    shutil.copy(MUSEUM / "openapi.yaml", tmp_path / "openapi.yaml")
    for name in ("museum-api.arazzo.yaml", "museum-tickets.arazzo.yaml"):
        shutil.copy(MUSEUM / name, tmp_path / "docs" / name)
    server.reply("GET", "/special-events", (200, []))
    server.route("POST", "/special-events")(lambda r: (201, {**r.json(), "eventId": "ev-1"}))
    server.route("GET", "/special-events/{id}")(lambda r: (200, {"eventId": r.params["id"]}))
    server.route("PATCH", "/special-events/{id}")(lambda r: (200, {**r.json(), "eventId": r.params["id"]}))
    server.reply("DELETE", "/special-events/{id}", (204, ""))
    document = tmp_path / "docs" / "museum-api.arazzo.yaml"

    checked = cli(capsys, "validate", document, "--allow-path", tmp_path)
    assert "error operation-path-form" not in checked.out
    assert checked.out.count("warning operation-path-form") == 5
    run = run_json(
        capsys,
        document,
        "--workflow",
        "events-crud",
        "--allow-path",
        tmp_path,
        server=server,
        source="museum-api",
    )
    assert run.code == 0, run.err
    assert [s["stepId"] for s in run.json["workflows"][0]["steps"]] == [
        "list-events",
        "create-event",
        "get-event-by-id",
        "update-event",
        "delete-event",
    ]
    assert [(r.method, r.path) for r in server.requests] == [
        ("GET", "/special-events"),
        ("POST", "/special-events"),
        ("GET", "/special-events/ev-1"),
        ("PATCH", "/special-events/ev-1"),
        ("DELETE", "/special-events/ev-1"),
    ]
    assert server.requests[1].headers["authorization"] == "Basic Og=="
