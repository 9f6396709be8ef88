"""Schema references an operation's resolved schemas still hold, and which of them cannot resolve.

The source resolver inlines every `$ref` it can; what it leaves (recursion, anchors, other documents)
is what request/response validators would have to resolve at run time, and they never fetch. The walk
is shared by the operations of one validation (`memo`): Stripe's operations resolve to trees of ~3,000
nodes, half of them the same shared subtrees (customer, charge, ...), walked once. A reference that is a
plain JSON pointer into the description is checked by walking the description's data; the registry
(`referencing`, which crawls the whole description when built: ~0.2 s for a 4 MB one) is built only
for the others.
"""

from __future__ import annotations

from typing import Any

Found = tuple[str, str, "str | None"]  # (reference, keyword, the `$id` it sits under or None)
_LITERAL = ("enum", "const", "default", "example", "examples")


def unresolvable_refs(description: Any, holders: list[Any], memo: dict[Any, Any] | None = None) -> list[str]:
    """A message for each `$ref`/`$dynamicRef` and each discriminator mapping reference left in
    `holders` (an operation's resolved schemas) that the description's registry cannot resolve: what
    request/response validation would refuse at run time, since validators never fetch. References
    resolve against the description they are written in, as at run time, where an `$id` around them
    does not move them (openapi-core resolves them against the description). `memo`: shared by the
    calls of one validation over the same loaded descriptions (see the module doc)."""
    refs = [found for found in left_refs(holders, memo) if not _found_in(description.data, found[0])]
    if not refs:
        return []  # every one a pointer into the description that leads somewhere: no registry built
    from ..sources.schema_registry import unresolved_reason

    resolver = description.schema_registry.resolver(base_uri=description.uri)
    out = []
    for ref, keyword, scope in refs:
        try:
            resolver.lookup(ref)
        except Exception as exc:
            out.append(_refused(description, ref, keyword, scope, unresolved_reason(exc)))
    return out


def _found_in(data: Any, ref: str) -> bool:
    """Whether `ref` is a plain `#/...` JSON pointer that leads to a node of the description's own
    `data`: the registry's lookup would walk the same mappings and lists to the same node (`referencing`
    resolves such a pointer against the description's resource, whatever `$id` surrounds it). Anything
    else (an anchor, another document, a percent-encoded pointer, a pointer that leads nowhere) is the
    registry's to answer."""
    if not ref.startswith("#/") or "%" in ref:
        return False
    node = data
    for token in ref[2:].split("/"):
        if isinstance(node, dict):
            token = token.replace("~1", "/").replace("~0", "~")
            if token not in node:
                return False
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and token.isascii() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False
    return True


def _refused(description: Any, ref: str, keyword: str, scope: str | None, why: str | None) -> str:
    """The message for a reference the registry refused, located where it is written when the
    description knows, saying when an `$id` around it does not change where it resolves."""
    where = description.ref_origin(ref)[1] if keyword != "discriminator mapping" else None
    located = f" ({where})" if where else ""
    note = f" (the $id '{scope}' around it does not change that: it resolves against the description)"
    return f"cannot resolve {keyword} '{ref}'{located}: {why or 'it does not resolve'}{note if scope else ''}"


def left_refs(holders: list[Any], memo: dict[Any, Any] | None = None) -> list[Found]:
    """The distinct references below `holders`, in the order a depth-first walk meets them first:
    `$ref`, `$dynamicRef`, and the discriminator `mapping` values written as references (with a `#`
    or a `/`; a bare schema name is a component's). Each subtree's references are found once per
    `memo` (by node and surrounding `$id`; the memo keeps the node alive, so its id stays its own)."""
    memo = {} if memo is None else memo
    found: dict[tuple[str, str], Found] = {}
    for holder in holders:
        for entry in _below(holder, None, memo):
            found.setdefault((entry[1], entry[0]), entry)
    return list(found.values())


def _below(root: Any, scope: str | None, memo: dict[Any, Any]) -> tuple[Found, ...]:
    """The references in `root`'s subtree (a post-order walk with an explicit stack: resolved schemas
    may nest deeper than Python's recursion limit)."""
    stack: list[tuple[Any, str | None, Any]] = [(root, scope, None)]
    while stack:
        node, outer, expanded = stack.pop()
        key = (id(node), outer)
        if key in memo:
            continue
        if expanded is None:  # first visit: its children first, then this node again
            inner, children = _children(node, outer)
            stack.append((node, outer, (inner, children)))
            stack.extend(
                (child, inner, None) for child in reversed(children) if (id(child), inner) not in memo
            )
            continue
        inner, children = expanded
        below = [memo[(id(child), inner)][1] for child in children]
        own = _own(node, inner)
        if not own and not any(below):
            memo[key] = (node, ())
            continue
        merged: dict[tuple[str, str], Found] = {}
        for entries in (own, *below):
            for entry in entries:
                merged.setdefault((entry[1], entry[0]), entry)
        memo[key] = (node, tuple(merged.values()))
    return memo[(id(root), scope)][1]


def _children(node: Any, scope: str | None) -> tuple[str | None, list[Any]]:
    """The `$id` in force inside `node`, and the containers below it that may hold references."""
    if isinstance(node, list):
        return scope, [item for item in node if isinstance(item, (dict, list))]
    if not isinstance(node, dict):
        return scope, []  # a boolean schema
    if isinstance(node.get("$id"), str):
        scope = node["$id"]
    return scope, [
        value
        for key, value in node.items()
        if isinstance(value, (dict, list)) and key not in _LITERAL and not str(key).startswith("x-")
    ]


def _own(node: Any, scope: str | None) -> list[Found]:
    if not isinstance(node, dict) or not ("$ref" in node or "$dynamicRef" in node or "discriminator" in node):
        return []
    written = [(k, node[k]) for k in ("$ref", "$dynamicRef") if isinstance(node.get(k), str)]
    discriminator = node.get("discriminator")
    mapping = discriminator.get("mapping") if isinstance(discriminator, dict) else None
    if isinstance(mapping, dict):
        refs = [v for v in mapping.values() if isinstance(v, str) and ("#" in v or "/" in v)]
        written += [("discriminator mapping", v) for v in refs]
    return [(ref, keyword, scope) for keyword, ref in written]
