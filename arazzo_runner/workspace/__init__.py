"""A loaded Arazzo document together with its source descriptions, loaded once and on first use.

Step targets are resolved here once per step and remembered: the rules that find them are in
`operation_targets` (operations and workflows) and `message_targets` (AsyncAPI operations and channels).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from ..bounds.deadline import armed
from ..errors import DocumentError, SourceError
from ..loader import LoadedDocument, load_text
from ..loader.pointer import format_pointer
from ..model import Document, Pointer, SourceDescription, Step, Workflow, build_document
from ..model.dialect import operation_path_parts  # noqa: F401  (validate imports it from here)
from ..records import Record

if TYPE_CHECKING:
    from .operations import WorkflowTarget

AllowPaths = Iterable[str | os.PathLike[str]]
_MISSING = object()


class Workspace:
    """One Arazzo document and everything it references. Safe to share between concurrent runs:
    it only caches immutable loaded data, under a lock.

    Which local files it reads (sources, nested Arazzo documents, every file their `$ref`s reach) is
    `roots` (see `sources.locations`): None, anywhere, for a local document; (), none, for a document
    fetched over http(s); the sandbox folders when loaded with `allow_paths` (the CLI's `--sandbox DIR`),
    symbolic links resolved first. An `arazzo` source document keeps the sandbox of the document that
    loaded it, and reads no local file when it was fetched over http(s).
    """

    def __init__(
        self,
        loaded: LoadedDocument,
        document: Document,
        location: str,
        cache: Any = None,
        *,
        allow_paths: AllowPaths = (),
    ) -> None:
        from ..sources import SourceCache
        from ..sources.locations import allowed_roots

        self.loaded = loaded
        self.document = document
        self.location = location
        self.cache = cache if cache is not None else SourceCache()
        self.roots = allowed_roots(location, allow_paths)
        self._lock = threading.RLock()
        self._sources: dict[str, Any] = {}
        self._compiled: dict[str, Any] = {}
        self._targets: dict[Any, Any] = {}  # id(step) -> its operation; ("message", id(step)) -> its message
        self._derived: dict[Any, Any] = {}  # facts found once from the loaded documents (`derived`)
        # The documents from the one run to this one (an `arazzo` source's workspace: its parent's chain
        # and its own location), for the bounds on nested sources and the errors that name the chain.
        self.chain: tuple[str, ...] = (self.file,)

    # -- loading -------------------------------------------------------------------------------------

    @classmethod
    def from_path(
        cls, path: str | os.PathLike[str], cache: Any = None, *, allow_paths: AllowPaths = ()
    ) -> Workspace:
        from ..sources.stored_load import load_document  # read back when parsed before (YAML: no PyYAML)

        loaded, _ = load_document(path)
        return cls.from_loaded(loaded, str(Path(path).resolve()), cache, allow_paths=allow_paths)

    @classmethod
    def from_text(
        cls, text: str | bytes, location: str = "<string>", cache: Any = None, *, allow_paths: AllowPaths = ()
    ) -> Workspace:
        """`location` is where relative source URLs resolve from (the working directory for the default
        `<string>`); a URL there makes the document one fetched over http(s), which reads no local file."""
        return cls.from_loaded(load_text(text, location), location, cache, allow_paths=allow_paths)

    @classmethod
    def from_loaded(
        cls, loaded: LoadedDocument, location: str, cache: Any = None, *, allow_paths: AllowPaths = ()
    ) -> Workspace:
        """A workspace for a document already loaded from `location`; `allow_paths`: the sandbox."""
        document = build_document(loaded.data)
        # A shape problem inside one workflow, or in a component, stops only runs that reach it
        # (`compiled`, `validate/admission.py`); anywhere else (sources, the document itself) the
        # document cannot be used.
        for at, message in document.problems:
            if not _in_a_workflow(at) and at[:1] != ("components",):
                raise loaded.error(format_pointer(at), message)
        return cls(loaded, document, location, cache, allow_paths=allow_paths)

    @property
    def file(self) -> str:
        return self.loaded.file

    @property
    def base(self) -> str:
        """Base URI for relative source URLs: `$self` (resolved against the location) or the location."""
        self_uri = self.document.self_uri
        if not self_uri:
            return self.location
        if _is_url(self.location) or urlsplit(self_uri).scheme:
            return urljoin(self.location, self_uri)
        # read from a file: a relative `$self` resolves against that file's directory (RFC 3986 5.1.3)
        return os.path.normpath(os.path.join(os.path.dirname(self.location), self_uri))

    def error(self, at: Pointer, message: str, cls: type[DocumentError] = DocumentError) -> DocumentError:
        located = self.loaded.error(format_pointer(at), message)
        if cls is not DocumentError:
            located = cls(
                message, file=located.file, line=located.line, column=located.column, pointer=located.pointer
            )
        return located

    def derived(self, key: Any, make: Any) -> Any:
        """`make()`, found once for `key` and kept: a fact of the loaded documents alone (which inputs a
        workflow declares and reads), asked again by every run of a server's tool or a batch's row."""
        found = self._derived.get(key, _MISSING)
        if found is _MISSING:
            with self._lock:
                found = self._derived.get(key, _MISSING)
                if found is _MISSING:
                    found = self._derived[key] = make()
        return found

    def source(self, name: str) -> Any:
        """The loaded source: an OpenAPIDescription or a Workspace (type arazzo). Raises SourceError.

        Loaded once, on first use; a source that cannot be loaded fails the same way on every later use,
        without being fetched again (unless the run's deadline cut it short: see `SourceCache`)."""
        with self._lock:
            found = self._sources.get(name)
            if found is None:
                try:
                    found = self._load_source(name)
                except DocumentError as exc:
                    found = _Failed(exc)
                    run = armed()
                    if run is None or not run.expired():
                        self._sources[name] = found
                else:
                    self._sources[name] = found
            if isinstance(found, _Failed):
                raise found.error.with_traceback(None)
            return found

    def source_without_fetching(self, name: str) -> Any:
        """The source if reading it sends nothing over the network: loaded already, or a local file
        (loaded now, as `source` would); None for a remote source no step has needed yet. For checks
        that must not fetch what the user did not ask for (the `ARAZZO_AUTH_*` variables' check runs
        before anything is selected). Raises SourceError as `source` does."""
        with self._lock:
            loaded = self._sources.get(name)
        if loaded is None:
            from ..sources import resolve_location
            from ..sources.locations import HTTP_SCHEMES

            entry = self.document.source(name)
            if entry is None or not isinstance(entry.url, str) or not entry.url:
                return self.source(name)  # the error `source` gives
            location = resolve_location(entry.url, self.base)
            if location.partition(":")[0].lower() in HTTP_SCHEMES:
                return None
        return self.source(name)

    def _load_source(self, name: str) -> Any:
        entry = self.document.source(name)
        if entry is None:
            raise SourceError(f"no source description named '{name}'", file=self.file)
        base = self.base
        kind = entry.type or "openapi"
        try:
            if kind == "arazzo":
                return self._load_arazzo(entry.url, base)
            if kind == "openapi":
                from ..sources.openapi import load_openapi  # each reader imported for its own sources

                return load_openapi(entry.url, base, cache=self.cache, roots=self.roots)
            if kind == "asyncapi":
                from ..sources.asyncapi import load_asyncapi

                return load_asyncapi(entry.url, base, cache=self.cache, roots=self.roots)
        except SourceError as exc:
            raise self._source_error(entry, exc) from None
        except DocumentError as exc:
            raise self._source_error(entry, exc) from None
        raise self.error(
            (*entry.at, "type"),
            f"source '{name}' has type '{kind}', which this engine cannot run",
            SourceError,
        )

    def _source_error(self, entry: Any, exc: DocumentError) -> SourceError:
        located = self.error(entry.at, "")
        # An error about this document itself (no line in another file) is its message alone.
        own = exc.file is None or (exc.file in (self.base, self.location, self.file) and not exc.line)
        detail = exc.message if own else str(exc)
        message = f"source '{entry.name}' ({entry.url}) cannot be loaded: {detail}"
        return SourceError(
            message, file=located.file, line=located.line, column=located.column, pointer=located.pointer
        )

    def _load_arazzo(self, url: str, base: str) -> Workspace:
        """The workspace of an `arazzo` source, loaded once per run (by its location, before and after
        redirects), within the bounds of `sources.family`."""
        from ..sources import fetch_source, resolve_location
        from ..sources.family import check_family

        location = resolve_location(url, base)
        key = ("arazzo", location)
        cached = self.cache.get(key)
        if cached is not None:
            return cached
        self.cache.raise_failure(location)
        check_family(self.chain, location, self.cache)  # sources naming sources, bounded
        try:
            fetched = fetch_source(url, base, roots=self.roots)
            cached = self.cache.get(("arazzo", fetched.location))  # redirected to one already loaded
            if cached is not None:
                return self.cache.put(key, cached)
            loaded = load_text(fetched.content, fetched.location)
            # the same sandbox (if any); one fetched over http(s) reads no local file (its location says so)
            child = Workspace.from_loaded(loaded, fetched.location, self.cache, allow_paths=self.roots or ())
        except DocumentError as exc:
            self.cache.remember_failure(location, exc)
            raise
        child.chain = (*self.chain, fetched.location)
        child = self.cache.put(("arazzo", fetched.location), child)
        return self.cache.put(key, child)

    def family(self, *, skip_unloadable: bool = False) -> Iterator[tuple[Workspace, SourceDescription]]:
        """Every (workspace, source entry) of this document and of the `arazzo` sources it reaches,
        each workspace once. An unloadable arazzo source raises, or is passed over when
        `skip_unloadable` (its entry is still yielded)."""
        pending: list[Workspace] = [self]
        seen: set[int] = set()
        while pending:
            current = pending.pop()
            if id(current) in seen:
                continue
            seen.add(id(current))
            for entry in current.document.sources:
                yield current, entry
                if entry.type == "arazzo":
                    try:
                        pending.append(current.source(entry.name))
                    except DocumentError:
                        if not skip_unloadable:
                            raise

    @functools.cached_property
    def names(self) -> Any:
        """The ids and names its expressions read as declared (`expressions/names.py`): None when every
        one fits the grammar's classes."""
        from ..expressions.names import declared_names
        from .inputs import grammar_inputs

        return declared_names(self.document, grammar_inputs(self.document))

    def compiled(self, workflow: Workflow) -> Any:
        """The compiled plan of a workflow (expressions parsed once per document); DocumentError for a
        shape problem inside the workflow or an expression that does not compile."""
        plan = self._compiled.get(workflow.workflow_id)  # compiled already: read without the lock
        if plan is not None:  # (twice per run of a workflow: its steps and its outputs)
            return plan
        from ..expressions.names import reading
        from .plan import CompileError, compile_workflow

        with self._lock:
            plan = self._compiled.get(workflow.workflow_id)
            if plan is None:
                for at, message in self.document.problems:
                    if at[:2] == workflow.at[:2]:
                        raise self.error(at, message)
                try:
                    with reading(self.names):
                        plan = compile_workflow(self.document, workflow)
                except CompileError as exc:
                    raise self.error(exc.at, exc.message) from None
                self._compiled[workflow.workflow_id] = plan
            return plan

    # -- targets -------------------------------------------------------------------------------------

    def openapi_sources(self) -> list[str]:
        return [s.name for s in self.document.sources if (s.type or "openapi") == "openapi"]

    def asyncapi_sources(self) -> list[str]:
        return [s.name for s in self.document.sources if s.type == "asyncapi"]

    def resolve_message(self, step: Step) -> Any:
        """The AsyncAPI target of an `asyncapi` step (`message_targets`), resolved once per step."""
        from .messages import resolve_message

        key = ("message", id(step))
        target = self._targets.get(key)
        if target is None:
            target = self._targets.setdefault(key, resolve_message(self, step))
        return target

    def resolve_operation(self, step: Step) -> Any:
        """The operation a step calls; resolved once per step (targets never change once loaded)."""
        target = self._targets.get(id(step))
        if target is None:
            from .operations import resolve_operation  # operation and workflow steps (`messages.py`)

            target = self._targets.setdefault(id(step), resolve_operation(self, step))
        return target

    def resolve_workflow(self, ref: str, at: Pointer) -> WorkflowTarget:
        """A local workflowId, or `$sourceDescriptions.<name>.<workflowId>` in an arazzo source."""
        from .operations import resolve_workflow

        return resolve_workflow(self, ref, at)


class _Failed(Record, frozen=True):
    """A source that could not be loaded, remembered with its error."""

    error: DocumentError


def _in_a_workflow(at: Pointer) -> bool:
    return len(at) >= 2 and at[0] == "workflows" and isinstance(at[1], int)


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))
