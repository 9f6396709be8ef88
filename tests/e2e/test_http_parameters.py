"""Parameters over a real socket: path, query, header and cookie, exactly as the server receives them."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import op_step, run_json, step, workflow

STRING = {"type": "string"}
ITEMS_OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Items", "version": "1"},
    "servers": [{"url": "http://127.0.0.1:9"}],
    "paths": {
        "/items/{itemId}": {
            "get": {
                "operationId": "getItem",
                "parameters": [
                    {"name": "itemId", "in": "path", "required": True, "schema": STRING},
                    {"name": "tags", "in": "query", "schema": {"type": "array", "items": STRING}},
                    {
                        "name": "ids",
                        "in": "query",
                        "explode": False,
                        "schema": {"type": "array", "items": {"type": "integer"}},
                    },
                    {"name": "limit", "in": "query", "schema": {"type": "integer"}},
                    {"name": "q", "in": "query", "schema": STRING},
                    {"name": "X-Trace", "in": "header", "schema": STRING},
                    {"name": "X-Api-Key", "in": "header", "schema": STRING},
                    {"name": "sid", "in": "cookie", "schema": STRING},
                    {"name": "theme", "in": "cookie", "schema": STRING},
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/config": {"get": {"operationId": "getConfig", "responses": {"200": {"description": "ok"}}}},
        "/styled/{point}": {
            "get": {
                "operationId": "styled",
                "parameters": [
                    {"name": "point", "in": "path", "required": True, "style": "matrix", "explode": True},
                    {"name": "filter", "in": "query", "style": "deepObject", "explode": True},
                    {"name": "pipes", "in": "query", "style": "pipeDelimited", "explode": False},
                    {"name": "spaces", "in": "query", "style": "spaceDelimited", "explode": False},
                    {"name": "color", "in": "query", "explode": False, "schema": {"type": "object"}},
                    {"name": "next", "in": "query", "allowReserved": True, "schema": STRING},
                    {"name": "X-Ids", "in": "header", "schema": {"type": "array"}},
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
    },
}
SOURCE = [{"name": "items", "url": "./pets.openapi.yaml", "type": "openapi"}]


def _doc(*steps: dict, **fields: Any) -> dict:
    return arazzo_doc(workflow("flow", *steps, **fields), sources=SOURCE)


def _run(capsys, write, server, doc: dict, *argv: str):
    path = write(doc, openapi=ITEMS_OPENAPI)
    return run_json(capsys, path, *argv, server=server, source="items")


def _param(name: str, in_: str, value: Any) -> dict:
    return {"name": name, "in": in_, "value": value}


def test_path_value_is_percent_encoded(capsys, write, server):
    server.reply("GET", "/items/{itemId}", (200, {"ok": True}))
    doc = _doc(
        op_step(
            "get",
            "getItem",
            parameters=[_param("itemId", "path", "$inputs.id")],
            outputs={"seen": "$request.path.itemId", "url": "$url"},
        )
    )
    result = _run(capsys, write, server, doc, "--input", "id=a b/c")
    assert result.code == 0, result.out
    assert server.requests[0].path == "/items/a%20b%2Fc"
    assert step(result)["outputs"] == {"seen": "a b/c", "url": f"{server.url}/items/a%20b%2Fc"}


def test_query_arrays_follow_style_and_explode_and_integers_stay_integers(capsys, write, server):
    server.reply("GET", "/items/{itemId}", (200, {}))
    doc = _doc(
        op_step(
            "get",
            "getItem",
            parameters=[
                _param("itemId", "path", "x"),
                _param("tags", "query", ["red", "dark blue"]),  # form, explode (the default)
                _param("ids", "query", [1, 2]),  # form, explode: false
                _param("limit", "query", "$inputs.limit"),
            ],
        ),
        inputs={"type": "object", "properties": {"limit": {"type": "integer"}}},
    )
    result = _run(capsys, write, server, doc, "--input", "limit=1")
    assert result.code == 0, result.out
    assert server.requests[0].raw_query == "tags=red&tags=dark%20blue&ids=1,2&limit=1"


def test_an_integral_number_from_a_response_is_sent_without_a_fraction(capsys, write, server):
    server.reply(
        "GET", "/config", (200, '{"limit": 3.0, "ratio": 0.5}', {"Content-Type": "application/json"})
    )
    server.reply("GET", "/items/{itemId}", (200, {}))
    doc = _doc(
        op_step(
            "config", "getConfig", outputs={"limit": "$response.body#/limit", "q": "$response.body#/ratio"}
        ),
        op_step(
            "get",
            "getItem",
            parameters=[
                _param("itemId", "path", "$steps.config.outputs.limit"),
                _param("limit", "query", "$steps.config.outputs.limit"),
                _param("q", "query", "$steps.config.outputs.q"),
            ],
        ),
    )
    result = _run(capsys, write, server, doc)
    assert result.code == 0, result.out
    assert server.requests[1].path == "/items/3"
    assert server.requests[1].raw_query == "limit=3&q=0.5"


def test_declared_styles_are_honoured(capsys, write, server):
    server.reply("GET", "/styled/{point}", (200, {}))
    doc = _doc(
        op_step(
            "get",
            "styled",
            parameters=[
                _param("point", "path", {"x": 1, "y": 2}),
                _param("filter", "query", {"name": "a b", "age": 3}),
                _param("pipes", "query", ["a", "b"]),
                _param("spaces", "query", ["a", "b"]),
                _param("color", "query", {"R": 100, "G": 200}),
                _param("next", "query", "/a/b?c=d"),
                _param("X-Ids", "header", [1, 2, 3]),
            ],
        )
    )
    result = _run(capsys, write, server, doc)
    assert result.code == 0, result.out
    sent = server.requests[0]
    assert sent.path == "/styled/;x=1;y=2"
    assert sent.raw_query == (
        "filter%5Bname%5D=a%20b&filter%5Bage%5D=3&pipes=a%7Cb&spaces=a%20b&color=R,100,G,200&next=/a/b?c=d"
    )
    assert sent.headers["x-ids"] == "1,2,3"


def test_header_names_are_case_insensitive_and_a_step_header_overrides_the_workflow_one(
    capsys, write, server
):
    server.reply("GET", "/items/{itemId}", (200, {}))
    doc = _doc(
        op_step(
            "get",
            "getItem",
            parameters=[
                _param("itemId", "path", "1"),
                _param("x-api-key", "header", "from-step"),
                _param("x-trace", "header", "t-1"),
            ],
            outputs={"trace": "$request.header.X-TRACE"},
        ),
        parameters=[_param("X-API-KEY", "header", "from-workflow")],
    )
    result = _run(capsys, write, server, doc)
    assert result.code == 0, result.out
    received = server.requests[0].raw_headers
    keys = [value for name, value in received if name.lower() == "x-api-key"]
    assert keys == ["from-step"]
    assert [value for name, value in received if name.lower() == "x-trace"] == ["t-1"]
    got = step(result)
    assert got["outputs"] == {"trace": "t-1"}
    assert "warnings" not in got  # declared as X-Trace / X-Api-Key: no "not declared" warning


def test_workflow_level_parameters_reach_every_step(capsys, write, server):
    server.reply("GET", "/items/{itemId}", (200, {}))
    server.reply("GET", "/config", (200, {}))
    doc = _doc(
        op_step("config", "getConfig"),
        op_step("get", "getItem", parameters=[_param("itemId", "path", "2")]),
        parameters=[_param("X-Api-Key", "header", "shared")],
    )
    result = _run(capsys, write, server, doc)
    assert result.code == 0, result.out
    assert [r.headers.get("x-api-key") for r in server.requests] == ["shared", "shared"]


def test_cookies_are_sent_in_one_cookie_header(capsys, write, server):
    server.reply("GET", "/items/{itemId}", (200, {}))
    doc = _doc(
        op_step(
            "get",
            "getItem",
            parameters=[
                _param("itemId", "path", "1"),
                _param("sid", "cookie", "abc123"),
                _param("theme", "cookie", "dark"),
            ],
        )
    )
    result = _run(capsys, write, server, doc)
    assert result.code == 0, result.out
    assert [v for n, v in server.requests[0].raw_headers if n.lower() == "cookie"] == [
        "sid=abc123; theme=dark"
    ]


def test_an_undeclared_parameter_is_sent_with_a_warning(capsys, write, server):
    server.reply("GET", "/items/{itemId}", (200, {}))
    doc = _doc(
        op_step(
            "get",
            "getItem",
            parameters=[_param("itemId", "path", "1"), _param("debug", "query", True)],
        )
    )
    result = _run(capsys, write, server, doc)
    assert result.code == 0, result.out
    assert server.requests[0].raw_query == "debug=true"
    assert step(result)["warnings"] == [
        "parameter 'debug' (in query) is not declared by the operation; sent anyway"
    ]


def test_a_missing_optional_query_parameter_is_omitted_with_a_warning(capsys, write, server):
    server.reply("GET", "/items/{itemId}", (200, {}))
    doc = _doc(
        op_step(
            "get",
            "getItem",
            parameters=[
                _param("itemId", "path", "1"),
                _param("q", "query", "$inputs.search"),
                _param("limit", "query", 5),
            ],
        )
    )
    result = _run(capsys, write, server, doc)
    assert result.code == 0, result.out
    assert server.requests[0].raw_query == "limit=5"
    [warning] = step(result)["warnings"]
    assert "'q' (in query) not sent" in warning
    assert "search" in warning


def test_a_missing_path_parameter_fails_the_step_before_sending(capsys, write, server):
    server.reply("GET", "/items/{itemId}", (200, {}))
    doc = _doc(op_step("get", "getItem", parameters=[_param("itemId", "path", "$inputs.id")]))
    result = _run(capsys, write, server, doc)
    assert result.code == 1
    assert server.requests == []
    got = step(result)
    assert got["status"] == "failed"
    assert got["statusCode"] is None
    assert got["error"].startswith("request not sent: required parameter 'itemId' (in path) has no value")


def test_null_and_missing_values_are_never_sent_as_the_text_none(capsys, write, server):
    server.reply("GET", "/config", (200, {"nothing": None}))
    server.reply("GET", "/items/{itemId}", (200, {}))
    doc = _doc(
        op_step("config", "getConfig", outputs={"nothing": "$response.body#/nothing"}),
        op_step(
            "get",
            "getItem",
            parameters=[
                _param("itemId", "path", "id-7"),  # a null there fails the step: test_http_no_silent_values
                _param("q", "query", "$steps.config.outputs.nothing"),
                _param("X-Trace", "header", "t-{$steps.config.outputs.nothing}"),
                _param("X-Api-Key", "header", "$inputs.absent"),
                _param("sid", "cookie", "$inputs.absent"),
            ],
        ),
    )
    result = _run(capsys, write, server, doc)
    assert result.code == 0, result.out
    sent = server.requests[1]
    everything = sent.path + sent.raw_query + repr(sent.raw_headers) + sent.body.decode()
    assert "None" not in everything
    assert sent.raw_query == "q="
    assert "x-api-key" not in sent.headers
    assert "cookie" not in sent.headers
    assert sent.headers["x-trace"] == "t-null"  # an optional template spells null, and says so:
    assert step(result, 1)["warnings"] == [
        "parameter 'X-Trace' (in header): {$steps.config.outputs.nothing} is null, sent as the text 'null'",
        "parameter 'X-Api-Key' (in header) not sent: input 'absent' was not provided",
        "parameter 'sid' (in cookie) not sent: input 'absent' was not provided",
    ]


def test_non_ascii_and_reserved_characters(capsys, write, server):
    server.reply("GET", "/items/{itemId}", (200, {}))
    doc = _doc(
        op_step(
            "get",
            "getItem",
            parameters=[
                _param("itemId", "path", "50%/ü?#"),
                _param("q", "query", "café & co=1+2"),
                _param("X-Trace", "header", "Zoë"),
            ],
        )
    )
    result = _run(capsys, write, server, doc)
    assert result.code == 0, result.out
    sent = server.requests[0]
    assert sent.path == "/items/50%25%2F%C3%BC%3F%23"
    assert sent.raw_query == "q=caf%C3%A9%20%26%20co%3D1%2B2"
    [trace] = [v for n, v in sent.raw_headers if n.lower() == "x-trace"]
    assert trace.encode("latin-1").decode("utf-8") == "Zoë"  # sent as UTF-8 bytes


def test_a_header_value_with_a_line_break_is_never_sent(capsys, write, server):
    server.reply("GET", "/items/{itemId}", (200, {}))
    header = _param("X-Trace", "header", "a\r\nX-Injected: 1")
    doc = _doc(op_step("get", "getItem", parameters=[_param("itemId", "path", "1"), header]))
    result = _run(capsys, write, server, doc)
    assert result.code == 1
    assert server.requests == []
    assert step(result)["error"] == (
        "request not sent: the value of header 'X-Trace' contains a line break or control character"
    )


def test_cookie_values_cannot_smuggle_another_cookie(capsys, write, server):
    server.reply("GET", "/items/{itemId}", (200, {}))
    doc = _doc(
        op_step(
            "get",
            "getItem",
            parameters=[
                _param("itemId", "path", "1"),
                _param("sid", "cookie", "a b;admin=1"),
                _param("theme", "cookie", "ab+/c=="),  # base64 stays as it is
            ],
        )
    )
    result = _run(capsys, write, server, doc)
    assert result.code == 0, result.out
    assert server.requests[0].headers["cookie"] == "sid=a%20b%3Badmin=1; theme=ab+/c=="
