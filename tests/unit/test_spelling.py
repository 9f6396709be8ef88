"""Messages quote values in JSON (issue 37, item 5): `null`, `true`, `"text"`, `{"a": [1, null, false]}`,
never Python's `None`, `True`, `'text'` (YAML's `null` read back as `None` looked like a bug, and a JSON
client reading a tool's error was shown a language it does not speak)."""

from __future__ import annotations

import jsonschema
import pytest

from arazzo_runner.sources.simple_schema import subset_problems
from arazzo_runner.spelling import json_spelling, schema_message


def _messages(schema, instance) -> list[str]:
    errors = jsonschema.Draft202012Validator(schema).iter_errors(instance)
    return [schema_message(e) for e in sorted(errors, key=lambda e: list(e.absolute_path))]


@pytest.mark.parametrize(
    ("value", "spelled"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        ("it's", '"it\'s"'),
        ("é", '"é"'),
        (1.5, "1.5"),
        ({"a": [1, None, False]}, '{"a": [1, null, false]}'),
        (b"raw", "\"b'raw'\""),  # no JSON for bytes: its str as a JSON string, never an exception
    ],
)
def test_a_value_is_quoted_in_json(value, spelled) -> None:
    assert json_spelling(value) == spelled


@pytest.mark.parametrize(
    ("schema", "instance", "expected"),
    [
        ({"type": "integer"}, None, 'null is not of type "integer"'),
        ({"type": ["string", "null"]}, True, 'true is not of type "string", "null"'),
        ({"enum": ["a", None, False]}, "b", '"b" is not one of ["a", null, false]'),
        ({"required": ["petId"]}, {}, '"petId" is a required property'),
        ({"const": {"a": None}}, {"a": [1, None, False]}, '{"a": null} was expected'),
        ({"type": "string"}, {"a": [1, None, False]}, '{"a": [1, null, false]} is not of type "string"'),
        ({"not": {"type": "null"}}, None, 'null should not be valid under {"type": "null"}'),
        ({"pattern": "^a"}, "Nonesuch", '"Nonesuch" does not match "^a"'),
        ({"maxItems": 1}, [None, "True"], '[null, "True"] is too long'),
        (
            {"properties": {}, "additionalProperties": False},
            {"None": 1, "b": None},
            'Additional properties are not allowed ("None", "b" were unexpected)',
        ),
        (
            {"patternProperties": {"^x-": {}}, "additionalProperties": False},
            {"y": 1},
            '"y" does not match any of the regexes: "^x-"',
        ),
        ({"dependentRequired": {"a": ["b"]}}, {"a": True}, '"b" is a dependency of "a"'),
    ],
)
def test_jsonschema_messages_are_rewritten_in_json(schema, instance, expected) -> None:
    assert _messages(schema, instance) == [expected]


def test_words_inside_text_are_left_alone() -> None:
    """`None`, `True` and `False` are rewritten only as whole values: never inside a longer word or a
    string the message quotes."""
    assert _messages({"enum": ["NoneType", "Truer"]}, None) == ['null is not one of ["NoneType", "Truer"]']
    assert _messages({"const": "None"}, None) == ['"None" was expected']


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "integer"}, None),
        ({"type": ["string", "null"]}, False),
        ({"enum": ["a", None]}, True),
        ({"const": None}, "x"),
        ({"type": "object", "required": ["petId"]}, {}),
        ({"type": "object", "properties": {}, "additionalProperties": False}, {"extra": None}),
        ({"type": "string", "pattern": "^a"}, "b"),
        ({"type": "array", "maxItems": 1}, [None, True]),
    ],
)
def test_the_fast_inputs_check_writes_what_jsonschema_is_made_to_write(schema, value) -> None:
    """The jsonschema-free check of workflow inputs (`simple_schema`) and jsonschema through
    `schema_message` quote the same values the same way."""
    fast = subset_problems(schema, value, {})
    assert fast is not None and len(fast) == 1
    where, _, message = fast[0].partition(": ")
    expected = _messages(schema, value)[0]
    expected = expected.replace("is a required property", "is required but was not provided")
    assert (where, message) == ("inputs", expected)


def test_every_value_of_a_large_message_is_rewritten() -> None:
    """A message naming thousands of values (an object's unexpected members, a deep instance) is
    rewritten throughout, in one pass: no Python spelling is left anywhere in it."""
    members = {f"k{i}": [None, True, "it's", "a\\b"] for i in range(5000)}
    [extra] = _messages({"additionalProperties": False}, members)
    assert extra.startswith('Additional properties are not allowed ("k0", "k1", "k10", ')
    assert extra.endswith('"k998", "k999" were unexpected)') and "'" not in extra
    [whole] = _messages({"type": "string"}, members)
    assert whole == json_spelling(members) + ' is not of type "string"'


def test_a_quoted_string_holding_a_double_quote_is_escaped_in_json() -> None:
    message = schema_message("'say \"hi\"' is not of type 'integer'")
    assert message == '"say \\"hi\\"" is not of type "integer"'
