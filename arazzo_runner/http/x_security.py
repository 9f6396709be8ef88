"""Respect's `x-security`: security applied to a step, or to every step of a workflow, with values the
document gives (`docs/semantics.md`, *Extensions*).

    x-security:
      - schemeName: ApiKey              # a scheme of the step's source description ...
        values: {apiKey: $inputs.key}
      - scheme: {type: http, scheme: basic}   # ... or one written inline
        values: {username: me, password: $inputs.secret}

Each entry becomes the header, query parameter or cookie its scheme names (Basic `username` +
`password`, Bearer `token`, apiKey `apiKey`, oauth2 / openIdConnect `accessToken` as a Bearer token);
the workflow's entries apply first, then the step's, and a later entry, like an entry over a parameter,
replaces what an earlier one set at the same place. The values are the run's secrets from then on, and
like the credentials the engine adds they are not readable by `$request` expressions. Nothing is ever
sent half-authenticated: a value that is missing, or a scheme this engine cannot apply (digest, which
needs the server's challenge; mutualTLS), fails the step before anything is sent.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from typing import Any

from ..expressions import CompiledValue
from ..records import Record
from .request import ParamValue

XSECURITY = "x-security"
_SOURCE_SCHEME = re.compile(r"^\$sourceDescriptions\.([A-Za-z0-9_\-]+)\.(.+)$")
_ENTRY_KEYS = frozenset({"scheme", "schemeName", "values"})


class XSecurityError(Exception):
    """An x-security entry that cannot be applied; the step fails unsent with this message."""


class Entry(Record, frozen=True):
    """One `x-security` item: a scheme by name (of a source) or inline, and its values (as written)."""

    scheme_name: str | None
    scheme: dict[str, Any] | None
    values: dict[str, Any]
    at: tuple


def entries(raw: Any, at: tuple) -> tuple[list[Entry], list[tuple[tuple, str]]]:
    """The entries of an `x-security` value, and its shape problems (pointer, message)."""
    if raw is None:
        return [], []
    if not isinstance(raw, list):
        return [], [(at, "x-security must be a list of {scheme | schemeName, values}")]
    found, problems = [], []
    for index, item in enumerate(raw):
        where = (*at, index)
        if not isinstance(item, dict):
            problems.append((where, "an x-security entry must be an object {scheme | schemeName, values}"))
            continue
        unknown = sorted(set(item) - _ENTRY_KEYS)
        name, scheme, values = item.get("schemeName"), item.get("scheme"), item.get("values")
        if unknown:
            problems.append(((*where, unknown[0]), f"unknown x-security field '{unknown[0]}'"))
        elif (name is None) == (scheme is None):
            problems.append((where, "an x-security entry has exactly one of 'scheme' and 'schemeName'"))
        elif name is not None and not isinstance(name, str):
            problems.append(((*where, "schemeName"), "x-security schemeName must be a string"))
        elif scheme is not None and not (isinstance(scheme, dict) and isinstance(scheme.get("type"), str)):
            problems.append(
                ((*where, "scheme"), "x-security scheme must be a security scheme object with a type")
            )
        elif not isinstance(values, dict):
            problems.append((where, "an x-security entry needs 'values' (an object)"))
        else:
            found.append(Entry(name, scheme, values, where))
    return found, problems


def required_values(scheme: dict[str, Any]) -> tuple[str, ...]:
    """The `values` a scheme needs; raises XSecurityError for a scheme this engine cannot apply."""
    kind = scheme.get("type")
    if kind == "apiKey":
        if scheme.get("in") not in ("header", "query", "cookie") or not isinstance(scheme.get("name"), str):
            raise XSecurityError("an apiKey scheme needs 'name' and 'in' (header, query or cookie)")
        return ("apiKey",)
    if kind == "http":
        name = str(scheme.get("scheme", "")).lower()
        if name == "basic":
            return ("username", "password")
        if name == "digest":
            raise XSecurityError(
                "HTTP digest needs the server's challenge first: this engine does not send it"
            )
        if not name:
            raise XSecurityError("an http scheme needs 'scheme' (basic, bearer, ...)")
        return ("token",)
    if kind in ("oauth2", "openIdConnect"):
        return ("accessToken",)
    raise XSecurityError(f"x-security cannot apply a scheme of type {kind!r}")


def resolve_scheme(entry: Entry, source: str | None, schemes_of: Any) -> dict[str, Any]:
    """The scheme of `entry`: inline, or `schemeName` in the security schemes of the step's source
    (`source`; `$sourceDescriptions.<name>.<scheme>` names another). `schemes_of(source)` gives a
    source's schemes."""
    if entry.scheme is not None:
        return entry.scheme
    name = entry.scheme_name or ""
    match = _SOURCE_SCHEME.match(name)
    if match:
        source, name = match.groups()
    if source is None:
        raise XSecurityError(
            f"x-security schemeName '{entry.scheme_name}': this step has no source description "
            "(x-operation); write the scheme inline"
        )
    scheme = (schemes_of(source) or {}).get(name)
    if not isinstance(scheme, dict):
        raise XSecurityError(
            f"x-security schemeName '{entry.scheme_name}' is not a security scheme of '{source}'"
        )
    return scheme


