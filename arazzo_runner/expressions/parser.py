"""Recursive-descent parser: runtime expression text -> AST node (see `ast.py`).

Grammar: the Arazzo 1.1 ABNF, used for 1.0.x documents too (DESIGN: "Decisions on open points"), plus an
optional accessor chain (`.member`, `[0]`, `['key']`) after the expression, plus two dialect forms read as
the standard form they stand for (`arazzo_runner.model.dialect`), each recorded as a `Rewrite` on the node:
`$response.headers.X` (`$response.header.X`), `$steps.<id>.<name>` (`$steps.<id>.outputs.<name>`) and
`$dependencies.<workflowId>.<name>` (`$workflows.<workflowId>.outputs.<name>`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..errors import ExpressionError
from ..model.dialect import DEPENDENCIES_ROOT, HEADER_PLURAL, STEP_OUTPUT_SHORTHAND
from . import ast, fast
from .lexer import DEFAULT_STOP, DIGITS, ID_STRICT, IDENTIFIER, TCHAR, Scanner
from .names import DeclaredNames, match_declared
from .names import current as current_names

Fields = dict[str, Any]

_MESSAGE_NODES = ast.MESSAGE_NODES
_SIMPLE_NODES = ast.SIMPLE_NODES
MESSAGE_PARTS = ("header", "query", "path", "body", "payload")
WORKFLOW_FIELDS = ("inputs", "outputs")
# `steps` after `$workflows.<id>.` is the 1.1 `dependsOn` form, extended with `.outputs.<name>` for values.
_WORKFLOW_PARTS = (*WORKFLOW_FIELDS, "steps")
# what may follow a declared output name read whole (`names.py`): the end, a pointer, an accessor, a
# space or an operator of a condition, the brace closing a template
_AFTER_NAME = "#[ \t\r\n}=!<>)&|,"
# `inputs` is not in the ABNF but appears in documents; it is parsed and reported as such.
COMPONENT_KINDS = ("parameters", "successActions", "failureActions", "inputs")


def parse_expression(text: str) -> ast.Expression:
    """Parse `text`, which must be exactly one runtime expression (a pointer may run to the end). Ids and
    names outside the grammar's classes are read as the document being read declares them (`names`)."""
    return _parse_whole(text, current_names())


@lru_cache(maxsize=4096)
def _parse_whole(text: str, names: DeclaredNames | None) -> ast.Expression:
    node, end = parse_at(text, 0, frozenset(), names)
    if end != len(text):
        raise ExpressionError(f"unexpected {text[end]!r} after the expression {text[:end]!r}", text, end)
    return node


def parse_expression_prefix(text: str, pos: int, *, stop: str = DEFAULT_STOP) -> tuple[ast.Expression, int]:
    """Parse one expression starting at `text[pos] == '$'`; return it and the offset just after it.

    `stop` characters end free-form parts (query/path names, pointers, source references) and header tokens;
    `{` and `}` always do.
    """
    return _parse_prefix_cached(text, pos, stop, current_names())


@lru_cache(maxsize=4096)
def _parse_prefix_cached(
    text: str, pos: int, stop: str, names: DeclaredNames | None
) -> tuple[ast.Expression, int]:
    return parse_at(text, pos, frozenset(stop), names)


def parse_at(
    text: str, pos: int, stop: frozenset[str], names: DeclaredNames | None
) -> tuple[ast.Expression, int]:
    """`parse_expression_prefix` without its cache, for callers that cache what they build of it
    (`template.py`); `stop` without `{}` (they always stop), `names` as `names.current()`."""
    if names is None:  # declared names are read longest-match: only the full parser knows them
        found = fast.match(text, pos, stop)
        if found is not None:
            return found
    return parse_full(text, pos, stop, names)


def parse_full(
    text: str, pos: int, stop: frozenset[str], names: DeclaredNames | None
) -> tuple[ast.Expression, int]:
    """The recursive-descent parser alone (`parse_at` tries `fast.match` first)."""
    parser = _Parser(Scanner(text, pos, stop), names)
    node = parser.expression()
    return node, parser.s.pos


