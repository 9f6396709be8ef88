"""The ids and names a document declares that the expression grammar's character classes cannot read.

Arazzo 1.0.x writes `$steps.` name with `name = *( CHAR )`: any character, so a step of a generated
document may be `Plan a Trip_search_0` and an output `Search ArticlesResponse`, read by
`$steps.Plan a Trip_search_0.outputs.Search ArticlesResponse`. (The ids and names SHOULD, the output names
MUST, match narrower patterns: `validate` says so; the 1.1 ABNF narrows the expression too.) Such a
name is read as the document declares it, the longest declared one that fits where the expression has
it, and any other by the character class, as before.

`$inputs.` name is `*( CHAR )` in 1.0.x as well, and an inputs schema may declare any property name:
`$inputs.prefs/permissionLevel` reads the input `prefs/permissionLevel` of a 1.0.x document that declares
it (`inputs`: the names the caller found listed by the inputs schemas, `workspace.inputs.grammar_inputs`).
The 1.1 ABNF has `input-name = identifier`: a 1.1 document declares none, and such text stays an error.

The parser learns them from the document being read (`reading(names)`, which the workspace and the
validator set around their parsing); a document whose ids and names all fit the classes sets nothing,
and parsing is what it always was. Parsed results are cached per text *and* names.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import Any

from ..records import Record

_PLAIN_ID = re.compile(r"[A-Za-z0-9_\-]+")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_\-.]+")


class DeclaredNames(Record, frozen=True):
    """Step ids, workflow ids and output names of a document, each set sorted longest first."""

    steps: tuple[str, ...] = ()
    workflows: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()


_CURRENT: ContextVar[DeclaredNames | None] = ContextVar("arazzo_declared_names", default=None)


def current() -> DeclaredNames | None:
    return _CURRENT.get()


@contextlib.contextmanager
def reading(names: DeclaredNames | None) -> Iterator[None]:
    """Expressions parsed inside read the names of `names` (None: only the character classes)."""
    token = _CURRENT.set(names)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def declared_names(document: Any, inputs: Iterable[str] = ()) -> DeclaredNames | None:
    """The names of `document` (a model `Document`) that need declaring, or None when every step id,
    workflow id, output name and input name fits the grammar's classes. `inputs`: the input names the
    document's inputs schemas declare where its grammar reads any (1.0.x; see the module docstring)."""
    steps: set[str] = set()
    workflows: set[str] = set()
    outputs: set[str] = set()
    for workflow in document.workflows:
        workflows.add(workflow.workflow_id)
        outputs.update(k for k in workflow.outputs if isinstance(k, str))
        for step in workflow.steps:
            steps.add(step.step_id)
            outputs.update(k for k in step.outputs if isinstance(k, str))
    steps.discard("")
    workflows.discard("")
    odd_ids = any(not _PLAIN_ID.fullmatch(i) for i in (*steps, *workflows) if i)
    odd_names = any(not _PLAIN_NAME.fullmatch(n) for n in outputs if n)
    odd_inputs = {n for n in inputs if isinstance(n, str) and n and not _PLAIN_NAME.fullmatch(n)}
    if not (odd_ids or odd_names or odd_inputs):
        return None
    return DeclaredNames(
        _longest_first(steps), _longest_first(workflows), _longest_first(outputs), _longest_first(odd_inputs)
    )


def _longest_first(names: set[str]) -> tuple[str, ...]:
    return tuple(sorted((n for n in names if n), key=lambda n: (-len(n), n)))


def match_declared(text: str, pos: int, declared: tuple[str, ...], ends: str, plain: frozenset[str]) -> str:
    """The longest of `declared` written at `text[pos:]` and followed by the end or a character of
    `ends` ("" when none); only names with a character outside `plain` are looked for, the others being
    read by the character class as ever."""
    for name in declared:
        if all(ch in plain for ch in name):
            continue
        if text.startswith(name, pos):
            after = pos + len(name)
            if after == len(text) or text[after] in ends:
                return name
    return ""
