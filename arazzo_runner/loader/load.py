"""Entry points: text or a file -> LoadedDocument."""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import DocumentError
from .document import LoadedDocument
from .json_load import load_json
from .limits import DEFAULT_LIMITS, Limits
from .positions import PositionIndex
from .text import check_size, decode, read_bounded, sniff


def load_text(
    text: str | bytes,
    file: str = "<string>",
    *,
    limits: Limits | None = None,
    positions: bool = True,
) -> LoadedDocument:
    """Parse one YAML or JSON document into JSON-compatible data; raises a located DocumentError.

    `positions=False` skips building the position index up front; it is then built from the text
    on first use (JSON positions are always built lazily, as parsing JSON is much cheaper).
    """
    limits = limits or DEFAULT_LIMITS
    source = decode(text, file, limits)
    with gc_paused():
        data, index, kind = _parse(source, file, limits, positions)
    return LoadedDocument(data=data, file=file, positions=index, format=kind)


def load_path(
    path: str | os.PathLike[str],
    *,
    limits: Limits | None = None,
    positions: bool = True,
) -> LoadedDocument:
    """Read and parse a file; a file that cannot be read is a DocumentError naming it."""
    limits = limits or DEFAULT_LIMITS
    file = os.fsdecode(path)
    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            check_size(size, file, limits)
            raw = read_bounded(stream, size, limits.max_bytes)  # the file may grow after fstat
    except OSError as exc:
        raise DocumentError(f"cannot read the file: {exc.strerror or exc}", file=file) from None
    return load_text(raw, file, limits=limits, positions=positions)


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block, then as it was (nested uses keep it off).

    Loading allocates many containers and none become garbage: cyclic GC passes would only rescan
    them (about 20% of the time on large documents); `arazzo run` pauses it for the whole of its
    import and load for the same reason (`cli._collector_paused`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _parse(text: str, file: str, limits: Limits, positions: bool) -> tuple[Any, PositionIndex, str]:
    kind = sniff(text, file)
    if kind == "yaml":
        return _load_yaml(text, file, limits, positions)
    try:
        # Only a .json file may use Python's NaN/Infinity: elsewhere `[Infinity]` is flow-style YAML,
        # whose `Infinity` is a string.
        return (*load_json(text, file, limits, constants=file.lower().endswith(".json")), "json")
    except json.JSONDecodeError as exc:
        if kind == "json":
            # A .json file that opens like JSON is meant to be JSON: no lenient YAML reading.
            raise DocumentError(exc.msg, file=file, line=exc.lineno, column=exc.colno) from None
    # Only one sign said JSON: flow-style YAML (`{a: 1}`) or YAML in a .json file.
    return _load_yaml(text, file, limits, positions)


def _load_yaml(text: str, file: str, limits: Limits, positions: bool) -> tuple[Any, PositionIndex, str]:
    from .yaml_load import load_yaml  # PyYAML (~7 ms to import) only when a document is YAML

    return (*load_yaml(text, file, limits, positions), "yaml")


def build_positions(text: str | bytes, file: str, kind: str) -> tuple[Any, Any]:
    """(root entry, to line/column) of the position index of a `kind` ("yaml" or "json") text that
    `load_text` accepted: what its lazy index builds on first use, for a document whose data came from
    elsewhere (the parsed-source store), so a finding is located at the same line and column whether
    the data was parsed now or read back. Under the default limits, as sources are parsed."""
    source = decode(text, file, DEFAULT_LIMITS)
    if kind == "json":
        from .json_load import scan_positions

        return scan_positions(source, file, DEFAULT_LIMITS)
    from .yaml_build import yaml_line_col
    from .yaml_load import build_positions as yaml_positions

    with gc_paused():
        return yaml_positions(source, file, DEFAULT_LIMITS), yaml_line_col


def line_col_function(kind: str, text: str | bytes, file: str) -> Any:
    """How a `kind` document's opaque locations become (line, column): what a stored position index
    needs beside its entries (JSON's are character offsets into `text`)."""
    if kind == "json":
        from .json_scan import offsets_to_line_col

        return offsets_to_line_col(decode(text, file, DEFAULT_LIMITS))
    from .yaml_build import yaml_line_col

    return yaml_line_col
