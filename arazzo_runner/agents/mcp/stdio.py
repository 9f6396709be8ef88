"""`arazzo mcp`'s stdio transport: stdin and stdout read and written on the server's event loop.

The SDK's `mcp.server.stdio.stdio_server` reads and writes through anyio's file wrappers: every line read,
every message written and every flush is a call handed to a worker thread and its answer handed back
to the loop, three thread hops for each tool call, ~0.5 ms of CPU a call here. These pipes are read and
written by the loop itself (`connect_read_pipe` / `connect_write_pipe`), feeding the SDK's server the
same streams of `SessionMessage` (or of the `Exception` a line that is not JSON-RPC makes) that
`stdio_server` gives it, with its rules:

- a message is one line of JSON (UTF-8, undecodable bytes replaced, as the SDK's text wrapper does); a
  line ends at `\\n`, `\\r\\n` or `\\r` (the SDK reads in universal-newline mode); a blank line is
  nothing;
- a line that is not a JSON-RPC message goes to the server as the exception its validation raised, as
  the SDK's transport sends it (the server logs it and answers nothing);
- each message written is one line, all of it in the pipe before the next is written (what the pipe
  does not take at once is waited for), so a client that stops reading stops the server's writing,
  not its memory;
- while serving, fd 0 reads the null device and fd 1 writes to stderr, as with the SDK: a child or a
  stray print cannot read the client's messages or write into the wire; both are restored at the end.

Bounds the SDK's transport does not have: a line longer than `MAX_LINE` (4 MiB, the SDK's limit on
an HTTP request body) is not kept: its bytes are dropped as they arrive, and the request is answered
with an `Invalid Request` error, under its id when the line starts as the SDK's client writes a
request (`{"jsonrpc":"2.0","id":...`), else under the id null (JSON-RPC's answer when the id cannot be
read). At most `MAX_QUEUED` lines, and `MAX_LINE` bytes of them, wait for the server; past that the
pipe is not read until it takes some.

Where the loop cannot watch the standard streams (a regular file: `arazzo mcp ... < requests.jsonl`,
the null device; a platform without Unix pipes), or stdin and stdout are one socket (which the loop's
write transport would take as closed at the client's next request), the SDK's transport serves them
instead (`open_stdio`); a regular file is served as a batch, every request in it answered before the
server ends (`drain.py`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import re
import stat
import sys
from collections.abc import AsyncIterator
from typing import Any

MAX_LINE = 4 * 1024 * 1024
MAX_QUEUED = 64
TOO_LONG = object()  # stands for a line over MAX_LINE in the queue; `_Lines.heads` holds its start
_LINE_ENDS = re.compile(rb"\r\n?|\n")
_REQUEST_ID = re.compile(
    rb'\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,256}")\s*[,}]'
)
INVALID_REQUEST = -32600


@contextlib.asynccontextmanager
async def open_stdio(calls: Any = None) -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) over this process's stdin and stdout, for `Server.run`; with `calls`
    (`ToolCalls`), plain tool calls are answered beside the session (`fast.py`)."""
    pipes = await _Pipes.open()
    if pipes is None:
        from .drain import sdk_stdio

        async with sdk_stdio() as streams:
            yield streams
        return
    import anyio

    from .fast import FastCalls

    fast = FastCalls(calls, pipes.send_line) if calls is not None else None
    read_writer, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, write_reader = anyio.create_memory_object_stream[Any](0)
    try:
        async with anyio.create_task_group() as group:
            pipes.end_with(group.cancel_scope.cancel)  # stdout gone: whichever writer meets it
            group.start_soon(pipes.read_into, read_writer, write_stream.clone(), fast)
            group.start_soon(pipes.write_from, write_reader, group.cancel_scope, fast)
            yield read_stream, write_stream
    finally:
        if fast is not None:
            fast.abort()
        pipes.close()


