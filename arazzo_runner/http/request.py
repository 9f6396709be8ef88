"""Build the HTTP request of an operation step from resolved parameter values and body.

Parameters are serialized as the operation declares them (style, explode, allowReserved, or a `content`
media type); a parameter the operation does not declare is still sent, serialized with the location's
default style, with a warning.
"""

from __future__ import annotations

import functools
import re
from types import MappingProxyType
from typing import Any
from urllib.parse import quote, unquote

from ..records import Record, field
from .body import EncodedBody, is_form
from .headers import Headers
from .serialize import (
    content_text,
    cookie_encode,
    encode,
    no_dot_segments,
    serialize_cookie,
    serialize_header,
    serialize_path,
    serialize_query,
)

_TEMPLATE_VAR = re.compile(r"\{([^{}]+)\}")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 field names
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # not allowed in a field value (tab is)
# OpenAPI: header parameters named Accept, Content-Type or Authorization are described by other means.
_ALWAYS_IMPLICIT = frozenset({("accept", "header"), ("content-type", "header"), ("authorization", "header")})
_DEFAULT_STYLE = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}


class RequestBuildError(Exception):
    """The request cannot be built (e.g. a path parameter has no value); the step fails unsent."""


SAME: Any = type("SAME", (), {"__repr__": lambda self: "SAME"})()  # `shown`: as `value`
USERINFO = "the user and password of the server URL"  # the `credential` of the header they become


class ParamValue(Record):
    name: str
    in_: str
    value: Any
    credential: str | None = None  # the security scheme whose credential the engine adds; None: the step's
    shown: Any = SAME  # the value as printed, when part of it is derived from a secret (`taint.py`)

    def __init__(
        self, name: str, in_: str, value: Any, credential: str | None = None, shown: Any = SAME
    ) -> None:
        self.name, self.in_, self.value = name, in_, value  # built per parameter per step
        self.credential, self.shown = credential, shown


class Shown(Record):
    """The printed form of a request whose parts carry values derived from a secret: those parts are
    `***`, the rest as sent (`build_shown`)."""

    url: str
    headers: list[tuple[str, str]]
    content: bytes | None

    def __init__(self, url: str, headers: list[tuple[str, str]], content: bytes | None) -> None:
        self.url, self.headers, self.content = url, headers, content  # one per request


class RequestView(Record):
    """What `$request.*` expressions see: values as the workflow supplied them, before encoding. The
    credentials the engine adds for security schemes are not in it (a document could otherwise copy one
    to another host): `withheld` names them, so that reading one says why it is missing."""

    headers: Headers = field(default_factory=Headers)
    query: dict[str, Any] = field(default_factory=dict)
    path: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    withheld: dict[tuple[str, str], str] = field(default_factory=dict)  # (part, name) -> why; headers folded
    derived: frozenset = frozenset()  # (part, name) carrying a value derived from a secret; ("body", "")

    def __init__(
        self,
        headers: Headers | None = None,
        query: dict[str, Any] | None = None,
        path: dict[str, Any] | None = None,
        body: Any = None,
        withheld: dict[tuple[str, str], str] | None = None,
        derived: frozenset = frozenset(),
    ) -> None:
        self.headers = Headers() if headers is None else headers
        self.query = {} if query is None else query
        self.path = {} if path is None else path
        self.body = body
        self.withheld = {} if withheld is None else withheld
        self.derived = derived


