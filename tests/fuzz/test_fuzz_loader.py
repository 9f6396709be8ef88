"""Fuzz the loader on random bytes, YAML-ish and JSON-ish text, and structured documents (valid dumps,
then truncated or spliced): a `LoadedDocument` or a located `DocumentError`, and valid dumps load back
to the data that was dumped. A plain scalar means the same in every shape of a YAML document.

The YAML dumps quote every string that the YAML 1.2 core schema would read as something else. That
table is written out here from the YAML spec (section 10.3.2), not taken from the loader, so a loader
that strays from it fails the round trip."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from arazzo_runner.errors import DocumentError
from arazzo_runner.loader import LoadedDocument, load_text
from tests.fuzz.kit import fuzz, outcome

FILES = st.sampled_from(["<string>", "doc.yaml", "doc.json", "doc.arazzo.yml"])
YAMLISH = st.text(alphabet=" \n\t-:?,[]{}#&*!|>'\"%@`~.0123456789abexyz<=\\", max_size=60)
YAML_PIECES = ["a: ", "- ", "  ", "\n", "&x ", "*x", "<<: ", "!!str ", "!!binary ", "!tag ", "? ", "|\n"]
YAML_PIECES += [">-\n", "'q'", '"\\u00e9"', "[", "]", "{", "}", ", ", "# c\n", "---\n", "...\n", "%YAML 1.1"]
YAML_PIECES += ["~", "0x1F", "0o17", "1_000", "1:30", ".inf", "-.NaN", "2001-12-14", "yes", "null", "1e400"]
YAMLISH = YAMLISH | st.lists(st.sampled_from([*YAML_PIECES, "\t"]), max_size=20).map("".join)
JSONISH = st.text(alphabet=' \n{}[]:,"\\0123456789.eE+-truefalsnu/', max_size=60)

keys = st.text(max_size=6)
scalars = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats() | st.text(max_size=10)
data = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=20,
)


def _load(text: str | bytes, file: str, positions: bool = True) -> Any:
    loaded = outcome("load_text", load_text, text, file, positions=positions)
    if isinstance(loaded, DocumentError):
        assert loaded.file == file
        assert loaded.line >= 0 and loaded.column >= 0
        assert "\n" not in loaded.message or "Traceback" not in loaded.message
        return loaded
    assert isinstance(loaded, LoadedDocument)
    _check_json_compatible(loaded.data)
    for pointer in ("", "/0", "/a", "/a/0/b", "/~1", "/-"):
        line, column = outcome("positions.locate", loaded.positions.locate, pointer)
        assert line >= 1 and column >= 1
    return loaded


def _check_json_compatible(value: Any) -> None:
    pending = [value]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            assert all(isinstance(key, str) for key in node)
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
        else:
            assert node is None or isinstance(node, (bool, int, float, str)), type(node)


@fuzz(150)
@given(st.binary(max_size=80), FILES)
def test_random_bytes(raw: bytes, file: str) -> None:
    _load(raw, file)


@fuzz(150)
@given(YAMLISH, FILES, st.booleans())
def test_yaml_ish_text(text: str, file: str, positions: bool) -> None:
    _load(text, file, positions)


@fuzz(100)
@given(JSONISH, FILES)
def test_json_ish_text(text: str, file: str) -> None:
    _load(text, file)


class CoreDumper(yaml.SafeDumper):
    """PyYAML's dumper with the YAML 1.2 core schema's resolvers (PyYAML's own are YAML 1.1): a string is
    written plain only when the core schema reads it back as a string (so `'1e5'` and `'0o17'` are
    quoted, `yes` is not)."""


CoreDumper.yaml_implicit_resolvers = {}
_CORE = [
    ("null", r"null|Null|NULL|~|", ["n", "N", "~", ""]),
    ("bool", r"true|True|TRUE|false|False|FALSE", list("tTfF")),
    ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", list("-+0123456789")),
    (
        "float",
        r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.nan|\.NaN|\.NAN",
        list("-+.0123456789"),
    ),
    ("merge", r"<<", ["<"]),  # not in the core schema: the loader's one extension (merge keys)
]
for _name, _pattern, _first in _CORE:
    CoreDumper.add_implicit_resolver(f"tag:yaml.org,2002:{_name}", re.compile(f"^(?:{_pattern})$"), _first)


def _dump(value: Any, flow: bool) -> str:
    return yaml.dump(value, Dumper=CoreDumper, default_flow_style=flow)


def _same(left: Any, right: Any) -> bool:
    if isinstance(left, float) and isinstance(right, float):
        return left == right or (math.isnan(left) and math.isnan(right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and left == right


@fuzz(120)
@given(data, st.sampled_from(["json", "yaml-block", "yaml-flow"]), st.integers(0, 400), st.text(max_size=2))
@example(value=["0E0"], form="yaml-flow", cut=0, splice="")  # found: `[0E0]` loaded as the float 0.0
@example(value={"a": "1e5", "b": 1e5, "c": "yes", "d": "0o17"}, form="yaml-block", cut=0, splice="")
def test_structured_documents(value: Any, form: str, cut: int, splice: str) -> None:
    if form == "json":
        text, file = json.dumps(value), "doc.json"
    else:
        # (allow_unicode=True makes PyYAML emit a bare U+0085 that it then reads as a line break)
        text = _dump(value, flow=form == "yaml-flow")
        file = "doc.yaml"
    loaded = _load(text, file)
    if text.strip():
        assert isinstance(loaded, LoadedDocument), loaded
        assert _same(loaded.data, value)
    cut = min(cut, len(text))
    _load(text[:cut] + splice + text[cut + len(splice) :], file)  # spliced: anything may happen
    _load(text[:cut], file)  # truncated


SCALAR_TEXT = st.text(alphabet="0123456789+-.eE_:oxXabfinNtTrRuUlLsSyY~ ", min_size=1, max_size=8)
SHAPES = [
    ("a: {}\n", lambda data: data["a"]),
    ("- {}\n", lambda data: data[0]),
    ("[{}]\n", lambda data: data[0]),
    ("[{}, x]\n", lambda data: data[0]),
    ("{{a: {}}}\n", lambda data: data["a"]),
]


@fuzz(150)
@given(SCALAR_TEXT | st.sampled_from(["0E0", "1e5", "-.5e-3", "0o17", "0x1F", "1_0", "True", ".NaN", "1:2"]))
@example("0E0")  # the fuzz failure: `[0E0]` (JSON text) was 0.0, `- 0E0` the string '0E0'
@example("1e5")
def test_a_plain_scalar_means_the_same_in_every_shape(text: str) -> None:
    """One rule for a YAML document's scalars, whether the document is block or flow YAML or also JSON."""
    text = text.strip()
    if not text or ":" in text or "#" in text or text in ("-", "?") or text.startswith(("- ", "? ")):
        return  # not a lone plain scalar in every shape (`a: - x` is a sequence): nothing to compare
    seen = []
    for template, pick in SHAPES:
        loaded = _load(template.format(text), "doc.yaml")
        seen.append(loaded if isinstance(loaded, DocumentError) else pick(loaded.data))
    values = [value for value in seen if not isinstance(value, DocumentError)]
    assert len(values) == len(SHAPES), (text, seen)
    assert all(_same(value, values[0]) for value in values), (text, values)
