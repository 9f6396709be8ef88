"""Every row of the OpenAPI 3.1 style table over a real socket, plus allowReserved, `content`-encoded
parameters and Arazzo 1.1 `querystring`: what the server receives, byte for byte."""

from __future__ import annotations

from typing import Any

from tests.e2e.httpkit import echo, op, openapi, param, run_flow, step
from tests.style_table import PATH_TABLE, QUERY_TABLE

COLOR = {
    "empty": "",
    "string": "blue",
    "array": ["blue", "black", "brown"],
    "object": {"R": 100, "G": 200, "B": 150},
}
PATH_ROWS = PATH_TABLE
QUERY_ROWS = QUERY_TABLE
HEADER_ROWS = {
    False: ("", "blue", "blue,black,brown", "R,100,G,200,B,150"),
    True: ("", "blue", "blue,black,brown", "R=100,G=200,B=150"),
}
COOKIE_ROWS = {
    False: ("color=", "color=blue", "color=blue,black,brown", "color=R,100,G,200,B,150"),
    True: ("color=", "color=blue", "color=blue; color=black; color=brown", "R=100; G=200; B=150"),
}


def _declared(in_: str, style: str, explode: bool, name: str = "color") -> dict[str, Any]:
    return {"name": name, "in": in_, "required": in_ == "path", "style": style, "explode": explode}


def _table_api() -> tuple[dict, list[dict], list[tuple[str, str]]]:
    """One operation per (location, style, explode); one step per value; the expected (kind, text)."""
    paths: dict[str, Any] = {}
    steps: list[dict] = []
    expected: list[tuple[str, str]] = []

    def add(path: str, spec: dict, rows: tuple, kind: str) -> None:
        operation_id = path.strip("/").split("/")[0]
        paths[path] = {"get": op(operation_id, parameters=[spec])}
        for (column, value), want in zip(COLOR.items(), rows, strict=True):
            if want is not None:
                steps.append(
                    step(f"{operation_id}-{column}", operation_id, param(spec["name"], spec["in"], value))
                )
                expected.append((kind, want))

    for (style, explode), rows in PATH_ROWS.items():
        # `v` keeps a value from being a whole segment: `.` alone would be a dot-segment (tested below)
        add(f"/path-{style}-{int(explode)}/v{{color}}/end", _declared("path", style, explode), rows, "path")
    for (style, explode), rows in QUERY_ROWS.items():
        add(f"/query-{style}-{int(explode)}", _declared("query", style, explode), rows, "query")
    for explode, rows in HEADER_ROWS.items():
        add(f"/header-{int(explode)}", _declared("header", "simple", explode, "X-Color"), rows, "header")
    for explode, rows in COOKIE_ROWS.items():
        add(f"/cookie-{int(explode)}", _declared("cookie", "form", explode), rows, "cookie")
    return openapi(paths), steps, expected


def _received(request: Any, kind: str) -> str:
    if kind == "path":
        return request.path.split("/")[2][1:]
    if kind == "query":
        return request.raw_query
    if kind == "header":
        return request.headers.get("x-color", "")
    return request.headers.get("cookie", "")


def test_every_row_of_the_style_table_reaches_the_server_as_the_table_says(tmp_path, server):
    echo(server)
    api, steps, expected = _table_api()
    workflow = run_flow(tmp_path, server, api, steps)
    assert workflow["status"] == "passed", workflow["error"]
    assert len(server.requests) == len(expected) == 53
    received = [(kind, _received(r, kind)) for r, (kind, _) in zip(server.requests, expected, strict=True)]
    assert received == expected
    assert not any("warnings" in s for s in workflow["steps"])  # all declared: no warnings


def test_a_dot_segment_value_cannot_climb_to_another_path(tmp_path, server):
    echo(server)
    spec = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    label = {**spec, "name": "tag", "style": "label"}
    api = openapi({"/users/{id}/items/{tag}/delete": {"get": op("del", parameters=[spec, label])}})
    steps = [step("d", "del", param("id", "path", ".."), param("tag", "path", ""))]
    workflow = run_flow(tmp_path, server, api, steps)
    assert workflow["status"] == "passed", workflow["error"]
    assert server.requests[0].path == "/users/%2E%2E/items/%2E/delete"


def test_percent_encoding_and_allow_reserved(tmp_path, server):
    echo(server)
    api = openapi(
        {
            "/files/{name}": {
                "get": op(
                    "file",
                    parameters=[
                        {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}},
                        {"name": "q", "in": "query", "schema": {"type": "string"}},
                        {"name": "next", "in": "query", "allowReserved": True, "schema": {"type": "string"}},
                        {"name": "ids", "in": "query", "explode": False, "schema": {"type": "array"}},
                    ],
                )
            }
        }
    )
    steps = [
        step(
            "get",
            "file",
            param("name", "path", "a b/c?ü"),
            param("q", "query", "x&y=z+1#2"),
            param("next", "query", "/a/b?c=d&e=f"),
            param("ids", "query", ["a,b", "c d"]),
        )
    ]
    workflow = run_flow(tmp_path, server, api, steps)
    assert workflow["status"] == "passed", workflow["error"]
    [sent] = server.requests
    assert sent.path == "/files/a%20b%2Fc%3F%C3%BC"
    assert sent.raw_query == "q=x%26y%3Dz%2B1%232&next=/a/b?c=d&e=f&ids=a%2Cb,c%20d"


