"""Request bodies by media type over a real socket: +json, forms with the Encoding Object, multipart with
files and per-part types, text, XML templates with XPath replacements, binary."""

from __future__ import annotations

import base64
import email.parser
import email.policy
from typing import Any

import yaml

from tests.e2e.helpers import cli, step
from tests.e2e.httpkit import echo, op, openapi, run_flow, write_flow

PNG = b"\x89PNG\r\n\x1a\n\x00binary\xff"


def _api(content: dict[str, Any]) -> dict:
    return openapi({"/things": {"post": op("create", requestBody={"content": content})}})


def _create(body: dict[str, Any], **fields: Any) -> dict:
    return {"stepId": "create", "operationId": "create", "requestBody": body, **fields}


def _parts(request: Any) -> list:
    head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + request.body)
    return list(message.iter_parts())


def test_a_plus_json_media_type_is_chosen_and_sent_as_json(tmp_path, server):
    echo(server)
    api = _api({"application/xml": {}, "application/vnd.api+json": {}})
    workflow = run_flow(tmp_path, server, api, [_create({"payload": {"data": {"id": 1}}})])
    assert workflow["status"] == "passed", workflow["error"]
    sent = server.requests[0]
    assert sent.headers["content-type"] == "application/vnd.api+json"
    assert sent.body == b'{"data":{"id":1}}'


def test_form_body_follows_the_encoding_object_and_pointer_replacements(tmp_path, server):
    echo(server)
    encoding = {
        "ids": {"style": "form", "explode": False},
        "filter": {"style": "deepObject", "explode": True},
        "tags": {"style": "pipeDelimited", "explode": False},
    }
    api = _api({"application/x-www-form-urlencoded": {"schema": {"type": "object"}, "encoding": encoding}})
    body = {
        "payload": {
            "name": "x",
            "ids": [1, 2],
            "filter": {"kind": "a b"},
            "tags": ["p", "q"],
            "meta": {"k": 1},
        },
        "replacements": [{"target": "/name", "value": "Rex & co"}, {"target": "/ids/-", "value": 3}],
    }
    workflow = run_flow(tmp_path, server, api, [_create(body)])
    assert workflow["status"] == "passed", workflow["error"]
    sent = server.requests[0]
    assert sent.headers["content-type"] == "application/x-www-form-urlencoded"
    assert sent.body == (b"name=Rex+%26+co&ids=1,2,3&filter%5Bkind%5D=a+b&tags=p%7Cq&meta=%7B%22k%22%3A1%7D")


def test_a_form_string_payload_takes_pointer_replacements(tmp_path, server):
    echo(server)
    api = _api({"application/x-www-form-urlencoded": {}})
    body = {
        "payload": "user=ann&scope=a&scope=b",
        "replacements": [{"target": "/user", "value": "bob smith"}],
    }
    workflow = run_flow(tmp_path, server, api, [_create(body)])
    assert workflow["status"] == "passed", workflow["error"]
    assert server.requests[0].body == b"user=bob+smith&scope=a&scope=b"


def test_multipart_with_fields_arrays_json_parts_and_a_file_from_the_command_line(tmp_path, server, capsys):
    echo(server)
    encoding = {"photo": {"contentType": "image/png"}, "notes": {"contentType": "text/markdown"}}
    api = _api({"multipart/form-data": {"schema": {"type": "object"}, "encoding": encoding}})
    payload = {
        "name": "$inputs.name",
        "tags": ["a", "b"],
        "owner": {"id": 7},
        "notes": "# hi",
        "photo": "$inputs.photo",
    }
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "photo": {"type": "string"}}}
    path = write_flow(tmp_path, api, [_create({"payload": payload})], inputs=schema)
    (tmp_path / "cat photo.bin").write_bytes(PNG)
    result = cli(
        capsys, "run", path, "--format", "json", "--server", f"api={server.url}",
        "--input", "name=Rex", "--input-file", f"photo={tmp_path / 'cat photo.bin'}",
    )  # fmt: skip
    assert result.code == 0, result.out
    parts = _parts(server.requests[0])
    described = [
        (p.get_param("name", header="content-disposition"), p.get_filename(), p.get_content_type())
        for p in parts
    ]
    assert described == [
        ("name", None, "text/plain"),
        ("tags", None, "text/plain"),
        ("tags", None, "text/plain"),
        ("owner", None, "application/json"),
        ("notes", None, "text/markdown"),
        ("photo", "cat photo.bin", "image/png"),
    ]
    contents = [p.get_payload(decode=True) for p in parts]
    assert contents == [b"Rex", b"a", b"b", b'{"id":7}', b"# hi", PNG]
    assert step(result)["status"] == "passed"


