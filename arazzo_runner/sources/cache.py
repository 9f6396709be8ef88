"""Per-run memory of fetched documents, so a file reached twice is fetched and parsed once."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from ..bounds.deadline import armed
from ..errors import DocumentError, SourceError
from ..records import Record
from .fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, fetch_source
from .locations import check_allowed, is_http, resolve_location
from .parse import ParsedDoc, parse_source, parse_stored
from .stored import MIN_BYTES, ParsedStore

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


class SharedDocuments:
    """Parsed documents that several runs' caches share, the last `keep` of them: `arazzo validate` of
    many files gives each document a SourceCache of its own and this one store, so a description that
    several documents name is read and parsed once per invocation.

    Only what does not depend on the document that asked is shared: the parsed content of a location
    (read with the same size limit). Whether a document may read that location is still checked for
    each (`check_allowed`); failures are not shared (their messages quote the URL as the document that
    named it wrote it, relative to that document); descriptions, their resolvers and whatever a run
    derives from them stay in each document's cache, which records every document it used as if it
    had read it itself (`locations`, `loaded`)."""

    def __init__(self, keep: int = 8) -> None:
        self._keep = keep
        self._by_key: dict[tuple[str, int], ParsedDoc] = {}
        self._recent: OrderedDict[int, tuple[ParsedDoc, set[tuple[str, int]]]] = OrderedDict()  # by id
        self._lock = threading.Lock()

    def get(self, location: str, max_bytes: int) -> ParsedDoc | None:
        with self._lock:
            found = self._by_key.get((location, max_bytes))
            if found is not None:
                self._recent.move_to_end(id(found))
            return found

    def put(self, doc: ParsedDoc, max_bytes: int, *locations: str) -> None:
        """Keep `doc`, read from `locations` (before and after redirects) with `max_bytes`."""
        with self._lock:
            _, keys = self._recent.setdefault(id(doc), (doc, set()))
            self._recent.move_to_end(id(doc))
            for location in locations:
                key = (location, max_bytes)
                previous = self._by_key.get(key)
                if previous is not None and previous is not doc:
                    self._recent[id(previous)][1].discard(key)
                self._by_key[key] = doc
                keys.add(key)
            while len(self._recent) > self._keep:
                _, (_, dropped) = self._recent.popitem(last=False)
                for key in dropped:
                    del self._by_key[key]


class SourceCache:
    """Parsed documents and loaded descriptions of one run, keyed by resolved location.

    Pass the same instance to every `load_openapi` call of a run; runs never share one implicitly
    (`shared`: parsed documents that other runs may have read already, see `SharedDocuments`).
    Safe to share between threads without a lock: two threads racing on one location may both fetch
    it, but `setdefault` makes every caller get the object stored first.

    `stored`: whether local descriptions are read back from, and kept in, the parsed-source store on
    disk (`stored.py`; the environment may turn it off: `ARAZZO_NO_CACHE`). `remote=False` (`validate
    --offline`, `arazzo lsp --offline`): no http(s) document is fetched, a `$ref` of a local description
    to one included; it fails as a source that cannot be fetched, saying why.
    """

    def __init__(
        self, shared: SharedDocuments | None = None, *, stored: bool = True, remote: bool = True
    ) -> None:
        self._shared = shared
        self.remote = remote
        self._store = ParsedStore.default() if stored else None
        self._documents: dict[str, ParsedDoc] = {}
        self._descriptions: dict[str, Any] = {}
        self._other: dict[Hashable, Any] = {}
        self._failed: dict[str, DocumentError] = {}  # location -> why it could not be read or parsed

    def document(self, url: str, base: str | None, options: FetchOptions) -> ParsedDoc:
        """The parsed document at `url` (relative to `base`), fetched on first use."""
        location = resolve_location(url, base)
        check_allowed(location, options.roots, url, base)  # also for a document already cached
        known = self._documents.get(location)
        if known is not None:
            return known
        self.raise_failure(location)
        if not self.remote and is_http(location):
            raise SourceError(f"{location} is remote and was not fetched (offline)")
        if self._shared is not None:
            known = self._shared.get(location, options.max_bytes)
            if known is not None:
                self._documents.setdefault(known.location, known)  # its final URL, as a fetch stores it
                return self._documents.setdefault(location, known)
        try:
            fetched = fetch_source(
                url,
                base,
                timeout=options.timeout,
                max_bytes=options.max_bytes,
                client=options.client,
                roots=options.roots,
            )
            parsed = self._parse(fetched.content, fetched.location)
        except DocumentError as exc:
            self.remember_failure(location, exc)
            raise
        doc = self._documents.setdefault(location, parsed)
        self._documents.setdefault(fetched.location, doc)  # after a redirect, the final URL too
        if self._shared is not None:
            self._shared.put(doc, options.max_bytes, location, fetched.location)
        return doc

    def _parse(self, content: bytes, location: str) -> ParsedDoc:
        store = self._store
        # YAML of any size: parsing it imports PyYAML (~98 M instructions), which costs more than an entry
        floor = MIN_BYTES if content.lstrip()[:1] in (b"{", b"[") else 0
        if store is not None and store.worth_it(location, content, floor):
            return parse_stored(content, location, store, parse_source, floor)
        return parse_source(content, location)

    def loaded(self, location: str) -> ParsedDoc | None:
        """The document at `location` if this run has already read it; never a fetch."""
        return self._documents.get(location)

    def raise_failure(self, location: str) -> None:
        """Raise again the error that reading `location` ended with in this run, if it failed."""
        failed = self._failed.get(location)
        if failed is not None:
            raise failed.with_traceback(None)

    def remember_failure(self, location: str, error: DocumentError) -> None:
        """A location that could not be read or parsed fails the same way for the rest of the run, without
        being fetched again (the validation, the preflight and the run each ask for it); a fetch cut
        short by the run's deadline is not the source's own failure and is not remembered."""
        run = armed()
        if run is None or not run.expired():
            self._failed.setdefault(location, error)

    def description(self, location: str) -> Any:
        """The description loaded from `location`, or None."""
        return self._descriptions.get(location)

    def add_description(self, description: Any, *locations: str) -> Any:
        """Remember `description` under `locations`; returns the one stored first (see the class doc)."""
        stored = self._descriptions.setdefault(locations[0], description)
        for location in locations[1:]:
            self._descriptions.setdefault(location, stored)
        return stored

    def loaded_descriptions(self) -> list[Any]:
        """Every description loaded so far in this run, once each (never loads one)."""
        return list({id(d): d for d in list(self._descriptions.values())}.values())

    def descriptions_added(self) -> int:
        """Grows whenever a description is loaded: whoever derives something from the loaded descriptions
        (the masker) reads them again only then."""
        return len(self._descriptions)

    def get(self, key: Hashable) -> Any:
        """Any other per-run object (e.g. a loaded Arazzo source), or None."""
        return self._other.get(key)

    def put(self, key: Hashable, value: Any) -> Any:
        """Store `value` under `key` unless present; returns the stored value."""
        return self._other.setdefault(key, value)

    def count(self, kind: str) -> int:
        """How many distinct objects are stored under keys `(kind, ...)` (e.g. Arazzo sources loaded)."""
        return len({id(v) for k, v in self._other.items() if isinstance(k, tuple) and k[:1] == (kind,)})

    def locations(self) -> list[str]:
        """Every document location read so far (sources and the files their `$ref`s reached)."""
        return list(self._documents)

    def values(self) -> list[Any]:
        """The other per-run objects (e.g. loaded Arazzo sources)."""
        return list(self._other.values())

    def __len__(self) -> int:
        return len(self._documents)
