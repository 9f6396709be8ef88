"""An MCP tool call whose workflow's API answers a compression bomb (`arazzo mcp` as a real process on
pipes): the call's step fails at the decoded limit (`--max-response-bytes`, 16 MiB by default) with its
cause in the tool's result, and the server's peak resident memory (VmHWM) grows by a few times the limit
(the kept bytes, their copy, the allocator's slack), not by the bomb's 256 MiB as when it was decoded
whole. The call goes through a run's step (`http/transport.py`),
as `arazzo run` does: the other paths are in test_compression_bombs.py."""

from __future__ import annotations

import pytest

from tests.e2e.test_mcp_stdio import Server, call
from tests.servers.bombs import MiB, bomb, headers
from tests.servers.scripted import ScriptedServer
from tests.untested import not_installed

pytest.importorskip("mcp", reason=not_installed("mcp", "`arazzo mcp` (the MCP server)"))

SIZE = 256 * MiB
LIMIT = 16 * MiB  # the default --max-response-bytes


def test_a_tool_call_answered_by_a_bomb_fails_at_the_decoded_limit_in_bounded_memory(tmp_path):
    data = bomb("gzip, gzip", SIZE)
    with ScriptedServer() as api:
        api.route("GET", "/first/{n}")(lambda request: (200, data, headers("gzip, gzip", None)))
        server = Server(tmp_path, api.url)
        try:
            server.start()
            before = server.peak_rss_kib() * 1024
            server.send(call(1, 3))
            result = server.answer()["result"]
            peak = server.peak_rss_kib() * 1024
            assert server.end() == 0
        finally:
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait()
    grown = peak - before
    assert grown < 4 * LIMIT, f"peak RSS grew by {grown / MiB:.0f} MiB for a {SIZE // MiB} MiB bomb"
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert (
        f"the response body is larger than the limit of {LIMIT} bytes (decoded; max-response-bytes): "
        "it came with Content-Encoding: gzip, gzip, reading stopped at the limit"
    ) in text, text
