"""The brokers of a run: which broker an AsyncAPI step uses, with which credentials, and one connection
per broker (and user) for the whole run, closed when it ends.

The broker: `--server SOURCE=URL` (`RunOptions.servers`, e.g. `mqtt://127.0.0.1:1883`) when given,
else the first server the channel lists (every server of the document when it lists none), its host's
`{variables}` filled as for OpenAPI servers (`--server-var`, `ARAZZO_SERVER_VAR_*`, then the default).
Credentials: the AsyncAPI security schemes the server names, looked up by the same rules as HTTP ones
(`http/credentials.py`: `--auth SOURCE:SCHEME.username=...`, inputs, `ARAZZO_AUTH_*`); user/password
schemes (userPassword, plain, scramSha256/512) are read as `basic`. TLS for the secure protocols
(`secure-mqtt`, `wss`, `kafka-secure`, `amqps`...), verified with the run's default trust store.
"""

from __future__ import annotations

import asyncio
import os
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from ..messages import Broker, MessageTransport, TransportError, new_transport, protocol_entry, uses_tls
from .steps.base import Host

if TYPE_CHECKING:
    from ..http.credentials import Owners

_VARIABLE = re.compile(r"\{([^{}]+)\}")


class BrokerError(Exception):
    """No usable broker for a step (no server, an unknown protocol, a variable without a value)."""


def choose_broker(
    options: Any, inputs: Any, target: Any, family: str | None = None, owners: Owners | None = None
) -> tuple[Broker, list[str]]:
    """The broker a step's target uses and notes about the choice (warnings); `inputs`: the run's, where
    credentials may be (None: credentials not looked up, as by the preflight); `family`: the source's
    name in the run's family of documents (`kid/a`), which `--server` and credentials are keyed by
    (default: its own); `owners`: which sources of the family define each scheme name, so a bare
    credential of a name several define is used for none of them (a note says so)."""
    source, description, channel = target.source, target.description, target.channel
    named = family or source  # `--server` and credentials name it by its place in the family
    override = options.servers.get(named)
    notes: list[str] = []
    if not override and named != source and source in options.servers:
        from .servers import unpinned  # HTTP server selection's module: a nested document's source only

        notes.append(unpinned(source, named))
    names = channel.servers or list(description.servers)
    server = description.servers.get(names[0]) if names else None
    if override:
        broker = _from_url(override, server)
    else:
        if server is None:
            raise BrokerError(
                f"source '{named}' declares no servers; pass --server {named}=PROTOCOL://HOST:PORT"
            )
        if len(names) > 1:
            notes.append(f"channel '{channel.key}' has servers {', '.join(names)}: '{server.name}' is used")
        broker = _from_server(options, source, server)
    if protocol_entry(broker.protocol) is None:
        raise BrokerError(
            f"protocol '{broker.protocol}' of source '{source}' has no transport in this engine"
        )
    if inputs is None:
        return broker, notes
    username, password, scheme_type = _credentials(options, inputs, target, server, named, owners, notes)
    broker = Broker(
        broker.protocol,
        broker.host,
        broker.port,
        broker.path,
        broker.tls,
        broker.protocol_version,
        username,
        password,
        broker.client_id,
        scheme_type if username is not None else None,
    )
    return broker, notes


def _from_url(url: str, server: Any) -> Broker:
    """A `--server` URL: `mqtt://host:port`, `nats://...`, `ws://host:port/path`; the protocol version
    stays the document's server's."""
    parts = urlsplit(url)
    if not parts.scheme or not parts.hostname:
        raise BrokerError(f"--server value {url!r} is not PROTOCOL://HOST[:PORT]")
    protocol = parts.scheme.lower()
    version = server.protocol_version if server is not None else None
    try:
        port = parts.port
    except ValueError:
        raise BrokerError(f"--server value {url!r} has an invalid port") from None
    return Broker(protocol, parts.hostname, port, parts.path.rstrip("/"), uses_tls(protocol), version)


def _from_server(options: Any, source: str, server: Any) -> Broker:
    text = _fill(options, source, server)
    hostname, port = _split_host(text)
    return Broker(
        server.protocol,
        hostname,
        port,
        server.pathname.rstrip("/"),
        uses_tls(server.protocol) or bool((server.bindings.get("mqtt") or {}).get("tls")),
        server.protocol_version,
    )


