"""`arazzo auth FILE`: per source description, each security scheme, where its credential goes and the
environment variables to set. Never a credential value: only whether each variable is set.

A scheme name that several sources define is listed with its qualified keys (`--auth SOURCE:SCHEME=...`,
`ARAZZO_AUTH_<SOURCE>__<SCHEME>_<FIELD>`): the bare ones are ambiguous and not used (credentials.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .credentials import alternatives, env_name, main_field, qualified, scheme_kind


def describe_security(workspace: Any, environ: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One entry per OpenAPI source (of the document and of its arazzo sources, depth first)."""
    environ = os.environ if environ is None else environ
    found: list[tuple[Any, dict[str, dict[str, Any]]]] = []
    pending, seen = [workspace], set()
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        for source in current.document.sources:
            if source.type == "arazzo":
                pending.append(current.source(source.name))
            elif (source.type or "openapi") == "openapi":
                found.append((source, current.source(source.name).security_schemes))
    owners = _owners((source.name, schemes) for source, schemes in found)
    return [
        {
            "source": source.name,
            "url": source.url,
            "schemes": [_scheme(source.name, name, s, environ, owners) for name, s in schemes.items()],
        }
        for source, schemes in found
    ]


def scheme_sources(workspace: Any) -> dict[str, frozenset[str]]:
    """Scheme name -> the names of the OpenAPI sources defining it, over the document and its arazzo
    sources (one namespace of source names, as for `--server`); a source that cannot be loaded is passed
    over (no request can reach it)."""
    from ..errors import ArazzoError

    found = []
    for current, entry in workspace.family(skip_unloadable=True):
        if (entry.type or "openapi") != "openapi":
            continue
        try:
            found.append((entry.name, current.source(entry.name).security_schemes))
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
) -> dict[str, Any]:
    others = sorted(owners.get(name, frozenset()) - {source})
    env_source = source if others else None  # a bare name is ambiguous: the qualified keys
    groups = [
        [
            {"name": env_name(name, f, env_source), "set": bool(environ.get(env_name(name, f, env_source)))}
            for f in g
        ]
        for g in alternatives(scheme)
    ]
    main = main_field(scheme)
    key = qualified(source, name) if others else name
    return {
        "name": name,
        "type": scheme.get("type"),
        "sends": where(scheme),
        "environment": groups,
        "flag": None
        if main is None
        else f"--auth {key}=" + {"basic": "USER:PASSWORD", "cert": "CERT.pem"}.get(main, "VALUE"),
        "key": key,
        "shared_with": others,
    }


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


def render_security(entries: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for entry in entries:
        lines.append(f"source {entry['source']} ({entry['url']})")
        if not entry["schemes"]:
            lines.append("  no security schemes")
        for scheme in entry["schemes"]:
            lines.append(f"  {scheme['name']} ({scheme['type']}): {scheme['sends']}")
            for group in scheme["environment"]:
                names = " + ".join(f"{v['name']}{' (set)' if v['set'] else ''}" for v in group)
                lines.append(f"    env: {names}")
            if scheme["flag"]:
                why = f"or an input named {scheme['key']}"
                shared = scheme["shared_with"]
                if shared:  # the bare name is ambiguous
                    noun = "source" if len(shared) == 1 else "sources"
                    why += f"; '{scheme['name']}' is also a scheme of {noun} {' and '.join(shared)}"
                lines.append(f"    or:  {scheme['flag']} ({why})")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n" if lines else "no OpenAPI sources\n"