class PreparedRequest(Record):
    method: str
    url: str
    headers: list[tuple[str, str]]
    content: bytes | None
    view: RequestView
    warnings: list[str] = field(default_factory=list)
    path_values: dict[str, str] = field(default_factory=dict)  # serialized, decoded (for validation)
    tls: Any = None  # an ssl.SSLContext presenting a client certificate (mutualTLS); None: the run's own
    document_url: str = ""  # `$url`: the URL without the query credentials the engine added ("": `url`)
    shown: Shown | None = None  # how every writer prints it, when parts derive from a secret
    carried: tuple = ()  # bound credentials (`outbound.Bound`) its derived parts were computed from
    # what of its operation the step sent, for `--coverage`: ((in, name) of each parameter, the body's
    # top-level property names); None for a request of no described operation (x-operation)
    sent: Any = None

    def __init__(
        self,
        method: str,
        url: str,
        headers: list[tuple[str, str]],
        content: bytes | None,
        view: RequestView,
        warnings: list[str] | None = None,
        path_values: dict[str, str] | None = None,
        tls: Any = None,
        document_url: str = "",
        shown: Shown | None = None,
        carried: tuple = (),
        sent: Any = None,
    ) -> None:
        self.method, self.url, self.headers, self.content, self.view = method, url, headers, content, view
        self.sent = sent
        self.warnings = [] if warnings is None else warnings
        self.path_values = {} if path_values is None else path_values
        self.tls = tls
        self.document_url = document_url or url
        self.shown = shown
        self.carried = carried

    def printed(self) -> Shown:
        """The request as every writer shows it (the step's URL line, --verbose, reports, HAR, JUnit,
        --dry-run): with the parts derived from a secret as `***` (`Masker` then masks the rest)."""
        return self.shown or Shown(self.url, self.headers, self.content)


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
    OpenAPI ParameterSpec, which supplies style/explode/allowReserved/content. `implicit` lists (name, in)
    keys the operation accepts without declaring them (security credentials, Accept, Content-Type).
    """
    parts = _Parts()
    for param in params:
        key = _spec_key(param.name, param.in_)
        spec = specs.get(key) if param.in_ != "querystring" else _querystring_spec(specs)
        if (
            spec is None
            and param.in_ in _DEFAULT_STYLE
            and key not in implicit
            and key not in _ALWAYS_IMPLICIT
        ):
            parts.warnings.append(
                f"parameter '{param.name}' (in {param.in_}) is not declared by the operation; sent anyway"
            )
        parts.add(param, spec)
    url = document_url = join_url(base_url, _fill_path(path_template, parts.path))
    if parts.query:
        url += ("&" if "?" in url else "?") + "&".join(parts.query)
        written = [q for i, q in enumerate(parts.query) if i not in parts.credential_query]
        if written:
            document_url += ("&" if "?" in document_url else "?") + "&".join(written)
    headers = parts.headers
    if parts.cookies:
        headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in parts.cookies)
    content = None
    if body is not None:
        parts.view.body = body.value
        content = body.content
        if body.content_type and "content-type" not in headers:
            headers["Content-Type"] = body.content_type
    prepared = PreparedRequest(method.upper(), url, headers.items(), content, parts.view, parts.warnings)
    prepared.path_values = {k: unquote(v) for k, v in parts.path.items()}
    prepared.document_url = document_url
    return prepared


class _Parts:
    """The request's pieces, filled one parameter at a time."""

    def __init__(self) -> None:
        self.view = RequestView()
        self.warnings: list[str] = []
        self.path: dict[str, str] = {}
        self.query: list[str] = []
        self.headers = Headers()
        self.cookies: list[tuple[str, str]] = []
        self.credential_query: set[int] = set()  # indexes in `query` of the engine's credentials
        self._shown = True  # whether the parameter being added is the document's (shown in `view`)

    def add(self, param: ParamValue, spec: Any) -> None:
        style = getattr(spec, "style", None) or _DEFAULT_STYLE.get(param.in_, "simple")
        explode = getattr(spec, "explode", None)
        explode = style == "form" if explode is None else explode
        adder = _ADDERS.get(param.in_)
        if adder is None:
            raise RequestBuildError(f"parameter '{param.name}' has an unknown location '{param.in_}'")
        self._shown = param.credential is None
        if not self._shown:
            key = param.name.casefold() if param.in_ == "header" else param.name
            added = USERINFO if param.credential == USERINFO else f"security scheme '{param.credential}'"
            self.view.withheld[(param.in_, key)] = (
                f"a credential the engine added ({added}): credentials the engine adds are not readable by "
                "expressions"
            )
        before = len(self.query)
        adder(self, param.name, param.value, spec, _content_type(spec), style, explode)
        if not self._shown:
            self.credential_query.update(range(before, len(self.query)))

    def _path(self, name: str, value: Any, spec: Any, media: str | None, style: str, explode: bool) -> None:
        self.view.path[name] = value
        kind = type(value)
        if media:
            self.path[name] = encode(content_text(value, media))
        elif style == "simple" and (kind is int or (kind is str and value)):  # an id: `serialize_path`'s
            self.path[name] = encode(value if kind is str else str(value))
        else:
            self.path[name] = serialize_path(name, value, style, explode)

    def _query(self, name: str, value: Any, spec: Any, media: str | None, style: str, explode: bool) -> None:
        if self._shown:
            self.view.query[name] = value
        allow = bool(getattr(spec, "allow_reserved", False))
        if media:
            self.query.append(f"{encode(name)}={encode(content_text(value, media), allow_reserved=allow)}")
        else:
            self.query.extend(serialize_query(name, value, style, explode, allow_reserved=allow))

    def _querystring(self, name: str, value: Any, spec: Any, media: str | None, *_: Any) -> None:
        self.query.append(_querystring(value, media))

    def _header(self, name: str, value: Any, spec: Any, media: str | None, style: str, explode: bool) -> None:
        if self._shown:
            self.view.headers[name] = value
        text = content_text(value, media) if media else serialize_header(value, explode)
        self.headers[name] = _field(name, text)

    def _cookie(self, name: str, value: Any, spec: Any, media: str | None, style: str, explode: bool) -> None:
        if media:
            pairs = [(name, cookie_encode(content_text(value, media)))]
        else:
            pairs = serialize_cookie(name, value, explode)  # values come back encoded
        self.cookies.extend((k, _field(k, v, "cookie")) for k, v in pairs)


