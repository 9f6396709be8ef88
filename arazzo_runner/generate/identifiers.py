"""Where an answer holds a resource's id, for the chains (`chains.py`) to pass it on.

The id `{param}` of an item path stands for is the answer's property named like the parameter (any case,
`_` and `-` aside), else `id`, else `<noun>Id`, else `uuid` (a scalar one), at the top of the answer or
one level down, in the member wrapping the resource (`{"article": {"slug": ...}}` of the RealWorld API);
of a list answer, the first item's (`/data/0/id`).
"""

from __future__ import annotations

import re
from typing import Any

from .names import singular
from .operations import escape_token
from .schemas import array_items, object_view

_WRAPPERS = ("data", "result", "item", "resource", "object")
_LISTS = ("data", "items", "results", "content", "records", "values", "entries", "list", "elements")


def a_noun(noun: str) -> str:
    """`a book`, `an article`: the chains' comments and summaries read as sentences."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def noun_of(collection: str) -> str:
    """The resource a collection path holds: its last fixed segment (`/articles/{slug}/comments`)."""
    words = [w for w in collection.split("/") if w and not w.startswith("{")]
    return words[-1] if words else "resource"


def id_pointer(schema: Any, param: str, collection: str) -> str | None:
    """Where the answer holds the id: a top-level property (`/id`), else one level down, in the member
    that wraps the resource (`/article/slug` of RealWorld's `{"article": {...}}`). Of the members one
    level down, the best id name wins (the parameter's before `id`...), then the wrapper: named like the
    resource (`article`, `articles`), then `data`, `result`...; another member only when it is the one
    object of the answer (an envelope: `{"payload": {...}, "status": "ok"}`), so that the id of
    something else the answer carries (`{"meta": {"id": ...}, "data": ...}`) is not taken for it."""
    view = object_view(schema)
    if view is None:
        return None
    found = _id_property(view[0], param, collection)
    if found is not None:
        return "/" + escape_token(found[1])
    best = None
    for order, wrapper in enumerate(_wrappers(view[0], collection)):
        inner = object_view(view[0][wrapper])
        found = _id_property(inner[0], param, collection) if inner else None
        if found is not None and (best is None or (found[0], order) < best[0]):
            best = ((found[0], order), f"/{escape_token(wrapper)}/{escape_token(found[1])}")
    return best[1] if best else None


def _wrappers(properties: dict[str, Any], collection: str) -> list[str]:
    """The members that may wrap the resource, the likeliest first."""
    noun = noun_of(collection)
    named = [n for n in properties if _fold(n) in (_fold(singular(noun)), _fold(noun))]
    usual = [n for wanted in _WRAPPERS for n in properties if _fold(n) == wanted]
    objects = [n for n, sub in properties.items() if object_view(sub) is not None and not _scalar(sub)]
    return list(dict.fromkeys([*named, *usual, *(objects if len(objects) == 1 else ())]))


def first_id_pointer(schema: Any, param: str, collection: str) -> str | None:
    items = array_items(schema)
    if items is not None:
        inner = id_pointer(items, param, collection)
        return f"/0{inner}" if inner else None
    view = object_view(schema)
    if view is None:
        return None
    noun = noun_of(collection)
    for name in (*_LISTS, noun):
        items = array_items(view[0].get(name))
        if items is not None:
            inner = id_pointer(items, param, collection)
            return f"/{escape_token(name)}/0{inner}" if inner else None
    return None


def _id_property(properties: dict[str, Any], param: str, collection: str) -> tuple[int, str] | None:
    """(rank, name) of the property holding the id `{param}` stands for: named like the parameter (any
    case, `_`/`-` aside), else `id`, else `<noun>Id`, else `uuid`; only a scalar one."""
    folded = {_fold(name): name for name in properties}
    noun = singular(noun_of(collection))
    for rank, wanted in enumerate((param, "id", f"{noun}id", "uuid")):
        name = folded.get(_fold(wanted))
        if name is not None and _scalar(properties[name]):
            return rank, name
    return None


def _fold(name: str) -> str:
    return re.sub(r"[_\-]", "", name).lower()


def _scalar(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return schema is True
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind}
    return bool(kinds & {"string", "integer", "number"}) or (kind is None and "properties" not in schema)