class _Parser:
    def __init__(self, scanner: Scanner, names: DeclaredNames | None = None) -> None:
        self.s = scanner
        self.names = names
        self.rewrites: list[tuple[int, int, str, str]] = []  # absolute offsets while parsing

    def declared(self, kind: str, ends: str, plain: frozenset[str]) -> str:
        """A declared step id, workflow id, output or input name (`names.py`) written here, taken; or ""."""
        if self.names is None:
            return ""
        s = self.s
        found = match_declared(s.text, s.pos, getattr(self.names, kind), ends, plain)
        s.pos += len(found)
        return found

    def step_id(self, after: str) -> str:
        return self.declared("steps", ".", ID_STRICT) or self.s.take(ID_STRICT, "a step id", after)

    def workflow_id(self, after: str) -> str:
        return self.declared("workflows", ".", ID_STRICT) or self.s.take(ID_STRICT, "a workflow id", after)

    def output_name(self, after: str) -> str:
        found = self.declared("outputs", _AFTER_NAME, IDENTIFIER)
        return found or self.s.take(IDENTIFIER, "an output name", after)

    def expression(self) -> ast.Expression:
        s = self.s
        start = s.pos
        if s.peek() != "$":
            raise s.error("a runtime expression must start with '$'")
        s.pos += 1
        root = s.run(ID_STRICT)
        cls, fields = self.root(root, start)
        accessors = self.accessors()
        rewrites = tuple(ast.Rewrite(a - start, b - start, new, form) for a, b, new, form in self.rewrites)
        return cls(**fields, text=s.text[start : s.pos], accessors=accessors, rewrites=rewrites)

    def root(self, root: str, start: int) -> tuple[type[ast.Expression], Fields]:
        if root in _SIMPLE_NODES:
            return _SIMPLE_NODES[root], {}
        if root in _MESSAGE_NODES:
            return _MESSAGE_NODES[root], self.message_source(root)
        handler = _ROOT_HANDLERS.get(root)
        if handler is None:
            raise self.s.error(_unknown_root_message(root), start)
        return handler(self)

    # -- $request. / $response. / $message.
    def message_source(self, root: str) -> Fields:
        s = self.s
        s.expect(".", f"${root}")
        where = s.pos
        part = s.run(ID_STRICT)
        if part == "headers":  # Jentic's spelling: the one meaning is `header`
            self.rewrites.append((where, s.pos, "header", HEADER_PLURAL))
            part = "header"
        after = f"${root}.{part}"
        if part == "header":
            s.expect(".", after)
            return {"part": part, "name": s.take(TCHAR, "a header name", after + ".")}
        if part in ("query", "path"):
            s.expect(".", after)
            return {"part": part, "name": self.free_text(f"a {part} parameter name", after + ".")}
        if part in ("body", "payload"):
            return {"part": part, "pointer": self.pointer()}
        message = f"unknown source {part!r} after '${root}.' (expected {_one_of(MESSAGE_PARTS)})"
        raise s.error(message + _did_you_mean(part, MESSAGE_PARTS), where)

    # -- $inputs. / $outputs.
    def inputs(self) -> tuple[type[ast.Expression], Fields]:
        return ast.InputsRef, self.named("$inputs", "an input name")

    def outputs(self) -> tuple[type[ast.Expression], Fields]:
        return ast.OutputsRef, self.named("$outputs", "an output name")

    def named(self, after: str, what: str) -> Fields:
        # Extension: without `.<name>` the expression is the whole collection (`$inputs`,
        # `$steps.s.outputs`), as Selector Object contexts in real documents use it; name is "".
        if self.s.peek() != ".":
            return {"name": "", "pointer": self.pointer()}
        self.s.expect(".", after)
        if what == "an output name":
            name = self.output_name(after + ".")
        else:  # an input name the document declares (1.0.x: `names.py`), or by the character class
            found = self.declared("inputs", _AFTER_NAME, IDENTIFIER)
            name = found or self.s.take(IDENTIFIER, what, after + ".")
        return {"name": name, "pointer": self.pointer()}

    # -- $steps.<id>.outputs.<name>
    def steps(self) -> tuple[type[ast.Expression], Fields]:
        s = self.s
        s.expect(".", "$steps")
        step_id = self.step_id("$steps.")
        if s.peek() == "." and self._shorthand(s.pos + 1):
            # Jentic's `$steps.<id>.<name>`: a step's only named members are its outputs
            self.rewrites.append((s.pos + 1, s.pos + 1, "outputs.", STEP_OUTPUT_SHORTHAND))
            s.pos += 1
            name = self.output_name(f"$steps.{step_id}.")
            return ast.StepOutputRef, {"step_id": step_id, "name": name, "pointer": self.pointer()}
        hint = f" (a step output is written '$steps.{step_id}.outputs.<name>')"
        self.keyword(f"$steps.{step_id}", ("outputs",), hint)
        fields = self.named(f"$steps.{step_id}.outputs", "an output name")
        return ast.StepOutputRef, {"step_id": step_id, **fields}

    def _shorthand(self, at: int) -> bool:
        """Whether the word at `at` (after `$steps.<id>.`) is an output name written without `outputs.`:
        a word, not `outputs`, nor a misspelling of it (`ouputs`, `output`: those stay errors)."""
        text, end = self.s.text, at
        while end < len(text) and text[end] in ID_STRICT and text[end] not in self.s.stop:
            end += 1
        word = text[at:end]
        if not word or word == "outputs":
            return False
        import difflib  # only for this rare form

        return difflib.SequenceMatcher(None, word.casefold(), "outputs").ratio() < 0.8

    # -- $workflows.<id>.(inputs|outputs).<name> and $workflows.<id>.steps.<stepId>.outputs.<name>
    def workflows(self) -> tuple[type[ast.Expression], Fields]:
        s = self.s
        s.expect(".", "$workflows")
        workflow_id = self.workflow_id("$workflows.")
        after = f"$workflows.{workflow_id}"
        field = self.keyword(after, _WORKFLOW_PARTS)
        if field == "steps":
            s.expect(".", f"{after}.steps")
            step_id = self.step_id(f"{after}.steps.")
            hint = f" (a step output is written '{after}.steps.{step_id}.outputs.<name>')"
            self.keyword(f"{after}.steps.{step_id}", ("outputs",), hint)
            fields = self.named(f"{after}.steps.{step_id}.outputs", "an output name")
            return ast.WorkflowStepOutputRef, {"workflow_id": workflow_id, "step_id": step_id, **fields}
        what = "an input name" if field == "inputs" else "an output name"
        fields = self.named(f"{after}.{field}", what)
        return ast.WorkflowRef, {"workflow_id": workflow_id, "field": field, **fields}

    # -- Jentic's $dependencies.<workflowId>.<name>: an output of a workflow this one depends on
    def dependencies(self) -> tuple[type[ast.Expression], Fields]:
        s = self.s
        start = s.pos - len("$dependencies")
        s.expect(".", "$dependencies")
        workflow_id = self.workflow_id("$dependencies.")
        s.expect(".", f"$dependencies.{workflow_id}")
        self.rewrites.append((start, s.pos, f"$workflows.{workflow_id}.outputs.", DEPENDENCIES_ROOT))
        name = s.take(IDENTIFIER, "an output name", f"$dependencies.{workflow_id}.")
        fields = {"workflow_id": workflow_id, "field": "outputs", "name": name, "pointer": self.pointer()}
        return ast.WorkflowRef, fields

    # -- $sourceDescriptions.<name>.<reference>
    def source_descriptions(self) -> tuple[type[ast.Expression], Fields]:
        s = self.s
        s.expect(".", "$sourceDescriptions")
        source = s.take(ID_STRICT, "a source description name", "$sourceDescriptions.")
        after = f"$sourceDescriptions.{source}"
        s.expect(".", after)
        reference = self.free_text("an operationId, workflowId or field name", after + ".")
        return ast.SourceRef, {"source": source, "reference": reference}

    # -- $components.<kind>.<name>
    def components(self) -> tuple[type[ast.Expression], Fields]:
        s = self.s
        kind = self.keyword("$components", COMPONENT_KINDS)
        after = f"$components.{kind}"
        s.expect(".", after)
        return ast.ComponentRef, {"kind": kind, "name": s.take(IDENTIFIER, "a component name", after + ".")}

    # -- shared pieces
    def keyword(self, after: str, allowed: tuple[str, ...], hint: str = "") -> str:
        """Parse `.<word>` where word is one of `allowed`."""
        s = self.s
        s.expect(".", after)
        where = s.pos
        word = s.run(ID_STRICT)
        if word not in allowed:
            got = repr(word) if word else "nothing"
            message = f"expected {_one_of(allowed)} after '{after}.', found {got}"
            raise s.error(message + (_did_you_mean(word, allowed) or hint), where)
        return word

    def free_text(self, what: str, after: str) -> str:
        s = self.s
        text = s.until_stop()
        if not text:
            found = s.peek()
            got = repr(found) if found else "the end"
            raise s.error(f"expected {what} after {after!r}, found {got}")
        return text

    def pointer(self) -> tuple[str, ...]:
        return self.s.pointer() if self.s.accept("#") else ()

    def accessors(self) -> tuple[ast.Accessor, ...]:
        """`.member` / `[index]` / `['key']` after a complete expression; a lone '.' ends the chain."""
        s = self.s
        chain: list[ast.Accessor] = []
        while True:
            ch = s.peek()
            if ch == "." and s.peek(1) in ID_STRICT and s.peek(1) not in s.stop:
                s.pos += 1
                chain.append(s.run(ID_STRICT))
            elif ch == "[":
                chain.append(self.index())
            else:
                return tuple(chain)

    def index(self) -> ast.Accessor:
        s = self.s
        start = s.pos
        s.pos += 1  # '['
        quote = s.peek()
        if quote and quote in "'\"":
            key: ast.Accessor = s.quoted()
        else:
            negative = s.accept("-")
            digits = s.run(DIGITS)
            if not digits:
                raise s.error("expected an integer index or a quoted key inside '[...]'", start)
            if len(digits) > 18:  # no array is that long; and Python will not convert 4300+ digits
                raise s.error(f"index too long ({len(digits)} digits)", start)
            key = -int(digits) if negative else int(digits)
        if not s.accept("]"):
            raise s.error("expected ']' to close the accessor opened", start)
        return key


