"""The expression parser's fast path (`expressions/fast.py`) reads exactly what the full parser reads:
the same node (class, fields, text, no accessors, no rewrites) and the same end, or it declines; and
with declared names (`names.py`) it is never used. Generated texts, near misses included, and every
expression of the documents under ../shared, read both ways."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from arazzo_runner.errors import ExpressionError
from arazzo_runner.expressions import (
    DEFAULT_STOP,
    Template,
    fast,
    parse_expression,
    parse_expression_prefix,
    template,
)
from arazzo_runner.expressions.names import DeclaredNames, reading
from arazzo_runner.expressions.parser import parse_full
from tests.shared import MISSING, SHARED

CRITERIA_STOP = " \t\r\n\f\v)=!<>&|,]"  # criteria/lexer.py EXPRESSION_STOP
STOPS = ["", DEFAULT_STOP, CRITERIA_STOP, CRITERIA_STOP + "}", ".", "-", "#", "/", "_"]
NAMES = DeclaredNames(steps=("Plan a Trip_0", "c 1"), workflows=("w x",), outputs=("next page", "a b"))

_word = st.text("abcAZ019_-.", min_size=0, max_size=6)
_odd = st.sampled_from(
    [" ", "~", "~0", "~1", "~2", "#", "/", "[0]", "['k']", ".", "..", "{", "}", "$", "!", "é",
     ":", "@", ";", ",", "=", "?", "(", ")", '"', "\\", "<", ">"]  # the last: separators, in no header token
)  # fmt: skip
_piece = _word | _odd | st.sampled_from(["outputs", "output", "headers", "header", "body", "payload"])
_prefix = st.sampled_from(
    [
        "$steps.",
        "$steps.c0.outputs.",
        "$steps.c 1.outputs.",
        "$steps.Plan a Trip_0.outputs.",
        "$inputs.",
        "$inputs",
        "$outputs.",
        "$response.body",
        "$response.body#",
        "$response.body#/",
        "$request.payload",
        "$message.payload#/",
        "$response.header.",
        "$response.headers.",
        "$request.header.",
        "$statusCode",
        "$statuscode",
        "$url",
        "$method",
        "$self",
        "$workflows.w.outputs.",
        "$",
        "",
    ]
)
texts = st.builds(lambda head, parts: head + "".join(parts), _prefix, st.lists(_piece, max_size=6))


def _outcome(parse: Any, *args: Any, **options: Any) -> Any:
    try:
        node, end = parse(*args, **options)
    except ExpressionError as error:
        return ("error", error.message, error.position)
    return (type(node), repr(node), node, end)


def _full(text: str, pos: int, stop: str, names: DeclaredNames | None = None) -> Any:
    return _outcome(parse_full, text, pos, frozenset(stop), names)


def _fast_agrees(text: str, pos: int, stop: str) -> bool:
    """The fast path's answer at `text[pos]`, when it gives one, is the full parser's; whether it gave one."""
    found = fast.match(text, pos, frozenset(stop))
    if found is None:
        return False
    node, end = found
    full = _full(text, pos, stop)
    assert full == (type(node), repr(node), node, end), (text, pos, stop)
    assert vars(node) == vars(full[2])  # every field set on the node itself, as Record.__init__ does
    return True


def _whole(text: str) -> Any:
    try:
        return ("node", parse_expression(text))
    except ExpressionError as error:
        return ("error", error.message, error.position)


def _whole_full(text: str, names: DeclaredNames | None) -> Any:
    found = _full(text, 0, "", names)
    if found[0] == "error":
        return found
    node, end = found[2], found[3]
    if end != len(text):
        return ("error", f"unexpected {text[end]!r} after the expression {text[:end]!r}", end)
    return ("node", node)


@settings(max_examples=800)
@given(texts, st.text(" k{", max_size=2), st.sampled_from(STOPS), st.text("} .[#x", max_size=3))
def test_fast_path_is_the_full_parser(text: str, before: str, stop: str, after: str) -> None:
    whole = before + text + after
    _fast_agrees(whole, len(before), stop)
    assert _whole(text) == _whole_full(text, None)
    if text.startswith("$"):
        found = _outcome(parse_expression_prefix, whole, len(before), stop=stop)
        assert found == _full(whole, len(before), stop)


@settings(max_examples=300)
@given(texts, st.sampled_from(STOPS))
def test_declared_names_are_read_by_the_full_parser(text: str, stop: str) -> None:
    with reading(NAMES):
        assert _whole(text) == _whole_full(text, NAMES)
        if text.startswith("$"):
            assert _outcome(parse_expression_prefix, text, 0, stop=stop) == _full(text, 0, stop, NAMES)


@pytest.mark.parametrize(
    "text",
    [
        "$steps.c0.outputs.next",
        "$steps.c0.outputs.next#/a/b",
        "$steps.my-step_1.outputs.a.b",
        "$inputs.start",
        "$inputs.user.name#/0",
        "$response.body",
        "$response.body#/items/0/id",
        "$response.body#",
        "$message.payload#/a",
        "$response.header.X-Rate-Limit",
        "$statusCode",
        "$url",
        "$method",
        "$self",
    ],
)
def test_the_common_forms_take_the_fast_path(text: str) -> None:
    assert _fast_agrees(text, 0, "")
    assert _fast_agrees("k{" + text + "}", 2, "")


@pytest.mark.parametrize(
    "text",
    [
        "$steps.c0.next",  # the dialect shorthand: a Rewrite
        "$response.headers.X",  # the dialect plural
        "$steps.c0.outputs.next[0]",  # an accessor
        "$response.body.count",  # an accessor
        "$response.body#/a~1b",  # an escape
        "$response.body#a",  # not a pointer
        "$inputs",  # the whole collection
        "$workflows.w.outputs.x",  # not a common form
        "$inputs." + "n" * 300,  # longer than the fast path looks
        "$steps." + "s" * 300 + ".outputs.x",
        "$steps..outputs.x",  # no step id: the parser's error
        "$steps.a.outputs.",  # no output name
        "$response.header.",  # no header name
    ],
)
def test_other_forms_take_the_full_parser(text: str) -> None:
    assert not _fast_agrees(text, 0, "")
    assert _whole(text) == _whole_full(text, None)


@pytest.mark.parametrize("separator", [":", "@", ";", ",", "=", "?", "(", '"', "/"])
def test_a_header_name_ends_at_a_separator(separator: str) -> None:
    """RFC 9110's token: `$response.header.X-Id:v` reads the header `X-Id`, then ':' is not part of it."""
    text = f"$response.header.X-Id{separator}v"
    assert _fast_agrees(text, 0, "")
    node, end = parse_expression_prefix(text, 0)
    assert (node.name, end) == ("X-Id", len("$response.header.X-Id"))
    with pytest.raises(ExpressionError):
        parse_expression(text)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, member in value.items():
            yield from _strings(key)
            yield from _strings(member)
    elif isinstance(value, list):
        for member in value:
            yield from _strings(member)


