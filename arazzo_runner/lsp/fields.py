"""The fixed fields of each Arazzo object (1.0.1, and 1.1's additions), for completing a key: which
object the cursor is in is told by the key of the mapping or sequence that holds it."""

from __future__ import annotations

from types import MappingProxyType

_ACTION = (
    ("name", "the action's name"),
    ("type", "end | goto | retry"),
    ("workflowId", "goto/retry: the workflow to run"),
    ("stepId", "goto/retry: the step to go to"),
    ("retryAfter", "retry: seconds to wait"),
    ("retryLimit", "retry: how many times"),
    ("criteria", "when the action applies"),
    ("reference", "a reusable action: $components.successActions.<name>"),
)
_PARAMETER = (
    ("name", "the parameter's name"),
    ("in", "path | query | header | cookie"),
    ("value", "a constant or a runtime expression"),
    ("reference", "a reusable parameter: $components.parameters.<name>"),
)

FIELDS = MappingProxyType(
    {
        "": (
            ("arazzo", "the Arazzo version (1.0.1)"),
            ("info", "title, version, summary, description"),
            ("sourceDescriptions", "the OpenAPI and Arazzo documents the workflows use"),
            ("workflows", "the workflows"),
            ("components", "reusable inputs, parameters and actions"),
        ),
        "info": (
            ("title", "the document's title"),
            ("summary", "a short summary"),
            ("description", "CommonMark"),
            ("version", "the document's own version"),
        ),
        "sourceDescriptions": (
            ("name", "the name expressions use: $sourceDescriptions.<name>"),
            ("url", "where the document is"),
            ("type", "openapi | arazzo"),
        ),
        "workflows": (
            ("workflowId", "the workflow's id"),
            ("summary", "a short summary"),
            ("description", "CommonMark"),
            ("inputs", "the JSON Schema of the inputs"),
            ("dependsOn", "workflows to run first"),
            ("steps", "the steps"),
            ("successActions", "actions when a step succeeds"),
            ("failureActions", "actions when a step fails"),
            ("outputs", "name -> runtime expression"),
            ("parameters", "parameters for every step"),
        ),
        "steps": (
            ("stepId", "the step's id"),
            ("description", "CommonMark"),
            ("operationId", "the operation to call"),
            ("operationPath", "{$sourceDescriptions.<name>.url}#/paths/..."),
            ("workflowId", "the workflow to run"),
            ("parameters", "the operation's parameters"),
            ("requestBody", "contentType, payload, replacements"),
            ("successCriteria", "when the step succeeds"),
            ("onSuccess", "actions when it succeeds"),
            ("onFailure", "actions when it fails"),
            ("outputs", "name -> runtime expression"),
        ),
        "parameters": _PARAMETER,
        "successCriteria": (
            ("condition", "the condition"),
            ("context", "a runtime expression: what the condition reads"),
            ("type", "simple | regex | jsonpath | xpath"),
        ),
        "criteria": (
            ("condition", "the condition"),
            ("context", "a runtime expression: what the condition reads"),
            ("type", "simple | regex | jsonpath | xpath"),
        ),
        "onSuccess": _ACTION,
        "onFailure": _ACTION,
        "successActions": _ACTION,
        "failureActions": _ACTION,
        "requestBody": (
            ("contentType", "the media type"),
            ("payload", "the body"),
            ("replacements", "values put into the payload"),
        ),
        "replacements": (("target", "a JSON pointer or XPath into the payload"), ("value", "the value")),
        "components": (
            ("inputs", "reusable input schemas"),
            ("parameters", "reusable parameters"),
            ("successActions", "reusable success actions"),
            ("failureActions", "reusable failure actions"),
        ),
    }
)

_OPEN = frozenset({"outputs", "properties", "payload", "inputs"})  # free-form members: no field names


_REUSABLE = frozenset({"parameters", "successActions", "failureActions", "inputs"})


def fields_for(ancestors: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The fields of the object whose enclosing keys are `ancestors` (outermost first)."""
    if not ancestors:
        return FIELDS[""]
    last = ancestors[-1]
    if len(ancestors) >= 2 and ancestors[-2] == "components" and last in _REUSABLE:
        return ()  # the names of reusable objects: the user's
    if len(ancestors) >= 3 and ancestors[-3] == "components":  # inside a reusable object
        return FIELDS.get(ancestors[-2], ())
    if last in _OPEN and last != "inputs":
        return ()
    return FIELDS.get(last, ())
