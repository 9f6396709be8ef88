"""A real MQTT 3.1.1 broker (amqtt, from the `test` extra) on a free port of 127.0.0.1, as a process.

Run as `python -m tests.servers.mqtt_broker`; prints `PORT <n>` once it listens, runs until killed.
`--users FILE` (a JSON {user: password}) turns anonymous access off."""

from __future__ import annotations

import asyncio
import logging
import sys


async def main() -> None:
    from amqtt.broker import Broker

    config = {
        "listeners": {"default": {"type": "tcp", "bind": "127.0.0.1:0"}},
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }
    broker = Broker(config)
    await broker.start()
    port = broker._servers["default"].instance.sockets[0].getsockname()[1]
    print(f"PORT {port}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    logging.disable(logging.CRITICAL)  # a broker process of the tests: its log is noise
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
