"""Respect's `x-operation` step target: a method and an absolute URL instead of an operation of a source
description (presigned URLs, third-party callbacks). `docs/semantics.md`, *Extensions*.

    - stepId: upload
      x-operation:
        method: put
        url: $steps.sign.outputs.uploadUrl     # an absolute URL, a template, or an expression

The URL is evaluated for each attempt and used as it is (its own query string kept, `{name}` filled by
the step's `in: path` parameters). No source description stands behind it, so the engine adds no
credential of any security scheme to it: what it carries is what the step writes (its parameters, its
`x-security`).
"""

from __future__ import annotations

from typing import Any

from ..records import Record, field

XOPERATION = "x-operation"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


class XOperation(Record, frozen=True):
    """The operation an x-operation step describes, shaped like `sources.Operation` where the request
    code reads one: no declared parameters, no request body description, no security."""

    method: str
    url: str  # as written: a URL, a template or an expression
    at: tuple = ()
    operation_id: None = None
    parameters: tuple = ()
    request_body: None = None
    security: tuple = ()
    servers: tuple = ()
    responses: dict = field(default_factory=dict)

    @property
    def path(self) -> str:  # what `arazzo describe` shows for the operation's path
        return self.url


class NoDescription(Record, frozen=True):
    """Stands for the (absent) source description of an x-operation step."""

    security_schemes: dict = field(default_factory=dict)
    servers: tuple = ()
    location: str = ""


class XOperationTarget(Record, frozen=True):
    """What `Workspace.resolve_operation` gives for an x-operation step (`source` is None: none)."""

    operation: XOperation
    source: None = None
    description: NoDescription = field(default_factory=NoDescription)


def x_operation_problem(raw: Any) -> tuple[str, str] | None:
    """(the field at fault, why) when an `x-operation` value is malformed; None when it is usable."""
    if not isinstance(raw, dict):
        return "", "x-operation must be an object {method, url}"
    unknown = sorted(set(raw) - {"method", "url"})
    if unknown:
        return unknown[0], f"unknown x-operation field '{unknown[0]}' (it has method and url)"
    method = raw.get("method")
    if not isinstance(method, str) or method.lower() not in METHODS:
        shown = "" if method is None else f" {method!r}"
        return "method", f"x-operation method{shown} must be one of {', '.join(m.upper() for m in METHODS)}"
    url = raw.get("url")
    if not isinstance(url, str) or not url.strip():
        return "url", "x-operation needs a url (an absolute http(s) URL, or an expression giving one)"
    if not url.startswith(("$", "{")) and not url.lower().startswith(("http://", "https://")):
        return "url", f"x-operation url {url!r} must be absolute (http:// or https://)"
    return None


def x_operation_target(step: Any) -> XOperationTarget | None:
    """The target of a step written with `x-operation`, None for any other step; ValueError (the
    message) when its x-operation is malformed."""
    raw = step.extensions.get(XOPERATION)
    if raw is None:
        return None
    problem = x_operation_problem(raw)
    if problem is not None:
        raise ValueError(problem[1])
    return XOperationTarget(XOperation(raw["method"].lower(), raw["url"], (*step.at, XOPERATION)))
