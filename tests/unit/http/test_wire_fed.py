"""`http/wire.py` at edges a socket cannot be made to show on demand: the response head bound (httpcore's
limit for h11 is 100 KiB of a head not yet ended, more refused, that many accepted) and bytes past a
response arriving in a packet of their own. The bytes are handed to the connection's protocol as the
event loop would, in the pieces the test chooses (over a socket the kernel decides them), with a
transport that records what it is asked."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import httpcore
import pytest

from arazzo_runner.http.wire import Wire

H11_LIMIT = 100 * 1024  # httpcore's h11 max_incomplete_event_size: written out, not read from the module
STATUS = b"HTTP/1.1 200 OK\r\n"


class _Transport:
    """What `Wire` asks of an asyncio transport, recorded."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.aborted = False

    def get_extra_info(self, name: str) -> object:
        return self

    def fileno(self) -> int:
        return -1

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def abort(self) -> None:
        self.aborted = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def _unended_head(size: int) -> bytes:
    """A status line and header lines of `size` bytes in all, the blank line ending the head not yet."""
    lines = [STATUS]
    left = size - len(STATUS)
    while left:
        value = min(left, 1000) - len(b"X-F: \r\n")
        if value < 1:  # keep every line well formed: the last one takes what the others left
            lines[-1] = lines[-1][:-2] + b"y" * left + b"\r\n"
            break
        lines.append(b"X-F: " + b"a" * value + b"\r\n")
        left -= len(lines[-1])
    head = b"".join(lines)
    assert len(head) == size
    return head


def _exchange(size: int) -> tuple[bool, int | str]:
    """Feed an unended head of `size` bytes, then its end and a body: (refused before the end, the status
    or the failure's words)."""

    async def main() -> tuple[bool, int | str]:
        wire = Wire((b"http", b"example.test", 80), asyncio.get_running_loop())
        transport = _Transport()
        wire.connection_made(transport)
        request = httpcore.Request("GET", "http://example.test/", headers=[(b"Host", b"example.test")])
        sending = asyncio.ensure_future(wire.send(request, {}))
        await asyncio.sleep(0)  # the request written, its answer awaited
        assert transport.written and transport.written[0].startswith(b"GET / HTTP/1.1\r\n")
        head = _unended_head(size)
        for start in range(0, size, 4096):  # in pieces, as a socket delivers them
            wire.data_received(head[start : start + 4096])
        refused = transport.aborted
        if not refused:
            wire.data_received(b"\r\n")
        try:
            response = await sending
        except httpcore.RemoteProtocolError as exc:
            return refused, str(exc)
        return refused, response.status

    return asyncio.run(main())


def test_a_head_of_exactly_the_limit_not_yet_ended_is_read_on():
    assert _exchange(H11_LIMIT) == (False, 200)


@pytest.mark.parametrize("size", [H11_LIMIT + 1, H11_LIMIT + 4096])
def test_a_head_past_the_limit_not_yet_ended_is_refused(size):
    assert _exchange(size) == (True, "Receive buffer too long")


