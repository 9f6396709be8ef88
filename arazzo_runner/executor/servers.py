"""Choosing the base URL of an operation: `--server NAME=URL`, else the OpenAPI servers."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urljoin

_VARIABLE = re.compile(r"\{([^{}]+)\}")


class ServerError(Exception):
    """No usable base URL for an operation."""


def base_url(source: str, description: Any, operation: Any, options: Any) -> str:
    override = options.servers.get(source)
    if override:
        return override
    servers = operation.servers or description.servers
    if not servers:
        raise ServerError(f"source '{source}' declares no servers; pass --server {source}=URL")
    server = _choose(servers, options.server_variables, source)
    url = _fill_variables(server, options.server_variables, source)
    if url.startswith(("http://", "https://")):
        return url
    location = getattr(description, "location", "") or ""
    if location.startswith(("http://", "https://")):
        return urljoin(location, url)
    raise ServerError(
        f"the server URL '{url}' of source '{source}' is relative and the description was read from a file; "
        f"pass --server {source}=URL"
    )


def _choose(servers: list, overrides: dict[str, str], source: str) -> Any:
    """The first server, unless a given server variable is declared only by later ones: then the first
    server that declares it (so `--server-var baseUrl=...` selects the server templated on it)."""
    given = {key.split(".", 1)[1] if key.startswith(source + ".") else key for key in overrides}
    for server in servers:
        if given & set(server.variables):
            return server
    return servers[0]


def _fill_variables(server: Any, overrides: dict[str, str], source: str) -> str:
    def value(match: re.Match) -> str:
        name = match.group(1)
        for key in (f"{source}.{name}", name):
            if key in overrides:
                return overrides[key]
        variable = server.variables.get(name)
        if variable is None or variable.default is None:
            raise ServerError(
                f"server variable '{name}' of '{server.url}' has no value; pass --server-var {name}=VALUE"
            )
        return str(variable.default)

    return _VARIABLE.sub(value, server.url)
