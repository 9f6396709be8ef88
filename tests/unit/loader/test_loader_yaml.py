"""YAML loading: JSON-compatible values, key conversion, merge keys, tags and positions."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
import yaml

from arazzo_runner.errors import DocumentError
from arazzo_runner.loader import load_text, yaml_build

ONLY_JSON = "only JSON-compatible values are allowed"
PARSERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if yaml.__with_libyaml__ else [])


@pytest.fixture(autouse=True, params=PARSERS, ids=lambda loader: loader.__name__)
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # Every test runs on libyaml and on the pure-Python parser PyYAML falls back to.
    monkeypatch.setattr(yaml_build, "LOADER", request.param)
    yield


def error_of(text: str, file: str = "doc.yaml") -> DocumentError:
    with pytest.raises(DocumentError) as info:
        load_text(text, file)
    return info.value


WORKFLOW = """\
arazzo: 1.0.1
info:
  title: Demo
workflows:
  - workflowId: first
    steps:
      - stepId: a
        operationId: op
      - stepId: b
        parameters: [ {name: x, in: query}, "y" ]
  - workflowId: second
    empty:
    block: |
      text
"""


def test_values_are_plain_json_data() -> None:
    doc = load_text(WORKFLOW, "flow.yaml")
    assert doc.file == "flow.yaml"
    assert doc.format == "yaml"
    assert doc.data["arazzo"] == "1.0.1"
    assert doc.data["workflows"][0]["steps"][1]["parameters"] == [{"name": "x", "in": "query"}, "y"]
    assert doc.data["workflows"][1] == {"workflowId": "second", "empty": None, "block": "text\n"}


@pytest.mark.parametrize(
    ("pointer", "value_at", "key_at"),
    [
        ("", (1, 1), (1, 1)),
        ("/arazzo", (1, 9), (1, 1)),
        ("/info", (3, 3), (2, 1)),  # a block mapping starts at its first key
        ("/info/title", (3, 10), (3, 3)),
        ("/workflows", (5, 3), (4, 1)),
        ("/workflows/0", (5, 5), (5, 5)),  # sequence items have no key: the value's position
        ("/workflows/0/steps/1", (9, 9), (9, 9)),
        ("/workflows/0/steps/1/parameters", (10, 21), (10, 9)),
        ("/workflows/0/steps/1/parameters/0/in", (10, 37), (10, 33)),
        ("/workflows/0/steps/1/parameters/1", (10, 45), (10, 45)),
        ("/workflows/1/empty", (12, 11), (12, 5)),
        ("/workflows/1/block", (13, 12), (13, 5)),
        (("workflows", 0, "steps"), (7, 7), (6, 5)),
        ("#/info/title", (3, 10), (3, 3)),
    ],
)
def test_positions(pointer: str, value_at: tuple[int, int], key_at: tuple[int, int]) -> None:
    positions = load_text(WORKFLOW).positions
    assert positions.locate(pointer) == value_at
    assert positions.locate_key(pointer) == key_at


@pytest.mark.parametrize(
    ("pointer", "ancestor"),
    [("/workflows/9/steps", (5, 3)), ("/info/missing", (3, 3)), ("/nope", (1, 1)), ("/arazzo/x", (1, 9))],
)
def test_missing_pointer_falls_back_to_nearest_ancestor(pointer: str, ancestor: tuple[int, int]) -> None:
    positions = load_text(WORKFLOW).positions
    assert positions.locate(pointer) == ancestor
    assert not positions.exists(pointer)


def test_positions_count_characters_not_bytes() -> None:
    doc = load_text("é: ü\nkey: [ä, ö]\n")
    assert doc.positions.locate("/é") == (1, 4)
    assert doc.positions.locate("/key/1") == (2, 10)


def test_pointer_tokens_are_unescaped() -> None:
    doc = load_text("paths:\n  /pets/{id}:\n    get~x: 1\n")
    assert doc.positions.locate("/paths/~1pets~1{id}/get~0x") == (3, 12)


def test_lazy_positions_match_eager_ones() -> None:
    eager = load_text(WORKFLOW).positions
    lazy = load_text(WORKFLOW, positions=False).positions
    for pointer in ("/info/title", "/workflows/0/steps/1/parameters/0/in", "/workflows/1/block"):
        assert lazy.locate(pointer) == eager.locate(pointer)
        assert lazy.locate_key(pointer) == eager.locate_key(pointer)


def test_timestamps_stay_strings() -> None:
    data = load_text("date: 2024-01-01\nwhen: 2001-12-14t21:59:43.10-05:00\n").data
    assert data == {"date": "2024-01-01", "when": "2001-12-14t21:59:43.10-05:00"}


def test_non_string_keys_keep_their_written_text() -> None:
    text = "200: ok\n404: missing\ntrue: t\nyes: y\n~: n\n1.5: f\n0x10: h\n2024-01-01: d\n"
    data = load_text(text).data
    assert list(data) == ["200", "404", "true", "yes", "~", "1.5", "0x10", "2024-01-01"]
    positions = load_text("responses:\n  200:\n    description: OK\n").positions
    assert positions.locate_key("/responses/200") == (2, 3)


def test_special_floats_are_kept() -> None:
    data = load_text("a: .nan\nb: -.inf\nc: .Inf\n").data
    assert math.isnan(data["a"])
    assert data["b"] == -math.inf
    assert data["c"] == math.inf


def test_explicit_standard_tags() -> None:
    text = "a: !!str 12\nb: !!int '12'\nc: !!float 1\nd: ! 12\ne: !!map {x: 1}\nf: !!seq [1]\n"
    data = load_text(text).data
    assert data == {"a": "12", "b": 12, "c": 1.0, "d": "12", "e": {"x": 1}, "f": [1]}


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("a: !!binary aGVsbG8=\n", f"unsupported tag '!!binary': {ONLY_JSON}", 1, 4),
        ("a: !!set {x, y}\n", "unsupported tag '!!set' on a mapping", 1, 4),
        ("a:\n  - !!omap [b: 1]\n", "unsupported tag '!!omap' on a sequence", 2, 5),
        ("a: !custom x\n", f"unsupported tag '!custom': {ONLY_JSON}", 1, 4),
        ("a: !!int abc\n", "'abc' is not a valid !!int value", 1, 4),
        ("a: !!bool maybe\n", "'maybe' is not a valid !!bool value", 1, 4),
    ],
)
def test_tags_outside_json_are_rejected(text: str, message: str, line: int, column: int) -> None:
    err = error_of(text)
    assert (err.message, err.line, err.column) == (message, line, column)


def test_merge_keys() -> None:
    text = (
        "base: &base {x: 1, y: 2}\n"
        "other: &other {y: 20, z: 30}\n"
        "one:\n  <<: *base\n  y: 3\n"
        "many:\n  <<: [*base, *other]\n  w: 0\n"
    )
    doc = load_text(text)
    assert doc.data["one"] == {"x": 1, "y": 3}  # explicit keys win
    assert doc.data["many"] == {"x": 1, "y": 2, "z": 30, "w": 0}  # earlier merged mappings win
    assert doc.positions.locate("/one/x") == (1, 17)  # merged members point at their definition
    assert doc.positions.locate("/one/y") == (5, 6)
    assert doc.positions.locate("/many/z") == (2, 26)


def test_quoted_merge_key_is_an_ordinary_key() -> None:
    assert load_text('"<<": 1\nb: <<\n').data == {"<<": 1, "b": "<<"}


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("m:\n  <<: 1\n", "the value of a merge key '<<' must be a mapping or a sequence of mappings", 2, 3),
        ("a: &a {x: 1}\nm:\n  <<: *a\n  <<: *a\n", "duplicate merge key '<<'", 4, 3),
    ],
)
def test_bad_merges(text: str, message: str, line: int, column: int) -> None:
    err = error_of(text)
    assert (err.message, err.line, err.column) == (message, line, column)


def test_aliases_share_the_anchored_value() -> None:
    doc = load_text("a: &x {k: [1, 2]}\nb: *x\nc: &s text\nd: *s\n")
    assert doc.data["b"] == {"k": [1, 2]}
    assert doc.data["b"] is doc.data["a"]
    assert doc.data["d"] == "text"
    assert doc.positions.locate("/b") == (2, 4)  # the alias itself
    assert doc.positions.locate("/b/k/1") == (1, 15)  # inside: the anchored definition


def test_alias_as_key_uses_the_scalar_text() -> None:
    assert load_text("a: &k name\n*k : 1\n").data == {"a": "name", "name": 1}


def test_anchors_can_be_redefined() -> None:
    assert load_text("a: &x 1\nb: &x 2\nc: *x\n").data == {"a": 1, "b": 2, "c": 2}


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("a: 1\nb: 2\na: 3\n", "duplicate key 'a' (first at line 1)", 3, 1),
        ("x:\n  200: a\n  '200': b\n", "duplicate key '200' (first at line 2)", 3, 3),
        ("a: *nowhere\n", "unknown alias '*nowhere'", 1, 4),
        ("a: &a [1, *a]\n", "alias '*a' refers to a node that contains it", 1, 11),
        ("a: &a 1\nb: &a [*a]\n", "alias '*a' refers to a node that contains it", 2, 8),
        ("? [a, b]\n: 1\n", "a mapping key must be a scalar, not a sequence", 1, 3),
        ("{? {a: 1} : 1}\n", "a mapping key must be a scalar, not a mapping", 1, 4),
        ("a: &c [1]\n*c : 2\n", "a mapping key must be a scalar, not an alias to a collection", 2, 1),
        ("a: 1\n---\nb: 2\n", "expected a single document, but found another one", 2, 1),
    ],
)
def test_structural_errors_are_located(text: str, message: str, line: int, column: int) -> None:
    err = error_of(text)
    assert (err.message, err.line, err.column) == (message, line, column)


def test_duplicate_key_without_eager_positions() -> None:
    with pytest.raises(DocumentError, match=r"duplicate key 'a' \(first at line 1\)") as info:
        load_text("a: 1\nb: 2\na: 3\n", positions=False)
    assert (info.value.line, info.value.column) == (3, 1)


def test_scalar_root() -> None:
    assert load_text("just text\n").data == "just text"
    assert load_text("null\n").data is None


class _ForeignEvents:
    """A loader whose events are of other classes with the same names, as after `yaml` is imported a
    second time in one process (libyaml's parser keeps the first import's classes); it ends the test
    instead of looping when asked for events past the end of the stream."""

    parser: type = yaml.SafeLoader

    def __init__(self, text: str) -> None:
        self.inner = self.parser(text)
        self.twins: dict[type, type] = {}
        self.calls = 0

    def get_event(self):
        self.calls += 1
        assert self.calls < 1000, "the builder kept asking for events past the end of the stream"
        event = self.inner.get_event()
        if event is None:
            return None
        cls = event.__class__
        twin = self.twins.setdefault(cls, type(cls.__name__, (cls,), {}))
        copy = object.__new__(twin)
        copy.__dict__.update(event.__dict__)
        return copy

    def dispose(self) -> None:
        self.inner.dispose()


def test_events_of_a_second_yaml_import_are_built_and_end_the_stream(monkeypatch) -> None:
    foreign = type("Foreign", (_ForeignEvents,), {"parser": yaml_build.LOADER})  # this run's parser
    monkeypatch.setattr(yaml_build, "LOADER", foreign)
    doc = load_text("a: [1, {b: x}]\nc: &k 2\nd: *k\n", "f.yaml")
    assert doc.data == {"a": [1, {"b": "x"}], "c": 2, "d": 2}
    with pytest.raises(DocumentError, match="expected a single document"):
        load_text("a: 1\n---\nb: 2\n", "f.yaml")