def _corpus_strings() -> set[str]:
    found: set[str] = set()
    for path in sorted(SHARED.rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file() or path.stat().st_size > 2**21:
            continue
        text = path.read_text(errors="replace")
        if "arazzo" not in text or "$" not in text:
            continue
        try:
            data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except (ValueError, yaml.YAMLError, RecursionError):
            continue
        found.update(s for s in _strings(data) if "$" in s)
    return found


@pytest.mark.skipif(not SHARED.is_dir(), reason=MISSING)
def test_every_expression_of_the_corpus_reads_the_same_both_ways() -> None:
    strings = _corpus_strings()
    fast_taken = 0
    for text in strings:
        assert _whole(text) == _whole_full(text, None), text
        for pos, ch in enumerate(text):
            if ch != "$":
                continue
            for stop in ("", DEFAULT_STOP, CRITERIA_STOP):
                fast_taken += _fast_agrees(text, pos, stop)
    assert len(strings) > 1000 and fast_taken > 2000, (len(strings), fast_taken)  # the corpus was read


def _template_char_by_char(text: str, bare: bool) -> Template:
    """`parse_template` as it read before it skipped to the next '$': every offset tried in turn."""
    parts: list[Any] = []
    problems: list[ExpressionError] = []
    literal_from = pos = 0
    while pos < len(text):
        found = template._embedded_at(text, pos, bare, problems, None)
        if found is None:
            pos += 1
            continue
        if found.start > literal_from:
            parts.append(text[literal_from : found.start])
        parts.append(found)
        literal_from = pos = found.end
    if literal_from < len(text):
        parts.append(text[literal_from:])
    return Template(text, tuple(parts), tuple(problems))


_template_pieces = texts | st.sampled_from(
    ["{", "}", "{$", "{{$", "$$", " ", "\t", "x", "Bearer ", "{$inputs.a}"]
)


@settings(max_examples=400)
@given(st.lists(_template_pieces, max_size=6).map("".join), st.booleans())
def test_templates_skip_to_the_next_dollar_and_read_the_same(text: str, bare: bool) -> None:
    found = template._parse_template.__wrapped__(text, bare, None)
    expected = _template_char_by_char(text, bare)
    assert found.parts == expected.parts
    assert [(p.message, p.position) for p in found.problems] == [
        (p.message, p.position) for p in expected.problems
    ]
