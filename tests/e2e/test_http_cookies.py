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
