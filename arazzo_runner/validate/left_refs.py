"""Schema references an operation's resolved schemas still hold, and which of them cannot resolve.

The source resolver inlines every `$ref` it can; what it leaves (recursion, anchors, other documents)
is what request/response validators would have to resolve at run time, and they never fetch. The walk
is shared by the operations of one validation (`memo`): Stripe's operations resolve to trees of ~3,000
nodes, half of them the same shared subtrees (customer, charge, ...), walked once. A reference that is a
plain JSON pointer into the description is checked by walking the description's data; the registry
(`referencing`, which crawls the whole description when built: ~0.2 s for a 4 MB one) is built only
for the others.

Most descriptions hold only plain `#/...` pointers that lead somewhere (Stripe's 4 MB one does): then no
reference can be refused, and `all_plain` proves it on the operation as written, each shared schema
walked once per validation, without resolving the operation's schemas into trees (resolving and walking
Stripe's five most used operations cost ~0.09 s of a second `arazzo validate`'s ~0.3 s).
"""

from __future__ import annotations

from typing import Any

Found = tuple[str, str, "str | None"]  # (reference, keyword, the `$id` it sits under or None)
_LITERAL = ("enum", "const", "default", "example", "examples")
_NOWHERE = object()


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


def all_plain(data: Any, roots: list[Any], proven: set[int]) -> bool:
    """Whether every reference reachable from `roots` (values of the description's own `data`, as
    written), following the `$ref`s, is a plain `#/...` pointer that leads to a node of `data`, with no
    `$id` or `$dynamicRef` anywhere: then `unresolvable_refs` of the resolved schemas is empty, since the
    resolved trees are made of these same nodes and what resolution leaves in them (recursion) are such
    pointers. It walks the keys `left_refs` walks, and follows every reference, so it errs only towards
    False (the full check then runs). `proven`: ids of nodes whose whole reach was found plain before in
    this validation (the nodes of `data` live as long as it), added to only when the answer is True."""
    seen: set[int] = set()
    stack: list[Any] = [root for root in roots if isinstance(root, (dict, list))]
    containers = (dict, list)
    while stack:
        node = stack.pop()
        key = id(node)
        if key in seen or key in proven:
            continue
        seen.add(key)
        if type(node) is list:
            stack += [item for item in node if isinstance(item, containers)]
            continue
        if "$ref" in node:
            ref = node["$ref"]
            target = _target(data, ref) if isinstance(ref, str) else _NOWHERE
            if target is _NOWHERE:
                return False
            if isinstance(target, containers):
                stack.append(target)
        if (
            "$id" in node
            or "$dynamicRef" in node
            or ("discriminator" in node and not _plain_mapping(data, node))
        ):
            return False
        for name, value in node.items():
            if isinstance(value, containers) and name not in _LITERAL and not str(name).startswith("x-"):
                stack.append(value)
    proven.update(seen)
    return True


def walked(name: Any) -> bool:
    """Whether `all_plain` walks into a member so named (literal values and extensions it does not)."""
    return name not in _LITERAL and not str(name).startswith("x-")


def _plain_mapping(data: Any, node: dict) -> bool:
    discriminator = node["discriminator"]
    mapping = discriminator.get("mapping") if isinstance(discriminator, dict) else None
    if not isinstance(mapping, dict):
        return True
    return all(
        _found_in(data, value)
        for value in mapping.values()
        if isinstance(value, str) and ("#" in value or "/" in value)
    )


def _found_in(data: Any, ref: str) -> bool:
    return _target(data, ref) is not _NOWHERE


def _target(data: Any, ref: str) -> Any:
    """The node of the description's own `data` that `ref`, a plain `#/...` JSON pointer, leads to, or
    `_NOWHERE`: the registry's lookup would walk the same mappings and lists to the same node (`referencing`
    resolves such a pointer against the description's resource, whatever `$id` surrounds it). Anything
    else (an anchor, another document, a percent-encoded pointer, a pointer that leads nowhere) is the
    registry's to answer."""
    if not ref.startswith("#/") or "%" in ref:
        return _NOWHERE
    node = data
    for token in ref[2:].split("/"):
        if isinstance(node, dict):
            token = token.replace("~1", "/").replace("~0", "~")
            if token not in node:
                return _NOWHERE
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and token.isascii() and int(token) < len(node):
            node = node[int(token)]
        else:
            return _NOWHERE
    return node


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
