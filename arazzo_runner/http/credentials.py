"""Where the credentials of a security scheme come from, and the names under which to give them.

Fields: `token`, `username`, `password`, `api_key`, `client_id`, `client_secret` (and `client_auth`,
`basic` or `post`, for OAuth2 client credentials), `cert` (and `key`, `password`: a mutualTLS client
certificate's PEM file, its private key's file when apart, the key's passphrase). For each field of
scheme S, first match wins:

1. `--auth S.field=VALUE` (RunOptions.auth["S.field"]), or `--auth S=VALUE` for the scheme's main field;
2. the inputs: an input named S holding the main credential as a string, or an object of fields
   (`{"username": ..., "password": ...}`; camelCase `apiKey`, `clientId`, `clientSecret`, `accessToken`
   are accepted too);
3. the environment: `ARAZZO_AUTH_<S>_<FIELD>`, S upper-cased with every other character as `_`
   (scheme `petstore-auth` -> `ARAZZO_AUTH_PETSTORE_AUTH_TOKEN`).

The main field: apiKey -> api_key; http basic -> "username:password"; http bearer (or another http
scheme), oauth2, openIdConnect -> token; mutualTLS -> cert.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

FIELDS = (
    "token",
    "username",
    "password",
    "api_key",
    "client_id",
    "client_secret",
    "client_auth",
    "cert",
    "key",
)
_OPTIONAL = {"oauth2": ("client_auth",), "mutualTLS": ("key", "password")}  # used when given
ENV_PREFIX = "ARAZZO_AUTH_"
_CAMEL = {
    "apiKey": "api_key",
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "accessToken": "token",
}


def env_name(scheme: str, field: str) -> str:
    return f"{ENV_PREFIX}{re.sub(r'[^A-Za-z0-9]', '_', scheme).upper()}_{field.upper()}"


def scheme_kind(scheme: dict[str, Any]) -> str:
    """apiKey | basic | bearer | http (another HTTP scheme) | oauth2 | openIdConnect | mutualTLS | unknown"""
    kind = scheme.get("type")
    if kind == "http":
        name = str(scheme.get("scheme", "")).lower()
        return name if name in ("basic", "bearer") else "http"
    return kind if kind in ("apiKey", "oauth2", "openIdConnect", "mutualTLS") else "unknown"


def main_field(scheme: dict[str, Any]) -> str | None:
    """The field `--auth S=VALUE` (or an input string) sets; "basic" splits `user:password`."""
    return {
        "apiKey": "api_key",
        "basic": "basic",
        "bearer": "token",
        "http": "token",
        "oauth2": "token",
        "openIdConnect": "token",
        "mutualTLS": "cert",
    }.get(scheme_kind(scheme))


def alternatives(scheme: dict[str, Any]) -> list[tuple[str, ...]]:
    """The sets of fields that make the scheme usable, preferred first."""
    kind = scheme_kind(scheme)
    if kind == "apiKey":
        return [("api_key",)]
    if kind == "basic":
        return [("username", "password")]
    if kind in ("bearer", "http", "openIdConnect"):
        return [("token",)]
    if kind == "oauth2":
        return [("token",), ("client_id", "client_secret")]
    if kind == "mutualTLS":
        return [("cert",)]
    return []


class Credentials:
    """Looks credentials up: --auth values, then inputs, then the environment (see the module doc)."""

    def __init__(
        self,
        auth: Mapping[str, str] | None = None,
        inputs: list[Mapping[str, Any]] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self._auth = dict(auth or {})
        self._inputs = [i for i in inputs or [] if isinstance(i, Mapping)]
        self._environ = os.environ if environ is None else environ

    def get(self, name: str, scheme: dict[str, Any], field: str) -> str | None:
        for lookup in (self._from_auth, self._from_inputs, self._from_env):
            value = lookup(name, scheme, field)
            if value:
                return value
        return None

    def fields(self, name: str, scheme: dict[str, Any]) -> dict[str, str] | None:
        """The first complete set of fields for the scheme, or None when none is available."""
        for wanted in alternatives(scheme):
            found = {f: self.get(name, scheme, f) for f in wanted}
            if all(found.values()):
                optional = () if "token" in wanted else _OPTIONAL.get(scheme_kind(scheme), ())
                extra = {f: self.get(name, scheme, f) for f in optional}
                return {k: v for k, v in {**found, **extra}.items() if v}
        return None

    def _from_auth(self, name: str, scheme: dict[str, Any], field: str) -> str | None:
        if f"{name}.{field}" in self._auth:
            return self._auth[f"{name}.{field}"]
        return _from_main(self._auth.get(name), scheme, field)

    def _from_inputs(self, name: str, scheme: dict[str, Any], field: str) -> str | None:
        for inputs in self._inputs:
            value = inputs.get(name)
            if isinstance(value, Mapping):
                members = {_CAMEL.get(k, k): v for k, v in value.items()}
                if isinstance(members.get(field), (str, int)) and not isinstance(members[field], bool):
                    return str(members[field])
            elif isinstance(value, str):
                return _from_main(value, scheme, field)
        return None

    def _from_env(self, name: str, scheme: dict[str, Any], field: str) -> str | None:
        return self._environ.get(env_name(name, field)) or None


def _from_main(value: str | None, scheme: dict[str, Any], field: str) -> str | None:
    """The part of a main credential (`--auth S=VALUE`, an input string) that is `field`."""
    if not value:
        return None
    main = main_field(scheme)
    if main == "basic":
        username, sep, password = value.partition(":")
        if sep:
            return {"username": username, "password": password}.get(field)
        return None
    return value if field == main else None


def env_names(name: str, scheme: dict[str, Any]) -> list[list[str]]:
    """The environment variables to set for a scheme, one list per alternative."""
    return [[env_name(name, f) for f in wanted] for wanted in alternatives(scheme)]
