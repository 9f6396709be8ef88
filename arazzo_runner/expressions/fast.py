"""The common expression forms read by one regular expression, building the nodes the parser builds.

A document's expressions are nearly all `$steps.<id>.outputs.<name>`, `$inputs.<name>`,
`$response.body#/...`, `$response.header.X` and `$statusCode`, and most of them are distinct texts (a
chain's step n reads step n-1), so the lru caches of `parser.py` do not help: the recursive-descent parser
(a `Scanner`, a `_Parser`, a dozen method calls) read each one cold, ~0.3 M instructions a step of a
200-step chain. `match` reads those forms with one `re.match` and returns exactly the (node, end) the
parser would, or None for anything it does not plainly recognise: any stop character inside the match
(the parser's runs end there), an accessor after it (`.x`, `[0]`), a `~` in the pointer, the dialect
forms, declared names (`names.py`: the parser never calls this while a document declares any). None
costs one failed match; the parser then reads the text as ever (errors included).
tests/unit/expressions/test_expr_fast.py holds it to the parser: generated texts and every expression
of the shared corpus, read both ways.
"""

from __future__ import annotations

import re
from functools import lru_cache

from . import ast
from .lexer import ALWAYS_STOP

_ID = r"[A-Za-z0-9_\-]+"  # lexer.ID_STRICT
_NAME = r"[A-Za-z0-9_\-.]+"  # lexer.IDENTIFIER
_TCHAR = r"[A-Za-z0-9!#$%&'*+\-.^_`|~]+"  # lexer.TCHAR
_WORD_ENDS = r"(?![A-Za-z0-9_\-])"  # the parser reads a root or a part as a whole ID_STRICT run

_FORMS = re.compile(
    rf"""\$(?:
      steps\.(?P<step>{_ID})\.outputs\.(?P<output>{_NAME})
    | inputs\.(?P<input>{_NAME})
    | (?P<message>request|response|message)\.(?:
          (?P<part>body|payload){_WORD_ENDS}
        | header\.(?P<header>{_TCHAR})
      )
    | (?P<simple>statusCode|url|method|self){_WORD_ENDS}
    )""",
    re.VERBOSE,
)
_MESSAGE_NODES: dict[str, type[ast.MessageSourceRef]] = {
    "request": ast.RequestRef,
    "response": ast.ResponseRef,
    "message": ast.MessageRef,
}
_SIMPLE_NODES: dict[str, type[ast.Expression]] = {
    "url": ast.UrlRef,
    "method": ast.MethodRef,
    "statusCode": ast.StatusCodeRef,
    "self": ast.SelfRef,
}


def match(text: str, pos: int, stop: frozenset[str]) -> tuple[ast.Expression, int] | None:
    """The expression at `text[pos]` and the offset after it, when it is one of the common forms; else
    None (the caller parses it in full). `stop` as for `parser._parse` (`{` and `}` always stop)."""
    found = _FORMS.match(text, pos)
    if found is None:
        return None
    end = found.end()
    if stop and not stop.isdisjoint(text[pos:end]):
        return None
    step, output, input_name, message, part, header, simple = found.groups()
    pointer: tuple[str, ...] = ()
    if header is None and simple is None and text.startswith("#", end):
        scanned = _pointer(text, end + 1, stop)
        if scanned is None:
            return None
        pointer, end = scanned
    if text[end : end + 1] in (".", "["):  # an accessor chain follows (or a lone '.'): the parser's
        return None
    source = text[pos:end]
    if step is not None:
        node = _node(ast.StepOutputRef, source, step_id=step, name=output, pointer=pointer)
    elif input_name is not None:
        node = _node(ast.InputsRef, source, name=input_name, pointer=pointer)
    elif message is not None:
        if part is not None:
            node = _node(_MESSAGE_NODES[message], source, part=part, name=None, pointer=pointer)
        else:
            node = _node(_MESSAGE_NODES[message], source, part="header", name=header, pointer=())
    else:
        node = _node(_SIMPLE_NODES[simple], source)
    return node, end


def _node(cls: type[ast.Expression], text: str, **fields: object) -> ast.Expression:
    """`cls(**fields, text=text)` with every field given (no accessors, no rewrites), without the
    generic keyword checks of `Record.__init__` (a third of the cost of a fast read); as `Template`."""
    node = object.__new__(cls)
    node.__dict__.update(fields, text=text, accessors=(), rewrites=())
    return node


def _pointer(text: str, start: int, stop: frozenset[str]) -> tuple[tuple[str, ...], int] | None:
    """The tokens of the pointer starting at `start` (after '#') and its end, as `Scanner.pointer`
    reads it; None for a pointer with escapes or one that is not valid (the parser says why)."""
    end = _pointer_ends(stop).match(text, start).end()  # type: ignore[union-attr]
    raw = text[start:end]
    if not raw:
        return (), end
    if raw[0] != "/" or "~" in raw:
        return None
    return tuple(raw[1:].split("/")), end


@lru_cache(maxsize=64)
def _pointer_ends(stop: frozenset[str]) -> re.Pattern[str]:
    """The text up to the first stop character (`Scanner.until_stop`)."""
    chars = "".join(sorted(stop | ALWAYS_STOP))
    return re.compile(f"[^{re.escape(chars)}]*")
