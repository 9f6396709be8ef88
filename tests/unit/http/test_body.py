"""Body encoders: content type choice, form with the Encoding Object, multipart parts and files, XML."""

from __future__ import annotations

import base64
import email.parser
import email.policy

import pytest

from arazzo_runner.executor.xml_payload import XmlPayload
from arazzo_runner.http.body import choose_content_type, encode_body, media_type_object
from arazzo_runner.http.form import encode_form, parse_form
from arazzo_runner.http.multipart import data_url, encode_multipart, parse_data_url


def parts_of(body: bytes, content_type: str) -> list:
    """The parts of a multipart body, parsed by the standard library's MIME parser."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    return list(message.iter_parts())


def test_choose_content_type():
    assert choose_content_type("text/csv", ["application/json"], {}) == "text/csv"
    assert choose_content_type(None, ["application/xml", "application/vnd.x+json"], {}) == (
        "application/vnd.x+json"
    )
    assert choose_content_type(None, ["*/*"], b"\x00") == "application/octet-stream"
    assert choose_content_type(None, ["image/*"], "data:image/png;base64,AA==") == "image/png"
    assert choose_content_type(None, [], "text") == "text/plain"
    assert choose_content_type(None, [], {"a": 1}) == "application/json"


def test_media_type_object_matches_exact_then_wildcards():
    body = {"content": {"application/json": {"a": 1}, "image/*": {"b": 2}, "*/*": {"c": 3}}}
    assert media_type_object(body, "application/json; charset=utf-8") == {"a": 1}
    assert media_type_object(body, "image/png") == {"b": 2}
    assert media_type_object(body, "text/csv") == {"c": 3}
    assert media_type_object(None, "text/csv") == {}


def test_form_defaults_repeat_arrays_and_send_objects_as_json():
    payload = {"name": "a b", "tags": ["x", "y"], "meta": {"k": 1}, "n": 2.0, "ok": True}
    assert encode_form(payload) == b"name=a+b&tags=x&tags=y&meta=%7B%22k%22%3A1%7D&n=2&ok=true"


def test_form_honours_the_encoding_object():
    encoding = {
        "ids": {"style": "form", "explode": False},
        "pipes": {"style": "pipeDelimited"},
        "filter": {"style": "deepObject", "explode": True},
        "point": {"style": "form", "explode": True},
        "list": {"contentType": "application/json"},
        "next": {"allowReserved": True},
    }
    payload = {
        "ids": [1, 2],
        "pipes": ["a", "b"],
        "filter": {"name": "x y"},
        "point": {"x": 1, "y": 2},
        "list": ["a", "b"],
        "next": "/a?b",
    }
    assert encode_form(payload, encoding).decode() == (
        "ids=1,2&pipes=a%7Cb&filter%5Bname%5D=x+y&x=1&y=2&list=%5B%22a%22%2C%22b%22%5D&next=/a?b"
    )


def test_form_strings_pass_unchanged_and_parse_back():
    assert encode_form("a=1&b=x+y") == b"a=1&b=x+y"
    assert parse_form("a=1&b=x+y&a=2&c=") == {"a": ["1", "2"], "b": "x y", "c": ""}
    with pytest.raises(ValueError, match="must be an object or a string"):
        encode_form([1, 2])


def test_data_urls_round_trip_and_plain_text_is_not_one():
    url = data_url(b"\x89PNG\x00", "image/png", "my cat.png")
    assert url.startswith("data:image/png;filename=my%20cat.png;base64,")
    file = parse_data_url(url)
    assert (file.content, file.media_type, file.filename) == (b"\x89PNG\x00", "image/png", "my cat.png")
    assert parse_data_url("data:,hello%20world").content == b"hello world"
    assert parse_data_url("database") is None
    assert parse_data_url("plain text") is None


def test_multipart_fields_arrays_files_json_and_encoding_content_types():
    png = base64.b64encode(b"\x89PNG-bytes").decode()
    payload = {
        "name": "Rex",
        "age": 3,
        "tags": ["a", "b"],
        "meta": {"k": [1]},
        "photo": f"data:image/png;filename=rex.png;base64,{png}",
        "raw": b"\x00\x01",
        "notes": "<p>x</p>",
        "docs": ["data:text/plain;base64,YQ==", "data:text/plain;base64,Yg=="],
    }
    encoding = {
        "notes": {"contentType": "text/html"},
        "raw": {"contentType": "application/x-thing"},
        "photo": {"contentType": "image/png, image/jpeg"},  # a list: the file's own type is used
    }
    body, content_type = encode_multipart(payload, "multipart/form-data", encoding)
    assert content_type.startswith("multipart/form-data; boundary=arazzo-")
    parts = parts_of(body, content_type)
    seen = [
        (p.get_param("name", header="content-disposition"), p.get_filename(), p.get_content_type())
        for p in parts
    ]
    assert seen == [
        ("name", None, "text/plain"),
        ("age", None, "text/plain"),
        ("tags", None, "text/plain"),
        ("tags", None, "text/plain"),
        ("meta", None, "application/json"),
        ("photo", "rex.png", "image/png"),
        ("raw", "raw", "application/x-thing"),
        ("notes", None, "text/html"),
        ("docs", "docs", "text/plain"),
        ("docs", "docs", "text/plain"),
    ]
    contents = [p.get_payload(decode=True) for p in parts]
    assert contents[:5] == [b"Rex", b"3", b"a", b"b", b'{"k":[1]}']
    assert contents[5:] == [b"\x89PNG-bytes", b"\x00\x01", b"<p>x</p>", b"a", b"b"]


def test_multipart_keeps_a_given_boundary_and_refuses_non_objects():
    body, content_type = encode_multipart({"a": "1"}, "multipart/form-data; boundary=XyZ")
    assert content_type == "multipart/form-data; boundary=XyZ"
    assert body.startswith(b"--XyZ\r\n") and body.endswith(b"--XyZ--\r\n")
    with pytest.raises(ValueError, match="must be an object"):
        encode_multipart("x", "multipart/form-data")


def test_text_xml_and_binary_bodies():
    assert encode_body("é", "text/plain; charset=latin-1").content == "é".encode("latin-1")
    assert encode_body(3, "text/plain").content == b"3"
    assert encode_body("<a/>", "application/xml").content == b"<a/>"
    with pytest.raises(ValueError, match="must be XML text"):
        encode_body({"a": 1}, "application/xml")
    assert encode_body(b"\x00\xff", "application/octet-stream").content == b"\x00\xff"
    assert encode_body("data:;base64,AP8=", "image/png").content == b"\x00\xff"
    assert encode_body("abc", "application/octet-stream").content == b"abc"


def test_xml_payload_replacements_set_text_and_attributes_with_namespaces():
    doc = XmlPayload(
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<p:pet xmlns:p="urn:pets" id="0"><p:name>old <b>bold</b></p:name><tag>a</tag><tag>b</tag></p:pet>'
    )
    doc.replace("/p:pet/p:name", "Rex & co")
    doc.replace("/p:pet/@id", 42)
    doc.replace("//tag[2]/text()", "z")
    doc.replace("//tag[1]", {"k": 1}, "xpath-10")
    assert doc.text() == (
        '<?xml version="1.0" encoding="UTF-8"?><p:pet xmlns:p="urn:pets" id="42">'
        '<p:name>Rex &amp; co</p:name><tag>{"k":1}</tag><tag>z</tag></p:pet>'
    )


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("//missing", "matches nothing"),
        ("count(//a)", "selects no element or attribute"),
        ("//[", "is not usable XPath"),
    ],
)
def test_xml_payload_replacement_errors(target, message):
    with pytest.raises(ValueError, match=message):
        XmlPayload("<r><a/></r>").replace(target, "x")


def test_xml_payload_refuses_entities_and_malformed_text():
    with pytest.raises(ValueError, match="unsafe"):
        XmlPayload('<!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>')
    with pytest.raises(ValueError, match="not well-formed"):
        XmlPayload("<r>")
