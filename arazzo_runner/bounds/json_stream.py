"""A big JSON body read as a stream of events, when every use a step makes of it can be served so: the
values its JSON pointers reach and the nodes its filters select, without building the document.

Why. A 20 MB body parsed into Python objects costs ~3x its size at the least (jiter's objects; json.loads
~4.6x), and a step often reads three small things of it (issue 43: `$.items[?@.price > 999.5]`,
`#/meta/total`, `#/items/0/id`). Read as a stream (ijson's yajl2_c backend, the `bigjson` extra), the
body costs its bytes, which the exchange holds anyway, and what the uses select.

What is read (`Uses`, worked out by `executor/steps/body_stream.py`): pointers (RFC 6901 tokens: a key of
an object, or an index of an array when the token is one) and filters (names of objects and indexes of
arrays down to a node whose children are tested, `select` applied to a list of them). One pass serves
them all. The value a pointer reaches is built alone; so is each child a filter tests (an array's
element, in chunks of `CHUNK`), and `select` (the library's filter, `$[?expr]`) is applied to it as the
library applies it in the whole document. What a use needs from a node it reaches whole (a pointer's
value, an object a filter tests, the element of an array under test) is answered from that value.

json.loads's meaning, exactly. Duplicate keys: every use under a key is reset each time the key comes
again, so the last one wins at every level, as in json.loads's dicts (a value built here is a dict built
key by key: the last value at the first key's place). Numbers: ints within 64 bits (yajl refuses a
longer one: the text then goes to json.loads, which reads it or refuses it by the process's digit limit)
and floats by the C library's correctly rounded `strtod` (the same bits as Python's `float()`; read only
where the locale's decimal point is `.`). Anything the stream does not read as json.loads would is not
streamed (`read` returns None and the caller parses the text as before, with `json_text.loads`, so a
refusal has today's message): a surrogate escape (the rule of `json_text.py` applies to those texts), a
BOM or UTF-16/32, `\\v` and `\\f` (which yajl takes for whitespace), a text nesting deeper than the bound
or not balanced, NaN and the infinities, numbers past a double's range, any text yajl refuses.

Time and memory. Filters are evaluated under `budget.metered` with the query's own budget
(`limits.QUERY_TIMEOUT` of evaluation in all, the run's deadline first when it comes first): a filter
that runs out of it is stopped (its `BudgetExceeded` is given to whoever asks for its nodes) and the
pass goes on for the others. The pass itself costs what a parse costs: linear in the body.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from types import MappingProxyType
from typing import Any

from .limits import MAX_BODY_DEPTH

# bytes: a shorter body is parsed whole (the stream saves little there); json_text.FAST_FROM's threshold
# (module imported lazily: the resolver imports this one, for `StreamedJson`, on every command)
STREAM_FROM = 1 << 20
CHUNK = 128  # elements of a tested array given to `select` together: one call, not one per element
MISSING: Any = object()  # what `StreamedJson.at` answers for a pointer that reaches nothing

Step = tuple[str | None, int]  # (the key of an object, the index of an array; None and -1: not that)
# what each event does to the depth (a read-only view: module state is constant)
_DEPTH = MappingProxyType({"start_map": 1, "start_array": 1, "end_map": -1, "end_array": -1})


def pointer_steps(tokens: tuple[str, ...]) -> tuple[Step, ...]:
    """A JSON pointer's tokens as steps: each a key, and an index too when it is one (RFC 6901)."""
    return tuple((token, int(token) if _is_index(token) else -1) for token in tokens)


def _is_index(token: str) -> bool:
    return token.isdigit() and token.isascii() and (token == "0" or not token.startswith("0"))


class Uses:
    """What a step reads of a body: `pointers` (tuples of tokens) and `filters` (a key naming each, its
    steps, and `select`: the nodes the filter selects among the children of a list or a dict)."""

    __slots__ = ("filters", "pointers")

    def __init__(
        self,
        pointers: tuple[tuple[str, ...], ...] = (),
        filters: tuple[tuple[str, tuple[Step, ...], Callable[[Any], list]], ...] = (),
    ) -> None:
        self.pointers, self.filters = pointers, filters


