"""The order of the workflows of single operations: those that remove or end something, last.

`arazzo run FILE` runs a document's workflows in document order, and the workflows of single operations
share their example inputs: in the description's order, `DELETE /books/{bookId}` removes the example
book before `PATCH /books/{bookId}` and the chains that lend it ask for it, and a `POST /logout` ends
the session every later request needs. So the destructive operations' workflows are written after
every other workflow (the chains too), children before their parents (`DELETE /articles/{slug}/
comments/{id}` before `DELETE /articles/{slug}`, which would take the comments with it), and the ones
that end a session last of all.

Destructive: a `DELETE`, or a `POST`, `PUT` or `PATCH` whose operationId starts with, or whose last
fixed path segment is, a verb that removes or ends (`delete`, `remove`, `cancel`, `revoke`, `logout`...).
A `GET`, `HEAD` or `OPTIONS` never is, whatever its name (HTTP calls them safe).
"""

from __future__ import annotations

import re
from typing import Any

_REMOVING = frozenset(
    {
        "delete", "remove", "destroy", "purge", "erase", "wipe", "drop", "cancel", "revoke",
        "terminate", "deactivate", "disable", "unsubscribe", "unregister", "logout", "signout",
    }
)  # fmt: skip
_SESSION_ENDING = frozenset({"logout", "signout"})
_CHANGING = ("post", "put", "patch")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def destructive_rank(plan: Any) -> int:
    """0: an ordinary operation; 1: one that removes something; 2: one that ends the session."""
    if plan.method == "delete":
        return 1
    if plan.method not in _CHANGING:
        return 0
    verbs = {_verb(plan.operation.operation_id or ""), _verb(_last_segment(plan.path))}
    if verbs & _SESSION_ENDING:
        return 2
    return 1 if verbs & _REMOVING else 0


def last_ones(plans: list[Any]) -> tuple[list[Any], list[Any]]:
    """(ordinary, destructive): the plans in their order, and the destructive ones in the order they
    are to run (see the module docstring)."""
    ranks = [destructive_rank(plan) for plan in plans]
    ordinary = [plan for plan, rank in zip(plans, ranks, strict=True) if rank == 0]
    ranked = [(rank, -_depth(plans[index].path), index) for index, rank in enumerate(ranks) if rank]
    return ordinary, [plans[index] for _, _, index in sorted(ranked)]


def _verb(name: str) -> str:
    """The leading verb of an operationId or a path segment (`logOut`, `sign-out`, `deletePet`)."""
    words = [w.lower() for w in _WORD.findall(name)]
    if len(words) > 1 and words[0] + words[1] in _SESSION_ENDING:
        return words[0] + words[1]
    return words[0] if words else ""


def _last_segment(path: str) -> str:
    fixed = [part for part in path.split("/") if part and not part.startswith("{")]
    return fixed[-1] if fixed else ""


def _depth(path: str) -> int:
    return len([part for part in path.split("/") if part])
