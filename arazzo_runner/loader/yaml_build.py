"""Build JSON-compatible data and a position index from PyYAML's event stream.

Why events rather than `yaml.compose` and a walk over the nodes: libyaml's parser keeps explicit
stacks, but the C composer recurses once per nesting level and crashes the interpreter on a few tens of
thousands of nested `[`. Consuming events with our own stack bounds depth, node count and alias
expansion while the document is read, and is several times faster than composing (no Node objects, no
resolver calls from C for every scalar).
"""

from __future__ import annotations

from typing import Any, NoReturn

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from ..errors import DocumentError
from .limits import Limits
from .positions import NO_KEY, Children, Entry, LineCol
from .yaml_merge import Merge, merge_into
from .yaml_scalars import MAP, MERGE, SEQ, UnsupportedTag, construct, resolve_plain, short_tag

# libyaml's parser when PyYAML was built with it, else the pure-Python one (same events, slower).
LOADER: type = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader
_COLS = 1 << 32  # a location packs a 0-based line and column into one int
_NO_KEY: Any = object()  # a mapping frame waiting for its next key
_MERGE_KEY: Any = object()  # the `<<` key: its value is merged, not stored
_STREAM_END: Any = object()  # the handler of StreamEndEvent: the loop ends


def _ignore(event: Any) -> None:
    """StreamStart, DocumentEnd: nothing to build."""


def yaml_line_col(loc: int) -> LineCol:
    line, column = divmod(loc, _COLS)
    return line + 1, column + 1


class _Frame:
    """An open mapping or sequence."""

    __slots__ = ("anchor", "data", "is_map", "key", "key_loc", "loc", "merges", "pos", "saved", "start")

    def __init__(self, is_map: bool, loc: int, positions: bool) -> None:
        self.is_map = is_map
        self.loc = loc
        self.data: Any = {} if is_map else []
        self.pos: Any = ({} if is_map else []) if positions else None
        self.key: Any = _NO_KEY
        self.key_loc = NO_KEY
        self.anchor: str | None = None
        self.merges: list[Merge] = []
        self.saved = 0  # the depth peak outside this anchored node
        self.start = 0  # the node count when this anchored node started


class _Anchor:
    """What an alias stands for: the value, its expanded size and height, positions and key text."""

    __slots__ = ("height", "key", "pos", "size", "value")

    def __init__(self, value: Any, size: int, height: int, pos: Children, key: str | None) -> None:
        self.value = value
        self.size = size
        self.height = height
        self.pos = pos
        self.key = key


class NeedPositions(Exception):
    """Raised when an error message needs positions that were not being recorded."""


