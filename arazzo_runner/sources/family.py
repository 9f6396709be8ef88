"""The family of documents of one run: the `arazzo` sources it reaches, their bounds and their names.

Bounds: a document served by someone else may name `chain?n=2`, which names `chain?n=3`, and so on, or
name eight others that each name eight more. Every such document is loaded through `Workspace.source`,
which asks `check_family` first: at most MAX_SOURCE_DEPTH documents deep from the one run, and at most
MAX_SOURCE_DOCUMENTS of them per run, however they nest. The error names the chain that led there.

Names: each document chooses its own source names, so a nested one may call its source `a` like its
parent's. A source's identity in the family is the chain of source names from the top document: the top
document's `a` is `a`, the `a` of its arazzo source `kid` is `kid/a` (`family_key`). Credentials are keyed
by it (`http/credentials.py`): a nested document cannot claim the parent's credential by choosing a name.
The chains come from one walk, breadth first in document order (`walk`), so a document that several
chains reach (it is loaded once) is named by its shortest, first one, whatever order a run loads it in.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import SourceError
from ..limits import MAX_SOURCE_DEPTH, MAX_SOURCE_DOCUMENTS


def check_family(chain: tuple[str, ...], location: str, cache: Any) -> None:
    """SourceError unless the Arazzo document at `location` may be loaded from the last document of
    `chain` (the documents from the one run to the one naming it), given the run's `cache`."""
    shown = show_chain((*chain, location))
    if len(chain) > MAX_SOURCE_DEPTH:
        raise SourceError(f"arazzo sources nested deeper than {MAX_SOURCE_DEPTH} documents: {shown}")
    if cache.count("arazzo") >= MAX_SOURCE_DOCUMENTS:
        raise SourceError(
            f"the sources of this run reach more than {MAX_SOURCE_DOCUMENTS} Arazzo documents; "
            f"not loading another: {shown}"
        )


def show_chain(chain: tuple[str, ...]) -> str:
    """`a -> b -> c`; a long chain keeps its first two and last three documents, a long URL its start."""
    shown = [c if len(c) <= 160 else c[:150] + "..." for c in chain]
    if len(shown) > 6:
        shown = [*shown[:2], f"... ({len(shown) - 5} more)", *shown[-3:]]
    return " -> ".join(shown)


def family_key(path: tuple[str, ...], name: str) -> str:
    """The family name of source `name` of the document at `path` (`a`, `kid/a`, `kid/sub/a`)."""
    return "/".join((*path, name))


def documents(root: Any, *, skip_unloadable: bool = True) -> Iterator[tuple[Any, tuple[str, ...]]]:
    """(workspace, its chain of source names from `root`) for every document of the family, breadth
    first in document order, each once (its first chain). An arazzo source that cannot be loaded is
    passed over, or raises without `skip_unloadable`."""
    from ..errors import DocumentError

    pending: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    seen: set[int] = set()
    while pending:
        current, path = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current, path
        for entry in current.document.sources:
            if entry.type == "arazzo":
                try:
                    pending.append((current.source(entry.name), (*path, entry.name)))
                except DocumentError:
                    if not skip_unloadable:
                        raise


def walk(root: Any, *, skip_unloadable: bool = True) -> Iterator[tuple[Any, tuple[str, ...], Any]]:
    """(workspace, its chain, source entry) for every source of every document of the family."""
    for current, path in documents(root, skip_unloadable=skip_unloadable):
        for entry in current.document.sources:
            yield current, path, entry


def family_paths(root: Any) -> dict[int, tuple[str, ...]]:
    """id(workspace) -> its chain of source names from `root` (`()` for `root` itself)."""
    return {id(workspace): path for workspace, path in documents(root)}
