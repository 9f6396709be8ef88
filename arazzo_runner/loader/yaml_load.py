"""YAML text -> (data, positions), turning PyYAML errors into located DocumentErrors."""

from __future__ import annotations

from typing import Any

import yaml

from ..errors import DocumentError
from . import yaml_build
from .limits import Limits
from .positions import Entry, PositionIndex
from .text import line_col
from .yaml_build import NeedPositions, YamlBuilder, yaml_line_col


def load_yaml(text: str, file: str, limits: Limits, positions: bool) -> tuple[Any, PositionIndex]:
    """Parse one YAML document; without `positions` the index is rebuilt from `text` on first use."""
    data, root = _build(text, file, limits, positions)
    if positions:
        return data, PositionIndex.of(root, yaml_line_col)
    return data, PositionIndex(lambda: (_build(text, file, limits, True)[1], yaml_line_col))


def build_positions(text: str, file: str, limits: Limits) -> Entry:
    """The position index's root entry of a YAML text already known to load (see `load.positions_of`)."""
    return _build(text, file, limits, True)[1]


def _build(text: str, file: str, limits: Limits, positions: bool) -> tuple[Any, Entry]:
    try:
        return _build_once(text, file, limits, positions)
    except NeedPositions:
        # Only an error message needed positions: build again with them to produce it.
        return _build_once(text, file, limits, True)


def _build_once(text: str, file: str, limits: Limits, positions: bool) -> tuple[Any, Entry]:
    try:
        return YamlBuilder(file, limits, positions).build(text)
    except yaml.MarkedYAMLError as exc:
        raise _marked_error(exc, file) from None
    except yaml.reader.ReaderError as exc:
        raise _reader_error(exc, text, file) from None
    except yaml.YAMLError as exc:
        raise DocumentError(_one_line(str(exc)), file=file, line=1, column=1) from None


def _marked_error(exc: yaml.MarkedYAMLError, file: str) -> DocumentError:
    message = exc.problem or _one_line(str(exc))
    mark = exc.problem_mark or exc.context_mark
    if exc.context:
        where = exc.context_mark
        at = f" at line {where.line + 1}, column {where.column + 1}" if where else ""
        message += f" ({exc.context}{at})"
    line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
    return DocumentError(message, file=file, line=line, column=column)


def _reader_error(exc: yaml.reader.ReaderError, text: str, file: str) -> DocumentError:
    offset = exc.position
    if yaml_build.LOADER is not yaml.SafeLoader:  # libyaml counts bytes of the UTF-8 text
        offset = len(text.encode("utf-8")[:offset].decode("utf-8", errors="ignore"))
    line, column = line_col(text, offset)
    character = exc.character if isinstance(exc.character, int) else ord(exc.character)
    message = f"unacceptable character U+{character:04X}: {exc.reason}"
    return DocumentError(message, file=file, line=line, column=column)


def _one_line(message: str) -> str:
    return " ".join(message.split())