class YamlBuilder:
    def __init__(self, file: str, limits: Limits, positions: bool) -> None:
        self.file = file
        self.limits = limits
        self.positions = positions
        self.stack: list[_Frame] = []
        self.anchors: dict[str, _Anchor] = {}
        self.open_anchors: set[str] = set()
        self.count = 0
        self.max_nodes = limits.max_nodes
        self.aliases = 0
        self.peak = 0
        self.root: tuple[Any, Entry] | None = None
        self.plain: dict[str, Any] = {}  # plain scalar text -> value: OpenAPI repeats a few words a lot
        self.keys: dict[str, str] = {}  # key text -> the one str object used for it
        self.handlers = {
            ScalarEvent: self._scalar,
            MappingStartEvent: self._start_map,
            SequenceStartEvent: self._start_seq,
            MappingEndEvent: self._end,
            SequenceEndEvent: self._end,
            AliasEvent: self._alias,
            DocumentStartEvent: self._document,
            StreamEndEvent: _STREAM_END,
        }
        self.documents = 0

    def build(self, text: str) -> tuple[Any, Entry]:
        loader = LOADER(text)
        try:
            self._run(loader)
        finally:
            loader.dispose()
        assert self.root is not None
        return self.root

    def _run(self, loader: Any) -> None:
        handlers = self.handlers
        get_event = loader.get_event
        while True:
            event = get_event()
            if event is None:  # past the end of the stream: StreamEndEvent should have ended the loop
                break
            handler = handlers.get(event.__class__)
            if handler is None:
                handler = handlers[event.__class__] = self._handler_for(event.__class__)
            if handler is _STREAM_END:
                break
            handler(event)
        if self.documents == 0:
            self._fail("document is empty", None)

    def _handler_for(self, cls: type) -> Any:
        """The handler of an event class met for the first time, by its name: libyaml's parser keeps the
        event classes of the first `yaml` import, which differ from ours if `yaml` was imported again
        (pytest's in-process runs do that); matching by identity alone would never see the end."""
        by_name = {
            "ScalarEvent": self._scalar,
            "MappingStartEvent": self._start_map,
            "SequenceStartEvent": self._start_seq,
            "MappingEndEvent": self._end,
            "SequenceEndEvent": self._end,
            "AliasEvent": self._alias,
            "DocumentStartEvent": self._document,
            "StreamEndEvent": _STREAM_END,
        }
        return by_name.get(cls.__name__, _ignore)

    def _document(self, event: Any) -> None:
        self.documents += 1
        if self.documents > 1:
            self._fail("expected a single document, but found another one", event.start_mark)

    # --- events -------------------------------------------------------------------------------

    def _scalar(self, event: Any) -> None:
        self.count += 1
        if self.count > self.max_nodes:
            self._too_many(event)
        mark = event.start_mark
        loc = mark.line * _COLS + mark.column
        stack = self.stack
        top = stack[-1] if stack else None
        if top is not None and top.is_map and top.key is _NO_KEY:
            self._key(top, self._key_text(event), loc, event)
            if event.anchor is not None:
                self._anchor_scalar(event)
            return
        value = self._scalar_value(event)
        if event.anchor is not None:
            self.anchors[event.anchor] = _Anchor(value, 1, 0, None, event.value)
        if top is None and event.value == "" and event.implicit[0] and event.tag is None:
            self._fail("document is empty", None)  # `---` alone, or only comments
        self._emit(top, value, loc, None)

    def _start_map(self, event: Any) -> None:
        self._start(event, True)

    def _start_seq(self, event: Any) -> None:
        self._start(event, False)

    def _start(self, event: Any, is_map: bool) -> None:
        self.count += 1
        if self.count > self.max_nodes:
            self._too_many(event)
        stack = self.stack
        if stack and stack[-1].is_map and stack[-1].key is _NO_KEY:
            self._fail("a mapping key must be a scalar, not a " + _kind(is_map), event.start_mark)
        if event.tag not in (None, "!", MAP if is_map else SEQ):
            self._fail(f"unsupported tag {short_tag(event.tag)!r} on a {_kind(is_map)}", event.start_mark)
        depth = len(stack) + 1
        if depth > self.limits.max_depth:
            self._too_deep(event)
        if depth > self.peak:
            self.peak = depth
        mark = event.start_mark
        frame = _Frame(is_map, mark.line * _COLS + mark.column, self.positions)
        if event.anchor is not None:
            self._open_anchor(frame, event.anchor, depth)
        stack.append(frame)

    def _end(self, event: Any) -> None:
        frame = self.stack.pop()
        data, pos = frame.data, frame.pos
        if frame.merges:
            data, pos = merge_into(data, pos, frame.merges, self._merge_error)
        if frame.anchor is not None:
            self._close_anchor(frame, data, pos)
        self._emit(self.stack[-1] if self.stack else None, data, frame.loc, pos)

    def _alias(self, event: Any) -> None:
        target = self._target(event)
        self.count += target.size
        if self.count > self.max_nodes:
            self._too_many(event)
        reach = len(self.stack) + target.height
        if reach > self.limits.max_depth:
            self._too_deep(event)
        if reach > self.peak:
            self.peak = reach
        mark = event.start_mark
        loc = mark.line * _COLS + mark.column
        top = self.stack[-1] if self.stack else None
        if top is not None and top.is_map and top.key is _NO_KEY:
            if target.key is None:
                self._fail("a mapping key must be a scalar, not an alias to a collection", mark)
            self._key(top, target.key, loc, event)
        else:
            self._emit(top, target.value, loc, target.pos)

    # --- building -----------------------------------------------------------------------------

    def _emit(self, top: _Frame | None, value: Any, loc: int, pos: Children) -> None:
        if top is None:
            self.root = (value, (NO_KEY, loc, pos))
        elif top.is_map:
            key = top.key
            top.key = _NO_KEY
            if key is _MERGE_KEY:
                top.merges.append((value, pos, top.key_loc))
                return
            top.data[key] = value
            if top.pos is not None:
                top.pos[key] = (top.key_loc, loc, pos)
        else:
            top.data.append(value)
            if top.pos is not None:
                top.pos.append((NO_KEY, loc, pos))

    def _key(self, top: _Frame, key: Any, loc: int, event: Any) -> None:
        if key is _MERGE_KEY:
            if top.merges:
                self._fail("duplicate merge key '<<'", event.start_mark)
        elif key in top.data:
            self._duplicate(top, key, event)
        top.key = key
        top.key_loc = loc

    def _duplicate(self, top: _Frame, key: str, event: Any) -> None:
        if top.pos is None:
            raise NeedPositions
        first_line = yaml_line_col(top.pos[key][0])[0]
        self._fail(f"duplicate key {key!r} (first at line {first_line})", event.start_mark)

    def _key_text(self, event: Any) -> Any:
        # Keys keep the text they were written with: `200:` is "200", `yes:` is "yes", `~:` is "~".
        tag = event.tag
        if tag is None:
            if event.implicit[0] and event.value == "<<":
                return _MERGE_KEY
            # One str object per distinct key text (as `json` does): a description repeats `type`,
            # `description`, ... tens of thousands of times; shared, they are stored once by `marshal`
            # (the parsed-source store: 20% smaller, 40% faster to read back) and compare by identity.
            return self.keys.setdefault(event.value, event.value)
        if tag == MERGE:
            return _MERGE_KEY
        self._scalar_value(event)  # rejects unsupported tags and text that does not fit its tag
        return event.value

    def _scalar_value(self, event: Any) -> Any:
        text = event.value
        tag = event.tag
        if tag is None:
            if not event.implicit[0]:
                return text  # quoted or block scalar
            cached = self.plain.get(text, _NO_KEY)
            if cached is not _NO_KEY:
                return cached
            value = self._construct(resolve_plain(text), text, event)
            self.plain[text] = value
            return value
        if tag == "!":
            return text
        return self._construct(tag, text, event)

    def _construct(self, tag: str, text: str, event: Any) -> Any:
        try:
            return construct(tag, text)
        except UnsupportedTag:
            message = f"unsupported tag {short_tag(tag)!r}: only JSON-compatible values are allowed"
            self._fail(message, event.start_mark)
        except ValueError as exc:
            shown = repr(text) if len(text) <= 40 else f"{text[:20]!r}... ({len(text)} characters)"
            reason = f": {exc}" if "digits" in str(exc) else ""  # Python's int size limit
            self._fail(f"{shown} is not a valid {short_tag(tag)} value{reason}", event.start_mark)

    # --- anchors and limits ---------------------------------------------------------------------

    def _open_anchor(self, frame: _Frame, name: str, depth: int) -> None:
        frame.anchor = name
        frame.start = self.count
        frame.saved = self.peak
        self.peak = depth
        self.anchors.pop(name, None)  # redefined: an alias inside now means this (unfinished) node
        self.open_anchors.add(name)

    def _close_anchor(self, frame: _Frame, data: Any, pos: Children) -> None:
        name = frame.anchor
        assert name is not None
        depth = len(self.stack) + 1
        size = self.count - frame.start + 1
        self.anchors[name] = _Anchor(data, size, self.peak - depth + 1, pos, None)
        self.open_anchors.discard(name)
        self.peak = max(self.peak, frame.saved)

    def _anchor_scalar(self, event: Any) -> None:
        self.anchors[event.anchor] = _Anchor(self._scalar_value(event), 1, 0, None, event.value)

    def _target(self, event: Any) -> _Anchor:
        name = event.anchor
        target = self.anchors.get(name)
        if target is None:
            if name in self.open_anchors:
                self._fail(f"alias '*{name}' refers to a node that contains it", event.start_mark)
            self._fail(f"unknown alias '*{name}'", event.start_mark)
        self.aliases += 1
        if self.aliases > self.limits.max_aliases:
            self._fail(f"more than {self.limits.max_aliases} aliases", event.start_mark)
        return target

    def _too_many(self, event: Any) -> NoReturn:
        through = " through aliases" if event.__class__.__name__ == "AliasEvent" else ""
        self._fail(f"document expands to more than {self.max_nodes} nodes{through}", event.start_mark)

    def _too_deep(self, event: Any) -> NoReturn:
        self._fail(f"nesting is deeper than the limit of {self.limits.max_depth} levels", event.start_mark)

    def _merge_error(self, message: str, loc: int) -> NoReturn:
        line, column = yaml_line_col(loc)
        raise DocumentError(message, file=self.file, line=line, column=column)

    def _fail(self, message: str, mark: Any) -> NoReturn:
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise DocumentError(message, file=self.file, line=line, column=column)


def _kind(is_map: bool) -> str:
    return "mapping" if is_map else "sequence"
