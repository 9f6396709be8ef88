"""Names fitted to the patterns of the specification, and kept unique.

- workflowId, stepId and source names: `[A-Za-z0-9_-]+` (what the specification recommends, and what
  runtime expressions can name: `$steps.<id>`, `$sourceDescriptions.<name>`);
- output names: `^[a-zA-Z0-9.\\-_]+$` (a MUST);
- input names: `[A-Za-z0-9_-]+`, without the dot the output pattern allows: `$inputs.a.b` would read
  member `b` of an input `a` when one exists (`docs/semantics.md`). They are also unique once written
  as environment variables (`ARAZZO_INPUT_USER_ID` is both `user-id` and `user_id`): `arazzo run` reads
  every declared input from the environment, and refuses two inputs sharing one variable.

Every other character becomes `-` (ids) or `_` (names), runs of them one, none at either end:
`get-orders-{orderId}` -> `get-orders-orderId`, `lists[0].id` -> `lists_0_.id`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

_ID_OTHER = re.compile(r"[^A-Za-z0-9_-]+")
_OUTPUT_OTHER = re.compile(r"[^A-Za-z0-9._-]+")
_INPUT_OTHER = re.compile(r"[^A-Za-z0-9_-]+")
_ENV_OTHER = re.compile(r"[^A-Z0-9]")


def fit_id(text: str, fallback: str) -> str:
    """`text` as a workflowId, stepId or source name."""
    fitted = re.sub(r"-{2,}", "-", _ID_OTHER.sub("-", text)).strip("-")
    return fitted or fallback


def fit_output(text: str, fallback: str = "value") -> str:
    """`text` as an output name (the validator suggests the same: `lists[0].id` -> `lists_0_.id`)."""
    fitted = _OUTPUT_OTHER.sub("_", text)
    return fitted if fitted.strip("_") else fallback


def fit_input(text: str, fallback: str = "value") -> str:
    fitted = _INPUT_OTHER.sub("_", text).strip("_")
    return fitted or fallback


def env_key(name: str) -> str:
    """The environment variable suffix `arazzo run` reads input `name` from (`input_flags.env_name`)."""
    return _ENV_OTHER.sub("_", name.upper())


class Unique:
    """Hands out names not taken yet: `name`, then `name-2`, `name-3`... (`sep` between). `key` says when
    two names count as the same (identity; `env_key` for inputs)."""

    def __init__(
        self, taken: Iterable[str] = (), *, sep: str = "-", key: Callable[[str], str] | None = None
    ) -> None:
        self._key: Callable[[str], str] = key if callable(key) else (lambda name: name)
        self._sep = sep
        self._taken: set[str] = {self._key(name) for name in taken}

    def __contains__(self, name: str) -> bool:
        return self._key(name) in self._taken

    def take(self, name: str) -> str:
        candidate, number = name, 1
        while self._key(candidate) in self._taken:
            number += 1
            candidate = f"{name}{self._sep}{number}"
        self._taken.add(self._key(candidate))
        return candidate


def operation_label(operation_id: str | None, method: str, path: str) -> str:
    """What an operation is called in ids and messages: its operationId, else `get-pets-petId`."""
    if operation_id:
        return operation_id
    return fit_id(f"{method}-{path}", method)


def singular(word: str) -> str:
    """A crude singular, for names only (`pets` -> `pet`, `categories` -> `category`)."""
    lowered = word.lower()
    if lowered.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if lowered.endswith(("ses", "xes", "ches", "shes")) and len(word) > 4:
        return word[:-2]
    if lowered.endswith("s") and not lowered.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word
