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
