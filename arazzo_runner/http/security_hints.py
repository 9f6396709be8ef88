"""What to say when an operation's security finds no credentials: for each scheme, the environment
variables to set or the `--auth` key to give (qualified by the source when several define the name).
The step's warning (`security.py`) and the tool commands' warning at start
(`executor/credential_preflight.py`) say it in the same words. Names only: never a value."""

from __future__ import annotations

from typing import Any

from .credentials import Credentials, alternatives, env_names, qualified

Schemes = dict[str, dict[str, Any]]


def how_to_give(name: str, schemes: Schemes, credentials: Credentials) -> str:
    """How to give the credential of scheme `name` of this source (qualified when the name is shared)."""
    source = credentials.source if credentials.sharing(name) else None
    key = name if source is None else qualified(source, name)
    options = [" and ".join(group) for group in env_names(name, schemes.get(name) or {}, source)]
    return f"set {' or '.join(options)} (or --auth {key}=..., or an input named {key})"


def scheme_hint(name: str, schemes: Schemes, credentials: Credentials) -> str:
    """Why scheme `name` gets no credential, or how to give it one."""
    scheme = schemes.get(name)
    if not isinstance(scheme, dict):
        return f"'{name}' is not a security scheme of the description"
    if not alternatives(scheme):
        return f"'{name}' ({scheme.get('type')}) is not supported by this engine"
    if credentials.sharing(name):
        return f"for '{name}' of source {credentials.source} {how_to_give(name, schemes, credentials)}"
    options = [" and ".join(group) for group in env_names(name, scheme)]
    return f"for '{name}' set {' or '.join(options)} (or --auth {name}=...)"


def missing_warning(requirement: dict[str, Any], schemes: Schemes, credentials: Credentials) -> str:
    """The step's warning when no requirement of its operation's security can be met."""
    hints = [scheme_hint(name, schemes, credentials) for name in requirement]
    names = ", ".join(requirement) or "none"
    return f"no credentials for the operation's security ({names}); sent without them: " + "; ".join(hints)
