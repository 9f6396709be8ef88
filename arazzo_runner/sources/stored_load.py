"""A local document loaded through the parsed-source store (`stored.py`): what `Workspace.from_path` (every
`arazzo run`) and `arazzo validate` read an Arazzo document with.

Why: a small YAML document parses in a millisecond, but parsing it imports PyYAML (~98 M instructions,
~0.04 s), a fifth of a one-step run's process. Its data is read back from the store when these exact
bytes were parsed before (SHA-256 of the content: an edit is never missed), its position index built
from the text (PyYAML then imported) only when a finding or an error must be located, and then kept:
lines and columns are those a parse gives (`parse.stored_positions`). A JSON document is stored from
the store's usual size on (`json.loads` is cheaper than an entry below it). No store (`ARAZZO_NO_CACHE`,
a folder it cannot use) or a file the loader refuses: `load_path`, as before.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..loader import LoadedDocument, load_path, load_text


def load_document(path: str | os.PathLike[str]) -> tuple[LoadedDocument, Any]:
    """The document at `path` (a DocumentError naming it when it cannot be read or parsed) and its
    `stored.Facts` (None without the store)."""
    from .stored import MIN_BYTES, Facts, ParsedStore

    store = ParsedStore.default()
    file = os.fspath(path)
    raw = _read(path, file) if store is not None else None
    if store is None or raw is None:
        return load_path(path), None
    location = str(Path(file).resolve())
    floor = MIN_BYTES if raw.lstrip()[:1] in (b"{", b"[") else 0
    if not store.worth_it(location, raw, floor):
        return load_text(raw, file), None
    from .parse import stored_positions

    found = store.data(location, raw, floor)
    if found is None:
        loaded = load_text(raw, file, positions=False)
        store.keep_data(location, raw, loaded.data, loaded.format, floor)
        data, kind = loaded.data, loaded.format
    else:
        data, kind = found
    index = stored_positions(store, location, raw, kind, floor)
    loaded = LoadedDocument(data=data, file=file, positions=index, format=kind)
    return loaded, Facts(store, location, raw, floor)


def _read(path: str | os.PathLike[str], file: str) -> bytes | None:
    """The file's bytes under the loader's size limit, or None (then `load_path` says what is wrong)."""
    from ..errors import DocumentError
    from ..loader.limits import DEFAULT_LIMITS
    from ..loader.text import check_size, read_bounded

    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            check_size(size, file, DEFAULT_LIMITS)
            return read_bounded(stream, size, DEFAULT_LIMITS.max_bytes)
    except (OSError, DocumentError):  # unreadable, or past the limit: the loader says so
        return None
