"""Where the credentials of a security scheme come from, and the names under which to give them.

Credentials are keyed by source and scheme: a credential given for scheme S of source D never goes to a
scheme S of another source (another origin). D is the source's name in the family of documents
(`sources/family.py`): `a` for the run's document's source `a`, `kid/a` for the source `a` of its arazzo
source `kid`; a nested document choosing its parent's source name is still another source. Fields:
`token`, `username`, `password`, `api_key`, `client_id`, `client_secret` (and `client_auth`, `basic` or
`post`, for OAuth2 client credentials), `cert` (and `key`, `password`: a mutualTLS client certificate's
PEM file, its private key's file when apart, the key's passphrase). For each field of scheme S of source
D, first match wins:

1. `--auth D:S.field=VALUE` (RunOptions.auth["D:S.field"]), or `--auth D:S=VALUE` for the main field;
   then the bare `--auth S.field=VALUE`, `--auth S=VALUE`;
2. the inputs: an input named `D:S`, then one named S, holding the main credential as a string, or an
   object of fields (`{"username": ..., "password": ...}`; camelCase `apiKey`, `clientId`,
   `clientSecret`, `accessToken` are accepted too);
3. the environment: `ARAZZO_AUTH_<D>__<S>_<FIELD>`, then `ARAZZO_AUTH_<S>_<FIELD>`, names upper-cased
   with every other character as `_` (scheme `petstore-auth` -> `ARAZZO_AUTH_PETSTORE_AUTH_TOKEN`), the
   parts of a nested D joined by `__` too (`kid/a` -> `ARAZZO_AUTH_KID__A__<S>_<FIELD>`).

A bare form (no source) applies only while S is the scheme of one source of the family: when several
define a scheme S, a bare credential is ambiguous and used for none of them (`ignored` says which were,
for a warning). A variable name that two (source, scheme) pairs map to (`kid__a` and `kid/a`, `my-api`
and `my_api`) is ambiguous the same way (`collided`). `:` is in neither a source name nor a scheme name,
and `/` in no source name, so `D:S` and `kid/a` never read as something else.

The main field: apiKey -> api_key; http basic -> "username:password"; http bearer (or another http
scheme), oauth2, openIdConnect -> token; mutualTLS -> cert.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Mapping
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
USER_PASSWORD = ("userPassword", "plain", "scramSha256", "scramSha512")  # AsyncAPI scheme types
_CAMEL = {
    "apiKey": "api_key",
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "accessToken": "token",
}


def env_name(scheme: str, field: str, source: str | None = None) -> str:
    """`ARAZZO_AUTH_<SCHEME>_<FIELD>`, or with a source `ARAZZO_AUTH_<SOURCE>__<SCHEME>_<FIELD>` (a nested
    source's parts joined by `__`: `kid/a` -> `KID__A`)."""
    return f"{_env_stem(scheme, source)}{field.upper()}"


def _env_stem(scheme: str, source: str | None) -> str:
    prefix = "" if source is None else "".join(_slug(part) + "__" for part in source.split("/"))
    return f"{ENV_PREFIX}{prefix}{_slug(scheme)}_"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def qualified(source: str, scheme: str) -> str:
    """The key of scheme `scheme` of source `source` in `--auth`, `RunOptions.auth` and the inputs."""
    return f"{source}:{scheme}"


def scheme_kind(scheme: dict[str, Any]) -> str:
    """apiKey | basic | bearer | http (another HTTP scheme) | oauth2 | openIdConnect | mutualTLS | unknown"""
    kind = scheme.get("type")
    if kind == "http":
        name = str(scheme.get("scheme", "")).lower()
        return name if name in ("basic", "bearer") else "http"
    if kind in USER_PASSWORD:  # AsyncAPI broker schemes: a user and a password, as basic
        return "basic"
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


def fields_read(scheme: dict[str, Any]) -> list[str]:
    """Every field the engine may read for the scheme: each alternative's, then the optional ones."""
    fields = [f for group in alternatives(scheme) for f in group]
    return [*dict.fromkeys([*fields, *_OPTIONAL.get(scheme_kind(scheme), ())])]


Owners = Callable[[], Mapping[str, Collection[str]]]  # scheme name -> the sources defining it


class Credentials:
    """Looks credentials up for the schemes of one source: --auth values, then inputs, then the
    environment (see the module doc). `owners` says which sources define each scheme name (asked only
    when a bare credential is found); without a `source`, only the bare forms are read."""

    def __init__(
        self,
        auth: Mapping[str, str] | None = None,
        inputs: list[Mapping[str, Any]] | None = None,
        environ: Mapping[str, str] | None = None,
        *,
        source: str | None = None,
        owners: Owners | None = None,
    ) -> None:
        self._auth = dict(auth or {})
        self._inputs = [i for i in inputs or [] if isinstance(i, Mapping)]
        self._environ = os.environ if environ is None else environ
        self._source = source
        self._owners = owners
        self.ignored: dict[str, list[str]] = {}  # scheme -> bare credentials not used: ambiguous
        self.collided: dict[str, list[str]] = {}  # variable -> the `D:S` keys it names: not used
        self.given_by: dict[tuple[str, str], str] = {}  # (scheme, field) -> auth | inputs | env
        self._stems: dict[str, list[str]] | None = None

    def get(self, name: str, scheme: dict[str, Any], field: str) -> str | None:
        layers = (("auth", self._from_auth), ("inputs", self._from_inputs), ("env", self._from_env))
        for where, lookup in layers:
            if self._source is not None:
                value = lookup(qualified(self._source, name), scheme, field, self._source)
                if value:
                    self.given_by[(name, field)] = where
                    return value
            value = lookup(name, scheme, field, None)
            if value and self._bare_allowed(name, where, field):
                self.given_by[(name, field)] = where
                return value
        return None

    def engine_given(self, name: str, field: str) -> bool:
        """Whether the field found for scheme `name` came from `--auth` or the environment (the engine's
        to guard: `http/outbound.py`), not from an input (the document's own)."""
        return self.given_by.get((name, field)) in ("auth", "env")

    def fields(self, name: str, scheme: dict[str, Any]) -> dict[str, str] | None:
        """The first complete set of fields for the scheme, or None when none is available."""
        for wanted in alternatives(scheme):
            found = {f: self.get(name, scheme, f) for f in wanted}
            if all(found.values()):
                optional = () if "token" in wanted else _OPTIONAL.get(scheme_kind(scheme), ())
                extra = {f: self.get(name, scheme, f) for f in optional}
                return {k: v for k, v in {**found, **extra}.items() if v}
        return None

    @property
    def source(self) -> str | None:
        return self._source

    def sharing(self, name: str) -> list[str]:
        """The sources defining a scheme `name` when more than this one does (a bare name is then
        ambiguous), else []."""
        if self._source is None or self._owners is None:
            return []
        owners = sorted(self._owners().get(name, ()))
        return owners if set(owners) - {self._source} else []

    def _bare_allowed(self, name: str, where: str, field: str) -> bool:
        """A bare credential is used while no other source defines a scheme of this name."""
        if not self.sharing(name):
            return True
        given = {"auth": f"--auth {name}", "inputs": f"input '{name}'"}.get(where) or env_name(name, field)
        said = self.ignored.setdefault(name, [])
        if given not in said:
            said.append(given)
        return False

    def _from_auth(self, key: str, scheme: dict[str, Any], field: str, source: str | None) -> str | None:
        if f"{key}.{field}" in self._auth:
            return self._auth[f"{key}.{field}"]
        return _from_main(self._auth.get(key), scheme, field)

    def _from_inputs(self, key: str, scheme: dict[str, Any], field: str, source: str | None) -> str | None:
        for inputs in self._inputs:
            value = inputs.get(key)
            if isinstance(value, Mapping):
                members = {_CAMEL.get(k, k): v for k, v in value.items()}
                if isinstance(members.get(field), (str, int)) and not isinstance(members[field], bool):
                    return str(members[field])
            elif isinstance(value, str):
                return _from_main(value, scheme, field)
        return None

    def _from_env(self, key: str, scheme: dict[str, Any], field: str, source: str | None) -> str | None:
        name = key if source is None else key[len(source) + 1 :]
        variable = env_name(name, field, source)
        value = self._environ.get(variable) or None
        if value is None or self._source is None or self._owners is None:
            return value
        stems, mine = self._variable_owners(), qualified(self._source, name)
        if source is not None:
            others = env_collisions(name, source, stems)
        else:  # a scheme of another name (the same one in several sources is `_bare_allowed`'s case)
            others = [k for k in stems.get(_env_stem(name, None), []) if k.rpartition(":")[2] != name]
        if others:  # another (source, scheme) pair has this variable too
            self.collided[variable] = sorted({mine, *others})
            return None
        return value

    def _variable_owners(self) -> dict[str, list[str]]:
        if self._stems is None:
            self._stems = variable_owners(self._owners() if self._owners is not None else {})
        return self._stems


def variable_owners(owners: Mapping[str, Collection[str]]) -> dict[str, list[str]]:
    """Each variable stem (`ARAZZO_AUTH_<D>__<S>_`, `ARAZZO_AUTH_<S>_`) -> the `D:S` keys of the family
    it names, from `owners` (scheme -> its sources); a qualified stem naming several is ambiguous."""
    stems: dict[str, list[str]] = {}
    for name, sources in owners.items():
        for source in sorted(sources):
            key = qualified(source, name)
            for stem in (_env_stem(name, source), _env_stem(name, None)):
                if key not in stems.setdefault(stem, []):
                    stems[stem].append(key)
    return stems


def env_collisions(name: str, source: str, stems: Mapping[str, list[str]]) -> list[str]:
    """The other `D:S` keys whose variables are those of scheme `name` of `source` (`variable_owners`)."""
    mine = qualified(source, name)
    return [k for k in stems.get(_env_stem(name, source), []) if k != mine]


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


def env_names(name: str, scheme: dict[str, Any], source: str | None = None) -> list[list[str]]:
    """The environment variables to set for a scheme (of `source`: the qualified names), one list per
    alternative."""
    return [[env_name(name, f, source) for f in wanted] for wanted in alternatives(scheme)]
