"""`validate --fix` never adds a finding (issue 23, point 4): documents whose outputs hold fixable strings
(Jentic's `$steps.s.id`, bare expressions inside text, accessor forms) written in every style YAML has
(plain, single- and double-quoted, literal and folded blocks, flow sequences and mappings), next to
anchors, aliases and merge keys, are fixed; the result loads, reports no finding the document did not
have (a rule at a place, counted), keeps every anchored and aliased value as it was, and a second
`--fix` changes nothing. The findings are the validator's own, computed again from the fixed text here.
"""

from __future__ import annotations

import collections
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from arazzo_runner.loader import load_text
from arazzo_runner.validate.core import validate_loaded
from arazzo_runner.validate.fix import fix_text
from tests.fuzz.kit import fuzz, outcome
from tests.unit.validate.conftest import OPENAPI
from tests.unit.validate.fixkit import HEAD

INDENT = " " * 10
STRINGS = [
    "$steps.s.id",  # step-output-shorthand
    "x $steps.s.id",  # and a bare expression in text
    "Bearer $steps.s.id and $steps.s.id",
    "$response.body.items[0].id",  # accessor form
    "folded $steps.s.id",
    "it's $steps.s.id",
    'quote " and tab\t $steps.s.id',
    "{$steps.s.id} ok",
    "$response.body#/0/id",  # already right
    "plain text",
    "$steps.s.outputs.id",
]
STYLES = [
    "plain",
    "single",
    "double",
    "literal",
    "folded",
    "flow-seq",
    "flow-map",
    "anchor",
    "alias",
    "merge",
]

entries = st.lists(st.tuples(st.sampled_from(STYLES), st.sampled_from(STRINGS)), min_size=1, max_size=6)


def _scalar(text: str, style: str) -> str:
    """`text` as a YAML scalar of `style` (one line), or double-quoted where that style cannot hold it."""
    if style == "plain" and _plain_reads_as(text):
        return text
    if style == "single" and "\n" not in text and "\t" not in text:
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text)


def _plain_reads_as(text: str) -> bool:
    import yaml

    if not text or text[0] in "{['\"&*!|>%@`#" or "\t" in text:
        return False
    try:
        return yaml.safe_load(f"k: {text}") == {"k": text}
    except yaml.YAMLError:
        return False


def _document(chosen: list[tuple[str, str]]) -> str:
    lines, anchors = [], []
    for index, (style, text) in enumerate(chosen):
        key = f"o{index}"
        if style == "literal" or style == "folded":
            mark = "|" if style == "literal" else ">"
            lines.append(f"{INDENT}{key}: {mark}\n{INDENT}  {text.replace(chr(9), ' ')}")
        elif style == "flow-seq":
            lines.append(f"{INDENT}{key}: [{_scalar(text, 'double')}, {_scalar(text, 'single')}]")
        elif style == "flow-map":
            lines.append(f"{INDENT}{key}: {{a: {_scalar(text, 'double')}, b: 1}}")
        elif style == "anchor":
            anchors.append(f"a{index}")
            lines.append(f"{INDENT}{key}: &a{index} {_scalar(text, 'double')}")
        elif style == "alias" and anchors:
            lines.append(f"{INDENT}{key}: *{anchors[-1]}")
        elif style == "merge":
            lines.append(f"{INDENT}{key}:\n{INDENT}  <<: {{m: {_scalar(text, 'double')}}}\n{INDENT}  n: 2")
        else:
            lines.append(f"{INDENT}{key}: {_scalar(text, style)}")
    return HEAD + "\n".join(lines) + "\n"


FOLDER = Path(tempfile.mkdtemp(prefix="fuzz-fix-"))
(FOLDER / "api.yaml").write_text(OPENAPI, encoding="utf-8")
LOCATION = str(FOLDER / "flow.arazzo.yaml")


def _validate(loaded: Any) -> Any:
    return validate_loaded(loaded, LOCATION, remote=False)


def _keys(report: Any) -> collections.Counter:
    return collections.Counter((f.rule, f.severity, f.path) for f in report.findings)


def _normalized(chosen: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """An alias before any anchor is written plain (there is nothing to refer to yet)."""
    found, anchored = [], False
    for style, text in chosen:
        anchored = anchored or style == "anchor"
        found.append(("plain" if style == "alias" and not anchored else style, text))
    return found


def _shared(data: Any, chosen: list[tuple[str, str]]) -> dict[str, Any]:
    """The values of the outputs written with an anchor, an alias or a merge key: never edited."""
    outputs = data["workflows"][0]["steps"][1]["outputs"]
    keys = [f"o{i}" for i, (style, _) in enumerate(chosen) if style in ("anchor", "alias", "merge")]
    return {key: outputs.get(key) for key in keys}


@fuzz(default=60)
@given(entries)
@example([("folded", "folded $steps.s.id"), ("double", "x $steps.s.id")])  # issue 23's document
@example([("anchor", "x $steps.s.id"), ("alias", ""), ("double", "x $steps.s.id")])
@example([("merge", "$steps.s.id"), ("double", "x $steps.s.id")])
def test_fix_never_adds_a_finding(chosen):
    chosen = _normalized(chosen)
    text = _document(chosen)
    loaded = load_text(text, LOCATION)
    before = _validate(loaded)
    result = outcome("fix_text", fix_text, text, LOCATION, _validate)
    after_loaded = load_text(result.after, LOCATION)  # the fixed text loads
    after = _validate(after_loaded)
    added = _keys(after) - _keys(before)
    assert not added, (text, result.after, added)
    assert _shared(after_loaded.data, chosen) == _shared(loaded.data, chosen)
    again = fix_text(result.after, LOCATION, _validate)
    assert again.after == result.after and not again.fixed
