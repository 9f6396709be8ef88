"""What runtime expressions can see (`Context`) and the `Missing` marker for values that are not there."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from ..records import Record, field


class Missing:
    """A value an expression refers to but that does not exist; falsy, never confused with JSON null.

    `reason` is a human-readable sentence ("input 'apiKey' was not provided"); `expression` is the source text
    of the expression that produced it, when known; `withheld` marks a value the engine keeps from
    expressions.
    """

    __slots__ = ("expression", "reason", "withheld")

    def __init__(self, reason: str, expression: str | None = None, *, withheld: bool = False) -> None:
        self.reason = reason
        self.expression = expression
        # a value the engine keeps from expressions (a credential it added): the reason quotes no value,
        # so it is told even where a value derived from a secret hides why it is missing
        self.withheld = withheld

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"Missing({self.reason!r})"

    def __str__(self) -> str:
        return self.reason


@runtime_checkable
class MessageView(Protocol):
    """An HTTP request/response or an AsyncAPI message as seen by `$request.`, `$response.`, `$message.`.

    A view may also carry `withheld`: {(part, name): why} for headers (name case-folded) and query
    parameters the message has but expressions may not read (the credentials the engine added to a
    request); reading one gives a Missing saying why."""

    @property
    def headers(self) -> Mapping[str, Any]: ...

    @property
    def query(self) -> Mapping[str, Any]: ...

    @property
    def path(self) -> Mapping[str, Any]: ...

    @property
    def body(self) -> Any: ...


@runtime_checkable
class SourceView(Protocol):
    """A source description as seen by `$sourceDescriptions.<name>.<reference>`."""

    @property
    def fields(self) -> Mapping[str, Any]: ...

    def lookup(self, reference: str) -> Any: ...


class SimpleMessage(Record):
    """A plain `MessageView` (handy for tests and for messages built from already decoded data)."""

    headers: Mapping[str, Any] = field(default_factory=dict)
    query: Mapping[str, Any] = field(default_factory=dict)
    path: Mapping[str, Any] = field(default_factory=dict)
    body: Any = None


class Context(Record):
    """Everything an expression may refer to while a step runs; every member is optional.

    `steps` maps a stepId to that step's outputs; `workflows` maps a workflowId to an object or dict with
    `inputs` and `outputs` mappings (and `steps`: stepId -> outputs, for `$workflows.<id>.steps...`);
    `components` maps a kind (`parameters`, ...) to its named entries.
    """

    inputs: Mapping[str, Any] = field(default_factory=dict)
    steps: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    outputs: Mapping[str, Any] = field(default_factory=dict)
    workflows: Mapping[str, Any] = field(default_factory=dict)
    sources: Mapping[str, SourceView] = field(default_factory=dict)
    components: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    self_uri: str | None = None
    url: str | None = None
    method: str | None = None
    status_code: int | None = None
    request: MessageView | None = None
    response: MessageView | None = None
    message: MessageView | None = None
    # Called with (expression, Missing) when an expression reaches nothing; what it returns is used
    # instead. Only a dry run sets it, to show `<$steps.login.outputs.token>` for values not known yet.
    unresolved: Callable[[Any, Missing], Any] | None = None
    # The run's rule for values derived from a secret (`arazzo_runner.masking.taint.Taint`): criteria ask it
    # before a failure message shows what they read. None: nothing is treated as secret.
    taint: Any = None
    # Called with (expression or Selector Object, value) for each value one resolves to; what it returns
    # is used instead. Set only to build the printed form of a request (`Taint.shown_context`): a value
    # derived from a secret comes back with every leaf masked.
    shown: Callable[[Any, Any], Any] | None = None


_NOT_FOUND: Any = object()


def get_header(headers: Mapping[str, Any], name: str, default: Any = None) -> Any:
    """Look a header up case-insensitively (an exact match first: case-insensitive mappings need no scan)."""
    if name in headers:
        return headers[name]
    folded = name.casefold()
    for key, value in headers.items():
        if key.casefold() == folded:
            return value
    return default


def has_header(headers: Mapping[str, Any], name: str) -> bool:
    return get_header(headers, name, _NOT_FOUND) is not _NOT_FOUND