class _Target:
    """One use during one pass: its steps, and what it found (reset when a key on its path comes again)."""

    __slots__ = ("found", "key", "repeated", "select", "spent", "steps", "stopped")

    def __init__(self, key: Any, steps: tuple[Step, ...], select: Callable[[Any], list] | None) -> None:
        self.key, self.steps, self.select = key, steps, select
        self.found: Any = MISSING if select is None else []
        self.stopped: BaseException | None = None
        self.spent = 0.0  # seconds of `select` so far
        self.repeated = False  # a key on its path came again after its filter had spent time

    def reset(self) -> None:
        """The key on its path came again: what the earlier value gave is gone (the last one wins). The
        time its filter spent is not: the pass stays within one budget however often a key comes. A
        filter that ran out after its key came again may have spent its time on a value json.loads does
        not keep, so it is not answered (`unanswered`): the document is parsed, and the query gets a
        budget of its own for the last value, as it would have."""
        self.found = MISSING if self.select is None else []
        self.repeated = self.repeated or self.spent > 0 or self.stopped is not None

    @property
    def unanswered(self) -> bool:
        return self.repeated and self.stopped is not None

    def take(self, children: Any) -> None:
        """Add what the filter selects among the children of `children` (a list or a dict). A filter that
        fails otherwise than by its budget (a pattern refused, the library's error) is not answered here:
        the body is read whole, and the query says why there (`_Unanswered`)."""
        select = self.select
        if (
            select is None
            or self.stopped is not None
            or not isinstance(children, list | dict)
            or not children
        ):
            return
        from . import budget, limits

        left = limits.QUERY_TIMEOUT - self.spent
        spent = budget.budget(max(left, 0.0), limits.QUERY_MEMORY)
        spent.seconds = limits.QUERY_TIMEOUT  # its message: the evaluation's limit, not what was left
        began = time.monotonic()
        try:
            self.found.extend(budget.metered(spent, select, children))
        except budget.BudgetExceeded as exc:
            self.stopped, self.found = exc, []
        except Exception as exc:
            raise _Unanswered from exc
        finally:
            self.spent += time.monotonic() - began

    def answer(self, value: Any, depth: int) -> None:
        """This use answered from `value`, a node it reached whole at `depth` of its steps."""
        for key, index in self.steps[depth:]:
            if isinstance(value, dict) and key is not None and key in value:
                value = value[key]
            elif isinstance(value, list) and 0 <= index < len(value):
                value = value[index]
            else:
                return  # reaches nothing: a pointer stays MISSING, a filter selects nothing
        if self.select is None:
            self.found = value
        else:
            self.take(value)


class StreamedJson:
    """A body read as a stream: what its uses found, and its bytes (`tree()`: the document, parsed on
    demand, for anything else; a value the pass found is one `tree()` holds, equal)."""

    __slots__ = ("_reached", "_selected", "_stopped", "_tree", "content")

    def __init__(
        self,
        content: bytes,
        reached: dict[tuple[str, ...], Any],
        selected: dict[str, list],
        stopped: dict[str, BaseException],
    ) -> None:
        self.content, self._reached, self._selected, self._stopped = content, reached, selected, stopped
        self._tree: Any = MISSING

    def at(self, tokens: tuple[str, ...]) -> Any:
        """The value the pointer reaches, or MISSING (nothing there, or not one of the uses)."""
        return self._reached.get(tokens, MISSING)

    def selected(self, key: str) -> list | None:
        """The nodes filter `key` selected (None: not one of the uses); its BudgetExceeded if it ran out."""
        stopped = self._stopped.get(key)
        if stopped is not None:
            raise stopped
        return self._selected.get(key)

    def tree(self) -> Any:
        if self._tree is MISSING:
            from .json_text import loads

            self._tree = loads(self.content)
        return self._tree


def read(content: bytes, uses: Uses) -> StreamedJson | None:
    """`content` read for `uses` in one pass, or None when it is not streamed (module doc): the caller
    parses it whole, as it would have."""
    if len(content) < STREAM_FROM or not _plain(content):
        return None
    try:
        from ijson import get_backend

        basic_parse = get_backend("yajl2_c").basic_parse  # the pure-Python backends are too slow
    except ImportError:
        return None
    targets = [_Target(tokens, pointer_steps(tokens), None) for tokens in uses.pointers]
    targets += [_Target(key, steps, select) for key, steps, select in uses.filters]
    try:
        events = iter(basic_parse(_Source(content), use_float=True))
        event, value = next(events)
        _walk(events, event, value, targets, 0)
        for _ in events:  # nothing follows the value: yajl raises for trailing text at the end
            return None
    except Exception:  # not JSON as yajl reads it, or a value it does not read (module doc)
        return None
    reached: dict[tuple[str, ...], Any] = {}
    selected: dict[str, list] = {}
    stopped: dict[str, BaseException] = {}
    for target in targets:
        if target.select is None:
            if target.found is not MISSING:
                reached[target.key] = target.found
        elif target.unanswered:
            return None
        elif target.stopped is not None:
            stopped[target.key] = target.stopped
        else:
            selected[target.key] = target.found
    return StreamedJson(content, reached, selected, stopped)


class _Source:
    """`content` for ijson, then a newline: yajl ignores a string left open after the value (`[]"a`, not
    JSON), which ends in an error once a newline follows it; whitespace after the value stays so."""

    __slots__ = ("at", "content", "ended")

    def __init__(self, content: bytes) -> None:
        self.content, self.at, self.ended = content, 0, False

    def read(self, size: int) -> bytes:
        if self.at < len(self.content):
            self.at += size
            return self.content[self.at - size : self.at]
        if not self.ended:
            self.ended = True
            return b"\n"
        return b""


