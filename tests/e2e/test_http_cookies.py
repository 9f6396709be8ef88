"""The run's client keeps cookies a server sets, like any HTTP client: a session cookie from one step is
sent by the next (the engine only skips the cookie jar for responses that set none)."""

from __future__ import annotations

import arazzo_runner
from tests.e2e.conftest import arazzo_doc


def test_a_session_cookie_set_by_one_step_is_sent_by_the_next(server, write):
    server.reply("GET", "/pets", (200, [], {"Set-Cookie": "sid=abc123; Path=/"}))
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    steps = [
        {"stepId": "login", "operationId": "listPets"},
        {
            "stepId": "next",
            "operationId": "getPet",
            "parameters": [{"name": "petId", "in": "path", "value": 1}],
        },
        {
            "stepId": "again",
            "operationId": "getPet",
            "parameters": [{"name": "petId", "in": "path", "value": 2}],
        },
    ]
    path = write(arazzo_doc({"workflowId": "w", "steps": steps}))
    result = arazzo_runner.run(str(path), servers={"pets": server.url})
    assert result.ok, result.to_dict()
    first, second, third = server.requests
    assert "cookie" not in first.headers
    assert second.headers["cookie"] == "sid=abc123"
    assert third.headers["cookie"] == "sid=abc123"


def test_runs_do_not_share_cookies(server, write):
    server.reply("GET", "/pets", (200, [], {"Set-Cookie": "sid=abc123; Path=/"}))
    path = write(arazzo_doc({"workflowId": "w", "steps": [{"stepId": "s", "operationId": "listPets"}]}))
    doc = arazzo_runner.load(path)
    for _ in range(2):
        assert arazzo_runner.run(doc, servers={"pets": server.url}).ok
    assert [r.headers.get("cookie") for r in server.requests] == [None, None]


def test_a_cookie_set_in_utf8_is_sent_back_as_it_came(server, write):
    """Servers set cookies holding UTF-8 text (RFC 6265 says ASCII; browsers accept it): the next step
    sends it back, where its request used to fail with a UnicodeEncodeError traceback."""
    as_sent = "sid=Zoë; Path=/".encode().decode("latin-1")  # the test server writes headers in latin-1
    server.reply("GET", "/pets", (200, [], {"Set-Cookie": as_sent}))
    server.reply("GET", "/pets/{petId}", (200, {"id": 1}))
    get = {
        "stepId": "next",
        "operationId": "getPet",
        "parameters": [{"name": "petId", "in": "path", "value": 1}],
    }
    path = write(
        arazzo_doc({"workflowId": "w", "steps": [{"stepId": "login", "operationId": "listPets"}, get]})
    )
    result = arazzo_runner.run(str(path), servers={"pets": server.url})
    assert result.ok, result.to_dict()
    received = server.requests[1].headers["cookie"]  # read by the test server as latin-1
    assert received.encode("latin-1").decode("utf-8") == "sid=Zoë"
