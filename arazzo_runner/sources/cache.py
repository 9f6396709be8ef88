"""Per-run memory of fetched documents, so a file reached twice is fetched and parsed once."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from ..records import Record
from .fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, fetch_source
from .locations import check_allowed, resolve_location
from .parse import ParsedDoc, parse_source

if TYPE_CHECKING:
    import httpx


class FetchOptions(Record, frozen=True):
    """Limits and transport used for a description and every document its `$ref`s reach.

    `roots`: where local files may be read (None: anywhere; (): nowhere; else the sandbox folders); see
    `locations`.
    """

    timeout: float = DEFAULT_TIMEOUT
    max_bytes: int = DEFAULT_MAX_BYTES
    client: httpx.Client | None = None
    roots: tuple[str, ...] | None = None


class SourceCache:
    """Parsed documents and loaded descriptions of one run, keyed by resolved location.

    Pass the same instance to every `load_openapi` call of a run; runs never share one implicitly.
    Safe to share between threads without a lock: two threads racing on one location may both fetch
    it, but `setdefault` makes every caller get the object stored first.
    """

    def __init__(self) -> None:
        self._documents: dict[str, ParsedDoc] = {}
        self._descriptions: dict[str, Any] = {}
        self._other: dict[Hashable, Any] = {}

    def document(self, url: str, base: str | None, options: FetchOptions) -> ParsedDoc:
        """The parsed document at `url` (relative to `base`), fetched on first use."""
        location = resolve_location(url, base)
        check_allowed(location, options.roots, url, base)  # also for a document already cached
        known = self._documents.get(location)
        if known is not None:
            return known
        fetched = fetch_source(
            url,
            base,
            timeout=options.timeout,
            max_bytes=options.max_bytes,
            client=options.client,
            roots=options.roots,
        )
        doc = self._documents.setdefault(location, parse_source(fetched.content, fetched.location))
        self._documents.setdefault(fetched.location, doc)  # after a redirect, the final URL too
        return doc

    def loaded(self, location: str) -> ParsedDoc | None:
        """The document at `location` if this run has already read it; never a fetch."""
        return self._documents.get(location)

    def description(self, location: str) -> Any:
        """The description loaded from `location`, or None."""
        return self._descriptions.get(location)

    def add_description(self, description: Any, *locations: str) -> Any:
        """Remember `description` under `locations`; returns the one stored first (see the class doc)."""
        stored = self._descriptions.setdefault(locations[0], description)
        for location in locations[1:]:
            self._descriptions.setdefault(location, stored)
        return stored

    def get(self, key: Hashable) -> Any:
        """Any other per-run object (e.g. a loaded Arazzo source), or None."""
        return self._other.get(key)

    def put(self, key: Hashable, value: Any) -> Any:
        """Store `value` under `key` unless present; returns the stored value."""
        return self._other.setdefault(key, value)

    def locations(self) -> list[str]:
        """Every document location read so far (sources and the files their `$ref`s reached)."""
        return list(self._documents)

    def values(self) -> list[Any]:
        """The other per-run objects (e.g. loaded Arazzo sources)."""
        return list(self._other.values())

    def __len__(self) -> int:
        return len(self._documents)