_ADDERS = MappingProxyType(
    {
        "path": _Parts._path,
        "query": _Parts._query,
        "querystring": _Parts._querystring,
        "header": _Parts._header,
        "cookie": _Parts._cookie,
    }
)


def _content_type(spec: Any) -> str | None:
    """The media type of a parameter described by `content` instead of `schema` (its only key)."""
    content = getattr(spec, "content", None)
    if isinstance(content, dict) and content:
        return next(iter(content))
    return None


def _querystring_spec(specs: dict[tuple[str, str], Any]) -> Any:
    # OpenAPI 3.2 allows one `in: querystring` parameter; its name never appears in the URL.
    return next((spec for (_, in_), spec in specs.items() if in_ == "querystring"), None)


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
    pieces = _template_pieces(template)
    parts = list(pieces)  # literal text and names alternating: each name replaced by its value
    missing = []
    for index in range(1, len(parts), 2):  # a plain loop: every request of every step fills one
        found = values.get(parts[index])
        if found is None:
            missing.append(parts[index])
        else:
            parts[index] = found
    if missing:
        names = ", ".join(f"'{n}'" for n in missing)
        raise RequestBuildError(f"path parameter {names} of '{template}' has no value")
    filled = "".join(parts)
    return no_dot_segments(filled) if "." in filled else filled


@functools.lru_cache(maxsize=1024)
def _template_pieces(template: str) -> tuple[str, ...]:
    """`/pets/{id}/toys` -> ('/pets/', 'id', '/toys'): literal text and names alternating, split once."""
    return tuple(_TEMPLATE_VAR.split(template))


def join_url(base: str, path: str) -> str:
    if not path:
        return base
    return base.rstrip("/") + "/" + path.lstrip("/")


def _querystring(value: Any, media_type: str | None) -> str:
    """Arazzo 1.1 `querystring`: a string is the complete, pre-formatted query string (only characters
    that cannot appear in a query at all are escaped); an object or array is encoded by the operation's
    querystring media type (JSON text percent-encoded as a whole), by default as a form."""
    if isinstance(value, str):
        return quote(value, safe="&=+,;:@/?!$'()*[]%~-._")
    if media_type and not is_form(media_type):
        return encode(content_text(value, media_type))
    if isinstance(value, dict):
        return "&".join(p for k, v in value.items() for p in serialize_query(k, v, plus=True))
    return encode(content_text(value, "application/json"))
