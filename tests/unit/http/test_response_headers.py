"""A response's headers as the transport keeps them (http/transport.py `_pairs`) and its Set-Cookie
noticed (http/run_client.py `_sets_cookies`): the same as httpx's own reading of them, on a real server,
for ASCII, UTF-8 and Latin-1 values, repeated names and names in any case."""

from __future__ import annotations

import gzip

import httpx
import pytest

from arazzo_runner.executor.runtime import drive
from arazzo_runner.http.headers import Headers
from arazzo_runner.http.request import PreparedRequest, RequestView
from arazzo_runner.http.transport import new_client, send
from tests.servers.scripted import ScriptedServer

ANSWERS = {
    "/ascii": {"X-A": "1", "x-a": "2", "Content-Type": "application/json", "content-type": "charset=utf-8"},
    "/utf8": {"Content-Type": "text/plain", "X-Name": "Zoë".encode().decode("latin-1")},  # UTF-8 bytes
    "/latin1": {"Content-Type": "text/plain", "X-Name": "Zoë"},  # one Latin-1 byte: not UTF-8
    "/cookie": {"SET-COOKIE": "sid=s1; Path=/", "Content-Type": "text/plain"},
    "/gzip": {"CONTENT-ENCODING": "gzip", "Content-Type": "text/plain"},  # decoded, whatever its case
}
BODIES = {"/gzip": gzip.compress(b"unzipped")}


@pytest.mark.parametrize("path", list(ANSWERS))
def test_response_headers_are_the_ones_httpx_reads(path) -> None:
    with ScriptedServer() as server:
        server.reply("GET", path, (200, BODIES.get(path, b"ok"), ANSWERS[path]))
        server.reply("GET", "/next", (200, b"ok", {}))
        client = new_client(5.0, blocking=True)
        response = drive(
            send(client, PreparedRequest("GET", server.url + path, [], None, RequestView()), timeout=5.0)
        )
        drive(
            send(client, PreparedRequest("GET", server.url + "/next", [], None, RequestView()), timeout=5.0)
        )
        drive(client.aclose())
        theirs = httpx.get(server.url + path)
    ours = [item for item in response.headers.items() if item[0] != "date"]  # each answer's own
    assert ours == [item for item in Headers(theirs.headers.multi_items()).items() if item[0] != "date"]
    assert response.content_type == theirs.headers.get("content-type")
    assert response.content == theirs.content  # decoded
    if path == "/ascii":
        assert response.headers["x-a"] == "1, 2"
    elif path in ("/utf8", "/latin1"):
        assert response.headers["x-name"] == "Zoë"
    sent_back = server.requests[1].headers.get("cookie")
    assert sent_back == ("sid=s1" if path == "/cookie" else None)
