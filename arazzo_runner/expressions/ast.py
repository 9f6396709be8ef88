"""AST of runtime expressions: one frozen node class per expression form.

Every node keeps its source `text` and an optional chain of `accessors` (`.member`, `[0]`, `['key']`) that
follows the ABNF part (an extension used by `simple` conditions such as `$response.body.count > 0`). A node's
`pointer` holds the unescaped JSON pointer tokens after `#`; `()` means the whole value.
"""

from __future__ import annotations

from typing import ClassVar

from ..records import Record, field

Accessor = str | int
Pointer = tuple[str, ...]


class Rewrite(Record, frozen=True):
    """A dialect form inside an expression (`arazzo_runner.model.dialect`): `text[start:end]` (offsets in the
    expression's own text) is written `replacement` in the standard form; `form` is the form's id."""

    start: int
    end: int
    replacement: str
    form: str


class Expression(Record, frozen=True):
    """Base class of every runtime expression node. `rewrites`: the dialect forms the parser read (the
    node means what their standard form means; `standard_text` spells it)."""

    # keyword-only so that subclasses can declare their own positional fields first
    text: str = field(default="", kw_only=True)
    accessors: tuple[Accessor, ...] = field(default=(), kw_only=True)
    rewrites: tuple[Rewrite, ...] = field(default=(), kw_only=True)

    def __str__(self) -> str:
        return self.text

    @property
    def standard_text(self) -> str:
        """The text with every dialect form written in the standard form."""
        text = self.text
        for rewrite in sorted(self.rewrites, key=lambda r: r.start, reverse=True):
            text = text[: rewrite.start] + rewrite.replacement + text[rewrite.end :]
        return text


class UrlRef(Expression):
    """`$url`: the URL of the request being made."""


class MethodRef(Expression):
    """`$method`: the HTTP method of the request."""


class StatusCodeRef(Expression):
    """`$statusCode`: the HTTP status of the response."""


class SelfRef(Expression):
    """`$self`: the canonical URI of the current Arazzo description (1.1)."""


class MessageSourceRef(Expression):
    """`$request.` / `$response.` / `$message.` followed by a source.

    `part` is `header`, `query`, `path`, `body` or `payload`; `name` is set for the first three and
    `pointer` for the last two.
    """

    part: str
    name: str | None = None
    pointer: Pointer = ()

    root: ClassVar[str] = ""


class RequestRef(MessageSourceRef):
    root: ClassVar[str] = "request"


class ResponseRef(MessageSourceRef):
    root: ClassVar[str] = "response"


class MessageRef(MessageSourceRef):
    root: ClassVar[str] = "message"


class InputsRef(Expression):
    """`$inputs.<name>[#pointer]`: an input of the running workflow."""

    name: str
    pointer: Pointer = ()


class OutputsRef(Expression):
    """`$outputs.<name>[#pointer]`: an output of the running workflow."""

    name: str
    pointer: Pointer = ()


class StepOutputRef(Expression):
    """`$steps.<stepId>.outputs.<name>[#pointer]`."""

    step_id: str
    name: str
    pointer: Pointer = ()


class WorkflowRef(Expression):
    """`$workflows.<workflowId>.(inputs|outputs).<name>[#pointer]`."""

    workflow_id: str
    field: str
    name: str
    pointer: Pointer = ()


class WorkflowStepOutputRef(Expression):
    """`$workflows.<workflowId>.steps.<stepId>.outputs.<name>[#pointer]`: an output of a step of another
    workflow, as its latest execution in this run left it (the 1.1 `dependsOn` form, extended)."""

    workflow_id: str
    step_id: str
    name: str
    pointer: Pointer = ()


class SourceRef(Expression):
    """`$sourceDescriptions.<name>.<reference>`: an operationId/workflowId, else a field."""

    source: str
    reference: str


class ComponentRef(Expression):
    """`$components.<kind>.<name>`; kind is parameters, successActions, failureActions (or inputs)."""

    kind: str
    name: str


# the node of each root that needs no handler of its own (the parser's and `fast.py`'s tables)
MESSAGE_NODES: dict[str, type[MessageSourceRef]] = {
    "request": RequestRef,
    "response": ResponseRef,
    "message": MessageRef,
}
SIMPLE_NODES: dict[str, type[Expression]] = {
    "url": UrlRef,
    "method": MethodRef,
    "statusCode": StatusCodeRef,
    "self": SelfRef,
}