def params_for(scheme: dict[str, Any], values: dict[str, Any], label: str) -> list[ParamValue]:
    """The parameter carrying the credential of `scheme` with the evaluated `values`."""
    needed = required_values(scheme)
    given = {key: values.get(key) for key in needed}
    absent = [key for key, value in given.items() if not isinstance(value, (str, int, float)) or value == ""]
    if absent:
        raise XSecurityError(f"{label}: {', '.join(repr(a) for a in absent)} has no value")
    text = {key: str(value) for key, value in given.items()}
    kind = scheme["type"]
    if kind == "apiKey":
        return [ParamValue(scheme["name"], scheme["in"], text["apiKey"], XSECURITY)]
    if kind == "http" and str(scheme["scheme"]).lower() == "basic":
        pair = base64.b64encode(f"{text['username']}:{text['password']}".encode()).decode()
        return [ParamValue("Authorization", "header", f"Basic {pair}", XSECURITY)]
    if kind == "http" and str(scheme["scheme"]).lower() != "bearer":
        return [ParamValue("Authorization", "header", f"{scheme['scheme']} {text['token']}", XSECURITY)]
    token = text.get("token", text.get("accessToken"))
    return [ParamValue("Authorization", "header", f"Bearer {token}", XSECURITY)]


def secrets_of(params: Iterable[ParamValue], values: Iterable[Any]) -> list[str]:
    """What joins the run's secrets: each value given and each credential as sent."""
    found = [v for v in values if isinstance(v, str)]
    found += [p.value for p in params if isinstance(p.value, str)]
    found += [p.value.split(" ", 1)[1] for p in params if p.name == "Authorization" and " " in p.value]
    return found


def replacing(params: list[ParamValue], added: list[ParamValue]) -> list[ParamValue]:
    """`params` with `added` in place of any parameter at the same place (header names compared
    case-insensitively): an x-security credential wins over a parameter, a later one over an earlier."""
    last: dict[tuple[str, str], ParamValue] = {}
    for param in added:
        last.pop(_place(param), None)
        last[_place(param)] = param
    return [p for p in params if _place(p) not in last] + list(last.values())


def _place(param: ParamValue) -> tuple[str, str]:
    return param.in_, param.name.casefold() if param.in_ == "header" else param.name


class CompiledEntry(Record, frozen=True):
    entry: Entry
    values: tuple[tuple[str, CompiledValue], ...]


def compile_x_security(workflow: Any, step: Any, compile_at: Any, fail: Any) -> tuple[CompiledEntry, ...]:
    """The workflow's x-security entries, then the step's, their values compiled with `compile_at(raw, at)`
    (the plan's compiler: a bad expression is a document error); a malformed entry is `fail(at, message)`
    (raised: the plan's CompileError), the validator's `x-security` rule saying the same."""
    compiled = []
    for owner in (workflow, step):
        raw = owner.extensions.get(XSECURITY)
        found, problems = entries(raw, (*owner.at, XSECURITY))
        if problems:
            raise fail(*problems[0])
        for entry in found:
            values = tuple((k, compile_at(v, (*entry.at, "values", k))) for k, v in entry.values.items())
            compiled.append(CompiledEntry(entry, values))
    return tuple(compiled)
