"""The rows of `arazzo run --inputs-file` share one connection pool (issue 43): keep-alive connections
serve row after row, while each row keeps its own cookies; the pool keeps a bounded number idle."""

from __future__ import annotations

import asyncio
import json

from tests.e2e.conftest import arazzo_doc
from tests.e2e.helpers import op_step, run_json, workflow


def _count_connections(server) -> list[int]:
    """The TCP connections the scripted server accepts, counted as they come."""
    count = [0]
    accept = server._httpd.process_request

    def counted(*args):
        count[0] += 1
        return accept(*args)

    server._httpd.process_request = counted
    return count


def _rows(tmp_path, count: int):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"n": n}) + "\n" for n in range(1, count + 1)))
    return path


def _session_doc() -> dict:
    """Row n: `listPets` sets its cookie `row=n` (the server answers so), then `getPet` sends whatever
    cookies the row holds, and outputs what the server received."""
    login = op_step(
        "login",
        "listPets",
        parameters=[{"name": "limit", "in": "query", "value": "$inputs.n"}],
        successCriteria=[{"condition": "$statusCode == 200"}],
    )
    get = op_step(
        "get",
        "getPet",
        parameters=[{"name": "petId", "in": "path", "value": "$inputs.n"}],
        successCriteria=[{"condition": "$statusCode == 200"}],
        outputs={"cookie": "$response.body#/cookie"},
    )
    inputs = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    return arazzo_doc(
        workflow("flow", login, get, inputs=inputs, outputs={"cookie": "$steps.get.outputs.cookie"})
    )


def _session_routes(server) -> None:
    @server.route("GET", "/pets")
    def login(request):
        n = request.query["limit"][0]
        return 200, {"had": request.headers.get("cookie")}, {"Set-Cookie": f"row={n}; Path=/"}

    @server.route("GET", "/pets/{petId}")
    def pet(request):
        return 200, {"cookie": request.headers.get("cookie")}


def test_rows_reuse_connections_and_keep_their_cookies_to_themselves(capsys, write, server, tmp_path):
    connections = _count_connections(server)
    _session_routes(server)
    rows = _rows(tmp_path, 40)
    result = run_json(
        capsys, write(_session_doc()), "--inputs-file", rows, "--concurrency", "4", server=server
    )
    assert result.code == 0, result.err
    outputs = [r["result"]["workflows"][0]["outputs"] for r in result.json["rows"]]
    assert outputs == [{"cookie": f"row={n}"} for n in range(1, 41)]  # its own cookie, no other row's
    firsts = [r for r in server.requests if r.path == "/pets"]
    assert [r.headers.get("cookie") for r in firsts] == [None] * 40  # a row starts with no cookie
    # 80 requests, at most 4 in flight: connections are reused across rows (one per row before)
    assert connections[0] <= 8, connections[0]


def test_the_pool_keeps_at_most_max_idle_connections_and_reuses_the_newest(server):
    """Six requests in flight at once open six connections; when they end the pool keeps `max_idle` of
    them (the others are closed) and the next requests go over the kept ones."""
    import httpx

    from arazzo_runner.http.lean_pool import LeanPool, lean_transport

    connections = _count_connections(server)
    server.route("GET", "/pets/{petId}")(lambda request: (200, {"id": request.params["petId"]}))

    async def exchange() -> tuple[int, int]:
        transport = lean_transport(None)
        transport._pool = pool = LeanPool(None, max_idle=2)
        async with httpx.AsyncClient(transport=transport) as client:
            answers = await asyncio.gather(*(client.get(f"{server.url}/pets/{n}") for n in range(6)))
            assert [a.status_code for a in answers] == [200] * 6
            kept = len(pool.connections)
            for n in range(4):  # one after the other: over the kept connections
                assert (await client.get(f"{server.url}/pets/{n}")).status_code == 200
            return kept, len(pool.connections)

    assert asyncio.run(exchange()) == (2, 2)
    assert connections[0] == 6