def _fill(options: Any, source: str, server: Any) -> str:
    from .servers import server_var_env_names  # the document's server (no `--server` URL) only

    environ = options.environ if options.environ is not None else os.environ

    def value(match: re.Match) -> str:
        name = match.group(1)
        for key in (f"{source}.{name}", name):
            if key in options.server_variables:
                return options.server_variables[key]
        for env in server_var_env_names(source, name):
            if environ.get(env):
                return environ[env]
        default = (server.variables.get(name) or {}).get("default")
        if default is None:
            raise BrokerError(
                f"server variable '{name}' of source '{source}' has no value: pass --server-var"
            )
        return str(default)

    return _VARIABLE.sub(value, server.host)


def _split_host(text: str) -> tuple[str, int | None]:
    if text.startswith("["):  # [::1]:1883
        hostname, _, rest = text[1:].partition("]")
        port = rest.lstrip(":")
    else:
        hostname, _, port = text.partition(":")
    if port and not port.isdigit():
        raise BrokerError(f"server host {text!r} has an invalid port")
    return unquote(hostname), int(port) if port else None


def _credentials(
    options: Any,
    inputs: Any,
    target: Any,
    server: Any,
    source: str,
    owners: Owners | None = None,
    notes: list[str] | None = None,
) -> tuple[str | None, str | None, str | None]:
    """(user, password, the scheme's type) of the first of the server's and operation's schemes with
    credentials; Nones when none has."""
    names = list(getattr(server, "security", None) or []) + list(
        getattr(target.operation, "security", None) or []
    )
    if not names:
        return None, None, None
    from ..http.credentials import Credentials, qualified  # a broker with security schemes only

    schemes = target.description.security_schemes
    credentials = Credentials(options.auth, [inputs], options.environ, source=source, owners=owners)
    try:
        for name in names:
            scheme = schemes.get(name)
            if scheme is None:
                continue
            found = credentials.fields(name, scheme)
            if found and "username" in found:
                options.secrets.add(found.get("password", ""))
                options.secrets.discard("")
                kind = scheme.get("type") if isinstance(scheme, dict) else None
                return found["username"], found.get("password"), kind if isinstance(kind, str) else None
        return None, None, None
    finally:
        for name, given in credentials.ignored.items():  # the value is never in the note
            if notes is not None:
                notes.append(
                    f"{', '.join(given)} not used: security scheme '{name}' is defined by sources "
                    f"{' and '.join(credentials.sharing(name))}; name the source: --auth "
                    f"{qualified(source, name)}=USER:PASSWORD"
                )


class Brokers:
    """The run's connections, one per (broker URL, user), opened on first use under a lock."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self._open: dict[tuple[str, str | None], MessageTransport] = {}
        self._failed: dict[tuple[str, str | None], str] = {}
        self._lock = asyncio.Lock()

    async def connection(self, broker: Broker) -> MessageTransport:
        key = (broker.url, broker.username)
        async with self._lock:
            found = self._open.get(key)
            if found is not None:
                return found
            if key in self._failed:  # a broker that refused once is not dialled again in the run
                raise TransportError(self._failed[key])
            tls = None
            if broker.tls:
                from ..sources.tls import default_tls_context

                tls = default_tls_context()
            options = self._host.options
            transport = new_transport(
                broker, timeout=options.timeout, tls_context=tls, max_message=options.max_body
            )
            try:
                await transport.connect()
            except TransportError as exc:
                self._failed[key] = str(exc)
                raise
            self._open[key] = transport
            return transport

    async def close(self) -> None:
        for transport in self._open.values():
            await transport.close()
        self._open.clear()


def check_broker(options: Any, target: Any, family: str | None = None) -> str:
    """The preflight's check of an AsyncAPI step's broker: one is named and its transport is installed
    (a missing extra is a one-line error naming it); returns the broker's URL."""
    from ..messages import transport_class

    broker, _ = choose_broker(options, None, target, family)
    transport_class(broker.protocol)
    return broker.url


def brokers(host: Host) -> Brokers:
    """The run's `Brokers`, made on first use and closed with the run."""
    found = host.resources.get("brokers")
    if found is None:
        found = host.resources["brokers"] = Brokers(host)
        host.on_close("brokers", found.close)
    return found
