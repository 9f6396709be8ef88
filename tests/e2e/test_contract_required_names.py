"""A response body missing several required properties is reported once for each, at its own place, by
the contract checks' subset path and by the general path alike (`http/contract_explain.py` reads the
name from jsonschema's message; it used to put every one of them at the first missing name)."""

from __future__ import annotations

from tests.e2e.test_contract_subset import _project, _run

PET = {
    "type": "object",
    "required": ["id", "name", "tag"],
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "tag": {"type": "string"}},
}


def _lines(out: str) -> list[str]:
    """The required-property findings, without the step's prefix."""
    return [line.split("): ", 1)[1] for line in out.splitlines() if "(required)" in line]


def test_each_missing_property_is_named_on_both_paths(tmp_path, server, other_server) -> None:
    wanted = [
        "response 200 application/json: body /id: wanted a value (required), got nothing",
        "response 200 application/json: body /tag: wanted a value (required), got nothing",
    ]
    _project(tmp_path, PET)  # the subset
    server.reply("GET", "/pets/{petId}", (200, {"name": "Rex"}), (200, {"name": "Rex"}))
    _run(tmp_path, server)  # validates the document (the validation cache filled): jsonschema-rs imported
    subset = _run(tmp_path, server)
    assert subset["code"] == 0 and "jsonschema_rs" not in subset["modules"], subset["out"]
    assert _lines(subset["out"]) == wanted, subset["out"]
    other = tmp_path / "other"  # a pattern: the general path
    other.mkdir()
    _project(other, {**PET, "properties": {**PET["properties"], "name": {"type": "string", "pattern": "^R"}}})
    other_server.reply("GET", "/pets/{petId}", (200, {"name": "Rex"}))
    general = _run(other, other_server)
    assert general["code"] == 0 and "jsonschema_rs" in general["modules"]
    assert _lines(general["out"]) == wanted