async def _raw_server(answer) -> tuple[asyncio.AbstractServer, str]:
    """An HTTP/1.1 server written by hand over asyncio, answering each request line with `answer(method,
    path)`'s bytes as they are, so it can break HTTP's framing (what httpx's servers never do)."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                while (await reader.readline()) not in (b"\r\n", b""):
                    pass
                method, path = line.split()[:2]
                writer.write(answer(method, path))
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"


def test_bytes_a_server_sent_past_a_response_never_reach_the_next_row():
    """A body sent with a HEAD answer (or past a Content-Length): h11 kept those bytes and read them as
    the start of the next response on that connection, another row's: it failed with the first row's
    body in its error, or took the injected response (found by review)."""
    from arazzo_runner.executor.runtime import PooledRuntime
    from arazzo_runner.http.request import PreparedRequest
    from arazzo_runner.http.transport import send

    def answer(method: bytes, path: bytes) -> bytes:
        body = b'{"row": "%s"}' % path[1:]
        extra = b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged" if path == b"/2" else b""
        return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s%s" % (
            len(body), body, extra)  # fmt: skip

    async def rows() -> list[object]:
        server, url = await _raw_server(answer)
        runtime = PooledRuntime()
        seen = []
        try:
            for n, method in enumerate(["HEAD", "GET", "GET", "GET"], 1):  # one client a row, one pool
                client = runtime.new_client(5.0)
                try:
                    response = await send(client, PreparedRequest(method, f"{url}/{n}", [], None, None),
                                          timeout=5.0)  # fmt: skip
                    seen.append(response.body)
                finally:
                    await client.aclose()
        finally:
            await runtime.aclose()
            server.close()
        return seen

    assert asyncio.run(rows()) == [None, {"row": "2"}, {"row": "3"}, {"row": "4"}]


def test_an_origin_emptied_while_others_fill_the_pool_is_not_evicted_from():
    """An origin whose last idle connection was taken kept an empty stack; past `max_idle`, eviction took
    the least recently used origin's oldest: `pop from empty list` (IndexError, not a transport error)."""
    import httpx

    from arazzo_runner.http.lean_pool import LeanPool, lean_transport

    def answer(method: bytes, path: bytes) -> bytes:
        return b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    async def exchange() -> int:
        first, a = await _raw_server(answer)
        second, b = await _raw_server(answer)
        release = asyncio.Event()
        transport = lean_transport(None)
        transport._pool = pool = LeanPool(None, max_idle=2)
        async with httpx.AsyncClient(transport=transport) as client:
            assert (await client.get(f"{a}/")).status_code == 200  # a's one idle connection
            async with client.stream("GET", f"{a}/held") as held:  # takes it: a's stack is empty
                answers = await asyncio.gather(*(client.get(f"{b}/{n}") for n in range(4)))
                assert [r.status_code for r in answers] == [200] * 4
                await held.aread()
            release.set()
            kept = len(pool.connections)
        first.close()
        second.close()
        return kept

    assert asyncio.run(exchange()) == 2


def test_idle_connections_the_servers_closed_are_swept_whatever_origin_is_asked():
    """Connections to origins no longer asked were checked only when their own origin was: a long-lived
    MCP server or worker kept them open (CLOSE_WAIT). Each expiry period the pool sweeps them all."""
    import httpx

    from arazzo_runner.http.lean_pool import LeanPool, lean_transport

    async def exchange() -> tuple[int, int]:
        hang_up = asyncio.Event()

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()
            await hang_up.wait()  # then the server goes away, closing its side
            writer.close()

        going = [await asyncio.start_server(handle, "127.0.0.1", 0) for _ in range(2)]
        staying, url = await _raw_server(
            lambda method, path: b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        )
        transport = lean_transport(None)
        transport._pool = pool = LeanPool(None)
        async with httpx.AsyncClient(transport=transport) as client:
            for server in going:
                port = server.sockets[0].getsockname()[1]
                assert (await client.get(f"http://127.0.0.1:{port}/")).status_code == 200
            assert (await client.get(f"{url}/")).status_code == 200
            before = len(pool.connections)
            hang_up.set()
            for _ in range(100):  # until the kernel has told the sockets (not a time bound: a poll)
                if sum(c.has_expired() for c in pool.connections) == 2:
                    break
                await asyncio.sleep(0.02)
            pool._next_sweep = 0.0  # the expiry period is over
            assert (await client.get(f"{url}/")).status_code == 200
            after = len(pool.connections)
        for server in [*going, staying]:
            server.close()
        return before, after

    assert asyncio.run(exchange()) == (3, 1)
