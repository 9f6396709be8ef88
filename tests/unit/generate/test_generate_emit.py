"""The YAML `arazzo generate` writes reads back as the data it was written from, by the project's loader
(YAML 1.2 core) and by PyYAML (YAML 1.1) alike; expressions stay plain, anything a reader could take
for something else is quoted; comments are where they were asked for, wrapped."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from arazzo_runner.generate.emit import emit, scalar, verify
from arazzo_runner.loader import load_text

_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=30)
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT
_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)


def _both_readers(text):
    return load_text(text, "<test>").data, yaml.safe_load(text)


@settings(max_examples=300)
@given(st.dictionaries(_TEXT, _DATA, min_size=1, max_size=5))
def test_any_data_reads_back_the_same_with_both_readers(data):
    text = emit(data)
    ours, pyyaml = _both_readers(text)
    assert ours == data
    assert pyyaml == data
    verify(text, data)


@pytest.mark.parametrize(
    "value",
    ["$inputs.petId", "$response.body#/id", "$statusCode == 200 || $statusCode == 201", "createBook",
     "./openapi/orders.openapi.yaml", "../api.yaml", "/pets", "Add a book"],
)  # fmt: skip
def test_expressions_and_words_stay_plain(value):
    assert scalar(value) == value


@pytest.mark.parametrize(
    "value",
    ["yes", "No", "on", "OFF", "y", "null", "~", "true", "1.0", "1e5", "0x1F", "2024-01-01", "", " lead",
     "trail ", "a: b", "a #b", "#x", "-x", "@x", "`x", "{$inputs.id}", "[a]", "a, b", "'q'", '"q"',
     "*alias", "&anchor", "!tag", "|", ">", "%x", "?x", ".inf", "tab\there", "\u2028", "\x85", "\x7f",
     "\ufeff", "é", "🦀"],
)  # fmt: skip
def test_what_a_reader_could_take_for_something_else_is_quoted_and_reads_back(value):
    written = scalar(value)
    if value not in ("é", "🦀"):
        assert written.startswith('"'), written
    ours, pyyaml = _both_readers(f"key: {written}\n")
    assert ours == pyyaml == {"key": value}


def test_numbers_read_back_as_numbers():
    data = {"a": 1e20, "b": 1e-5, "c": 2.5, "d": -7, "e": 10**30, "f": float("inf")}
    text = emit(data)
    assert "a: 1.0e+20\n" in text and "b: 1.0e-05\n" in text
    assert _both_readers(text) == (data, data)


def test_text_of_several_lines_is_a_literal_block_when_it_can_be():
    data = {"description": "First line.\n\n  Indented second.", "kept": "ends with a break\n", "no": " x\ny"}
    text = emit(data)
    assert "description: |-\n  First line.\n\n    Indented second.\n" in text
    assert "kept: |\n  ends with a break\n" in text
    assert '"no": " x\\ny"\n' in text  # no block with a leading space; "no" is a YAML 1.1 boolean
    assert _both_readers(text) == (data, data)


def test_comments_go_above_the_entry_and_wrap():
    long = "inferred from the resource structure: " + " ".join(f"word{i}" for i in range(40))
    data = {"workflows": [{"workflowId": "a", "steps": []}, {"workflowId": "b", "steps": [1]}]}
    text = emit(data, {("workflows", 1): [long]}, ["the header"])
    lines = text.splitlines()
    assert lines[0] == "# the header"
    start = lines.index("  - workflowId: b")
    said = [line for line in lines[:start] if line.startswith("  # ")]
    assert " ".join(line[4:] for line in said) == long
    assert all(len(line) <= 100 for line in said) and len(said) > 1
    assert lines[start - 1].startswith("  # ")
    assert load_text(text, "<test>").data == data


def test_a_text_that_does_not_read_back_is_refused():
    with pytest.raises(AssertionError, match="does not read back"):
        verify("a: 1\n", {"a": "1"})