def test_content_encoded_parameters_send_the_media_type_text(tmp_path, server):
    echo(server)
    json_content = {"application/json": {"schema": {"type": "object"}}}
    api = openapi(
        {
            "/search/{where}": {
                "get": op(
                    "search",
                    parameters=[
                        {"name": "where", "in": "path", "required": True, "content": json_content},
                        {"name": "filter", "in": "query", "content": json_content},
                        {"name": "X-Filter", "in": "header", "content": json_content},
                        {"name": "prefs", "in": "cookie", "content": json_content},
                        {"name": "text", "in": "query", "content": {"text/plain": {}}},
                    ],
                )
            }
        }
    )
    value = {"name": "a b", "tags": ["x"], "n": 1}
    steps = [
        step(
            "s",
            "search",
            param("where", "path", {"city": "Zürich"}),
            param("filter", "query", value),
            param("X-Filter", "header", value),
            param("prefs", "cookie", {"dark": True}),
            param("text", "query", "a b"),
        )
    ]
    workflow = run_flow(tmp_path, server, api, steps)
    assert workflow["status"] == "passed", workflow["error"]
    [sent] = server.requests
    assert sent.path == "/search/%7B%22city%22%3A%22Z%C3%BCrich%22%7D"
    assert sent.raw_query == (
        "filter=%7B%22name%22%3A%22a%20b%22%2C%22tags%22%3A%5B%22x%22%5D%2C%22n%22%3A1%7D&text=a%20b"
    )
    assert sent.query["filter"] == ['{"name":"a b","tags":["x"],"n":1}']
    assert sent.headers["x-filter"] == '{"name":"a b","tags":["x"],"n":1}'
    assert sent.headers["cookie"] == "prefs={%22dark%22:true}"  # `{` is a cookie-octet


def _querystring_api(media_type: str | None) -> dict:
    parameters = []
    if media_type:
        parameters = [
            {"name": "q", "in": "querystring", "content": {media_type: {"schema": {"type": "object"}}}}
        ]
    return openapi({"/find": {"get": op("find", parameters=parameters)}})


def test_querystring_objects_are_encoded_by_the_declared_media_type(tmp_path, server):
    echo(server)
    value = {"kind": "cat dog", "tags": ["a", "b"], "n": 2}
    cases = [
        (None, "kind=cat+dog&tags=a&tags=b&n=2"),
        ("application/x-www-form-urlencoded", "kind=cat+dog&tags=a&tags=b&n=2"),
        (
            "application/json",
            "%7B%22kind%22%3A%22cat%20dog%22%2C%22tags%22%3A%5B%22a%22%2C%22b%22%5D%2C%22n%22%3A2%7D",
        ),
    ]
    for index, (media_type, _) in enumerate(cases):
        folder = tmp_path / str(index)
        folder.mkdir()
        steps = [step("find", "find", param("q", "querystring", value))]
        workflow = run_flow(folder, server, _querystring_api(media_type), steps)
        assert workflow["status"] == "passed", workflow["error"]
        assert "warnings" not in workflow["steps"][0] or media_type is None
    assert [r.raw_query for r in server.requests] == [want for _, want in cases]


def test_a_querystring_string_is_sent_as_written(tmp_path, server):
    echo(server)
    steps = [step("find", "find", param("q", "querystring", "a=1&b=x y&c=%2F"))]
    workflow = run_flow(tmp_path, server, _querystring_api("application/x-www-form-urlencoded"), steps)
    assert workflow["status"] == "passed", workflow["error"]
    assert server.requests[0].raw_query == "a=1&b=x%20y&c=%2F"


def test_scalar_path_values_of_each_type_are_written_as_json_spells_them(tmp_path, server):
    """A boolean, a number and a string in simple style (`request._path`'s direct encoding of an id is for
    an int or a non-empty string alone): `true`, not Python's `True`; `1.5`; and the text encoded."""
    echo(server)
    names = ("flag", "n", "x", "s")
    specs = [{"name": n, "in": "path", "required": True, "schema": {}} for n in names]
    api = openapi({"/v/{flag}/{n}/{x}/{s}": {"get": op("v", parameters=specs)}})
    steps = [
        step("v", "v", param("flag", "path", True), param("n", "path", 7), param("x", "path", 1.5),
             param("s", "path", "a/b"))
    ]  # fmt: skip
    workflow = run_flow(tmp_path, server, api, steps)
    assert workflow["status"] == "passed", workflow["error"]
    assert server.requests[0].path == "/v/true/7/1.5/a%2Fb"
