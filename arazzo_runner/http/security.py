"""Applying an operation's security requirements to its request.

The effective requirements are the operation's `security`, else the description's (`[]` or absent: none).
The first requirement whose schemes all have credentials (or are already set by the step itself: a
header/query/cookie parameter of an apiKey's name, an `Authorization` header) is applied; `{}` is the
anonymous alternative. When none can be met, the request goes out without credentials and the step gets a
warning naming the environment variables to set. Credentials come from `credentials.Credentials`; every
value used is added to the run's secrets, and no message here ever contains one.
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..records import Record, field
from .credentials import Credentials, scheme_kind
from .exchange import Exchange
from .oauth import TokenCache, TokenError
from .outbound import OutboundGuard, origin_of, remote_plain_http_host
from .request import ParamValue
from .security_hints import how_to_give, missing_warning

Schemes = dict[str, dict[str, Any]]


class SecurityError(Exception):
    """Credentials were available but could not be turned into a request (e.g. a token fetch failed).
    `warnings`: what was said before it failed (a client secret already sent to another origin)."""

    def __init__(self, message: str, warnings: list[str] | None = None) -> None:
        super().__init__(message)
        self.warnings = [] if warnings is None else warnings


class HttpSession(Record):
    """Per-run HTTP state: the secrets seen, the OAuth2 token cache, prepared validators (the same for
    every run of a batch, which share them: `executor/steps/session.http_session`)."""

    secrets: set[str] = field(default_factory=set)
    tokens: TokenCache = field(default_factory=TokenCache)
    validators: dict[Any, Any] = field(default_factory=dict)
    cleartext_warned: set[str] = field(default_factory=set)  # plain-http hosts (and mTLS URLs) warned about
    said: set[str] = field(default_factory=set)  # other once-per-run warnings (ambiguous names, token URLs)
    tls: dict[tuple[str, ...], Any] = field(default_factory=dict)  # mutualTLS: (cert, key) -> SSLContext
    tls_clients: dict[int, Any] = field(default_factory=dict)  # id(SSLContext) -> its client, for the run
    guard: OutboundGuard = field(default_factory=OutboundGuard)  # the engine's credentials and their origins

    def __init__(  # written out: one per run that sends a request
        self,
        secrets: set[str] | None = None,
        tokens: TokenCache | None = None,
        validators: dict[Any, Any] | None = None,
        cleartext_warned: set[str] | None = None,
        said: set[str] | None = None,
        tls: dict[tuple[str, ...], Any] | None = None,
        tls_clients: dict[int, Any] | None = None,
        guard: OutboundGuard | None = None,
    ) -> None:
        self.secrets = set() if secrets is None else secrets  # a set given is kept by reference
        self.tokens = TokenCache() if tokens is None else tokens
        self.validators = {} if validators is None else validators
        self.cleartext_warned = set() if cleartext_warned is None else cleartext_warned
        self.said = set() if said is None else said
        self.tls = {} if tls is None else tls
        self.tls_clients = {} if tls_clients is None else tls_clients
        self.guard = OutboundGuard() if guard is None else guard

    def secret(self, *values: Any) -> None:
        if values:  # (none: the usual answer of `cookie_values`, for every request and response)
            self.secrets.update(v for v in values if isinstance(v, str) and v)


class _Fetching(Record):
    """What fetching an OAuth2 token needs: the run's client, the operation's base URL (a relative
    `tokenUrl` is resolved against it), the timeout, and where to record the token requests."""

    client: Any
    base_url: str
    timeout: float | None
    exchanges: list[Exchange] | None


class _Use(Record):
    name: str
    scheme: dict[str, Any]
    scopes: list[str]
    fields: dict[str, str] | None  # None: the step sets this credential itself
    guarded: frozenset[str] = frozenset()  # fields from --auth or the environment (`outbound.py`)
    label: str = ""  # "security scheme 'x' of source a", for the guard's messages


async def apply_security(
    *,
    operation: Any,
    schemes: dict[str, dict[str, Any]],
    params: list[ParamValue],
    credentials: Credentials,
    session: HttpSession,
    client: Any,
    base_url: str,
    timeout: float | None,
    exchanges: list[Exchange] | None = None,
    tls: list[Any] | None = None,
) -> tuple[list[ParamValue], list[str]]:
    """Parameters carrying the credentials to add to `params`, and warnings; OAuth2 token requests made
    on the way are recorded in `exchanges`, the TLS context of a mutualTLS client certificate in `tls`."""
    record_step_credentials(schemes, params, session)
    requirements = [r for r in operation.security or [] if isinstance(r, dict)]
    if not requirements:
        return [], []
    for requirement in requirements:
        uses = _satisfy(requirement, schemes, params, credentials)
        if uses is not None:
            warnings = _ambiguous_warnings(credentials, schemes, session)
            warnings += token_url_warnings(uses, base_url, session, credentials.source)
            added = []
            try:
                for use in uses:
                    if scheme_kind(use.scheme) == "mutualTLS":
                        _client_certificate(use, session, tls)
                        continue
                    fetching = _Fetching(client, base_url, timeout, exchanges)
                    added.extend(await _credential_params(use, session, fetching))
            except SecurityError as exc:  # what was said stays said: a secret may have gone out
                exc.warnings = warnings + _cleartext_warnings(uses, base_url, session) + exc.warnings
                raise
            return added, warnings + _cleartext_warnings(uses, base_url, session)
    missing = missing_warning(requirements[0], schemes, credentials)
    return [], [*_ambiguous_warnings(credentials, schemes, session), missing]


def _ambiguous_warnings(credentials: Credentials, schemes: Schemes, session: HttpSession) -> list[str]:
    """Bare credentials passed over because several sources define a scheme of that name: said once per
    run, source and name (the value is never in the message)."""
    warnings = []
    for name, given in credentials.ignored.items():
        if _first_time(session, f"ambiguous {credentials.source}:{name}"):
            sources, how = " and ".join(credentials.sharing(name)), how_to_give(name, schemes, credentials)
            warnings.append(
                f"{', '.join(given)} not used: security scheme '{name}' is defined by sources {sources}; "
                f"name the source: {how}"
            )
    for variable, keys in credentials.collided.items():  # a variable name two keys share
        if _first_time(session, f"collided {credentials.source}:{variable}"):
            warnings.append(
                f"{variable} not used: it is the variable of {' and '.join(keys)}; give the credential "
                "with --auth SOURCE:SCHEME=... or an input named SOURCE:SCHEME"
            )
    return warnings


def _first_time(session: HttpSession, said: str) -> bool:
    """Whether the once-per-run warning `said` is said now (not before in the run)."""
    if said in session.said:
        return False
    session.said.add(said)
    return True


def _client_certificate(use: _Use, session: HttpSession, tls: list[Any] | None) -> None:
    """mutualTLS: the TLS context presenting the client certificate, built once per run and files."""
    if use.fields is None:
        return
    cert, key, password = use.fields["cert"], use.fields.get("key"), use.fields.get("password")
    session.secret(password)
    found = session.tls.get((cert, key or ""))
    if found is None:
        found = session.tls[(cert, key or "")] = _load_certificate(use.name, cert, key, password, session)
    if tls is not None:
        tls.append(found)


def _load_certificate(
    name: str, cert: str, key: str | None, password: str | None, session: HttpSession
) -> Any:
    from ..sources.tls import client_certificate_context

    try:
        return client_certificate_context(cert, key, password)
    except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
        why = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or str(exc)
        files = cert if key is None else f"{cert} (key {key})"
        message = f"cannot load the client certificate {files}: {why}; check the files and the key's password"
        raise SecurityError(f"security scheme '{name}': {_redact(message, session.secrets)}") from None


def _cleartext_warnings(uses: list[_Use], base_url: str, session: HttpSession) -> list[str]:
    """Credentials the engine adds, going over plain http to another machine (the request, or an OAuth2
    token request): sent as asked, but said once per host and run, since anyone on the path can read them."""
    warnings = []
    for use in uses:
        if use.fields is None:  # set by the step itself: the document's choice
            continue
        if scheme_kind(use.scheme) == "mutualTLS":
            said = f"{use.name} {base_url}"
            if urlsplit(base_url).scheme.lower() == "http" and said not in session.cleartext_warned:
                session.cleartext_warned.add(said)
                warnings.append(f"security scheme '{use.name}' (mutualTLS) needs https: {base_url} is plain "
                                "http, so no client certificate is presented")  # fmt: skip
            continue
        token_url = _token_url(use.scheme) if "token" not in use.fields else None
        targets = [base_url] + ([urljoin(base_url, token_url)] if token_url else [])
        for url in targets:
            host = remote_plain_http_host(url)
            if host and host not in session.cleartext_warned:
                session.cleartext_warned.add(host)
                warnings.append(
                    f"credentials of '{use.name}' are sent over plain http to {host}: anyone on the network "
                    "can read them; use an https server URL"
                )
    return warnings


def token_url_warnings(
    uses: list[_Use], base_url: str, session: HttpSession, source: str | None
) -> list[str]:
    """OAuth2 client credentials go to the flow's `tokenUrl`. On another origin than the API's, that is
    said once per run and scheme (the document sends the client secret elsewhere than the API it was
    given for); over plain http to another machine there, it is refused (SecurityError): the step fails
    unsent, before any token request."""
    warnings = []
    for use in uses:
        if use.fields is None or "token" in use.fields or scheme_kind(use.scheme) != "oauth2":
            continue
        url = urljoin(base_url, _token_url(use.scheme) or "")
        api = origin_of(base_url)
        if origin_of(url) == api:
            continue
        host = remote_plain_http_host(url)
        if host:
            raise SecurityError(
                f"security scheme '{use.name}': its tokenUrl {url} is plain http to another machine "
                f"({host}) on another origin than the API ({api}); the client secret is not sent there: "
                "use an https tokenUrl, or give a token instead of the client id and secret"
            )
        said = f"token origin {source}:{use.name}"
        if said not in session.said:
            session.said.add(said)
            warnings.append(
                f"security scheme '{use.name}': the client secret is sent to its tokenUrl {url}, on another "
                f"origin than the API ({api})"
            )
    return warnings


def _satisfy(
    requirement: dict[str, Any], schemes: Schemes, params: list[ParamValue], creds: Credentials
) -> list[_Use] | None:
    uses = []
    for name, scopes in requirement.items():
        scheme = schemes.get(name)
        if not isinstance(scheme, dict):
            return None
        scope_list = [str(s) for s in scopes] if isinstance(scopes, list) else []
        if _set_by_step(scheme, params):
            uses.append(_Use(name, scheme, scope_list, None))
            continue
        fields = creds.fields(name, scheme)
        no_flow = scheme_kind(scheme) == "oauth2" and "token" not in (fields or {}) and not _token_url(scheme)
        if fields is None or no_flow:  # client id/secret without a clientCredentials flow: unusable
            return None
        guarded = frozenset(f for f in fields if creds.engine_given(name, f))
        label = f"security scheme '{name}'" + (f" of source {creds.source}" if creds.source else "")
        uses.append(_Use(name, scheme, scope_list, fields, guarded, label))
    return uses


def requirement_met(
    requirement: dict[str, Any], schemes: Schemes, params: list[ParamValue], creds: Credentials
) -> bool:
    """Whether a request with `params` meets `requirement` with `creds` (nothing fetched: the tool
    commands ask it before they start, `executor/credential_preflight.py`)."""
    return _satisfy(requirement, schemes, params, creds) is not None


def _set_by_step(scheme: dict[str, Any], params: list[ParamValue]) -> bool:
    return any(_carries(scheme, p) for p in params)


def _carries(scheme: dict[str, Any], param: ParamValue) -> bool:
    """Whether a step parameter is where `scheme` puts its credential."""
    if scheme.get("type") == "mutualTLS":  # a certificate, never a parameter
        return False
    if scheme.get("type") == "apiKey":
        name, where = str(scheme.get("name", "")), scheme.get("in", "header")
        if param.in_ != where:
            return False
        return param.name.lower() == name.lower() if where == "header" else param.name == name
    return param.in_ == "header" and param.name.lower() == "authorization"


def record_step_credentials(schemes: Schemes, params: list[ParamValue], session: HttpSession) -> None:
    # Credentials a step sets itself (`Authorization: Bearer {$inputs.token}`) are secrets as well.
    for param in params:
        if isinstance(param.value, str) and (
            (param.in_ == "header" and param.name.lower() == "authorization")
            or any(isinstance(s, dict) and _carries(s, param) for s in schemes.values())
        ):
            session.secret(param.value, param.value.partition(" ")[2])


async def _credential_params(use: _Use, session: HttpSession, fetching: _Fetching) -> list[ParamValue]:
    if use.fields is None:
        return []
    session.secret(*(v for k, v in use.fields.items() if k != "client_auth"))
    kind = scheme_kind(use.scheme)
    api = origin_of(fetching.base_url)
    guard, given = session.guard, use.guarded
    if kind == "apiKey":
        where = use.scheme.get("in", "header")
        if "api_key" in given:
            guard.bind(use.fields["api_key"], use.label, api)
        return [ParamValue(str(use.scheme.get("name")), where, use.fields["api_key"], use.name)]
    if kind == "basic":
        pair = f"{use.fields['username']}:{use.fields['password']}".encode()
        encoded = base64.b64encode(pair).decode("ascii")
        session.secret(encoded)
        if "password" in given:
            guard.bind(use.fields["password"], use.label, api)
            guard.bind(encoded, use.label, api)
        return [_authorization("Basic", encoded, session, use.name)]
    token = use.fields.get("token")
    if token is None:
        token = await _client_credentials(use, session, fetching)
        guard.bind(token, use.label, api)  # obtained by the engine: never the document's
    elif "token" in given:
        guard.bind(token, use.label, api)
    if kind == "http":
        return [_authorization(str(use.scheme.get("scheme", "Bearer")), token, session, use.name)]
    return [_authorization("Bearer", token, session, use.name)]


def _authorization(kind: str, credential: str, session: HttpSession, scheme: str) -> ParamValue:
    value = f"{kind} {credential}"
    session.secret(credential, value)
    return ParamValue("Authorization", "header", value, scheme)


async def _client_credentials(use: _Use, session: HttpSession, fetching: _Fetching) -> str:
    token_url = urljoin(fetching.base_url, _token_url(use.scheme) or "")  # relative: against the server
    assert use.fields is not None
    if "client_secret" in use.guarded:  # it goes to the token URL, and only there
        session.guard.bind(use.fields["client_secret"], use.label, origin_of(token_url))
    made: list[Exchange] = []
    try:
        token = await session.tokens.token(
            fetching.client, token_url, use.fields, use.scopes, fetching.timeout, made
        )
    except TokenError as exc:
        raise SecurityError(f"security scheme '{use.name}': {_redact(str(exc), session.secrets)}") from None
    finally:
        for exchange in made:  # every token the endpoint gave is a secret in the recorded body too
            session.secret(*_issued_tokens(exchange.response_body))
        if fetching.exchanges is not None:
            fetching.exchanges.extend(made)
    session.secret(token)
    return token


def _issued_tokens(body: bytes | None) -> list[str]:
    """access/refresh/id tokens of a token response (RFC 6749 5.1, OpenID Connect), to be masked."""
    from ..bounds.json_text import loads

    try:
        data = loads(body or b"null")
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    return [v for k, v in data.items() if k.endswith("_token") and isinstance(v, str)]


def _token_url(scheme: dict[str, Any]) -> str | None:
    flows = scheme.get("flows")
    flow = flows.get("clientCredentials") if isinstance(flows, dict) else None
    url = flow.get("tokenUrl") if isinstance(flow, dict) else None
    return url if isinstance(url, str) and url else None


def _redact(text: str, secrets: set[str]) -> str:
    from ..masking.secrets import Masker

    return Masker(secrets).text(text)