@pytest.mark.parametrize("past", [b"", b"HTTP/1.1 200 OK\r\n", b"junk"])
def test_bytes_past_a_response_in_a_packet_of_their_own_make_its_connection_not_reusable(past):
    """The response is complete (its Content-Length read); bytes arrive after it, before the caller took
    its body: the connection is not used again (the next request would have them for its answer), be
    they the start of a response or not (`junk`: not one the parser would take for another message)."""

    async def main() -> tuple[bytes, bool]:
        wire = Wire((b"http", b"example.test", 80), asyncio.get_running_loop())
        wire.connection_made(_Transport())
        request = httpcore.Request("GET", "http://example.test/", headers=[(b"Host", b"example.test")])
        sending = asyncio.ensure_future(wire.send(request, {}))
        await asyncio.sleep(0)
        wire.data_received(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        await sending
        if past:
            wire.data_received(past)
        body = b""
        while chunk := await wire.next_chunk(None):
            body += chunk
        wire.finish()
        return body, wire.reusable()

    assert asyncio.run(main()) == (b"ok", not past)


def _fed(parts: list[bytes], *, read: int | None = None) -> tuple[int | str, bytes, bool]:
    """A GET answered by `parts`, each handed to the connection as one packet: (the status or the failure's
    words, the body read, whether the connection could carry another request). `read`: the body's chunks
    taken before the response is given up (None: to its end)."""

    async def main() -> tuple[int | str, bytes, bool]:
        wire = Wire((b"http", b"example.test", 80), asyncio.get_running_loop())
        wire.connection_made(_Transport())
        request = httpcore.Request("GET", "http://example.test/", headers=[(b"Host", b"example.test")])
        sending = asyncio.ensure_future(wire.send(request, {}))
        await asyncio.sleep(0)
        for part in parts:
            wire.data_received(part)
        try:
            response = await sending
        except httpcore.RemoteProtocolError as exc:
            return str(exc), b"", False
        body, taken = b"", 0
        while (read is None or taken < read) and (chunk := await wire.next_chunk(None)):
            body, taken = body + chunk, taken + 1
        wire.finish()
        return response.status, body, wire.reusable()

    return asyncio.run(main())


def test_a_repeated_content_length_ending_the_head_is_read_as_one():
    """The repeated field is the head's last line: its line ending is the head's, kept when merged."""
    answer = STATUS + b"Content-Length: 2\r\nContent-Length: 2\r\n\r\nok"
    assert _fed([answer]) == (200, b"ok", True)


def test_a_field_named_like_content_length_is_not_merged_with_it():
    """`X-Content-Length` is another field: the repeated Content-Length is merged, the other one kept."""
    answer = STATUS + b"X-Content-Length: 7\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok"
    assert _fed([answer]) == (200, b"ok", True)


def test_a_chunked_body_past_the_head_bound_is_read_whole():
    """MAX_HEAD bounds bytes that end no chunk-size line or trailer: chunks that arrive whole, however
    many, are the body (bounded by the engine's byte limit), not refused."""
    chunk = b"%x\r\n%s\r\n" % (4096, b"c" * 4096)
    parts = [STATUS + b"Transfer-Encoding: chunked\r\n\r\n"] + [chunk] * 64 + [b"0\r\n\r\n"]
    assert _fed(parts) == (200, b"c" * 4096 * 64, True)


def test_a_body_given_up_before_its_end_leaves_its_connection_not_reusable():
    """The rest of the body would be read as the next request's answer."""
    answer = STATUS + b"Content-Length: 6\r\n\r\nabc"
    assert _fed([answer], read=1) == (200, b"abc", False)


LENGTH = b"Content-Length: 2\r\n"
SPLIT_HEADS = {
    "split-in-the-field": [STATUS + LENGTH + b"Content-Le", b"ngth: 2\r\nX-After: 1\r\n\r\nok"],
    "split-after-it": [STATUS + LENGTH + LENGTH, b"X-After: 1\r\n", b"\r\nok"],
    "a-list": [STATUS + b"Content-Length: 2, 2\r\nX-A", b"fter: 1\r\n\r\n", b"ok"],
    "conflicting": [STATUS + LENGTH + b"Content-Length: 3\r\n", b"\r\nok"],
}
READ = (200, b"ok", True)
SPLIT_EXPECTED = [READ, READ, READ, ("conflicting Content-Length headers", b"", False)]


@pytest.mark.parametrize(
    ("parts", "expected"), list(zip(SPLIT_HEADS.values(), SPLIT_EXPECTED, strict=True)), ids=list(SPLIT_HEADS)
)
def test_a_repeated_content_length_in_a_head_that_comes_in_several_reads_is_read_as_one(parts, expected):
    """llhttp refuses the second Content-Length as it reads it, before the head has ended: the head's
    bytes are kept until it ends, then merged and read again (or refused in h11's words)."""
    assert _fed(parts) == expected


def test_a_head_awaited_whole_past_the_limit_is_refused():
    parts = [STATUS + LENGTH + LENGTH, _unended_head(H11_LIMIT)[len(STATUS) :]]
    assert _fed(parts) == ("Receive buffer too long", b"", False)


INTERIM = b"HTTP/1.1 100 Continue\r\n\r\n"


@pytest.mark.parametrize(
    "parts",
    [
        [INTERIM + STATUS + LENGTH + LENGTH + b"\r\nok"],
        [INTERIM, STATUS + LENGTH + LENGTH + b"\r\nok"],
        [INTERIM + STATUS + LENGTH + LENGTH, b"\r\nok"],
    ],
    ids=["one-read", "interim-apart", "final-head-split"],
)
def test_a_repeated_content_length_after_an_interim_response_is_read_as_one(parts):
    """A 100 Continue before the final response: the final head's repeated Content-Length is merged as
    without it (h11, httpx's own transport, reads it so); it was refused as a duplicate, the merge
    looking at the interim head only."""
    assert _fed(parts) == READ


def test_reads_go_through_one_reused_buffer_and_each_connection_keeps_its_own_bytes():
    """The event loop reads into the buffer `get_buffer` gives (`recv_into`: no fresh 256 KiB mapping a
    read, as `data_received` gets) and calls `buffer_updated`; two connections read in turn through the
    same buffer, and each response keeps the bytes that were its own after the other's overwrote it."""

    async def main() -> list[tuple[int, bytes]]:
        loop = asyncio.get_running_loop()
        wires = [Wire((b"http", b"example.test", 80), loop) for _ in range(2)]
        assert all(isinstance(wire, asyncio.BufferedProtocol) for wire in wires)
        sending = []
        for wire in wires:
            wire.connection_made(_Transport())
            request = httpcore.Request("GET", "http://example.test/", headers=[(b"Host", b"example.test")])
            sending.append(asyncio.ensure_future(wire.send(request, {})))
        await asyncio.sleep(0)
        answers = [
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst",
            b"HTTP/1.1 201 OK\r\nContent-Length: 3\r\n\r\nTWO",
        ]
        buffers = []
        for wire, answer in zip(wires, answers, strict=True):  # as the loop's `recv_into` fills them
            buffer = wire.get_buffer(-1)
            buffer[: len(answer)] = answer
            buffers.append(buffer)
            wire.buffer_updated(len(answer))
        assert buffers[0].obj is buffers[1].obj  # one buffer, overwritten by the second read
        results = []
        for wire, pending in zip(wires, sending, strict=True):
            response = await pending
            body = b""
            while chunk := await wire.next_chunk(None):
                body += chunk
            results.append((response.status, body))
        return results

    assert asyncio.run(main()) == [(200, b"first"), (201, b"TWO")]


def test_a_read_is_wiped_from_the_reused_buffer_once_copied_out():
    """The buffer outlives every run of its thread (a server's tool calls, a batch's rows): a response's
    bytes (a token, a cookie) must not stay in it after their read."""

    async def main() -> bytes:
        loop = asyncio.get_running_loop()
        wire = Wire((b"http", b"example.test", 80), loop)
        wire.connection_made(_Transport())
        request = httpcore.Request("GET", "http://example.test/", headers=[(b"Host", b"example.test")])
        sending = asyncio.ensure_future(wire.send(request, {}))
        await asyncio.sleep(0)
        answer = b"HTTP/1.1 200 OK\r\nSet-Cookie: sid=secret-cookie\r\nContent-Length: 12\r\n\r\nsecret-token"
        buffer = wire.get_buffer(-1)
        buffer[: len(answer)] = answer
        wire.buffer_updated(len(answer))
        response = await sending
        body = b""
        while chunk := await wire.next_chunk(None):
            body += chunk
        assert (response.status, body) == (200, b"secret-token")
        return bytes(buffer)

    left = asyncio.run(main())
    assert b"secret" not in left and left.count(0) == len(left)


def test_each_thread_reads_into_a_buffer_of_its_own():
    """Event loops in two threads (a server's tool calls beside its own loop): a read of one, between the
    loop's `get_buffer` and its `buffer_updated`, is neither overwritten nor wiped by the other thread's
    read meanwhile (one buffer a thread: `threading.local`)."""
    first = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst"
    second = b"HTTP/1.1 201 OK\r\nContent-Length: 3\r\n\r\nTWO"

    def exchange(answer: bytes, meanwhile: Callable[[], None] | None = None) -> tuple[int, bytes]:
        async def main() -> tuple[int, bytes]:
            wire = Wire((b"http", b"example.test", 80), asyncio.get_running_loop())
            wire.connection_made(_Transport())
            request = httpcore.Request("GET", "http://example.test/", headers=[(b"Host", b"example.test")])
            sending = asyncio.ensure_future(wire.send(request, {}))
            await asyncio.sleep(0)
            buffer = wire.get_buffer(-1)  # as the loop's `recv_into` fills it
            buffer[: len(answer)] = answer
            if meanwhile is not None:
                meanwhile()
            wire.buffer_updated(len(answer))
            response = await sending
            body = b""
            while chunk := await wire.next_chunk(None):
                body += chunk
            return response.status, body

        return asyncio.run(main())

    other: list[tuple[int, bytes]] = []

    def read_in_another_thread() -> None:
        thread = threading.Thread(target=lambda: other.append(exchange(second)))
        thread.start()
        thread.join()

    assert exchange(first, read_in_another_thread) == (200, b"first")
    assert other == [(201, b"TWO")]
