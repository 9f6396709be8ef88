"""The sources of an open document, loaded once and kept while the files they came from are unchanged.

A language server validates a document on (nearly) every edit; reading and parsing its OpenAPI files
each time would cost more than the validation itself. Each document keeps one `SourceCache` (the one
`arazzo validate` makes per run), reused for every validation until a local file it read, or a local
file the document names as a source (read or not: a missing one may appear), changes its modification time or
size, or appears or disappears. Then the next validation starts from a new cache. Remote sources are
fetched once per cache (`offline`: never, as `arazzo validate --offline`).
"""

from __future__ import annotations

import os
from typing import Any

from ..sources import SourceCache
from ..sources.locations import is_http, resolve_location

Stamp = tuple[int, int] | None  # (mtime_ns, size); None: no such file


class SourceStore:
    """One document's source cache and the stamps of the local files behind it."""

    def __init__(self, *, remote: bool = True) -> None:
        self._remote = remote  # False: no http(s) document fetched, a description's `$ref` included
        self._cache: SourceCache | None = None
        self._stamps: dict[str, Stamp] = {}
        self.loads = 0  # how many caches were made: each one reads the sources again (tests read it)

    def cache(self, data: Any, location: str) -> SourceCache:
        """The cache to validate the document (`data`, at `location`) with: the one kept, unless a file
        behind it changed. A source file named for the first time is stamped as it is now (absent
        included): the cache has not read it, so it reads it as it is when asked."""
        named = _named_files(data, location)
        if self._cache is None or any(_stamp(path) != known for path, known in self._stamps.items()):
            self._cache = SourceCache(remote=self._remote)
            self._stamps = {}
            self.loads += 1
        for path in named:
            self._stamps.setdefault(path, _stamp(path))
        return self._cache

    def remember(self) -> None:
        """After a validation: stamp every local file the cache read (the sources' `$ref`s included)."""
        if self._cache is None:
            return
        for location in self._cache.locations():
            if not is_http(location):
                self._stamps.setdefault(location, _stamp(location))


def _stamp(path: str) -> Stamp:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_mtime_ns, status.st_size)


def _named_files(data: Any, location: str) -> set[str]:
    """The local files the document's source descriptions name."""
    found: set[str] = set()
    entries = data.get("sourceDescriptions") if isinstance(data, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        url = entry.get("url") if isinstance(entry, dict) else None
        if not isinstance(url, str) or not url:
            continue
        try:
            resolved = resolve_location(url, location)
        except Exception:  # an unsupported scheme: the validation says so
            continue
        if not is_http(resolved):
            found.add(resolved)
    return found