def test_multipart_file_given_as_a_base64_data_url_input(tmp_path, server):
    echo(server)
    api = _api({"multipart/form-data": {}})
    photo = "data:image/gif;filename=a.gif;base64," + base64.b64encode(b"GIF89a").decode()
    workflow = run_flow(
        tmp_path, server, api, [_create({"payload": {"file": "$inputs.photo"}})], inputs={"photo": photo}
    )
    assert workflow["status"] == "passed", workflow["error"]
    [part] = _parts(server.requests[0])
    assert (part.get_filename(), part.get_content_type(), part.get_payload(decode=True)) == (
        "a.gif",
        "image/gif",
        b"GIF89a",
    )


def test_text_plain_body(tmp_path, server):
    echo(server)
    api = _api({"text/plain; charset=utf-8": {}})
    workflow = run_flow(
        tmp_path, server, api, [_create({"payload": "Hello {$inputs.name}!"})], inputs={"name": "Zoë"}
    )
    assert workflow["status"] == "passed", workflow["error"]
    assert server.requests[0].headers["content-type"] == "text/plain; charset=utf-8"
    assert server.requests[0].body == "Hello Zoë!".encode()


def test_xml_payload_template_with_xpath_replacements(tmp_path, server):
    echo(server)
    api = _api({"application/xml": {}})
    template = (
        '<?xml version="1.0"?><order id="0"><item sku="{$inputs.sku}">1</item><note>draft</note></order>'
    )
    body = {
        "payload": template,
        "replacements": [
            {"target": "/order/@id", "value": "$inputs.id"},
            {"target": "/order/item", "value": 5},
            {"target": "//note/text()", "value": "final <ok>"},
        ],
    }
    workflow = run_flow(tmp_path, server, api, [_create(body)], inputs={"sku": "A-B", "id": 42})
    assert workflow["status"] == "passed", workflow["error"]
    sent = server.requests[0]
    assert sent.headers["content-type"] == "application/xml"
    assert sent.body == (
        b'<?xml version="1.0"?><order id="42"><item sku="A-B">5</item><note>final &lt;ok&gt;</note></order>'
    )


def test_an_xpath_replacement_that_matches_nothing_fails_the_step_unsent(tmp_path, server):
    echo(server)
    body = {"payload": "<a/>", "replacements": [{"target": "/a/b", "value": 1}]}
    workflow = run_flow(tmp_path, server, _api({"application/xml": {}}), [_create(body)])
    assert workflow["status"] == "failed"
    assert server.requests == []
    assert (
        workflow["steps"][0]["error"]
        == "request not sent: replacement target '/a/b' matches nothing in the payload"
    )


def test_binary_bodies_send_the_bytes_of_a_data_url(tmp_path, server):
    echo(server)
    api = openapi(
        {
            "/raw": {"post": op("raw", requestBody={"content": {"application/octet-stream": {}}})},
            "/image": {"post": op("image", requestBody={"content": {"image/*": {}}})},
        }
    )
    data = "data:image/png;base64," + base64.b64encode(PNG).decode()
    steps = [
        {"stepId": "raw", "operationId": "raw", "requestBody": {"payload": "$inputs.data"}},
        {"stepId": "image", "operationId": "image", "requestBody": {"payload": "$inputs.data"}},
        {"stepId": "text", "operationId": "raw", "requestBody": {"payload": "plain"}},
    ]
    workflow = run_flow(tmp_path, server, api, steps, inputs={"data": data})
    assert workflow["status"] == "passed", workflow["error"]
    raw, image, text = server.requests
    assert (raw.headers["content-type"], raw.body) == ("application/octet-stream", PNG)
    assert (image.headers["content-type"], image.body) == ("image/png", PNG)  # from the data URL
    assert text.body == b"plain"


def test_content_type_omitted_uses_the_operations_only_media_type(tmp_path, server):
    echo(server)
    api = _api({"application/xml": {}})
    workflow = run_flow(tmp_path, server, api, [_create({"payload": "<a>{$inputs.x}</a>"})], inputs={"x": 1})
    assert workflow["status"] == "passed", workflow["error"]
    assert (server.requests[0].headers["content-type"], server.requests[0].body) == (
        "application/xml",
        b"<a>1</a>",
    )
    assert yaml.safe_load((tmp_path / "flow.arazzo.yaml").read_text())["workflows"][0]["steps"][0][
        "requestBody"
    ] == {"payload": "<a>{$inputs.x}</a>"}  # no contentType was written
