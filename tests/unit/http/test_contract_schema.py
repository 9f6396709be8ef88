"""The contract checks' body check on its own (`http/contract_schema.py`, no description): the dialect a
schema is read in, OpenAPI 3.0's `nullable` and Draft 4 bounds, formats, writeOnly values never quoted,
and a schema no validator can use said as not checked."""

from __future__ import annotations

from arazzo_runner.http.contract_schema import BodyChecker


def _check(schema: dict, body: object, version: str = "3.1.0") -> list[tuple[str, str, str]]:
    return [(m.pointer, m.wanted, m.got) for m in BodyChecker(schema, version, None).check(body)]


def test_nullable_admits_null_in_3_0_only():
    schema = {"properties": {"note": {"type": "string", "nullable": True}}}
    assert _check(schema, {"note": None}, "3.0.3") == []
    assert _check(schema, {"note": None}, "3.1.0") == [("/note", "type string", "null")]


def test_a_draft_named_by_schema_is_the_one_read():
    bound = {"properties": {"n": {"maximum": 5, "exclusiveMaximum": True}}}
    assert _check(bound, {"n": 5}, "3.0.3") == [("/n", "< 5", "5")]  # Draft 4: the flag form
    seven = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"n": {"exclusiveMaximum": 5}},
    }
    assert _check(seven, {"n": 5}) == [("/n", "< 5", "5")]
    assert _check(seven, {"n": 4}) == []


def test_formats_are_checked():
    schema = {"properties": {"at": {"type": "string", "format": "date-time"}}}
    assert _check(schema, {"at": "2026-12-05T06:00:00Z"}) == []
    assert _check(schema, {"at": "yesterday"}) == [("/at", 'format "date-time"', '"yesterday"')]


def test_a_write_only_value_is_never_quoted_and_a_read_only_one_stays_required():
    schema = {
        "required": ["id", "password"],
        "properties": {"id": {"readOnly": True}, "password": {"type": "string", "writeOnly": True}},
    }
    assert _check(schema, {"id": 1}) == []
    found = _check(schema, {"password": "hunter2-hunter2"})
    assert found[0] == ("/id", "a value (required)", "nothing")
    assert found[1][0] == "/password" and "hunter2" not in repr(found)


def test_a_schema_no_validator_can_use_is_said_not_checked():
    [(pointer, wanted, got)] = _check(
        {"oneOf": [{}], "discriminator": {"propertyName": "x", "mapping": 5}}, {}
    )
    assert (pointer, wanted) == ("", "a schema the body can be checked against")
    assert got.endswith("): not checked") and "discriminator" in got
    [(_, _, got)] = _check({"$schema": "http://example.invalid/meta"}, {})
    dialect = "($schema 'http://example.invalid/meta')"
    assert got == f"a schema names a dialect the validator does not know {dialect}: not checked"


def test_the_response_and_media_type_a_description_gives_are_the_most_specific():
    from arazzo_runner.http.contract import declared_response, media_key_for

    responses = {"default": "d", "4XX": "range", "404": "exact"}
    assert declared_response(responses, 404) == ("404", "exact")
    assert declared_response({"default": "d", "4xx": "range"}, 404) == ("4xx", "range")
    assert declared_response({"default": "d", "4XX": "range"}, 500) == ("default", "d")
    assert declared_response({"4XX": "range"}, 500) == (None, None)
    content = {"*/*": {}, "application/*": {}, "application/json": {}}
    assert media_key_for("application/json", content) == "application/json"
    assert media_key_for("application/xml", content) == "application/*"
    assert media_key_for("text/plain", content) == "*/*"
    assert media_key_for("text/plain", {"application/*": {}}) is None


def _answer(headers: dict, content: bytes = b"", body: object = None, error: str | None = None):
    from types import SimpleNamespace

    from arazzo_runner.http.headers import Headers

    content_type = headers.get("content-type")
    return SimpleNamespace(status_code=200, headers=Headers(list(headers.items())), content=content,
                           content_type=content_type, body=body, error=error)  # fmt: skip


def test_headers_are_checked_as_documented_and_a_body_that_failed_to_parse_is_not_checked_again():
    """OpenAPI ignores a documented Content-Type header; a header not `required` may be absent; a body
    that contradicts its type has failed the step already (`error`), its schema is not checked too."""
    from types import SimpleNamespace

    from arazzo_runner.http.contract import check

    number = {"schema": {"type": "integer"}}
    documented = {
        "headers": {"Content-Type": number, "X-Rate": number, "X-Id": {**number, "required": True}},
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
    operation = SimpleNamespace(responses={"200": documented}, pointer="/paths/~1x/get")
    json_type = {"content-type": "application/json"}
    assert [v.text() for v in check({}, None, operation, _answer({**json_type, "x-id": "7"}))] == []
    missing = check({}, None, operation, _answer(json_type))
    assert [v.text() for v in missing] == [
        "response 200: header X-Id: wanted the header (required), got nothing"
    ]
    broken = _answer({**json_type, "x-id": "7"}, b"[1,", "[1,", error="the body is not valid JSON")
    assert check({}, None, operation, broken) == []
    wrong = _answer({**json_type, "x-id": "7"}, b"[1]", [1])
    assert [v.part for v in check({}, None, operation, wrong)] == ["body"]
