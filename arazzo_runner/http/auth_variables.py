"""`ARAZZO_AUTH_*` variables that no security scheme reads: a near miss (`ARAZZO_AUTH_API_KEY` where the
scheme `api_key` reads `ARAZZO_AUTH_API_KEY_API_KEY`: the field is part of the name) would otherwise be
silently ignored, and the request sent without its credential. Every front end that reads the variables
(`arazzo run`, `arazzo mcp`, `arazzo agent`, the pytest plugin) says so once, at its start, with the
closest name the sources do read. Only names are compared and shown, never a value.

A run with no such variable (the usual one) imports nothing of this: every front end asks on every
run, and an MQTT run loads nothing of the HTTP side's credentials (`tests/e2e/test_import_costs.py`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

PREFIX = "ARAZZO_AUTH_"  # `credentials.ENV_PREFIX`, spelt here so that the question costs no import


def unread_variables(workspaces: Iterable[Any], environ: Mapping[str, str]) -> list[str]:
    """One warning per `ARAZZO_AUTH_*` name in `environ` that no scheme of the workspaces' families reads
    (its bare or its source-qualified form, any field the scheme takes), in name order."""
    if not any(name.startswith(PREFIX) for name in environ):
        return []
    from .credentials import ENV_PREFIX

    read: dict[str, str] = {}
    stems: dict[str, tuple[str, str]] = {}
    unknown: list[str] = []
    for workspace in workspaces:
        read.update(variables_read(workspace, stems, unknown))
    warnings = []
    for name in sorted(n for n in environ if n.startswith(ENV_PREFIX) and n not in read):
        close = _closest(name, sorted(read))
        if name in stems:  # the field left off: the variables of the scheme's main credential
            hint = "did you mean {} ({})?".format(*stems[name])
        elif close:
            hint = f"did you mean {close} ({read[close]})?"
        elif unknown:  # a remote source not fetched (yet) may read it: nothing to say for sure
            continue
        elif read:
            hint = "`arazzo auth FILE` lists the variables the sources read"
        else:
            hint = "the sources define no security scheme that takes one"
        warnings.append(f"{name} is set but no security scheme reads it, so it is not used; {hint}")
    return warnings


def _closest(name: str, read: list[str]) -> str | None:
    """The name `name` most likely misses: one it is the start of (the field left off: `_API_KEY` of
    `ARAZZO_AUTH_API_KEY_API_KEY`), else the closest by spelling after the prefix all of them share."""
    import difflib

    from .credentials import ENV_PREFIX

    started = [r for r in read if r.startswith(name + "_")]
    if started:
        return started[0]
    stems = {r[len(ENV_PREFIX) :]: r for r in read}
    close = difflib.get_close_matches(name[len(ENV_PREFIX) :], list(stems), n=1, cutoff=0.6)
    return stems[close[0]] if close else None


def variables_read(
    workspace: Any, stems: dict[str, tuple[str, str]] | None = None, unknown: list[str] | None = None
) -> dict[str, str]:
    """Each `ARAZZO_AUTH_*` name a scheme of the workspace's family reads -> which scheme (`security
    scheme 'api_key' of source pets`). Sources that cannot be loaded are passed over: nothing reaches
    them, and the run says so on its own. `stems`, when given, gets each scheme's names without their
    field (`ARAZZO_AUTH_BASIC`) -> the variables of its preferred credential (`ARAZZO_AUTH_BASIC_USERNAME
    and ARAZZO_AUTH_BASIC_PASSWORD`; an OAuth2 token, not `client_auth`) and the scheme."""
    from ..sources.family import family_key
    from .credentials import USER_PASSWORD, alternatives, env_name, fields_read

    read: dict[str, str] = {}
    for path, entry, loaded in _sources_without_fetching(workspace, unknown):
        kind = entry.type or "openapi"
        if kind not in ("openapi", "asyncapi"):
            continue
        source = family_key(path, entry.name)
        schemes = loaded.security_schemes
        for name, scheme in schemes.items():
            broker_usable = kind != "asyncapi" or scheme.get("type") in USER_PASSWORD
            fields = fields_read(scheme) if broker_usable else []
            label = f"security scheme '{name}' of source {source}"
            for field in fields:
                for variable in (env_name(name, field, source), env_name(name, field)):
                    read.setdefault(variable, label)
            preferred = alternatives(scheme)[:1] if fields else []
            for form in (source, None) if stems is not None else ():
                for group in preferred:
                    variables = " and ".join(env_name(name, field, form) for field in group)
                    stems.setdefault(env_name(name, "", form)[:-1], (variables, label))
    return read


def _sources_without_fetching(root: Any, unknown: list[str] | None) -> Any:
    """(chain, entry, loaded source) for each source of the family of `root` that can be read without
    the network (`Workspace.source_without_fetching`): the check runs before anything is selected, and
    must not fetch the sources of workflows the run leaves out. A remote source not loaded yet is named
    in `unknown`; one that cannot be loaded is passed over (the run says so when it needs it)."""
    from ..errors import ArazzoError
    from ..sources.family import family_key

    pending: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    seen: set[int] = set()
    while pending:
        current, path = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        for entry in current.document.sources:
            try:
                loaded = current.source_without_fetching(entry.name)
            except ArazzoError:
                continue
            if loaded is None:
                if unknown is not None:
                    unknown.append(family_key(path, entry.name))
            elif entry.type == "arazzo":
                pending.append((loaded, (*path, entry.name)))
            else:
                yield path, entry, loaded
