"""JSON loading: the stdlib parser for data, a lazy scanner for positions, YAML as the fallback."""

from __future__ import annotations

import pytest

from arazzo_runner.errors import DocumentError
from arazzo_runner.loader import load_text


def error_of(text: str, file: str = "doc.json") -> DocumentError:
    with pytest.raises(DocumentError) as info:
        load_text(text, file)
    return info.value


DOCUMENT = """\
{
  "arazzo": "1.0.1",
  "workflows": [
    {"workflowId": "w", "steps": [{"stepId": "a"}, {"stepId": "b", "n": -1.5e3}]},
    []
  ],
  "paths": {"/pets/{id}": {"get~x": null}},
  "esc\\u0061ped": "\\/x\\ty",
  "t": true
}
"""


def test_values() -> None:
    doc = load_text(DOCUMENT, "doc.json")
    assert doc.format == "json"
    assert doc.data["workflows"][0]["steps"][1] == {"stepId": "b", "n": -1500.0}
    assert doc.data["escaped"] == "/x\ty"  # `\/` and escapes that PyYAML gets wrong
    assert doc.data["t"] is True


@pytest.mark.parametrize(
    ("pointer", "value_at", "key_at"),
    [
        ("", (1, 1), (1, 1)),
        ("/arazzo", (2, 13), (2, 3)),
        ("/workflows", (3, 16), (3, 3)),
        ("/workflows/0", (4, 5), (4, 5)),
        ("/workflows/0/steps/1/n", (4, 73), (4, 68)),
        ("/workflows/1", (5, 5), (5, 5)),
        ("/paths/~1pets~1{id}/get~0x", (7, 37), (7, 28)),
        ("/escaped", (8, 19), (8, 3)),
        (("workflows", 0, "steps", 0), (4, 35), (4, 35)),
        ("/workflows/7/x", (3, 16), (3, 3)),  # nearest existing ancestor
    ],
)
def test_positions(pointer: str, value_at: tuple[int, int], key_at: tuple[int, int]) -> None:
    positions = load_text(DOCUMENT, "doc.json").positions
    assert positions.locate(pointer) == value_at
    assert positions.locate_key(pointer) == key_at


def test_detected_by_first_character_or_extension() -> None:
    assert load_text('  \n {"a": 1}', "x.yaml").format == "json"
    assert load_text("[1, 2]").format == "json"
    assert load_text('"text"', "x.json").data == "text"
    assert load_text("a: 1", "x.yaml").format == "yaml"


def test_json_looking_yaml_falls_back_to_yaml() -> None:
    doc = load_text("{a: 1, b: [x, y]}  # flow-style YAML\n")
    assert doc.format == "yaml"
    assert doc.data == {"a": 1, "b": ["x", "y"]}


def test_invalid_json_file_reports_the_json_error() -> None:
    err = error_of('{\n  "a": 1,\n  "b": 2,\n}\n', "doc.json")
    assert str(err) == "doc.json:4:1: Expecting property name enclosed in double quotes"


def test_invalid_json_looking_yaml_reports_the_yaml_error() -> None:
    err = error_of("{a: [1, 2}\n", "doc.yaml")
    assert (err.line, err.column) == (1, 10)
    assert err.message.startswith("did not find expected ',' or ']'")


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ('{"a": 1,\n "a": 2}', "duplicate key 'a' (first at line 1)", 2, 2),
        ('{"x": [{"k": 1, "k\\u0020": 2, "k": 3}]}', "duplicate key 'k' (first at line 1)", 1, 31),
    ],
)
def test_duplicate_keys(text: str, message: str, line: int, column: int) -> None:
    err = error_of(text)
    assert (err.message, err.line, err.column) == (message, line, column)


def test_nan_and_infinity_are_accepted() -> None:
    data = load_text('{"a": NaN, "b": -Infinity}', "doc.json").data
    assert data["a"] != data["a"]
    assert data["b"] == float("-inf")


def test_integer_too_long_for_python_is_located() -> None:
    err = error_of('{\n  "n": ' + "9" * 5000 + "}")
    assert (err.line, err.column) == (2, 8)
    assert err.message.startswith("number too long")


def test_byte_order_mark_is_skipped() -> None:
    assert load_text(b'\xef\xbb\xbf{"a": 1}', "doc.json").data == {"a": 1}
    assert load_text('\ufeff{"a": 1}', "doc.json").data == {"a": 1}
