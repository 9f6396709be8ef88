"""Build the HTTP request of an operation step from resolved parameter values and body.

Parameters are serialized as the operation declares them (style, explode, allowReserved); a parameter the
operation does not declare is still sent, serialized with the location's default style, with a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from .body import EncodedBody
from .headers import Headers
from .serialize import serialize_cookie, serialize_header, serialize_path, serialize_query

_TEMPLATE_VAR = re.compile(r"\{([^{}]+)\}")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 field names
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # not allowed in a field value (tab is)
# OpenAPI: header parameters named Accept, Content-Type or Authorization are described by other means.
_ALWAYS_IMPLICIT = frozenset({("accept", "header"), ("content-type", "header"), ("authorization", "header")})
_DEFAULT_STYLE = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}


class RequestBuildError(Exception):
    """The request cannot be built (e.g. a path parameter has no value); the step fails unsent."""


@dataclass
class ParamValue:
    name: str
    in_: str
    value: Any


@dataclass
class RequestView:
    """What `$request.*` expressions see: values as the workflow supplied them, before encoding."""

    headers: Headers = field(default_factory=Headers)
    query: dict[str, Any] = field(default_factory=dict)
    path: dict[str, Any] = field(default_factory=dict)
    body: Any = None


@dataclass
class PreparedRequest:
    method: str
    url: str
    headers: list[tuple[str, str]]
    content: bytes | None
    view: RequestView
    warnings: list[str] = field(default_factory=list)


def build_request(
    *,
    method: str,
    base_url: str,
    path_template: str,
    params: list[ParamValue],
    specs: dict[tuple[str, str], Any],
    body: EncodedBody | None,
    implicit: frozenset[tuple[str, str]] = frozenset(),
) -> PreparedRequest:
    """Assemble method, URL, headers and content.

    `specs` maps (name, in) of the operation's declared parameters (header names lowercased) to their
    OpenAPI ParameterSpec, which supplies style/explode/allowReserved. `implicit` lists (name, in) keys
    the operation accepts without declaring them (security credentials, Accept, Content-Type).
    """
    view = RequestView()
    warnings: list[str] = []
    path_values: dict[str, str] = {}
    query: list[str] = []
    headers = Headers()
    cookies: list[tuple[str, str]] = []
    for param in params:
        key = _spec_key(param.name, param.in_)
        spec = specs.get(key)
        if (
            spec is None
            and param.in_ in _DEFAULT_STYLE
            and key not in implicit
            and key not in _ALWAYS_IMPLICIT
        ):
            warnings.append(
                f"parameter '{param.name}' (in {param.in_}) is not declared by the operation; sent anyway"
            )
        style = getattr(spec, "style", None) or _DEFAULT_STYLE.get(param.in_, "simple")
        explode = getattr(spec, "explode", None)
        if explode is None:
            explode = style == "form"
        if param.in_ == "path":
            view.path[param.name] = param.value
            path_values[param.name] = serialize_path(param.name, param.value, style, explode)
        elif param.in_ == "query":
            view.query[param.name] = param.value
            allow = bool(getattr(spec, "allow_reserved", False))
            query.extend(serialize_query(param.name, param.value, style, explode, allow_reserved=allow))
        elif param.in_ == "querystring":
            query.append(_querystring(param.value))
        elif param.in_ == "header":
            view.headers[param.name] = param.value
            headers[param.name] = _field(param.name, serialize_header(param.value, explode))
        elif param.in_ == "cookie":
            pairs = serialize_cookie(param.name, param.value, explode)  # values come back encoded
            cookies.extend((k, _field(k, v, "cookie")) for k, v in pairs)
        else:
            raise RequestBuildError(f"parameter '{param.name}' has an unknown location '{param.in_}'")
    url = _join(base_url, _fill_path(path_template, path_values))
    if query:
        url += ("&" if "?" in url else "?") + "&".join(query)
    if cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies)
    content = None
    if body is not None:
        view.body = body.value
        content = body.content
        if body.content_type and "content-type" not in headers:
            headers["Content-Type"] = body.content_type
    return PreparedRequest(method.upper(), url, headers.items(), content, view, warnings)


def _field(name: str, value: str, kind: str = "header") -> str:
    """A header (or cookie) value as sent; a name or value that would corrupt the request fails the
    step unsent instead of injecting another header."""
    if not _TOKEN.fullmatch(name):
        raise RequestBuildError(f"{name!r} is not a valid {kind} name")
    if _CONTROL.search(value):
        raise RequestBuildError(f"the value of {kind} '{name}' contains a line break or control character")
    return value


def _spec_key(name: str, in_: str) -> tuple[str, str]:
    return (name.lower() if in_ == "header" else name, in_)


def implicit_params(security_schemes: dict[str, Any]) -> frozenset[tuple[str, str]]:
    """(name, in) keys that apiKey security schemes put in headers, queries or cookies."""
    keys = set()
    for scheme in security_schemes.values():
        if (
            isinstance(scheme, dict)
            and scheme.get("type") == "apiKey"
            and isinstance(scheme.get("name"), str)
        ):
            location = scheme.get("in", "header")
            keys.add(_spec_key(scheme["name"], location))
    return frozenset(keys)


def spec_index(specs: Any) -> dict[tuple[str, str], Any]:
    """Index an operation's ParameterSpecs by (name, in); header names are case-insensitive."""
    return {_spec_key(s.name, s.in_): s for s in specs}


def _fill_path(template: str, values: dict[str, str]) -> str:
    missing = [m.group(1) for m in _TEMPLATE_VAR.finditer(template) if m.group(1) not in values]
    if missing:
        names = ", ".join(f"'{n}'" for n in missing)
        raise RequestBuildError(f"path parameter {names} of '{template}' has no value")
    return _TEMPLATE_VAR.sub(lambda m: values[m.group(1)], template)


def _join(base: str, path: str) -> str:
    if not path:
        return base
    return base.rstrip("/") + "/" + path.lstrip("/")


def _querystring(value: Any) -> str:
    # Arazzo 1.1 `querystring`: the value is the complete, pre-formatted query string; only characters
    # that cannot appear in a query at all are escaped.
    if isinstance(value, dict):
        return "&".join(p for k, v in value.items() for p in serialize_query(k, v))
    return quote(str(value), safe="&=+,;:@/?!$'()*[]%~-._")
