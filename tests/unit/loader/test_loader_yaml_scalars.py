"""One rule for a YAML document's plain scalars, whatever the shape: the YAML 1.2 core schema.

Found by the fuzz suite (`value=['0E0'], form='yaml-flow'`): `[1e5]` in a .yaml file is JSON text and
was read by the JSON parser as 100000.0, while `[1e5, x]`, `{a: 1e5}` and `a: 1e5` went through YAML 1.1
rules and gave the string '1e5'. The expectations below are the core schema's table (YAML 1.2.2,
section 10.3.2), written out here rather than taken from the loader.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from arazzo_runner.errors import DocumentError
from arazzo_runner.loader import DEFAULT_LIMITS, load_text, yaml_build
from arazzo_runner.loader.json_load import load_json
from arazzo_runner.loader.yaml_load import load_yaml

PARSERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if yaml.__with_libyaml__ else [])

CORE = [
    # null
    ("null", None),
    ("Null", None),
    ("NULL", None),
    ("~", None),
    # bool: these six words only
    ("true", True),
    ("True", True),
    ("TRUE", True),
    ("false", False),
    ("False", False),
    ("FALSE", False),
    # int: decimal (a leading zero is still decimal), 0o octal, 0x hexadecimal
    ("0", 0),
    ("-0", 0),
    ("+12", 12),
    ("-17", -17),
    ("012", 12),
    ("0o17", 15),
    ("0x1F", 31),
    ("0xff", 255),
    # float
    ("1e5", 100000.0),
    ("0E0", 0.0),
    ("1E+2", 100.0),
    ("-1e-2", -0.01),
    ("1.5e+3", 1500.0),
    ("1.", 1.0),
    (".5", 0.5),
    ("+.5e1", 5.0),
    ("-0.0", -0.0),
    ("1e400", math.inf),  # beyond the double range, as JSON's parser reads it
    (".inf", math.inf),
    ("+.Inf", math.inf),
    ("-.INF", -math.inf),
    # strings: YAML 1.1 forms and near misses
    ("yes", "yes"),
    ("No", "No"),
    ("on", "on"),
    ("off", "off"),
    ("y", "y"),
    ("tRUE", "tRUE"),
    ("nULL", "nULL"),
    ("1_000", "1_000"),
    ("0b101", "0b101"),
    ("1:30", "1:30"),
    ("0O17", "0O17"),
    ("0X1F", "0X1F"),
    ("-0x1F", "-0x1F"),
    ("0o8", "0o8"),
    ("1e", "1e"),
    ("e5", "e5"),
    (".", "."),
    ("+", "+"),
    ("1.2.3", "1.2.3"),
    (".infinity", ".infinity"),
    ("Infinity", "Infinity"),
    ("NaN", "NaN"),
    ("inf", "inf"),
    ("2024-01-01", "2024-01-01"),
    ("1e5x", "1e5x"),
    ("١٢", "١٢"),  # digits outside ASCII are not digits to YAML
]
SHAPES = {
    "block mapping": ("a: {}\n", lambda data: data["a"]),
    "block sequence": ("- {}\n", lambda data: data[0]),
    "flow sequence": ("[{}]\n", lambda data: data[0]),
    "flow sequence of two": ("[{}, x]\n", lambda data: data[0]),
    "flow mapping": ("{{a: {}}}\n", lambda data: data["a"]),
    "root": ("{}\n", lambda data: data),
}


@pytest.fixture(autouse=True, params=PARSERS, ids=lambda loader: loader.__name__)
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(yaml_build, "LOADER", request.param)
    yield


def same(left: Any, right: Any) -> bool:
    if isinstance(left, float) and isinstance(right, float):
        return (math.isnan(left) and math.isnan(right)) or (left == right and str(left) == str(right))
    return type(left) is type(right) and left == right


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("text", "expected"), CORE, ids=[text for text, _ in CORE])
def test_every_shape_follows_the_core_schema(text: str, expected: Any, shape: str) -> None:
    template, pick = SHAPES[shape]
    got = pick(load_text(template.format(text), "doc.yaml").data)
    assert same(got, expected), (text, shape, got)


@pytest.mark.parametrize("text", [".nan", ".NaN", ".NAN"])
def test_not_a_number(text: str) -> None:
    for template, pick in SHAPES.values():
        assert math.isnan(pick(load_text(template.format(text), "doc.yaml").data))


def test_empty_values_are_null() -> None:
    assert load_text("a:\nb: [c, ]\n", "doc.yaml").data == {"a": None, "b": ["c"]}
    assert load_text("{a: , b: 1}\n", "doc.yaml").data == {"a": None, "b": 1}


def test_the_fuzz_failure_and_the_issue_examples() -> None:
    assert load_text("[0E0]\n", "doc.yaml").data == [0.0]
    assert load_text("- 0E0\n", "doc.yaml").data == [0.0]
    assert load_text("[1e5]", "doc.yaml").data == [100000.0]
    assert load_text("[1e5, x]", "doc.yaml").data == [100000.0, "x"]
    assert load_text("{a: 1e5}", "doc.yaml").data == {"a": 100000.0}
    assert load_text("a: 1e5", "doc.yaml").data == {"a": 100000.0}


def test_quoted_and_block_scalars_are_strings() -> None:
    text = "a: '1e5'\nb: \"true\"\nc: |-\n  12\nd: >-\n  null\n"
    assert load_text(text, "doc.yaml").data == {"a": "1e5", "b": "true", "c": "12", "d": "null"}


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1e5, "b": [0E0, -0, -0.0, 1E400, 12, 1.5], "c": [true, false, null], "d": "x\\u00e9\\n"}',
        '[1e5, {"yes": "no", "on": [0, 1]}, "0x1F", 10000000000000000000000]',
        "[-1E-7, 0.1, 2.5e+300, 123456789012345678901234567890.5]",
    ],
)
def test_json_text_means_the_same_to_both_parsers(text: str) -> None:
    """JSON is a subset of the core schema: the JSON fast path is only faster, never different."""
    as_json, _ = load_json(text, "doc.yaml", DEFAULT_LIMITS, constants=False)
    as_yaml, _ = load_yaml(text, "doc.yaml", DEFAULT_LIMITS, positions=True)
    assert json.dumps(as_yaml) == json.dumps(as_json)
    assert load_text(text, "doc.yaml").data == load_text(text, "doc.json").data


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("!!int 0o17", 15),
        ("!!int '0x1F'", 31),
        ("!!int -3", -3),
        ("!!float 1e5", 100000.0),
        ("!!float 1", 1.0),
        ("!!float .Inf", math.inf),
        ("!!bool TRUE", True),
        ("!!null ~", None),
        ("!!null ''", None),
        ("!!str 1e5", "1e5"),
        ("!!timestamp 2001-12-14", "2001-12-14"),
    ],
)
def test_explicit_tags_take_the_core_forms(text: str, expected: Any) -> None:
    assert same(load_text(f"a: {text}\n", "doc.yaml").data["a"], expected)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("!!int 1_000", "'1_000' is not a valid !!int value"),
        ("!!int 0b1", "'0b1' is not a valid !!int value"),
        ("!!int 1.5", "'1.5' is not a valid !!int value"),
        ("!!float 1_0.5", "'1_0.5' is not a valid !!float value"),
        ("!!float infinity", "'infinity' is not a valid !!float value"),
        ("!!bool yes", "'yes' is not a valid !!bool value"),
        ("!!null none", "'none' is not a valid !!null value"),
    ],
)
def test_explicit_tags_refuse_other_forms(text: str, message: str) -> None:
    with pytest.raises(DocumentError) as info:
        load_text(f"a: {text}\n", "doc.yaml")
    assert (info.value.message, info.value.line, info.value.column) == (message, 1, 4)


def test_keys_keep_their_text_under_any_schema() -> None:
    assert list(load_text("1e5: a\nyes: b\n0o17: c\n", "doc.yaml").data) == ["1e5", "yes", "0o17"]


def test_integers_beyond_python_limits_are_located_errors() -> None:
    with pytest.raises(DocumentError, match="an integer of more than 4300 decimal digits") as info:
        load_text("a: [0x" + "f" * 3600 + "]\n", "doc.yaml")
    assert (info.value.line, info.value.column) == (1, 5)
