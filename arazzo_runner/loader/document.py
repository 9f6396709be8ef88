"""The loader's product: plain data, the file name used in messages and a position index."""

from __future__ import annotations

from typing import Any

from ..errors import DocumentError
from ..records import Record
from .pointer import format_pointer
from .positions import Pointer, PositionIndex


class LoadedDocument(Record, frozen=True):
    """`data` holds only dict/list/str/int/float/bool/None and every mapping key is a str.

    Aliased YAML nodes are shared, not copied: treat `data` as read-only.
    """

    data: Any
    file: str
    positions: PositionIndex
    format: str  # "yaml" or "json"

    def error(self, pointer: Pointer, message: str, *, key: bool = False) -> DocumentError:
        """A DocumentError located at `pointer` (at its mapping key when `key`), ready to raise."""
        locate = self.positions.locate_key if key else self.positions.locate
        line, column = locate(pointer)
        return DocumentError(message, file=self.file, line=line, column=column, pointer=_text(pointer))


def _text(pointer: Pointer) -> str:
    if isinstance(pointer, str):
        return pointer[1:] if pointer.startswith("#") else pointer
    return format_pointer(pointer)