_ROOT_HANDLERS: dict[str, Callable[[_Parser], tuple[type[ast.Expression], Fields]]] = {
    "inputs": _Parser.inputs,
    "outputs": _Parser.outputs,
    "steps": _Parser.steps,
    "workflows": _Parser.workflows,
    "sourceDescriptions": _Parser.source_descriptions,
    "components": _Parser.components,
    "dependencies": _Parser.dependencies,  # a dialect form: not listed among the roots in messages
}
DIALECT_ROOTS = ("dependencies",)
ROOTS = tuple(
    root for root in (*_SIMPLE_NODES, *_MESSAGE_NODES, *_ROOT_HANDLERS) if root not in DIALECT_ROOTS
)


# compiled on first use (`re`'s cache): not at every start
_ROOT_LIKE = r"\$([A-Za-z][A-Za-z0-9_]*)(?=[.#\[]|$)"


def near_miss(text: str) -> tuple[str, str | None] | None:
    """For text that looks like a runtime expression with a misspelt root (`$respons.body#/id`,
    `$Inputs.id`, `$statuscode`), the nearest root written out (`$response`) and, when the text with
    that root parses, the corrected text; None when `text` is no such near miss (an expression, `$5`,
    `$USD`). Used for did-you-mean hints; difflib is imported only here, off the hot path."""
    match = re.match(_ROOT_LIKE, text)
    if match is None or match.group(1) in ROOTS:
        return None
    import difflib

    root = match.group(1)
    folded = [r for r in ROOTS if r.casefold() == root.casefold()]
    choices = folded or difflib.get_close_matches(root, ROOTS, n=3, cutoff=0.75)
    for choice in choices:
        fixed = "$" + choice + text[match.end() :]
        try:
            parse_expression(fixed)
        except ExpressionError:
            continue
        return "$" + choice, fixed
    return ("$" + choices[0], None) if choices else None


def _unknown_root_message(root: str) -> str:
    expected = ", ".join("$" + r for r in ROOTS)
    if not root:
        return f"expected an expression name after '$' ({expected})"
    hint = _did_you_mean(root, ROOTS, prefix="$")
    return f"unknown runtime expression '${root}' (expected one of {expected}){hint}"


def _did_you_mean(word: str, choices: tuple[str, ...], prefix: str = "") -> str:
    import difflib  # only on the error path

    close = difflib.get_close_matches(word, choices, n=1) if word else []
    return f"; did you mean '{prefix}{close[0]}'?" if close else ""


def _one_of(words: tuple[str, ...]) -> str:
    quoted = [repr(w) for w in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
