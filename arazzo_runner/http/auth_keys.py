"""The `[SOURCE:]SCHEME[.FIELD]=VALUE` credential items of `arazzo run --auth`, the tool commands and the
pytest plugin's `--arazzo-auth`: parsed and checked here, in the library, so that every front end reads
them alike (the plugin does not import the CLI). A key must name a security scheme of the document's
sources (a typo is an error, not a credential silently never sent), and a bare scheme name that several
sources define is ambiguous: a credential goes to the one source it is for (`credentials.py`)."""

from __future__ import annotations

from typing import Any

from ..errors import UsageError

# `.credentials` is imported where a key is checked: a run without `--auth` (an MQTT run's) loads none of
# the HTTP side's credentials (`tests/e2e/test_import_costs.py`)


def parse_auth_items(items: list[str], flag: str = "--auth") -> dict[str, str]:
    """`KEY=VALUE` items -> {KEY: VALUE} (a later item wins). A malformed item is a UsageError that never
    shows the value, nor any text that may be it: an item without `=`, or with nothing but `=` after
    its first one (`c2VjcmV0==`: a base64 token's padding), may be the value itself."""
    auth = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            got = "an item without '='"
        elif not value.strip("="):
            got = "an item with no value after its first '='"
        elif not name:
            got = "an item with no key before '='"
        else:
            auth[name] = value
            continue
        shape = "[SOURCE:]SCHEME[.FIELD]=VALUE"
        raise UsageError(f"{flag} expects {shape}, got {got} (not shown: it may be the value)")
    return auth


def auth_secrets(auth: dict[str, str]) -> set[str]:
    """The values of `auth` that are secrets of the run from its start (`client_auth` is a choice)."""
    return {v for k, v in auth.items() if not k.endswith(".client_auth")}


def check_auth_keys(auth: dict[str, str], workspace: Any, flag: str = "--auth") -> None:
    """Each key names a scheme (`SCHEME`, `SCHEME.FIELD`) or a source's scheme (`SOURCE:SCHEME[.FIELD]`)
    of the workspace's family: a UsageError otherwise (`check_scheme_key`)."""
    owners = scheme_owners(workspace)  # a source that cannot be loaded stops here, with its own message
    for key in auth:
        check_scheme_key(key, owners, flag)


def scheme_owners(workspace: Any) -> dict[str, set[str]]:
    """Security scheme name -> the sources (of the document and its arazzo sources) defining it."""
    from .auth_listing import describe_security

    owners: dict[str, set[str]] = {}
    for entry in describe_security(workspace):
        for scheme in entry["schemes"]:
            owners.setdefault(scheme["name"], set()).add(entry["source"])
    return owners


def auth_for(auth: dict[str, str], owners: dict[str, set[str]], flag: str) -> dict[str, str]:
    """The items of `auth` that name a scheme of `owners` (one document's family, of several a front end
    serves: each document gets the credentials for its own sources); one naming a scheme several of its
    sources define is a UsageError, as in `check_scheme_key`."""
    mine = {}
    for key, value in auth.items():
        if scheme_named(key, owners) is not None:
            check_scheme_key(key, owners, flag)
            mine[key] = value
    return mine


def scheme_named(key: str, owners: dict[str, set[str]]) -> str | None:
    """The scheme (`S`, `D:S`) a credential key names, without its `.FIELD`; None: none of `owners`."""
    from .credentials import FIELDS, qualified

    known = set(owners) | {qualified(s, name) for name, sources in owners.items() for s in sources}
    name, _, field = key.rpartition(".")
    return key if key in known else name if name in known and field in FIELDS else None


def check_scheme_key(key: str, owners: dict[str, set[str]], flag: str = "--auth") -> list[str]:
    """The sources the credential key `key` is for (one); UsageError when it names no scheme of `owners`
    or a scheme several of them define."""
    from .credentials import FIELDS, qualified

    scheme = scheme_named(key, owners)
    if scheme is None:
        listed = ", ".join(sorted(owners)) or "none"
        raise UsageError(
            f"{flag} {key}=...: no security scheme named so (schemes: {listed}; fields: "
            f"{', '.join(FIELDS)}; SOURCE:SCHEME for the scheme of one source)"
        )
    sources = sorted(owners.get(scheme, ()))
    if len(sources) > 1:
        names = " and ".join(sources)
        forms = ", ".join(f"{flag} {qualified(s, key)}=..." for s in sources)
        raise UsageError(
            f"{flag} {key}=...: security scheme '{scheme}' is defined by sources {names}; name the "
            f"source it is for: {forms}"
        )
    return sources or [scheme.partition(":")[0]]
