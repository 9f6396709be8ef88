"""The Arazzo document `arazzo validate` reads, and its clean JSON Schema verdict, kept in the parsed-source
store (`sources/stored.py`), so a second validate of an unchanged document neither parses it nor checks
it against the official schema again.

Why: a description read back from the store left most of a second validate's cost in what the small
Arazzo document beside it still needed: PyYAML imported to parse it (~98 M instructions, ~0.04 s) and
the official schema loaded (YAML again), compiled by jsonschema-rs (imported: ~53 M) and run, for a
verdict that depends only on the document's bytes and the engine. So, for a local document of any size:

- its data comes from the store when these exact bytes were parsed before (SHA-256 of the content:
  an edit is never missed), its position index too, built from the text (PyYAML then imported) only
  when a finding must be located and kept for the next time: lines and columns are those a parse
  gives (`sources/parse.py`);
- a clean schema verdict is a fact of the entry, stamped with the engine (its version and every file
  of it, as the validation cache: `cache._validator_key`) and the versions of the two validators; a
  verdict with problems is never kept (they are explained afresh, in full, every time).

`ARAZZO_NO_CACHE=1` (`--no-cache`) or a store that cannot be used: the document is parsed and checked
as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..loader import LoadedDocument

SchemaCheck = Callable[[Any], list[Any]]
_CLEAN = "schema-clean"  # the fact: the official schema found the document valid
_VALIDATORS = ("jsonschema", "jsonschema_rs", "referencing", "jsonschema_specifications")


def load(path: str | os.PathLike[str]) -> tuple[LoadedDocument, SchemaCheck | None]:
    """The document at `path` (`sources/stored_load.py`: a DocumentError naming it when it cannot be read
    or parsed) and its schema check through the store, or None (no store: `check_schema` as it is)."""
    from ..sources.stored_load import load_document

    loaded, facts = load_document(path)
    return loaded, (None if facts is None else _checker(facts))


def _checker(facts: Any) -> SchemaCheck:
    def check(data: Any) -> list[Any]:
        problems: list[Any] = []

        def clean() -> bool | None:
            from .schema import check_schema

            problems.extend(check_schema(data))
            return None if problems else True  # problems: nothing kept

        facts.get(_CLEAN, engine_stamp(), clean)
        return problems

    return check


@lru_cache(maxsize=1)
def engine_stamp() -> str:
    """The engine (`cache._validator_key`) and the validators' own files, by size and mtime: what a fact
    about a document's bytes worked out by the validation depends on besides them."""
    import importlib.util

    from .cache import _validator_key

    stamps = [_validator_key()]
    for name in _VALIDATORS:
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        try:
            info = os.stat(origin) if origin else None
        except OSError:
            info = None
        stamps.append(f"{name}:{origin}:{info.st_size}:{info.st_mtime_ns}" if info else f"{name}:-")
    return "\n".join(stamps)
