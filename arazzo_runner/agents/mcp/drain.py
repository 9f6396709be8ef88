"""A regular file on stdin (`arazzo mcp ... < requests.jsonl`) is a batch: every request in it answered.

At the end of stdin the SDK's session ends at once: the requests still running are cancelled, some
answered `Connection closed` and others not at all, depending on how far each got (10 `tools/call`
lines in a file left 4 to 6 with no answer). For a client on a pipe that is what closing stdin means
(the MCP stdio transport: the client closes stdin to shut the server down). A file's end means nothing
of the kind: the file is all the requests there are, and its reader wants each one's answer. So between
the SDK's transport and its session, `drained` passes every message on as it is and counts the requests
read that are not yet answered; at the end of the file it holds the session's read stream open until
each has its answer (a response or an error under its id), or was cancelled by the file itself
(`notifications/cancelled`: the SDK answers a cancelled request with nothing), and only then ends it.

Ids are compared as the SDK compares them (`"7"` is 7); a request whose id repeats one in flight is
counted twice and needs two answers. A request the session could never answer under its id (the SDK
answers what it cannot read with the id null, and that line is not a request here) is not counted.
"""

from __future__ import annotations

import collections
import contextlib
import os
import stat
from collections.abc import AsyncIterator
from typing import Any


def stdin_is_a_file() -> bool:
    """Whether stdin is a regular file (not a pipe, a socket, a terminal or the null device)."""
    try:
        return stat.S_ISREG(os.fstat(0).st_mode)
    except OSError:
        return False


@contextlib.asynccontextmanager
async def sdk_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's stdio transport (`stdio_server`), for what the loop cannot watch; a regular file on
    stdin served as a batch (`drained`). A client that closed stdout ends the server as on a pipe
    (`stdio.py`): without a traceback, since nothing it writes can be read any more."""
    from mcp.server.stdio import stdio_server

    batch = stdin_is_a_file()  # asked first: the SDK's transport points fd 0 at the null device
    try:
        async with stdio_server() as streams:
            if not batch:
                yield streams
                return
            async with drained(*streams) as inner:
                yield inner
    except Exception as exc:
        if not _reader_gone(exc):
            raise


def _reader_gone(exc: BaseException) -> bool:
    """Whether `exc` (or every exception of its group) says stdout's reader is gone."""
    import anyio

    inner = getattr(exc, "exceptions", None)
    if inner:
        return all(_reader_gone(e) for e in inner)
    return isinstance(exc, (BrokenPipeError, anyio.BrokenResourceError, anyio.ClosedResourceError))


@contextlib.asynccontextmanager
async def drained(read: Any, write: Any) -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) for the session, over `read` and `write` (the transport's): the
    read stream ends only once `read` has ended and every request read from it is answered."""
    import anyio

    batch = _Batch()
    inner_sender, inner_read = anyio.create_memory_object_stream[Any](0)
    inner_write, outer_reader = anyio.create_memory_object_stream[Any](0)

    async def pass_in() -> None:
        async with inner_sender:
            async with read:
                async for item in read:
                    batch.read(getattr(item, "message", None))
                    await inner_sender.send(item)
            await batch.answered.wait()

    async def pass_out() -> None:
        async with outer_reader, write:
            async for item in outer_reader:
                try:
                    await write.send(item)
                except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                    group.cancel_scope.cancel()  # stdout's reader is gone: nothing more is read
                    return
                batch.sent(getattr(item, "message", None))

    async with anyio.create_task_group() as group:
        group.start_soon(pass_out)
        group.start_soon(pass_in)
        try:
            yield inner_read, inner_write
        finally:
            await inner_write.aclose()  # the session has ended (it closes its own): pass_out ends
            group.cancel_scope.cancel()  # pass_in, were the session to end before the file did


class _Batch:
    """The requests read and not yet answered; `answered` is set while there are none."""

    def __init__(self) -> None:
        import anyio

        self.waiting: collections.Counter[Any] = collections.Counter()
        self.answered = anyio.Event()
        self.answered.set()
        self._coerce = _coerce()

    def read(self, message: Any) -> None:
        import mcp_types as types

        if isinstance(message, types.JSONRPCRequest):
            self.waiting[self._coerce(message.id)] += 1
            self._check()
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            params = message.params if isinstance(message.params, dict) else {}
            request_id = params.get("requestId")
            if type(request_id) in (int, str):
                self._done(self._coerce(request_id))

    def sent(self, message: Any) -> None:
        import mcp_types as types

        if isinstance(message, (types.JSONRPCResponse, types.JSONRPCError)) and message.id is not None:
            self._done(self._coerce(message.id))

    def _done(self, key: Any) -> None:
        if self.waiting[key] > 0:
            self.waiting[key] -= 1
            if not self.waiting[key]:
                del self.waiting[key]
        self._check()

    def _check(self) -> None:
        import anyio

        if self.waiting and self.answered.is_set():
            self.answered = anyio.Event()
        elif not self.waiting and not self.answered.is_set():
            self.answered.set()


def _coerce() -> Any:
    """The SDK's reading of a request id (`"7"` is 7), or the id as it is with an SDK without it."""
    try:
        from mcp.shared.dispatcher import coerce_request_id
    except ImportError:
        return lambda request_id: request_id
    return coerce_request_id
