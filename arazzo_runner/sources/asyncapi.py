"""Loading an AsyncAPI description (3.0, and 2.6 mapped onto 3.0's terms) and indexing it once.

Loaded through the same machinery as OpenAPI descriptions (`SourceCache`, `Resolver`): bounded fetches,
the sandbox, `$ref`s into other files only where the document's origin allows, nothing fetched that the
document does not name. What the engine needs of it: operations (by id), channels (by key and pointer),
their messages (payload and headers schemas, content type, correlationId location) and servers.

AsyncAPI 2.6 is read as 3.0 would say it (docs/semantics.md, "AsyncAPI 2.6"): a channel's key is its
address; its `publish` operation (others publish, the application receives) is an operation with action
`receive`, its `subscribe` operation (the application sends) one with action `send`; an operation's
`message` (or `oneOf` list) is its messages; a server's `url` is its host (and pathname).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from ..errors import ExpressionError
from ..loader.pointer import format_pointer, parse_pointer
from ..records import Record, field
from .cache import FetchOptions, SourceCache
from .fetch import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT
from .locations import check_allowed, resolve_location
from .parse import ParsedDoc
from .refs import Node, Resolver

if TYPE_CHECKING:
    import httpx

ACTIONS = ("send", "receive")


class AsyncMessage(Record, frozen=True):
    name: str
    pointer: str
    payload: Any = None  # the payload schema ($refs resolved), None: any
    headers: Any = None  # the headers schema, None: any
    content_type: str | None = None
    correlation_location: str | None = None  # e.g. "$message.header#/requestId"


class AsyncServer(Record, frozen=True):
    name: str
    protocol: str
    host: str  # host[:port] (a 2.6 url's scheme removed)
    pathname: str = ""
    protocol_version: str | None = None
    variables: dict = field(default_factory=dict)
    security: list = field(default_factory=list)  # scheme names
    bindings: dict = field(default_factory=dict)


class AsyncChannel(Record, frozen=True):
    key: str
    pointer: str
    address: str | None  # None: the document leaves it to the run (3.0 `address: null`)
    parameters: dict = field(default_factory=dict)
    messages: list = field(default_factory=list)  # AsyncMessage
    servers: list = field(default_factory=list)  # names; empty: every server of the document
    bindings: dict = field(default_factory=dict)


class AsyncReply(Record, frozen=True):
    channel: AsyncChannel | None
    messages: list = field(default_factory=list)


class AsyncOperation(Record, frozen=True):
    operation_id: str
    pointer: str
    action: str  # the described application's: send | receive
    channel: AsyncChannel
    messages: list = field(default_factory=list)  # AsyncMessage; empty: the channel's
    reply: AsyncReply | None = None
    security: list = field(default_factory=list)
    bindings: dict = field(default_factory=dict)


def load_asyncapi(
    url: str,
    base: str | None = None,
    *,
    cache: SourceCache | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
    client: httpx.Client | None = None,
    roots: tuple[str, ...] | None = None,
) -> AsyncAPIDescription:
    """Fetch, parse and index the AsyncAPI description at `url` (as `load_openapi` does an OpenAPI one);
    every problem is a `SourceError` naming the file and, when known, line and column."""
    cache = SourceCache() if cache is None else cache
    location = resolve_location(url, base)
    check_allowed(location, roots, url, base)
    known = cache.description(location)
    if known is not None:
        return known
    options = FetchOptions(timeout=timeout, max_bytes=max_bytes, client=client, roots=roots)
    doc = cache.document(url, base, options)
    version = _check_asyncapi(doc)
    resolver = Resolver(cache, options, doc, v31=False)
    return cache.add_description(AsyncAPIDescription(doc, version, resolver), location, doc.location)


def _check_asyncapi(doc: ParsedDoc) -> str:
    data = doc.data
    if not isinstance(data, dict):
        kind = "empty" if data is None else f"a {type(data).__name__}"
        raise doc.error("", f"not an AsyncAPI description: the document is {kind}, not a mapping")
    if "asyncapi" not in data:
        for key, kind in (("openapi", "an OpenAPI"), ("arazzo", "an Arazzo"), ("swagger", "a Swagger")):
            if key in data:
                raise doc.error(
                    f"/{key}", f"not an AsyncAPI description: this is {kind} {data[key]} document"
                )
        raise doc.error("", "not an AsyncAPI description: there is no top-level 'asyncapi' field")
    version = str(data["asyncapi"])
    if not (version.startswith("3.") or version.startswith("2.")):
        raise doc.error("/asyncapi", f"unsupported AsyncAPI version {version!r}; 3.x and 2.x are supported")
    return version


class AsyncAPIDescription:
    """A loaded AsyncAPI description: operations by id, channels by key and pointer, servers by name."""

    kind = "asyncapi"

    def __init__(self, doc: ParsedDoc, version: str, resolver: Resolver) -> None:
        self.location = doc.location
        self.data: dict[str, Any] = doc.data
        self.version = version
        info = self.data.get("info")
        self.title: str | None = info.get("title") if isinstance(info, dict) else None
        self.resolver = resolver
        self._root = Node(doc, (), self.data)
        self.default_content_type = _text(self.data.get("defaultContentType")) or "application/json"
        self.servers: dict[str, AsyncServer] = self._servers()
        self.channels: dict[str, AsyncChannel] = {}
        self._by_pointer: dict[str, AsyncChannel] = {}
        self.operations: dict[str, AsyncOperation] = {}
        if version.startswith("2."):
            self._index_v2()
        else:
            self._index_v3()

    def __repr__(self) -> str:
        return f"AsyncAPIDescription({self.location!r}, version={self.version!r}, title={self.title!r})"

    def operation(self, operation_id: str) -> AsyncOperation | None:
        return self.operations.get(operation_id)

    def channel_at(self, reference: str) -> AsyncChannel | None:
        """A channel by `#/channels/<key>` pointer (a `url#pointer` also works), or by its key."""
        text = reference.partition("#")[2] if "#" in reference else reference
        if text.startswith("/"):
            found = self._by_pointer.get(_normalise(text))
            if found is None and "%" in text:
                found = self._by_pointer.get(_normalise(unquote(text)))
            return found
        return self.channels.get(text)

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        import difflib  # only on the error path

        return difflib.get_close_matches(name, list(self.operations), n=limit, cutoff=0.75)

    @property
    def security_schemes(self) -> dict[str, dict[str, Any]]:
        schemes = self.resolver.follow(self._root.child("components", "securitySchemes"))
        if not isinstance(schemes.value, dict):
            return {}
        out = {}
        for name in schemes.value:
            scheme = self.resolver.follow(schemes.child(name)).value
            if isinstance(scheme, dict):
                out[name] = scheme
        return out

    # -- indexing ------------------------------------------------------------------------------------

    def _mapping(self, node: Node, what: str) -> Node:
        node = self.resolver.follow(node)
        if node.value is None:
            return node._replace(value={})
        if not isinstance(node.value, dict):
            raise node.error(f"'{what}' must be a mapping")
        return node

    def _servers(self) -> dict[str, AsyncServer]:
        servers = self._mapping(self._root.child("servers"), "servers")
        found = {}
        for name in servers.value:
            node = self._mapping(servers.child(name), f"servers/{name}")
            raw = node.value
            protocol = _text(raw.get("protocol"))
            if not protocol:
                raise node.error(f"server '{name}' has no protocol")
            if "host" in raw:  # 3.0
                host, pathname = _text(raw.get("host")) or "", _text(raw.get("pathname")) or ""
            else:  # 2.6: url, maybe with a scheme
                host, pathname = _split_url(_text(raw.get("url")) or "")
            found[name] = AsyncServer(
                name,
                protocol.lower(),
                host,
                pathname,
                _text(raw.get("protocolVersion")),
                self.resolver.deep(node.child("variables")) or {},
                _security_names(node.child("security").value),
                self.resolver.deep(node.child("bindings")) or {},
            )
        return found

    def _message(self, node: Node, name: str) -> AsyncMessage:
        pointer = node.pointer
        node = self._mapping(node, f"message {name}")
        raw = node.value
        correlation = self.resolver.follow(node.child("correlationId")).value
        location = _text(correlation.get("location")) if isinstance(correlation, dict) else None
        return AsyncMessage(
            name,
            pointer,
            self.resolver.deep(node.child("payload")),
            self.resolver.deep(node.child("headers")),
            _text(raw.get("contentType")) or self.default_content_type,
            location,
        )

    def _messages(self, node: Node) -> list[AsyncMessage]:
        """A 3.0 messages map or list (of Reference Objects), or a 2.6 `message` with its `oneOf`."""
        node = self.resolver.follow(node)
        value = node.value
        if value is None:
            return []
        if isinstance(value, list):
            return [
                self._message(node.child(str(i)), _ref_name(item, str(i))) for i, item in enumerate(value)
            ]
        if not isinstance(value, dict):
            raise node.error("'messages' must be a mapping or a list")
        if isinstance(value.get("oneOf"), list):
            return self._messages(node.child("oneOf"))
        if node.tokens and node.tokens[-1] == "message":  # 2.6: one message object
            return [self._message(node, _text(value.get("name")) or node.tokens[-2])]
        return [self._message(node.child(key), key) for key in value]

    def _channel(self, key: str, node: Node, address: str | None) -> AsyncChannel:
        raw = node.value
        servers = raw.get("servers")
        return AsyncChannel(
            key,
            format_pointer(("channels", key)),
            address,
            self.resolver.deep(node.child("parameters")) or {},
            self._messages(node.child("messages")),
            [_ref_name(s, "") for s in servers] if isinstance(servers, list) else [],
            self.resolver.deep(node.child("bindings")) or {},
        )

    def _add_channel(self, channel: AsyncChannel) -> None:
        self.channels[channel.key] = channel
        self._by_pointer[channel.pointer] = channel

    def _index_v3(self) -> None:
        channels = self._mapping(self._root.child("channels"), "channels")
        for key in channels.value:
            node = self._mapping(channels.child(key), f"channels/{key}")
            address = node.value.get("address", key)
            self._add_channel(self._channel(key, node, None if address is None else str(address)))
        operations = self._mapping(self._root.child("operations"), "operations")
        for op_id in operations.value:
            node = self._mapping(operations.child(op_id), f"operations/{op_id}")
            self.operations[op_id] = self._operation_v3(op_id, node)

    def _operation_v3(self, op_id: str, node: Node) -> AsyncOperation:
        raw = node.value
        action = raw.get("action")
        if action not in ACTIONS:
            raise node.child("action").error(f"operation '{op_id}' needs action send or receive")
        channel = self._channel_of(node.child("channel"), f"operation '{op_id}'")
        if channel is None:
            raise node.error(f"operation '{op_id}' names no channel")
        reply = None
        reply_node = self.resolver.follow(node.child("reply"))
        if isinstance(reply_node.value, dict):
            reply_channel = self._channel_of(reply_node.child("channel"), f"the reply of '{op_id}'")
            reply = AsyncReply(reply_channel, self._messages(reply_node.child("messages")))
        return AsyncOperation(
            op_id,
            node.pointer,
            action,
            channel,
            self._messages(node.child("messages")),
            reply,
            _security_names(node.child("security").value),
            self.resolver.deep(node.child("bindings")) or {},
        )

    def _channel_of(self, node: Node, who: str) -> AsyncChannel | None:
        """The indexed channel a `channel: {$ref: '#/channels/x'}` names (a channel of this document)."""
        value = node.value
        if value is None:
            return None
        ref = value.get("$ref") if isinstance(value, dict) else None
        if isinstance(ref, str) and ref.startswith("#/"):
            found = self._by_pointer.get(_normalise(ref[1:]))
            if found is not None:
                return found
        target = self._mapping(node, who)
        key = target.tokens[-1] if target.tokens else who
        address = target.value.get("address", key)
        return self._channel(key, target, None if address is None else str(address))

    def _index_v2(self) -> None:
        channels = self._mapping(self._root.child("channels"), "channels")
        for key in channels.value:
            node = self._mapping(channels.child(key), f"channels/{key}")
            messages: list[AsyncMessage] = []
            found: list[tuple[str, Node]] = []
            for verb, action in (("publish", "receive"), ("subscribe", "send")):
                op = self.resolver.follow(node.child(verb))
                if isinstance(op.value, dict):
                    found.append((action, op))
                    messages.extend(self._messages(op.child("message")))
            channel = _with_messages(self._channel(key, node, key), messages)
            self._add_channel(channel)
            for action, op in found:
                op_id = _text(op.value.get("operationId"))
                if op_id:
                    self.operations[op_id] = AsyncOperation(
                        op_id,
                        op.pointer,
                        action,
                        channel,
                        self._messages(op.child("message")),
                        None,
                        _security_names(op.child("security").value),
                        self.resolver.deep(op.child("bindings")) or {},
                    )


def _with_messages(channel: AsyncChannel, messages: list[AsyncMessage]) -> AsyncChannel:
    return AsyncChannel(
        channel.key,
        channel.pointer,
        channel.address,
        channel.parameters,
        messages,
        channel.servers,
        channel.bindings,
    )


def _security_names(value: Any) -> list[str]:
    """The scheme names a `security` list uses: 3.0 lists Reference Objects to
    `#/components/securitySchemes/<name>`, 2.6 lists `{<name>: [scopes]}` requirements."""
    names: list[str] = []
    for item in value if isinstance(value, list) else ():
        if isinstance(item, dict) and "$ref" in item:
            names.append(_ref_name(item, ""))
        elif isinstance(item, dict):
            names.extend(str(k) for k in item)
    return [n for n in names if n]


def _ref_name(item: Any, default: str) -> str:
    """The last token of a `$ref` (a server or message reference), or `default`."""
    ref = item.get("$ref") if isinstance(item, dict) else None
    if isinstance(ref, str):
        return unquote(ref.rsplit("/", 1)[-1]).replace("~1", "/").replace("~0", "~")
    return str(item) if isinstance(item, str) else default


def _split_url(url: str) -> tuple[str, str]:
    rest = url.split("://", 1)[1] if "://" in url else url
    host, slash, path = rest.partition("/")
    return host, (slash + path) if slash else ""


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _normalise(pointer: str) -> str:
    try:
        return format_pointer(parse_pointer(pointer))
    except ExpressionError:
        return pointer
