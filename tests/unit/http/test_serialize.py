"""Parameter serialization: every row of the OpenAPI 3.1 style table, plus percent-encoding rules."""

from __future__ import annotations

import pytest

from arazzo_runner.http.serialize import (
    content_text,
    serialize_cookie,
    serialize_header,
    serialize_path,
    serialize_query,
)
from tests.style_table import ARRAY, EMPTY, OBJECT, PATH_TABLE, QUERY_TABLE, STRING

VALUES = (EMPTY, STRING, ARRAY, OBJECT)


@pytest.mark.parametrize(("style", "explode"), list(PATH_TABLE))
@pytest.mark.parametrize("column", range(4))
def test_path_styles_follow_the_table(style, explode, column):
    expected = PATH_TABLE[(style, explode)][column]
    assert serialize_path("color", VALUES[column], style, explode) == expected


QUERY_CASES = [
    (style, explode, column, expected)
    for (style, explode), row in QUERY_TABLE.items()
    for column, expected in enumerate(row)
    if expected is not None  # n/a in the OpenAPI table
]


@pytest.mark.parametrize(("style", "explode", "column", "expected"), QUERY_CASES)
def test_query_styles_follow_the_table(style, explode, column, expected):
    assert "&".join(serialize_query("color", VALUES[column], style, explode)) == expected


@pytest.mark.parametrize(
    ("explode", "value", "expected"),
    [
        (False, "blue", "blue"),
        (False, ARRAY, "blue,black,brown"),
        (False, OBJECT, "R,100,G,200,B,150"),
        (True, OBJECT, "R=100,G=200,B=150"),
        (False, "", ""),
    ],
)
def test_header_simple(explode, value, expected):
    assert serialize_header(value, explode) == expected


@pytest.mark.parametrize(
    ("explode", "value", "expected"),
    [
        (True, "blue", [("color", "blue")]),
        (False, ARRAY, [("color", "blue,black,brown")]),
        (True, ARRAY, [("color", "blue"), ("color", "black"), ("color", "brown")]),
        (False, OBJECT, [("color", "R,100,G,200,B,150")]),
        (True, OBJECT, [("R", "100"), ("G", "200"), ("B", "150")]),
        (True, "", [("color", "")]),
    ],
)
def test_cookie_form(explode, value, expected):
    assert serialize_cookie("color", value, explode) == expected


def test_empty_arrays_objects_and_null_serialize_like_the_empty_value():
    for empty in (None, [], {}, {"a": None}):
        assert serialize_query("color", empty) == ["color="]
        assert serialize_path("color", empty, "matrix") == ";color"
        assert serialize_path("color", empty, "label") == "."
        assert serialize_path("color", empty) == ""


def test_percent_encoding_of_reserved_and_non_ascii_characters():
    assert serialize_path("p", "a b/c") == "a%20b%2Fc"
    assert serialize_path("p", ["a,b", "ü"]) == "a%2Cb,%C3%BC"  # a delimiter inside a value is encoded
    assert serialize_path("p", {"k y": "v/w"}, "matrix", True) == ";k%20y=v%2Fw"
    assert serialize_query("q", "café & co=1+2") == ["q=caf%C3%A9%20%26%20co%3D1%2B2"]
    assert serialize_query("a b", "x") == ["a%20b=x"]


def test_allow_reserved_keeps_reserved_characters_but_still_encodes_the_rest():
    assert serialize_query("next", "/a/b?c=d&e", allow_reserved=True) == ["next=/a/b?c=d&e"]
    assert serialize_query("next", "a b%", allow_reserved=True) == ["next=a%20b%25"]
    assert serialize_query("next", "/a/b") == ["next=%2Fa%2Fb"]


def test_delimited_styles_with_explode_behave_like_form():
    assert serialize_query("c", ["a", "b"], "spaceDelimited", True) == ["c=a", "c=b"]
    assert serialize_query("c", ["a", "b"], "pipeDelimited", True) == ["c=a", "c=b"]


def test_deep_object_nests_objects_and_repeats_arrays():
    value = {"name": "a b", "range": {"min": 1, "max": 2}, "tags": ["x", "y"], "skip": None}
    assert serialize_query("f", value, "deepObject", True) == [
        "f%5Bname%5D=a%20b",
        "f%5Brange%5D%5Bmin%5D=1",
        "f%5Brange%5D%5Bmax%5D=2",
        "f%5Btags%5D=x",
        "f%5Btags%5D=y",
    ]


def test_numbers_and_booleans_use_the_json_spelling():
    assert serialize_query("n", [1, 2.0, 0.5, True, False]) == ["n=1", "n=2", "n=0.5", "n=true", "n=false"]


def test_form_body_encoding_uses_plus_for_spaces():
    assert serialize_query("a b", "c d+e", plus=True) == ["a+b=c+d%2Be"]


def test_content_encoded_values():
    assert content_text({"a": [1, "ü"]}, "application/json") == '{"a":[1,"ü"]}'
    assert content_text("x", "application/json") == '"x"'
    assert content_text({"a": "b c"}, "application/x-www-form-urlencoded") == "a=b+c"
    assert content_text(3, "text/plain") == "3"
