"""`arazzo auth FILE`: per source description, each security scheme, where its credential goes and the
environment variables to set. Never a credential value: only whether each variable is set.

OpenAPI and AsyncAPI sources alike: a broker scheme the engine's connections use (`userPassword`,
`plain`, `scramSha256`, `scramSha512`: a user and a password, given as `--auth SCHEME=USER:PASSWORD`
or `ARAZZO_AUTH_<SCHEME>_USERNAME` + `_PASSWORD`) is listed with its variables; another (`X509`,
`oauth2` on a broker, ...) is listed as not supported, with none.

Sources are named by their place in the family (`a`, `kid/a`: `sources/family.py`). A scheme name that
several sources define is listed with its qualified keys (`--auth SOURCE:SCHEME=...`,
`ARAZZO_AUTH_<SOURCE>__<SCHEME>_<FIELD>`): the bare ones are ambiguous and not used (credentials.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .credentials import (
    USER_PASSWORD,
    alternatives,
    env_collisions,
    env_name,
    main_field,
    qualified,
    scheme_kind,
    variable_owners,
)

_SECURED = ("openapi", "asyncapi")  # the source types whose descriptions hold security schemes


def describe_security(workspace: Any, environ: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One entry per OpenAPI or AsyncAPI source of the family (the document and its arazzo sources,
    breadth first), named by its place in it (`a`, `kid/a`: `sources/family.py`)."""
    from ..sources.family import family_key, walk

    environ = os.environ if environ is None else environ
    found: list[tuple[str, Any, str, dict[str, dict[str, Any]]]] = []
    for current, path, source in walk(workspace, skip_unloadable=False):
        kind = source.type or "openapi"
        if kind in _SECURED:
            schemes = current.source(source.name).security_schemes
            found.append((family_key(path, source.name), source, kind, schemes))
    owners = _owners((key, schemes) for key, _, _, schemes in found)
    stems = variable_owners(owners)
    return [
        {
            "source": key,
            "url": source.url,
            "type": kind,
            "schemes": [
                _scheme(key, name, s, environ, owners, stems, broker=kind == "asyncapi")
                for name, s in schemes.items()
            ],
        }
        for key, source, kind, schemes in found
    ]


def scheme_sources(workspace: Any) -> dict[str, frozenset[str]]:
    """Scheme name -> the family names of the OpenAPI and AsyncAPI sources defining it (`a`, `kid/a`),
    over the document and its arazzo sources; a source that cannot be loaded is passed over (no request
    can reach it)."""
    from ..errors import ArazzoError
    from ..sources.family import family_key, walk

    found = []
    for current, path, entry in walk(workspace):
        if (entry.type or "openapi") not in _SECURED:
            continue
        try:
            found.append((family_key(path, entry.name), current.source(entry.name).security_schemes))
        except ArazzoError:
            continue
    return _owners(found)


def _owners(found: Any) -> dict[str, frozenset[str]]:
    owners: dict[str, set[str]] = {}
    for source, schemes in found:
        for name in schemes:
            owners.setdefault(name, set()).add(source)
    return {name: frozenset(sources) for name, sources in owners.items()}


def _scheme(
    source: str,
    name: str,
    scheme: dict[str, Any],
    environ: Mapping[str, str],
    owners: Mapping[str, frozenset[str]],
    stems: Mapping[str, list[str]],
    broker: bool = False,
) -> dict[str, Any]:
    others = sorted(owners.get(name, frozenset()) - {source})
    env_source = source if others else None  # a bare name is ambiguous: the qualified keys
    collides = env_collisions(name, source, stems) if others else []
    usable = not broker or scheme.get("type") in USER_PASSWORD  # brokers take a user and a password
    fields = alternatives(scheme) if usable else []
    groups = [[_variable(env_name(name, f, env_source), environ, collides) for f in g] for g in fields]
    main = main_field(scheme) if usable else None
    key = qualified(source, name) if others else name
    return {
        "name": name,
        "type": scheme.get("type"),
        "sends": broker_where(scheme) if broker else where(scheme),
        "environment": groups,
        "flag": None
        if main is None
        else f"--auth {key}=" + {"basic": "USER:PASSWORD", "cert": "CERT.pem"}.get(main, "VALUE"),
        "key": key,
        "shared_with": others,
    }


def _variable(name: str, environ: Mapping[str, str], collides: list[str]) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, "set": bool(environ.get(name))}
    if collides:  # other keys with this variable: it is not used
        found["collides_with"] = collides
    return found


def where(scheme: dict[str, Any]) -> str:
    """Where the credential goes, in words (`header X-API-Key`, `Authorization: Bearer <token>`)."""
    kind = scheme_kind(scheme)
    if kind == "apiKey":
        return f"{scheme.get('in', 'header')} {scheme.get('name')!s}"
    if kind == "basic":
        return "Authorization: Basic <username:password>"
    if kind == "http":
        return f"Authorization: {scheme.get('scheme')} <token>"
    if kind == "oauth2":
        flows = scheme.get("flows") if isinstance(scheme.get("flows"), dict) else {}
        flow = flows.get("clientCredentials")
        if isinstance(flow, dict) and flow.get("tokenUrl"):
            return f"Authorization: Bearer <token> (client credentials from {flow['tokenUrl']}, or a token)"
        return "Authorization: Bearer <token> (give a token; only the client-credentials flow is fetched)"
    if kind in ("bearer", "openIdConnect"):
        return "Authorization: Bearer <token>"
    if kind == "mutualTLS":
        return "a client certificate in the TLS handshake (CERT: PEM file; optional KEY file and PASSWORD)"
    return f"not supported ({scheme.get('type')})"


def broker_where(scheme: dict[str, Any]) -> str:
    """Where an AsyncAPI scheme's credential goes: the broker connection's user and password."""
    kind = scheme.get("type")
    if kind in USER_PASSWORD:
        return f"the broker connection's username and password ({kind})"
    return f"not supported by the engine's broker connections ({kind})"


def render_security(entries: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for entry in entries:
        kind = ", asyncapi" if entry.get("type") == "asyncapi" else ""
        lines.append(f"source {entry['source']} ({entry['url']}{kind})")
        if not entry["schemes"]:
            lines.append("  no security schemes")
        for scheme in entry["schemes"]:
            lines.append(f"  {scheme['name']} ({scheme['type']}): {scheme['sends']}")
            for group in scheme["environment"]:
                names = " + ".join(f"{v['name']}{' (set)' if v['set'] else ''}" for v in group)
                collides = group[0].get("collides_with") if group else None
                if collides:
                    names += f" (not used: also the variable of {' and '.join(collides)}; use --auth)"
                lines.append(f"    env: {names}")
            if scheme["flag"]:
                why = f"or an input named {scheme['key']}"
                shared = scheme["shared_with"]
                if shared:  # the bare name is ambiguous
                    noun = "source" if len(shared) == 1 else "sources"
                    why += f"; '{scheme['name']}' is also a scheme of {noun} {' and '.join(shared)}"
                lines.append(f"    or:  {scheme['flag']} ({why})")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n" if lines else "no OpenAPI or AsyncAPI sources\n"
