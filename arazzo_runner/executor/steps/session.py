"""A run's HTTP session (`HttpSession`: its secrets, OAuth2 tokens, compiled schemas) and the clients it
makes for mutualTLS client certificates: created on a step's first use, living as long as the run (one
host is one run), those clients closed with it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...http.security import HttpSession

if TYPE_CHECKING:
    from .base import Host

_VALIDATORS = ("validators",)  # the key of the compiled schemas in `operation_facts`


def http_session(host: Host) -> HttpSession:
    """The run's HTTP session (secrets, OAuth2 tokens, validators), created on first use: one host is
    one run, so the session lives exactly as long as the run; the clients it made for client
    certificates are closed with the run."""
    session = host.resources.get("http")
    if session is None:
        # its compiled schemas (`validators`: the contract's, the request checks') are the same for
        # every run of the same options: a batch's runs (`operation_facts`) share them, each row does
        # not compile them again
        validators = host.operation_facts.get(_VALIDATORS)
        if validators is None:
            validators = host.operation_facts[_VALIDATORS] = {}
        session = HttpSession(secrets=host.options.secrets, validators=validators)
        host.resources["http"] = session
        taint = getattr(host, "taint", None)
        if taint is not None:  # values derived from the credentials it binds stay with them too
            taint.guard = session.guard
        plain = (".client_auth", ".cert", ".key")  # a setting and file paths, not secrets
        auth = host.options.auth
        if auth:
            session.secret(*(v for k, v in auth.items() if not k.endswith(plain)))
    return session


def certificate_client(host: Host, context: Any) -> Any:
    """The run's client presenting a mutualTLS client certificate: one per certificate, made on first
    use (httpx sets TLS per client, not per request) and closed with the run."""
    session = http_session(host)
    clients = session.tls_clients
    client = clients.get(id(context))
    if client is None:
        replay = host.options.http_replay  # `--replay-http`: this client sends nothing either
        given = {"verify": context} if replay is None else {"replay": replay}
        client = clients[id(context)] = host.runtime.new_client(host.options.timeout, **given)
        host.on_close("http", lambda: _close_clients(session))  # once: the first closer is kept
    return client


async def _close_clients(session: HttpSession) -> None:
    """Close the clients a run made for client certificates (the run's own client is closed by arun)."""
    for client in session.tls_clients.values():
        await client.aclose()
