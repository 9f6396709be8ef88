"""How an XML body is read for the contract checks (`arazzo_runner/http/contract_xml.py`): the OpenAPI
`xml` object's names, attributes and arrays, scalars by the schema's type, and what it refuses."""

from __future__ import annotations

import pytest

from arazzo_runner.bounds.limits import MAX_BODY_DEPTH
from arazzo_runner.http.contract_xml import NotXml, parse, root_name_problem, to_value

BOOK = {
    "type": "object",
    "xml": {"name": "book"},
    "properties": {
        "id": {"type": "integer", "xml": {"attribute": True}},
        "title": {"type": "string", "xml": {"name": "Title"}},
        "price": {"type": "number"},
        "used": {"type": "boolean"},
        "note": {"type": "string", "nullable": True},
        "tags": {"type": "array", "items": {"type": "string", "xml": {"name": "tag"}}},
        "authors": {"type": "array", "xml": {"wrapped": True}, "items": {"$ref": "#/components/schemas/A"}},
    },
}
DATA = {"components": {"schemas": {"A": {"type": "object", "properties": {"age": {"type": "integer"}}}}}}


def test_an_element_reads_into_the_value_its_schema_describes():
    root = parse(
        '<ns:book xmlns:ns="urn:x" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="3">'
        "<ns:Title>Dune</ns:Title><price>9.5</price><used>1</used><note xsi:nil='true'/>"
        "<tag>a</tag><tag>b</tag><authors><A><age>40</age></A><A><age>old</age></A></authors>"
        "<extra><x>1</x></extra></ns:book>"
    )
    assert to_value(root, BOOK, DATA) == {
        "id": 3,
        "title": "Dune",
        "price": 9.5,
        "used": True,
        "note": None,
        "tags": ["a", "b"],
        "authors": [{"age": 40}, {"age": "old"}],  # not an integer: left as text, for the check to name
        "extra": {"x": "1"},  # no property names it: kept, read by its shape
    }
    assert root_name_problem(root, BOOK, DATA) is None
    assert root_name_problem(parse("<magazine/>"), BOOK, DATA) == ("the root element <book>", "<magazine>")
    assert root_name_problem(parse("<anything/>"), {"type": "object"}, DATA) is None


def test_a_root_array_is_its_root_elements_children():
    schema = {"type": "array", "items": {"type": "integer"}}
    assert to_value(parse("<ids><id>1</id><id>x</id></ids>"), schema, {}) == [1, "x"]


def test_a_schema_whose_members_refer_back_to_it_still_reads():
    data = {
        "components": {
            "schemas": {
                "N": {
                    "allOf": [{"$ref": "#/components/schemas/N"}],
                    "properties": {"next": {"$ref": "#/components/schemas/N"}, "v": {"type": "integer"}},
                }
            }
        }
    }
    value = to_value(parse("<n><v>1</v><next><v>2</v></next></n>"), {"$ref": "#/components/schemas/N"}, data)
    assert value == {"v": 1, "next": {"v": 2}}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("<a><b></a>", "text that is not well-formed (mismatched tag"),
        ("", "an empty body"),
        ('<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', "XML with EntitiesForbidden (refused"),
    ],
)
def test_what_is_not_xml_is_said(text, said):
    with pytest.raises(NotXml) as caught:
        parse(text)
    assert str(caught.value).startswith(said)


def test_nesting_deeper_than_the_bound_is_not_read():
    deep = "<a>" * (MAX_BODY_DEPTH + 5) + "</a>" * (MAX_BODY_DEPTH + 5)
    with pytest.raises(NotXml) as caught:
        to_value(parse(deep), {}, {})
    assert str(caught.value) == f"XML nesting deeper than {MAX_BODY_DEPTH} levels (not checked)"