class _Lines(asyncio.Protocol):
    """stdin's bytes cut into lines as they arrive; a line over MAX_LINE is dropped as it arrives."""

    def __init__(self) -> None:
        self.lines: collections.deque[Any] = collections.deque()
        self.queued = 0  # bytes in `lines`
        self.partial = bytearray()
        self.skipping = False  # inside a line over MAX_LINE: its bytes are dropped until its end
        self.heads: collections.deque[bytes] = collections.deque()  # the start of each such line
        self.waiter: asyncio.Future[None] | None = None
        self.transport: Any = None
        self.paused = self.ended = False
        self.cr = False  # the last chunk ended with `\r`: a `\n` opening the next one ends nothing

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.cr and data.startswith(b"\n"):
            data = data[1:]
        self.cr = data.endswith(b"\r")
        start = 0
        for match in _LINE_ENDS.finditer(data):
            self._piece(data[start : match.start()], True)
            start = match.end()
        if start < len(data):
            self._piece(data[start:], False)
        if (len(self.lines) >= MAX_QUEUED or self.queued > MAX_LINE) and not self.paused:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def _piece(self, piece: bytes, ends: bool) -> None:
        if not self.skipping:
            if len(self.partial) + len(piece) > MAX_LINE:
                self.heads.append(bytes(self.partial[:512] or piece[:512]))
                self.lines.append(TOO_LONG)
                self.partial.clear()
                self.skipping = not ends
            elif ends:
                line = bytes(self.partial + piece) if self.partial else piece
                self.partial.clear()
                if line.strip():
                    self.lines.append(line)
                    self.queued += len(line)
            else:
                self.partial += piece
        elif ends:
            self.skipping = False

    def eof_received(self) -> bool:
        self._end()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    def _end(self) -> None:
        if not self.ended:
            self.ended = True
            if self.partial.strip() and not self.skipping:
                self.lines.append(bytes(self.partial))  # a last line without its line end
                self.queued += len(self.partial)
            self.partial.clear()
            self._wake()

    def _wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def arrival(self) -> asyncio.Future[None]:
        """A future set when more of stdin arrives, or it ends."""
        if self.waiter is None or self.waiter.done():
            self.waiter = asyncio.get_running_loop().create_future()
        return self.waiter

    async def next(self) -> Any:
        """The next line (bytes, or TOO_LONG), or None at the end of stdin."""
        while not self.lines:
            if self.ended:
                return None
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter
            self.waiter = None
        line = self.lines.popleft()
        if line is not TOO_LONG:
            self.queued -= len(line)
        if self.paused and len(self.lines) < MAX_QUEUED // 2 and self.queued <= MAX_LINE // 2:
            self.paused = False
            self.transport.resume_reading()
        return line


class _Writes(asyncio.Protocol):
    """stdout's flow control: `drain` waits while the pipe is full; `lost` once the client left."""

    def __init__(self) -> None:
        self.resumed: asyncio.Future[None] | None = None
        self.lost = False
        self.on_lost: Any = None  # ends the session (the task group's cancel scope)

    def pause_writing(self) -> None:
        self.resumed = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self.resumed is not None and not self.resumed.done():
            self.resumed.set_result(None)
        self.resumed = None

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.resume_writing()
        if self.on_lost is not None:
            self.on_lost()

    async def drain(self) -> None:
        if self.resumed is not None:
            await self.resumed


