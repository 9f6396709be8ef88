"""The reference server's refusals quote the request's values in JSON, the language of the client that
sent them (issue 37, item 5): `(got null)`, never Python's `(got None)`."""

from __future__ import annotations

import httpx


def test_a_refused_request_quotes_its_values_in_json(reference_server):
    body = {
        "model": "m",
        "messages": [{"role": None, "content": "hi"}, {"role": True, "content": "hi"}],
        "tools": [{"type": {"a": [1, None, False]}}],
    }
    headers = {"Authorization": "Bearer test-key"}
    answer = httpx.post(f"{reference_server.url}/chat/completions", json=body, headers=headers, timeout=30)
    assert answer.status_code == 400
    roles = "must be one of system, user, assistant, tool"
    types = "must be one of function, agentaus_web_fetch, agentaus_dataset_search"
    assert answer.json()["data"] == {
        "messages[0].role": [f"{roles} (got null)"],
        "messages[1].role": [f"{roles} (got true)"],
        "tools[0].type": [f'{types} (got {{"a": [1, null, false]}})'],
    }
