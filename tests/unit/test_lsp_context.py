"""Where the cursor is in a YAML text being typed (`lsp/context.py`): the enclosing keys from the
indentation, in the indented and the compact sequence styles, and what is typed before the cursor."""

from __future__ import annotations

import pytest

from tests.untested import not_installed

pytest.importorskip("lsprotocol", reason=not_installed("lsprotocol", "`arazzo lsp`", where="the lsp extra"))

from arazzo_runner.lsp.context import cursor_at

INDENTED = """workflows:
  - workflowId: a
    steps:
      - stepId: s
        parameters:
          - name: x
            in: pa
        onSuccess:
          - name: go
            stepId: "s
        su
    outputs:
      o: $steps.s.outputs.
"""
COMPACT = """workflows:
- workflowId: a
  steps:
  - stepId: s
    parameters:
    - name: x
      in: pa
    onSuccess:
    - name: go
      stepId: "s
    su
  outputs:
    o: $steps.s.outputs.
"""  # each sequence at its key's own column


def _at(text: str, line: int):
    lines = text.split("\n")
    return cursor_at(lines, line, len(lines[line]))


@pytest.mark.parametrize("text", [INDENTED, COMPACT], ids=["indented", "compact"])
def test_the_enclosing_keys_and_what_is_typed(text):
    cursor = _at(text, 6)
    assert (cursor.key, cursor.typed, cursor.ancestors) == ("in", "pa", ("workflows", "steps", "parameters"))
    cursor = _at(text, 9)
    assert (cursor.key, cursor.typed, cursor.ancestors) == (
        "stepId",
        "s",
        ("workflows", "steps", "onSuccess"),
    )
    cursor = _at(text, 10)
    assert (cursor.typing_key, cursor.typed, cursor.ancestors) == (True, "su", ("workflows", "steps"))
    cursor = _at(text, 12)
    assert (cursor.key, cursor.typed, cursor.ancestors) == (
        "o",
        "$steps.s.outputs.",
        ("workflows", "outputs"),
    )


def test_an_item_of_a_sequence_of_scalars_is_a_value():
    lines = ["workflows:", "  - workflowId: a", "    dependsOn:", "      - b"]
    cursor = cursor_at(lines, 3, len(lines[3]))
    assert (cursor.key, cursor.item, cursor.typed, cursor.ancestors) == (
        None,
        True,
        "b",
        ("workflows", "dependsOn"),
    )