class _Pipes:
    """fd 0 and fd 1 claimed (served from private duplicates, the standard ones diverted) and watched
    by the loop."""

    def __init__(self) -> None:
        self.saved: list[tuple[int, int, bool]] = []  # (standard fd, its private duplicate, blocking)
        self.reopened: list[int] = []  # own file descriptions of a terminal or pipe, for the loop alone
        self.transports: list[Any] = []
        self.lines: _Lines | None = None
        self.writes: _Writes | None = None
        self.writer: Any = None

    @classmethod
    async def open(cls) -> _Pipes | None:
        """The claimed pipes, or None when the loop cannot watch them (the caller falls back)."""
        if sys.platform == "win32" or not all(_watchable(fd) for fd in (0, 1)) or _one_socket():
            return None
        pipes = cls()
        loop = asyncio.get_running_loop()
        try:
            reading = pipes._claim(0, os.O_RDONLY)
            writing = pipes._claim(1, os.O_WRONLY)
            read_file = os.fdopen(reading, "rb", buffering=0, closefd=False)
            transport, pipes.lines = await loop.connect_read_pipe(_Lines, read_file)
            pipes.transports.append(transport)
            write_file = os.fdopen(writing, "wb", buffering=0, closefd=False)
            pipes.writer, pipes.writes = await loop.connect_write_pipe(_Writes, write_file)
            pipes.transports.append(pipes.writer)
            pipes.writer.set_write_buffer_limits(high=0)  # `drain` returns once the line is all written
        except (OSError, ValueError):  # the loop cannot watch one of them (epoll refuses the null device)
            pipes.close()
            return None
        return pipes

    def _claim(self, fd: int, mode: int) -> int:
        import fcntl

        private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
        self.saved.append((fd, private, os.get_blocking(private)))
        diversion = os.open(os.devnull, mode) if fd == 0 else os.dup(2)
        try:
            os.dup2(diversion, fd)
        finally:
            os.close(diversion)
        # The loop makes what it watches non-blocking, and a file description is shared: a terminal's
        # with stderr and the shell, a pipe's with stderr when the client gave one pipe for both
        # (`2>&1`), or with other processes. Made non-blocking, a full pipe or a stalled terminal
        # (Ctrl-S) would fail the server's own diagnostics with BlockingIOError, and a killed server
        # leave the terminal non-blocking. The loop gets a file description of its own on the same
        # terminal or pipe instead (a pipe's through /proc; where that fails, the shared one).
        own: int | None
        if os.isatty(private):
            own = os.open(os.ttyname(private), mode | os.O_NOCTTY | os.O_CLOEXEC)
        else:
            own = _own_pipe(private, mode)
            if own is None:
                return private
        self.reopened.append(own)
        return own

    def close(self) -> None:
        for transport in self.transports:
            # the loop forgets the fds (the files do not close them); what is left unwritten is dropped
            if not transport.is_closing():  # (one the client closed is closed: abort would fail)
                getattr(transport, "abort", transport.close)()
        self.transports.clear()
        for fd, private, blocking in reversed(self.saved):
            with contextlib.suppress(OSError):
                os.dup2(private, fd)
                os.set_blocking(fd, blocking)  # shared with whoever else holds the pipe or the terminal
            with contextlib.suppress(OSError):
                os.close(private)
        self.saved.clear()
        for own in self.reopened:
            with contextlib.suppress(OSError):
                os.close(own)
        self.reopened.clear()

    async def read_into(self, sink: Any, answers: Any, fast: Any = None) -> None:
        """Lines to the server as SessionMessages (or the exception a line that is not one makes)
        until stdin ends; a line over MAX_LINE answered with an error (`answers`: the write stream);
        a plain tool call answered by `fast` (`FastCalls`), when given."""
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        from .fast import parse

        validate = types.jsonrpc_message_adapter.validate_json
        assert self.lines is not None
        async with sink, answers:
            while (line := await self.lines.next()) is not None:
                if line is TOO_LONG:
                    await answers.send(SessionMessage(_too_long(self.lines.heads.popleft())))
                    continue
                text = line.decode("utf-8", "replace")
                if fast is not None and fast.take(parse(text)):
                    if fast.full():  # stdin waits while MAX_PENDING calls are kept, but cancellations
                        await fast.room(self.lines)
                    continue
                try:
                    message = validate(text, by_name=False)
                except Exception as exc:
                    await sink.send(exc)
                    continue
                await sink.send(SessionMessage(message))
            if fast is not None:
                await fast.close()

    async def write_from(self, source: Any, scope: Any, fast: Any = None) -> None:
        """Each message the server sends as one line on stdout; the client gone, the session ends."""
        assert self.writes is not None
        async with source:
            async for session_message in source:
                if fast is not None:
                    fast.sent(session_message.message)
                await self.send_line(_line(session_message.message))
                if self.writes.lost:
                    break
        if self.writes.lost:
            scope.cancel()

    def end_with(self, end: Any) -> None:
        """`end()` is called once the client closes stdout (at once if it has)."""
        assert self.writes is not None
        self.writes.on_lost = end
        if self.writes.lost:
            end()

    async def send_line(self, line: bytes) -> None:
        """`line` written whole on stdout (one `write`: lines from concurrent writers never mix) and
        waited for while the pipe is full; nothing once the client left."""
        assert self.writes is not None
        if not self.writes.lost:
            self.writer.write(line)
            await self.writes.drain()


def _line(message: Any) -> bytes:
    """`message` as one line of JSON; a lone surrogate (an API's `"\\ud800"`, which Python's JSON reads)
    escaped, as `fast.encode` writes it, where pydantic's JSON cannot write it."""
    try:
        return message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8") + b"\n"
    except ValueError:  # PydanticSerializationError: UnicodeEncodeError
        from .fast import encode

        return encode(message.model_dump(mode="python", by_alias=True, exclude_unset=True))


def _too_long(head: bytes) -> Any:
    import mcp_types as types

    found = _REQUEST_ID.match(head)
    request_id: Any = None
    if found:
        text = found.group(1).decode("utf-8", "replace")
        request_id = text[1:-1] if text.startswith('"') else int(text)
    message = f"the message is longer than {MAX_LINE} bytes, the most this server reads; it was not read"
    error = types.ErrorData(code=INVALID_REQUEST, message=message)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def _own_pipe(fd: int, mode: int) -> int | None:
    """A file description of its own on the pipe `fd` (Linux's /proc/self/fd opens the pipe anew), or
    None: not a pipe, or no /proc. Opened non-blocking: a pipe whose other end is closed would block
    the open (for reading) or refuse it (for writing: then the shared description serves)."""
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
        return os.open(f"/proc/self/fd/{fd}", mode | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None


def _one_socket() -> bool:
    """Whether stdin and stdout are one socket (inetd, systemd's socket activation, socat's EXEC): the
    loop's write transport takes a socket it can read as closed by its peer, so the client's next
    request would end the answers."""
    try:
        reading, writing = os.fstat(0), os.fstat(1)
    except OSError:
        return False
    return stat.S_ISSOCK(writing.st_mode) and (reading.st_dev, reading.st_ino) == (
        writing.st_dev,
        writing.st_ino,
    )


def _watchable(fd: int) -> bool:
    """Whether the loop can watch `fd`: a pipe, a socket or a terminal, which a selector of the loop's
    kind accepts (epoll refuses a regular file and the null device; the loop would find out only in a
    callback, the transport never reading)."""
    import selectors

    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)):
            return False
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ if fd == 0 else selectors.EVENT_WRITE)
    except (OSError, ValueError):
        return False
    return True
