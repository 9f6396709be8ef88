"""Bounds on the `arazzo` sources of one run: Arazzo documents naming others, which may never end.

A document served by someone else may name `chain?n=2`, which names `chain?n=3`, and so on, or name
eight others that each name eight more. Every such document is loaded through `Workspace.source`, which
asks `check_family` first: at most MAX_SOURCE_DEPTH documents deep from the one run, and at most
MAX_SOURCE_DOCUMENTS of them per run, however they nest. The error names the chain that led there.
"""

from __future__ import annotations

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
