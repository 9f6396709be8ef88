"""The address of an IP literal, found without a lookup: shared by the asyncio connection (`wire.py`)
and the blocking one (`blocking_wire.py`), which send every host name to a resolver that may block (the
loop's executor; a thread of its own within the time left)."""

from __future__ import annotations

import socket
from typing import Any


def numeric_addresses(name: str, port: int) -> list[Any] | None:
    """The address of an IP literal (`127.0.0.1`, `::1`); None for a host name. `loop.getaddrinfo` runs
    every lookup in the default executor, so a run connecting to an IP literal would start a thread (and
    `asyncio.run` another at its end to shut the executor down) for what needs no lookup, and the
    blocking connection would start one to bound the lookup's time: `AI_NUMERICHOST` parses the literal
    and never blocks (~0.4 ms of CPU an asyncio run saved)."""
    if not name[:1].isdigit() and ":" not in name:  # IPv4 starts with a digit; IPv6 (unbracketed) has ":"
        return None
    try:
        return socket.getaddrinfo(name, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
    except OSError:  # a name after all (`1password.example`): socket.gaierror
        return None
