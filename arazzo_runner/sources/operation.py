"""One indexed operation. Only its identity is read at load time; the rest is resolved on first access,
so a description with thousands of operations indexes quickly and a broken `$ref` in an operation the
workflow never calls does not stop the run."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from ..records import Record, field
from .model import ParameterSpec, Server, parse_parameter, parse_servers
from .refs import Node


class Operation(Record, frozen=True):
    """An operation of `source` (the `OpenAPIDescription` that indexed it: it makes its operations, so this
    module does not import it), found at `pointer` (`/paths/~1pets~1{id}/get`)."""

    operation_id: str | None
    method: str
    path: str
    pointer: str
    source: Any = field(repr=False)
    _node: Node = field(repr=False, compare=False)
    _path_item: Node = field(repr=False, compare=False)

    @property
    def raw(self) -> dict[str, Any]:
        """The Operation Object as written (unresolved)."""
        return self._node.value

    @property
    def document(self) -> Any:
        """The data of the document the operation is written in: the root its local `$ref`s name."""
        return self._node.doc.data

    @property
    def written_at(self) -> tuple[str, int, int]:
        """(location, line, column) of the Operation Object as written: in the file of its path item when
        that is a `$ref` to another file (the language server's go-to-definition)."""
        line, column = self._node.doc.locate(self._node.pointer)
        return self._node.doc.location, line, column

    @property
    def summary(self) -> str | None:
        return _text(self.raw.get("summary"))

    @property
    def description(self) -> str | None:
        return _text(self.raw.get("description"))

    @property
    def deprecated(self) -> bool:
        return self.raw.get("deprecated") is True

    @cached_property
    def parameters(self) -> tuple[ParameterSpec, ...]:
        """Path-item and operation parameters; the operation's win on the same name and location."""
        merged: dict[tuple[str, str], ParameterSpec] = {}
        for holder in (self._path_item, self._node):
            for spec in self._parameters_of(holder):
                merged[spec.key] = spec  # an override keeps the path-item parameter's position
        return tuple(merged.values())

    def _parameters_of(self, holder: Node) -> list[ParameterSpec]:
        listed = holder.child("parameters")
        if listed.value is None:
            return []
        if not isinstance(listed.value, list):
            raise listed.error("'parameters' must be a list")
        resolver = self.source.resolver
        return [
            parse_parameter(resolver.follow(listed.child(str(index))), resolver)
            for index in range(len(listed.value))
        ]

    @cached_property
    def request_body(self) -> dict[str, Any] | None:
        """The Request Body Object with its `$ref`s resolved, or None."""
        body = self._node.child("requestBody")
        if body.value is None:
            return None
        resolved = self.source.resolver.deep(body)
        if not isinstance(resolved, dict):
            raise body.error("'requestBody' must be a mapping")
        return resolved

    @cached_property
    def responses(self) -> dict[str, Any]:
        """The Responses Object (status code or `default` -> Response Object), `$ref`s resolved."""
        responses = self._node.child("responses")
        if responses.value is None:
            return {}
        resolved = self.source.resolver.deep(responses)
        if not isinstance(resolved, dict):
            raise responses.error("'responses' must be a mapping")
        return resolved

    @cached_property
    def servers(self) -> list[Server]:
        """Effective servers: the operation's, else the path item's, else the description's (or "/")."""
        for holder in (self._node, self._path_item):
            servers = parse_servers(holder.child("servers"))
            if servers:
                return servers
        return self.source.servers

    @cached_property
    def security(self) -> list[dict[str, list[str]]] | None:
        """Effective security requirements: the operation's (even `[]`), else the description's."""
        if "security" not in self.raw:
            return self.source.security
        security = self._node.child("security")
        if not isinstance(security.value, list):
            raise security.error("'security' must be a list")
        return security.value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
