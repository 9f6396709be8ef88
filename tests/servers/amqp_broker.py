"""A real AMQP 0-9-1 server on a free port of 127.0.0.1, as a process: the wire-protocol server of the
`amqp-mock` package (from the `test` extra; pamqp frames over TCP), not RabbitMQ.

Run as `python -m tests.servers.amqp_broker`; prints `PORT <n>` once it listens, runs until killed.

amqp-mock 0.6 departs from AMQP 0-9-1 (and RabbitMQ) in four ways that would break any client that
publishes and consumes on one connection, connects more than once, or has two subscriptions to one
address; the subclasses below put back what the specification says, and nothing more:

- one counter numbered both the publisher confirms and the deliveries of a connection, so after the
  first delivery a confirm carried a tag the client never used and `publish` waited forever. Here
  each channel numbers its own publishes, and confirms only once the client asked (`confirm.select`).
- `queue.declare` with an empty name answered an empty name, so every exclusive queue was one queue.
  Here the server names it (`amq.gen-...`), as the specification says.
- a connection that closed left its consumers running: the next message on their queue went to a dead
  socket and was lost. Here a closed connection's consumers are cancelled and its server-named
  (exclusive) queues deleted.
- an exchange kept one queue per routing key (a second binding replaced the first). Here a direct
  exchange routes a message to every queue bound with its key, a fanout one to every bound queue.

What it still does not do (see docs/events.md): topic and headers exchanges, 404 for an exchange or a
queue that does not exist, 406 for a queue redeclared with other properties, authentication (any login
passes), bodies split over several frames, and byte-exact bodies (a JSON body is re-encoded).
"""

from __future__ import annotations

import asyncio
import logging
import sys
import uuid
from collections import defaultdict
from typing import Any


def _classes() -> tuple[Any, Any]:
    from amqp_mock import AmqpServer, Storage
    from amqp_mock.amqp_server import AmqpConnection
    from pamqp import commands

    class Bindings(Storage):
        def __init__(self) -> None:
            super().__init__()
            self._binds = defaultdict(lambda: defaultdict(set))  # exchange -> routing key -> queues

        async def clear(self) -> None:
            await super().clear()
            self._binds = defaultdict(lambda: defaultdict(set))

        async def bind_queue_to_exchange(self, queue: str, exchange: str, routing_key: str = "") -> None:
            await self.declare_queue(queue)
            self._binds[exchange][routing_key].add(queue)

        async def add_message_to_exchange(self, exchange: str, message: Any) -> None:
            await self.declare_exchange(exchange)
            kind, binds = self._exchange_types[exchange], self._binds.get(exchange, {})
            if kind == "direct":
                queues = set(binds.get(message.routing_key, ()))
            elif kind == "fanout":
                queues = set().union(*binds.values())
            else:
                raise RuntimeError(f"{kind} exchanges not supported")  # as amqp-mock itself
            for queue in sorted(queues):
                await self.add_message_to_queue(queue, message)

    class Connection(AmqpConnection):
        def __init__(self, *args: Any, storage: Any, **kwargs: Any) -> None:
            self._storage = storage
            self._published: dict[int, int] = {}  # channel -> publishes so far, once in confirm mode
            self._named: set[str] = set()  # the queues the server named for this connection
            super().__init__(*args, **kwargs)

        async def _send_confirm_select_ok(self, channel_id: int, frame_in: Any) -> None:
            self._published[channel_id] = 0
            await super()._send_confirm_select_ok(channel_id, frame_in)

        async def _handle_content_body(self, channel_id: int, frame_in: Any) -> None:
            if self._incoming_message:
                self._incoming_message.value = frame_in.value
                if self._on_publish:
                    await self._on_publish(self._incoming_message)
                self._incoming_message = None
            if channel_id in self._published:
                self._published[channel_id] += 1
                ack = commands.Basic.Ack(delivery_tag=self._published[channel_id], multiple=False)
                await self._send_frame(channel_id, ack)

        async def _send_queue_declare_ok(self, channel_id: int, frame_in: Any) -> None:
            if not frame_in.queue:
                frame_in.queue = f"amq.gen-{uuid.uuid4().hex}"
                self._named.add(frame_in.queue)
            await super()._send_queue_declare_ok(channel_id, frame_in)

        async def _reader_task(self, reader: Any) -> None:
            try:
                await super()._reader_task(reader)
            finally:
                for channel_id, tag in list(self._consumers):
                    await self._cancel_consumer(channel_id, tag)
                for name in self._named:
                    self._storage._queues.pop(name, None)
                    for binds in self._storage._binds.values():
                        for queues in binds.values():
                            queues.discard(name)

    class Server(AmqpServer):
        def __call__(self, reader: Any, writer: Any) -> Any:
            connection = Connection(
                reader, writer, self._on_consume, self._server_properties, storage=self._storage
            )
            connection.on_publish(self._on_publish).on_bind(self._on_bind)
            connection.on_declare_exchange(self._on_declare_exchange)
            connection.on_declare_queue(self._on_declare_queue)
            connection.on_ack(self._on_ack).on_nack(self._on_nack).on_close(self._on_close)
            self._connections.append(connection)
            return connection

    return Server, Bindings


async def main() -> None:
    server_class, storage_class = _classes()
    server = server_class(storage_class(), host="127.0.0.1", port=0)
    listener = await asyncio.start_server(server, host="127.0.0.1", port=0)
    print(f"PORT {listener.sockets[0].getsockname()[1]}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    logging.disable(logging.CRITICAL)  # a broker process of the tests: its log is noise
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
