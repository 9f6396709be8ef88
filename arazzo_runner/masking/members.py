"""Secret members of a value read whole: `$inputs`, `$steps.s.outputs`, `$inputs.creds` (docs/security.md).

A number is never masked by value (a `12` in a report is everywhere), so a secret input that is a number
(`pin: {type: integer, format: password}`) is masked by name: where it is read (`$inputs.pin`), the value
read is secret. An expression can also read the object that holds it: `$inputs`, `$inputs#/creds`, a
step's outputs whole. What it reads is then shown with those members as `***` and the others as they are.

A holder (a workflow's `Inputs`, a step's or workflow's `Outputs`) names its secret members: `secret`,
the names whose whole value is secret, and `members`, for a name whose value is not, the paths inside it
that are (`{"creds": (("code",),)}`; `ITEM` stands for every item of an array). A read is a path too:
its name (the longest the holder has, as the resolver finds it), then its JSON pointer, then its
accessors. A read at or under a secret path is secret whole (`Taint.by_name`); the secret paths under a
read are the members to mask in what it read (`read_members`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ITEM = None  # in a path: every item of an array (an inputs schema's `items`)
Path = tuple[Any, ...]
NO_PATHS: tuple[Path, ...] = ()


def holder_paths(holder: Any) -> list[Path]:
    """The secret paths of a holder (its `secret` names, and the `members` of the others); [] for none."""
    marked = getattr(holder, "secret", None)
    members = getattr(holder, "members", None)
    if not marked and not members:
        return []
    paths: list[Path] = [(name,) for name in marked or ()]
    for name, inside in (members or {}).items():
        paths.extend((name, *path) for path in inside)
    return paths


def read_path(holder: Any, name: str, pointer: tuple[str, ...], accessors: tuple[Any, ...]) -> Path | None:
    """The path an expression reads in `holder`: the name it finds (the longest declared one, as the
    resolver does), the rest of a dotted name, the pointer, the accessors. None: it finds nothing."""
    if name == "":
        return (*pointer, *accessors)
    if not isinstance(holder, Mapping):
        return None
    if name in holder:
        return (name, *pointer, *accessors)
    from ..expressions.resolver import ABSENT, lookup  # (the resolver's own rule for dotted names)

    value, rest = lookup(lambda key: holder.get(key, ABSENT), name, holder.keys)
    if value is ABSENT:
        return None
    return (name[: len(name) - len(".".join(rest)) - 1], *rest, *pointer, *accessors)


def secret_read(holder: Any, name: str, pointer: tuple[str, ...], accessors: tuple[Any, ...]) -> tuple:
    """(whether the read is secret whole, the secret paths inside what it reads) for one expression."""
    paths = holder_paths(holder)
    if not paths:
        return False, NO_PATHS
    read = read_path(holder, name, pointer, accessors)
    if read is None:
        return False, NO_PATHS
    inside: list[Path] = []
    for path in paths:
        if len(path) <= len(read):
            if _matches(path, read[: len(path)]):
                return True, NO_PATHS
        elif _matches(path[: len(read)], read):
            inside.append(path[len(read) :])
    return False, tuple(inside)


def _matches(pattern: Path, path: Path) -> bool:
    return all(p is ITEM or p == t or str(p) == str(t) for p, t in zip(pattern, path, strict=True))


def masked_at(value: Any, paths: tuple[Path, ...], mask: Any) -> Any:
    """A copy of `value` with what each path reaches as `mask` (containers copied on the way; members
    that are not there are left as they are)."""
    if not paths:
        return value
    if any(not path for path in paths):
        return mask
    if isinstance(value, Mapping):
        out = dict(value)
        for key in out:
            below = tuple(p[1:] for p in paths if _matches(p[:1], (key,)))
            if below:
                out[key] = masked_at(out[key], below, mask)
        return out
    if isinstance(value, (list, tuple)):
        return [
            masked_at(item, tuple(p[1:] for p in paths if _matches(p[:1], (index,))), mask)
            for index, item in enumerate(value)
        ]
    return value


def numbers_as_text(value: Any, text: Any) -> Any:
    """`value` with each number whose text (as JSON spells it) `text` (`Masker.text`) changes as that
    masked text: a number written into a line of text (a row's header) is text there."""
    kind = type(value)
    if kind is int or kind is float:
        written = repr(value)
        masked = text(written)
        return value if masked == written else masked
    if kind is dict:
        return {key: numbers_as_text(member, text) for key, member in value.items()}
    if kind is list:
        return [numbers_as_text(member, text) for member in value]
    return value
