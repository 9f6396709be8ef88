"""Resource limits that keep hostile or accidental input from exhausting time, memory or the stack."""

from __future__ import annotations

from ..records import Record


class Limits(Record, frozen=True):
    """Upper bounds checked while loading a document.

    `max_nodes` counts every scalar, key and collection after alias expansion, so a YAML alias bomb
    fails as soon as its *expanded* size passes the limit even though shared subtrees are not copied.
    """

    max_bytes: int = 64 * 1024 * 1024
    max_depth: int = 500
    max_nodes: int = 5_000_000
    max_aliases: int = 100_000


DEFAULT_LIMITS = Limits()
