"""Where each string of a document is written: the source span and style of every scalar, by pointer.

`validate --fix` and `upgrade` rewrite documents by replacing the text of a few scalars, never by
dumping the data again, so comments, key order and the formatting of every other line stay as they
are. This module finds those texts: for each JSON pointer, the token of its mapping key (if any) and of
its value (when the value is a scalar). It runs only on the fix path, after the loader accepted the text.

YAML comes from PyYAML's event stream (character offsets: the same with libyaml and without); JSON from
a small tokenizer. A scalar that carries an anchor, an alias, and anything inside a merge (`<<`) are
not recorded: editing one such text would change other nodes too.
"""

from __future__ import annotations

import json
import re
from types import MappingProxyType
from typing import Any

from ..records import Record, field
from .pointer import escape_token

PLAIN, SINGLE, DOUBLE, LITERAL, FOLDED, JSON = "plain", "'", '"', "|", ">", "json"
_STYLES = MappingProxyType({None: PLAIN, "": PLAIN, "'": SINGLE, '"': DOUBLE, "|": LITERAL, ">": FOLDED})


class Scalar(Record, frozen=True):
    """A scalar token: `text[start:end]` is how `value` is written, in `style`; `flow` when it sits in
    a flow collection (`[...]`, `{...}`), where more characters need quoting."""

    start: int
    end: int
    style: str
    value: str
    flow: bool = False


class Spans(Record, frozen=True):
    keys: dict[str, Scalar]  # pointer -> the key naming that node
    values: dict[str, Scalar]  # pointer -> the node, when it is a scalar
    flows: dict[str, tuple[int, int]] = field(default_factory=dict)  # pointer -> a flow collection `{...}`


def scalar_spans(text: str, format: str) -> Spans:
    """The spans of `text` (`format`: "yaml" or "json", as the loader read it)."""
    if format == "json":
        return _JsonSpans(text).build()
    return _yaml_spans(text)


_MERGE: Any = object()  # the pending key of a `<<` entry


class _Frame:
    """An open mapping or sequence; `pointer` is None when its members cannot be addressed (it is
    anchored, merged, or inside such a node)."""

    __slots__ = ("flow", "index", "is_map", "key", "pointer", "start")

    def __init__(self, is_map: bool, pointer: str | None, flow: bool, start: int = 0) -> None:
        self.is_map, self.pointer, self.flow, self.start = is_map, pointer, flow, start
        self.index = 0
        self.key: Any = None  # None: a key comes next

    def child(self) -> str | None:
        """The pointer of the value that comes next (and moves past it)."""
        if self.is_map:
            key, self.key = self.key, None
            if self.pointer is None or key is _MERGE or key is None:
                return None
            return self.pointer + "/" + escape_token(key)
        index, self.index = self.index, self.index + 1
        return None if self.pointer is None else f"{self.pointer}/{index}"


def _yaml_spans(text: str) -> Spans:
    import yaml

    loader = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader
    keys: dict[str, Scalar] = {}
    values: dict[str, Scalar] = {}
    flows: dict[str, tuple[int, int]] = {}
    stack: list[_Frame] = []
    for event in yaml.parse(text, Loader=loader):
        kind = type(event).__name__
        top = stack[-1] if stack else None
        if kind == "ScalarEvent":
            style = _STYLES.get(event.style, PLAIN)
            scalar = Scalar(
                event.start_mark.index, event.end_mark.index, style, event.value, bool(top and top.flow)
            )
            if top is not None and top.is_map and top.key is None:  # a mapping key
                if event.value == "<<" and style == PLAIN:
                    top.key = _MERGE
                    continue
                top.key = event.value
                if top.pointer is not None and event.anchor is None:
                    keys[top.pointer + "/" + escape_token(event.value)] = scalar
                continue
            pointer = top.child() if top is not None else ""
            if pointer is not None and event.anchor is None:
                values[pointer] = scalar
        elif kind in ("MappingStartEvent", "SequenceStartEvent"):
            pointer = top.child() if top is not None else ""
            if event.anchor is not None:
                pointer = None
            frame = _Frame(
                kind == "MappingStartEvent", pointer, bool(event.flow_style), event.start_mark.index
            )
            stack.append(frame)
        elif kind in ("MappingEndEvent", "SequenceEndEvent"):
            frame = stack.pop()
            if frame.flow and frame.pointer is not None:
                flows[frame.pointer] = (frame.start, event.end_mark.index)
        elif kind == "AliasEvent" and top is not None:
            if top.is_map and top.key is None:
                top.key = _MERGE  # an alias as a key: what follows is not addressed
            else:
                top.child()
    return Spans(keys, values, flows)


_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]|[^\s\[\]{},:"]+')


class _JsonSpans:
    """Offsets of the strings of a JSON text (already accepted by the loader's `json.loads`)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.keys: dict[str, Scalar] = {}
        self.values: dict[str, Scalar] = {}

    def build(self) -> Spans:
        stack: list[list[Any]] = []  # [is_map, pointer, next index, pending key, expecting a key]
        for match in _TOKEN.finditer(self.text):
            token, start = match.group(), match.start()
            top = stack[-1] if stack else None
            if token == ",":
                if top is not None and top[0]:
                    top[4] = True
                continue
            if token == ":":
                continue
            if token in "]}":
                stack.pop()
                continue
            if top is not None and top[0] and top[4]:
                key = json.loads(token)
                top[3], top[4] = key, False
                self.keys[top[1] + "/" + escape_token(key)] = self._scalar(token, start)
                continue
            if top is None:
                pointer = ""
            elif top[0]:
                pointer = top[1] + "/" + escape_token(top[3])
            else:
                pointer = f"{top[1]}/{top[2]}"
                top[2] += 1
            if token in "[{":
                stack.append([token == "{", pointer, 0, None, token == "{"])
            elif token.startswith('"'):
                self.values[pointer] = self._scalar(token, start)
        return Spans(self.keys, self.values)

    def _scalar(self, token: str, start: int) -> Scalar:
        return Scalar(start, start + len(token), JSON, json.loads(token), True)
