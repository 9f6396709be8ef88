"""Whether an operation step's big JSON body may be read as a stream (`bounds/json_stream.py`): when every
use the step makes of it is one the stream answers, the document is never built (issue 43).

The uses, of the step's success criteria, outputs and actions (their criteria and parameters):
- a JSON pointer into `$response.body` (`$response.body#/a/0/b`), wherever it is written (an output, a
  criterion's context, a `simple` condition, a template): its value is built alone;
- an RFC 9535 `jsonpath` criterion applied to `$response.body` itself whose query is of the streamed form
  (`query/jsonpath_stream.py`: `$`, names and indexes, one filter reading only `@`).
Anything else reading the body whole (`$response.body` in an output, a `simple` or `regex` condition, an
XPath, a selector, accessors after it, a Goessner query, an embedded condition), a run recording a trace
(`RunOptions.trace`: `--report-json`, `--html`, `--summary`, `--github`, which show every value read or
where each step is written) or a contract check that reads the body (a documented response schema other
than `{}` or `true`, or a `$ref`'d response) takes the usual path: the body parsed whole. So does a body
the stream does not read as json.loads would. What is read from the stream is what the document gives
(tests/unit/test_json_stream.py); a use it did not answer (a pointer reaching nothing, a filter selecting
nothing, whose messages show the document) parses the document then (`StreamedJson.tree`), so nothing but
memory tells the two paths apart.

Worked out once per step of a run (`Host.operation_facts`), and only for a body big enough to stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeGuard

from ...expressions.ast import ResponseRef

if TYPE_CHECKING:
    from ...bounds.json_stream import Uses
    from ...workspace.plan import CompiledStep
    from .base import Host


def body_uses(host: Host, cstep: CompiledStep, target: Any) -> Uses | None:
    """What the step reads of its response body, when a stream can serve all of it; else None."""
    key = ("body-uses", id(cstep), id(target.operation))
    if key not in host.operation_facts:
        host.operation_facts[key] = _uses(host, cstep, target)
    return host.operation_facts[key]


def _uses(host: Host, cstep: CompiledStep, target: Any) -> Uses | None:
    if getattr(host.options, "trace", False) or _contract_reads_body(host, target):
        return None
    pointers: set[tuple[str, ...]] = set()
    filters: dict[str, Any] = {}
    criteria = [*cstep.criteria]
    values = [*cstep.outputs.values()]
    for action in (*cstep.on_success, *cstep.on_failure):
        criteria.extend(action.criteria)
        values.extend(param.value for param in action.params)
    for criterion in criteria:
        check = criterion.check
        streamed = getattr(check, "streamed_query", None)
        query = streamed() if streamed is not None else None
        for expression in check.expressions():
            if not _reads_body(expression):
                continue
            if expression.pointer:
                pointers.add(expression.pointer)
            elif query is not None and expression is check.context_expression:
                from ...query.jsonpath_stream import stream_parts

                parts = stream_parts(query)
                if parts is None:
                    return None
                filters[query.expression] = parts
            else:
                return None
    for value in values:
        for expression in value.expressions():
            if _reads_body(expression):
                if not expression.pointer:  # the body whole
                    return None
                pointers.add(expression.pointer)
    from ...bounds.json_stream import Uses

    return Uses(tuple(pointers), tuple((key, *parts) for key, parts in filters.items()))


def _reads_body(expression: Any) -> TypeGuard[ResponseRef]:
    return type(expression) is ResponseRef and expression.part in ("body", "payload")


def _contract_reads_body(host: Host, target: Any) -> bool:
    """Whether the contract check (on unless `--contract off`) may read a response body of the operation:
    it documents a response media type with a schema other than `{}` or `true` (`http/contract.py`)."""
    from ...http.contract import mode_of

    if mode_of(host.options) == "off" or target.source is None:  # an x-operation has no description
        return False
    try:
        responses = target.operation.responses or {}
        for response in responses.values():
            if not isinstance(response, dict):
                continue
            if "$ref" in response:
                return True
            content = response.get("content")
            for media in (content or {}).values() if isinstance(content, dict) else ():
                schema = media.get("schema") if isinstance(media, dict) else None
                if schema is not None and schema is not True and schema != {}:
                    return True
    except Exception:  # responses that cannot be read: the check says so, and the body is parsed as ever
        return True
    return False
