"""A response body missing several required properties, or holding several members `additionalProperties:
false` refuses, is reported once for each, at its own place (a JSON pointer, escaped), by the contract
checks' subset path and by the general path alike (`http/contract_explain.py`). It used to put every
missing one at the first missing name, and only the first extra member, unescaped, that `properties`
did not name, even one a `patternProperties` pattern allows."""

from __future__ import annotations

from tests.e2e.test_contract_subset import _project, _run

PET = {
    "type": "object",
    "required": ["id", "name", "tag"],
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "tag": {"type": "string"}},
}


def _lines(out: str, word: str = "(required)") -> list[str]:
    """The findings saying `word`, without the step's prefix."""
    return [line.split("): ", 1)[1] for line in out.splitlines() if word in line]


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


def test_each_extra_member_is_named_on_both_paths(tmp_path, server, other_server) -> None:
    closed = {**PET, "required": ["id"], "additionalProperties": False}
    body = {"id": 1, "a/b": 1, "name": "Rex", "c": 2}
    said = "wanted no such property (additionalProperties: false)"
    wanted = [
        f"response 200 application/json: body /a~1b: {said}, got 1",
        f"response 200 application/json: body /c: {said}, got 2",
    ]
    _project(tmp_path, closed)  # the subset
    server.reply("GET", "/pets/{petId}", (200, body), (200, body))
    _run(tmp_path, server)
    subset = _run(tmp_path, server)
    assert subset["code"] == 0 and "jsonschema_rs" not in subset["modules"], subset["out"]
    assert _lines(subset["out"], "no such property") == wanted, subset["out"]
    other = tmp_path / "other"  # patternProperties: the general path, and `x-note` is allowed
    other.mkdir()
    _project(other, {**closed, "patternProperties": {"^x-": {}}})
    other_server.reply("GET", "/pets/{petId}", (200, {"x-note": 0, **body}))
    general = _run(other, other_server)
    assert general["code"] == 0 and "jsonschema_rs" in general["modules"]
    assert _lines(general["out"], "no such property") == wanted, general["out"]
