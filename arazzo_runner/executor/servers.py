"""Choosing the base URL of an operation: `--server NAME=URL` (by the source's family name, `a` or
`kid/a`), else the OpenAPI servers.

Servers: the operation's, else the path item's, else the description's (`Operation.servers`). A server
variable takes, in order: `--server-var SOURCE.NAME=...`, `--server-var NAME=...`, the environment
(`ARAZZO_SERVER_VAR_<SOURCE>__<NAME>`, then `ARAZZO_SERVER_VAR_<NAME>`; upper-cased, other characters
as `_`), then its `default`. A value outside the variable's `enum` is used, with a warning.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

from ..errors import SourceError

_VARIABLE = re.compile(r"\{([^{}]+)\}")
ENV_PREFIX = "ARAZZO_SERVER_VAR_"


class ServerError(Exception):
    """No usable base URL for an operation."""


def env_slug(name: str) -> str:
    """`my-region.v2` -> `MY_REGION_V2`: the spelling of a name inside an environment variable name."""
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def server_var_env_names(source: str, name: str) -> list[str]:
    """The environment variables read for server variable `name` of `source`, first match wins."""
    return [f"{ENV_PREFIX}{env_slug(source)}__{env_slug(name)}", f"{ENV_PREFIX}{env_slug(name)}"]


def base_url(*args: Any) -> str:
    """The base URL alone: `resolve_base_url(*args)` without its warnings."""
    return resolve_base_url(*args)[0]


def resolve_base_url(
    source: str,
    description: Any,
    operation: Any,
    options: Any,
    declared: str | None = None,
    family: str | None = None,
    same_as: Any = None,
) -> tuple[str, list[str]]:
    """The base URL for `operation` and warnings about it (a variable value outside its enum).
    `declared`: the source description's `x-serverUrl` (Respect's extension), below `--server`, which
    is looked up by the source's `family` name (`kid/a` for a nested document's source `a`:
    `sources/family.py`; its own name by default). `same_as`: the description the run's document's
    source of the same bare name reads (`top_description`): when it is this one, `--server a=...` pins
    the nested `kid/a` too (one API, whichever document names it; the museum example's layout), and
    `--server kid/a=...` still wins."""
    override = options.servers.get(family or source)
    named = family or source  # how `--server` names it
    if not override and named != source and same_as is not None and same_as is description:
        override = options.servers.get(source)  # the run's document's source reads this description too
    if override:
        return override, []
    notes = [unpinned(source, named)] if named != source and source in options.servers else []
    servers = operation.servers or description.servers
    if declared is not None:
        picked = _declared(declared, description.servers, source)
        if isinstance(picked, str):
            return picked, notes
        servers = [picked]
    if not servers:
        raise ServerError(f"source '{named}' declares no servers; pass --server {named}=URL")
    server = _choose(servers, options.server_variables, source)
    environ = options.environ if getattr(options, "environ", None) is not None else os.environ
    warnings: list[str] = notes
    url = _fill_variables(server, options.server_variables, environ, source, warnings)
    if url.startswith(("http://", "https://")):
        return url, warnings
    location = getattr(description, "location", "") or ""
    if location.startswith(("http://", "https://")):
        return urljoin(location, url), warnings
    raise ServerError(
        f"the server URL '{url}' of source '{named}' is relative and the description was read from a file; "
        f"pass --server {named}=URL"
    )


def top_description(root: Any, source: str, family: str, servers: Any) -> Any:
    """The description the run's document's source `source` reads, when `--server source=...` pins it
    and the source asked about is a nested one of that bare name (`family` is then `kid/source`); None
    otherwise, or when it cannot be loaded (no pin is borrowed then)."""
    if family == source or source not in servers or family in servers or root is None:
        return None
    if root.document.source(source) is None:
        return None
    try:
        return root.source(source)
    except SourceError:
        return None


def unpinned(source: str, family: str) -> str:
    """Said when `--server SOURCE` pins the run's document's source of the name a nested one has too."""
    return (
        f"--server {source}=... pins the run's document's source '{source}'; source '{family}' keeps its "
        f"own servers (pin it with --server {family}=URL)"
    )


_SERVER_INDEX = re.compile(r"^\$servers\.(\d+)\.url$")


def _declared(declared: str, servers: list, source: str) -> Any:
    """Respect's `x-serverUrl`: an absolute URL, or `$servers.<index>.url` (that server of the
    description, its variables filled as usual)."""
    match = _SERVER_INDEX.match(declared)
    if match:
        index = int(match.group(1))
        if index >= len(servers):
            raise ServerError(f"x-serverUrl {declared} of source '{source}': it has {len(servers)} server(s)")
        return servers[index]
    if declared.startswith(("http://", "https://")):
        return declared
    raise ServerError(
        f"x-serverUrl {declared!r} of source '{source}' must be an absolute http(s) URL or "
        "$servers.<index>.url"
    )


def _choose(servers: list, overrides: dict[str, str], source: str) -> Any:
    """The first server, unless a given server variable is declared only by later ones: then the first
    server that declares it (so `--server-var baseUrl=...` selects the server templated on it)."""
    given = {key.split(".", 1)[1] if key.startswith(source + ".") else key for key in overrides}
    for server in servers:
        if given & set(server.variables):
            return server
    return servers[0]


def _fill_variables(
    server: Any, overrides: dict[str, str], environ: Mapping[str, str], source: str, warnings: list[str]
) -> str:
    def value(match: re.Match) -> str:
        name = match.group(1)
        variable = server.variables.get(name)
        found = _given(name, overrides, environ, source)
        if found is None:
            if variable is None or variable.default is None:
                raise ServerError(
                    f"server variable '{name}' of '{server.url}' has no value; pass --server-var {name}=VALUE"
                )
            return str(variable.default)
        text, origin = found
        if variable is not None and variable.enum and text not in variable.enum:
            allowed = ", ".join(variable.enum)
            warnings.append(
                f"server variable '{name}' = '{text}' ({origin}) is not one of its enum values ({allowed})"
            )
        return text

    return _VARIABLE.sub(value, server.url)


def _given(
    name: str, overrides: dict[str, str], environ: Mapping[str, str], source: str
) -> tuple[str, str] | None:
    """A value given for the variable and where it came from: flags first, then the environment."""
    for key in (f"{source}.{name}", name):
        if key in overrides:
            return overrides[key], f"--server-var {key}"
    for env in server_var_env_names(source, name):
        if environ.get(env):
            return environ[env], env
    return None
