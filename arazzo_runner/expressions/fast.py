"""The common expression forms read by a few `str` methods, building the nodes the parser builds.

A document's expressions are nearly all `$steps.<id>.outputs.<name>`, `$inputs.<name>`,
`$response.body#/...`, `$response.header.X` and `$statusCode`, and most of them are distinct texts (a
chain's step n reads step n-1), so the lru caches of `parser.py` do not help: the recursive-descent
parser (a `Scanner`, a `_Parser`, a dozen method calls) reads each one cold, ~5 us. `match` reads those
forms with `startswith` and `lstrip` (no regular expression: compiling one costs ~0.3 ms at start) and
returns exactly the (node, end) the parser would, or None for anything it does not plainly recognise:
a stop character inside the match (the parser's runs end there), an accessor after it (`.x`, `[0]`), a
`~` in the pointer, the dialect forms, declared names (`names.py`: the parser never calls this while a
document declares any). The parser then reads the text as ever, errors included.
tests/unit/expressions/test_expr_fast.py holds it to the parser: generated texts and every expression
of the shared corpus, read both ways.
"""

from __future__ import annotations

from . import ast

_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_ID = _ALNUM + "_-"  # lexer.ID_STRICT
_NAME = _ID + "."  # lexer.IDENTIFIER
_TCHAR = _ALNUM + "!#$%&'*+-.^_`|~"  # lexer.TCHAR
_WINDOW = 256  # longer ids and names go to the parser (`_run`)
_MESSAGE_NODES = {f"${root}.": cls for root, cls in ast.MESSAGE_NODES.items()}
_SIMPLE_NODES = ast.SIMPLE_NODES


def match(text: str, pos: int, stop: frozenset[str]) -> tuple[ast.Expression, int] | None:
    """The expression at `text[pos]` and the offset after it, when it is one of the common forms; else
    None (the caller parses it in full). `stop` as for `parser.parse_at` (`{` and `}` always stop)."""
    found = _form(text, pos)
    if found is None:
        return None
    cls, fields, end, pointed = found
    if stop and not stop.isdisjoint(text[pos:end]):
        return None
    if pointed:
        pointer: tuple[str, ...] | None = ()
        if text.startswith("#", end):
            pointer, end = _pointer(text, end + 1, stop)
            if pointer is None:
                return None
        fields["pointer"] = pointer
    if text[end : end + 1] in (".", "["):  # an accessor chain follows (or a lone '.'): the parser's
        return None
    node = object.__new__(cls)  # every field given: no need of Record.__init__'s generic checks
    node.__dict__.update(fields, text=text[pos:end], accessors=(), rewrites=())
    return node, end


def _form(text: str, pos: int) -> tuple[type[ast.Expression], dict, int, bool] | None:
    """The node class, its fields but the pointer, the end and whether a pointer may follow."""
    if text.startswith("$steps.", pos):
        id_end = _run(text, pos + 7, _ID)
        if id_end is None or id_end == pos + 7 or not text.startswith(".outputs.", id_end):
            return None
        end = _run(text, id_end + 9, _NAME)
        if end is None or end == id_end + 9:
            return None
        return (
            ast.StepOutputRef,
            {"step_id": text[pos + 7 : id_end], "name": text[id_end + 9 : end]},
            end,
            True,
        )
    if text.startswith("$inputs.", pos):
        end = _run(text, pos + 8, _NAME)
        if end is None or end == pos + 8:
            return None
        return ast.InputsRef, {"name": text[pos + 8 : end]}, end, True
    for root, cls in _MESSAGE_NODES.items():
        if text.startswith(root, pos):
            return _message(text, pos + len(root), cls)
    end = _run(text, pos + 1, _ID)
    if end is None or not text.startswith("$", pos):
        return None
    simple = _SIMPLE_NODES.get(text[pos + 1 : end])
    return None if simple is None else (simple, {}, end, False)


def _message(text: str, at: int, cls: type[ast.Expression]) -> tuple | None:
    """`body`, `payload` or `header.<token>` at `at`, after `$request.`, `$response.` or `$message.`."""
    if text.startswith("header.", at):
        end = _run(text, at + 7, _TCHAR)
        if end is None or end == at + 7:
            return None
        return cls, {"part": "header", "name": text[at + 7 : end], "pointer": ()}, end, False
    end = _run(text, at, _ID)
    part = text[at:end] if end is not None else None
    if part not in ("body", "payload"):
        return None
    return cls, {"part": part, "name": None}, end, True


def _run(text: str, start: int, chars: str) -> int | None:
    """The end of the run of `chars` from `start` (`Scanner.run` without stop characters); None when it
    is longer than `_WINDOW`."""
    window = text[start : start + _WINDOW]
    length = len(window) - len(window.lstrip(chars))
    return None if length == _WINDOW else start + length


def _pointer(text: str, start: int, stop: frozenset[str]) -> tuple[tuple[str, ...] | None, int]:
    """The tokens of the pointer starting at `start` (after '#') and its end, as `Scanner.pointer`
    reads it (up to a stop character); None for one with escapes or not valid (the parser says why)."""
    end, size = start, len(text)
    while end < size and text[end] not in stop and text[end] not in "{}":
        end += 1
    raw = text[start:end]
    if not raw:
        return (), end
    if raw[0] != "/" or "~" in raw:
        return None, end
    return tuple(raw[1:].split("/")), end
