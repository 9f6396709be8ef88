"""Plain value types read from an OpenAPI description: servers and parameters."""

from __future__ import annotations

from typing import Any

from ..records import Record, field
from .refs import Node, Resolver

PARAMETER_LOCATIONS = ("path", "query", "header", "cookie", "querystring")
# OpenAPI: the default style depends on the location; `querystring` takes its whole value from `content`.
_DEFAULT_STYLE: dict[str, str | None] = {
    "query": "form",
    "cookie": "form",
    "path": "simple",
    "header": "simple",
    "querystring": None,
}


class ServerVariable(Record, frozen=True):
    default: str
    enum: tuple[str, ...] | None = None
    description: str | None = None


class Server(Record, frozen=True):
    """A Server Object: `url` is a template such as `https://{region}.example.com/v1`."""

    url: str
    description: str | None = None
    variables: dict[str, ServerVariable] = field(default_factory=dict, hash=False)


DEFAULT_SERVER = Server(url="/")


class ParameterSpec(Record, frozen=True):
    """A Parameter Object with the OpenAPI defaults applied and `schema`/`content` resolved."""

    name: str
    in_: str
    required: bool = False
    style: str | None = None
    explode: bool = False
    allow_reserved: bool = False
    schema: dict[str, Any] | bool | None = field(default=None, hash=False)
    content: dict[str, Any] | None = field(default=None, hash=False)
    deprecated: bool = False
    description: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        """What makes a parameter unique (name and location); header names are case-insensitive."""
        return (self.in_, self.name.lower() if self.in_ == "header" else self.name)


def parse_servers(node: Node) -> list[Server] | None:
    """The servers listed at `node` (a `servers` member), or None when absent or empty."""
    if node.value is None:
        return None
    if not isinstance(node.value, list):
        raise node.error("'servers' must be a list")
    servers = [_server(node.child(str(index))) for index in range(len(node.value))]
    return servers or None


def _server(node: Node) -> Server:
    raw = node.value
    if not isinstance(raw, dict) or not isinstance(raw.get("url"), str):
        raise node.error("a server must be a mapping with a string 'url'")
    variables = raw.get("variables") or {}
    if not isinstance(variables, dict):
        raise node.child("variables").error("server 'variables' must be a mapping")
    return Server(
        url=raw["url"],
        description=_text(raw.get("description")),
        variables={name: _variable(node.child("variables", name)) for name in variables},
    )


def _variable(node: Node) -> ServerVariable:
    raw = node.value
    if not isinstance(raw, dict) or "default" not in raw:
        raise node.error("a server variable must be a mapping with a 'default'")
    enum = raw.get("enum")
    if enum is not None and not isinstance(enum, list):
        raise node.child("enum").error("a server variable 'enum' must be a list")
    return ServerVariable(
        default=_scalar_text(raw["default"]),
        enum=None if enum is None else tuple(_scalar_text(item) for item in enum),
        description=_text(raw.get("description")),
    )


def parse_parameter(node: Node, resolver: Resolver) -> ParameterSpec:
    """A Parameter Object at `node` (already followed past any `$ref`)."""
    raw = node.value
    if not isinstance(raw, dict):
        raise node.error("a parameter must be a mapping")
    name, in_ = raw.get("name"), raw.get("in")
    if not isinstance(name, str) or not name:
        raise node.error("a parameter needs a string 'name'")
    if in_ not in PARAMETER_LOCATIONS:
        expected = ", ".join(PARAMETER_LOCATIONS)
        raise node.error(f"parameter {name!r} has 'in: {in_}'; expected one of {expected}")
    style = raw.get("style", _DEFAULT_STYLE[in_])
    if style is not None and not isinstance(style, str):
        raise node.child("style").error(f"parameter {name!r} has a non-string 'style'")
    content = resolver.deep(node.child("content")) if "content" in raw else None
    if content is not None and not isinstance(content, dict):
        raise node.child("content").error(f"parameter {name!r} has a 'content' that is not a mapping")
    return ParameterSpec(
        name=name,
        in_=in_,
        required=in_ == "path" or raw.get("required") is True,  # path parameters are always required
        style=style,
        explode=_flag(raw, "explode", style == "form"),
        allow_reserved=_flag(raw, "allowReserved", False),
        schema=resolver.deep(node.child("schema")) if "schema" in raw else None,
        content=content,
        deprecated=_flag(raw, "deprecated", False),
        description=_text(raw.get("description")),
    )


def _flag(raw: dict[str, Any], key: str, default: bool) -> bool:
    value = raw.get(key, default)
    return value if isinstance(value, bool) else default


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _scalar_text(value: Any) -> str:
    # YAML reads `default: 8080` as an int; server variables are strings by definition.
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)
