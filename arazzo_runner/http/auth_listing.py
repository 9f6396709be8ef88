"""`arazzo auth FILE`: per source description, each security scheme, where its credential goes and the
environment variables to set. Never a credential value: only whether each variable is set."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .credentials import alternatives, env_name, main_field, scheme_kind


def describe_security(workspace: Any, environ: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One entry per OpenAPI source (of the document and of its arazzo sources, depth first)."""
    environ = os.environ if environ is None else environ
    entries: list[dict[str, Any]] = []
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
                description = current.source(source.name)
                schemes = description.security_schemes
                entries.append(
                    {
                        "source": source.name,
                        "url": source.url,
                        "schemes": [_scheme(name, s, environ) for name, s in schemes.items()],
                    }
                )
    return entries


def _scheme(name: str, scheme: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    groups = [
        [{"name": env_name(name, f), "set": bool(environ.get(env_name(name, f)))} for f in g]
        for g in alternatives(scheme)
    ]
    main = main_field(scheme)
    return {
        "name": name,
        "type": scheme.get("type"),
        "sends": where(scheme),
        "environment": groups,
        "flag": None
        if main is None
        else f"--auth {name}=" + {"basic": "USER:PASSWORD", "cert": "CERT.pem"}.get(main, "VALUE"),
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
                lines.append(f"    or:  {scheme['flag']} (or an input named {scheme['name']})")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n" if lines else "no OpenAPI sources\n"
