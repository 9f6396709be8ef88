"""The family of documents of one run: the `arazzo` sources it reaches, their bounds and their names.

Bounds: a document served by someone else may name `chain?n=2`, which names `chain?n=3`, and so on, or
name eight others that each name eight more. Every such document is loaded through `Workspace.source`,
which asks `check_family` first: at most MAX_SOURCE_DEPTH documents deep from the one run, and at most
MAX_SOURCE_DOCUMENTS of them per run, however they nest. The error names the chain that led there.

Names: each document chooses its own source names, so a nested one may call its source `a` like its
parent's. A source's identity in the family is the chain of source names from the top document: the top
document's `a` is `a`, the `a` of its arazzo source `kid` is `kid/a` (`family_key`). Credentials are keyed
by it (`http/credentials.py`): a nested document cannot claim the parent's credential by choosing a name.
So is `--server NAME=URL` (`server_keys`): a bare name is the top document's source, `kid/a` a nested
one; a bare name only nested documents define stands for the one that does, when only one does.
The chains come from one walk, breadth first in document order (`walk`), so a document that several
chains reach (it is loaded once) is named by its shortest, first one, whatever order a run loads it in.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..bounds.limits import MAX_SOURCE_DEPTH, MAX_SOURCE_DOCUMENTS
from ..errors import SourceError, UsageError


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


class FamilyNames:
    """The family name (`a`, `kid/a`) of a source of any document of the family of `root`, its chains
    walked on first need (the top document's sources need none)."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self._paths: dict[int, tuple[str, ...]] | None = None

    def key(self, workspace: Any, name: str) -> str:
        if workspace is None or workspace is self.root:
            return name
        if self._paths is None or id(workspace) not in self._paths:  # a document loaded since
            self._paths = family_paths(self.root)
        return family_key(self._paths.get(id(workspace), ("?",)), name)


def family_entries(root: Any) -> dict[str, Any]:
    """family name -> source description entry, for every source of the family (loading the arazzo
    sources it reaches; one that cannot be loaded is passed over)."""
    return {family_key(path, entry.name): entry for _, path, entry in walk(root)}


def server_keys(servers: dict[str, str], root: Any, *, strict: bool = True) -> dict[str, str]:
    """`--server NAME=URL` pairs keyed by family name. `a` is the top document's source `a`, `kid/a`
    the source `a` of its arazzo source `kid`; a bare name no source of the top document has stands for
    the one nested source of that name, and is a UsageError listing their family names when several
    have it. A name of no source is a UsageError (`strict`), or kept as it is, matching nothing. The
    family is read only for a name the top document does not have (nothing fetched otherwise)."""
    own = {entry.name for entry in root.document.sources}
    if all(name in own for name in servers):
        return dict(servers)
    entries = family_entries(root)
    found = {name: url for name, url in servers.items() if name in entries}
    for name, url in servers.items():
        if name in entries:
            continue
        nested = [key for key in entries if key.rpartition("/")[2] == name]
        if len(nested) == 1:
            found.setdefault(nested[0], url)  # given by its family name too: that one holds
        elif nested:
            listed = ", ".join(nested)
            raise UsageError(
                f"--server {name}=...: several nested documents have a source named '{name}' ({listed}): "
                f"name one by its place in the family, as --server {nested[0]}=URL"
            )
        elif strict:
            known = ", ".join(entries) or "none"
            raise UsageError(f"--server {name}=...: no source description named '{name}' (sources: {known})")
        else:
            found[name] = url
    return found