def _plain(content: bytes) -> bool:
    """Whether the stream reads `content` as json.loads would (module doc), before reading it."""
    import json
    import locale

    from .json_text import _SURROGATE_ESCAPE

    return (
        json.detect_encoding(content) == "utf-8"  # not UTF-16/32, no BOM
        and b"\x0b" not in content
        and b"\x0c" not in content
        and _SURROGATE_ESCAPE.search(content) is None
        and locale.localeconv()["decimal_point"] == "."
    )


def _walk(
    events: Iterator[tuple[str, Any]], event: str, value: Any, active: list[_Target], depth: int
) -> None:
    """Read the value starting with (`event`, `value`), which `active` reach (their first `depth` steps)."""
    if depth >= MAX_BODY_DEPTH and event in _DEPTH:
        raise _TooDeep
    if any(t.select is None and len(t.steps) == depth for t in active) or (
        event == "start_map" and any(len(t.steps) == depth for t in active)
    ):
        whole = _build(events, event, value, depth + 1)  # a pointer's value, or an object a filter tests
        for target in active:
            target.answer(whole, depth)
        return
    tested = [t for t in active if len(t.steps) == depth]
    if event == "start_map":
        for event, key in events:
            if event == "end_map":
                return
            event, value = next(events)
            under = [t for t in active if t.steps[depth][0] == key]
            if under:
                for target in under:
                    target.reset()  # the key again: the last one wins (module doc)
                _walk(events, event, value, under, depth + 1)
            elif event in _DEPTH:
                _skip(events, depth + 2)
    elif event == "start_array":
        if tested:
            _test(events, tested, [t for t in active if len(t.steps) > depth], depth)
            return
        last = max((t.steps[depth][1] for t in active), default=-1)
        for index, (event, value) in enumerate(events):
            if event == "end_array":
                return
            under = [t for t in active if t.steps[depth][1] == index] if index <= last else []
            if under:
                _walk(events, event, value, under, depth + 1)
            elif event in _DEPTH:
                _skip(events, depth + 2)
    # a scalar: the uses under it reach nothing, a filter tests no child


def _test(events: Iterator[tuple[str, Any]], tested: list[_Target], under: list[_Target], depth: int) -> None:
    """An array whose elements the `tested` filters test, in chunks; `under` go into its elements."""
    chunk: list[Any] = []
    for index, (event, value) in enumerate(events):
        if event == "end_array":
            break
        element = _build(events, event, value, depth + 2) if event in _DEPTH else value
        for target in under:
            if target.steps[depth][1] == index:
                target.answer(element, depth + 1)
        chunk.append(element)
        if len(chunk) == CHUNK:
            for target in tested:
                target.take(chunk)
            chunk = []
    if chunk:
        for target in tested:
            target.take(chunk)


def _skip(events: Iterator[tuple[str, Any]], level: int) -> None:
    """Pass the rest of a container whose start was just read, `level` deep (the root is 1)."""
    depth, room = 1, MAX_BODY_DEPTH - level + 1
    if depth > room:
        raise _TooDeep
    get = _DEPTH.get
    for event, _ in events:
        depth += get(event, 0)
        if not depth:
            return
        if depth > room:
            raise _TooDeep


def _build(events: Iterator[tuple[str, Any]], event: str, value: Any, level: int) -> Any:
    """The value starting with (`event`, `value`), `level` deep (the root is 1), built as json.loads
    builds it (dicts key by key)."""
    if level > MAX_BODY_DEPTH and event in _DEPTH:
        raise _TooDeep
    if event == "start_map":
        current: Any = {}
    elif event == "start_array":
        current = []
    else:
        return value
    root, key = current, None
    stack: list[tuple[Any, Any]] = []
    for event, value in events:
        if event == "map_key":
            key = value
            continue
        if event == "start_map":
            value = {}
        elif event == "start_array":
            value = []
        elif event == "end_map" or event == "end_array":
            if not stack:
                return root
            current, key = stack.pop()
            continue
        else:
            if type(current) is dict:
                current[key] = value
            else:
                current.append(value)
            continue
        if type(current) is dict:
            current[key] = value
        else:
            current.append(value)
        stack.append((current, key))
        current = value
        if len(stack) + level > MAX_BODY_DEPTH:
            raise _TooDeep
    raise ValueError("the text ended inside a value")


class _Unanswered(Exception):
    """A filter failed otherwise than by its budget: not streamed (the whole query says why)."""


class _TooDeep(Exception):
    """Deeper than `json_text`'s bound: not streamed (json_text.loads refuses it, with its message)."""
